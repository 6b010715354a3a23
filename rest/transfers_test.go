package rest

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// transferPage is an answer of GET /beta/token-transfers.
type transferPage struct {
	Items   []map[string]any
	HasMore bool
}

func (e *env) transfers(query string) transferPage {
	e.t.Helper()
	body := e.mustGet("/beta/token-transfers?" + query).(map[string]any)
	var p transferPage
	for _, it := range body["items"].([]any) {
		p.Items = append(p.Items, it.(map[string]any))
	}
	p.HasMore = body["hasMore"].(bool)
	return p
}

// walk follows the id of each page's last item until hasMore is false, and returns every
// id seen; it fails on a page that is not full while hasMore says more follow.
func (e *env) walk(query string, size int) (ids []string, pages int) {
	e.t.Helper()
	id := ""
	for {
		q := fmt.Sprintf("%s&page_size=%d", query, size)
		if id != "" {
			q += "&id=" + id
		}
		p := e.transfers(q)
		pages++
		for _, it := range p.Items {
			ids = append(ids, it["id"].(string))
		}
		if p.HasMore && len(p.Items) != size {
			e.t.Fatalf("%s: %d items with hasMore", q, len(p.Items))
		}
		if !p.HasMore {
			return ids, pages
		}
		id = p.Items[len(p.Items)-1]["id"].(string)
	}
}

// sqlIDs lists the ids of the transfers matching where, in order.
func (e *env) sqlIDs(where, order string, args ...any) []string {
	e.t.Helper()
	var ids []string
	// timestamp: the transfer's block's (token_transfers keeps no copy of it, migration 00042).
	q := `SELECT block_number || '_' || tx_index || '_' || event_index
		FROM (SELECT e.*, b.timestamp FROM token_transfers_named e JOIN blocks b ON b.number = e.block_number) e WHERE ` + where +
		fmt.Sprintf(` ORDER BY block_number %[1]s, tx_index %[1]s, event_index %[1]s`, order)
	if err := e.db.Select(&ids, q, args...); err != nil {
		e.t.Fatal(err)
	}
	return ids
}

func TestTokenTransfers(t *testing.T) {
	e := newEnv(t)
	eq := func(what string, got, want []string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s:\n got %d %v\nwant %d %v", what, len(got), got, len(want), want)
		}
	}
	all := e.sqlIDs("true", "DESC")
	if len(all) != 4*nBlocks {
		t.Fatalf("the seed has %d transfers, want %d", len(all), 4*nBlocks)
	}

	// Pages of 7: the first, the middle ones and a last shorter one join up, newest first;
	// ascending is the same list reversed, in any case of the value.
	ids, pages := e.walk("order_by=desc", 7)
	eq("desc pages", ids, all)
	if pages != (len(all)+6)/7 {
		t.Errorf("%d pages of 7 for %d transfers", pages, len(all))
	}
	ids, _ = e.walk("order_by=ASC", 7)
	eq("asc pages", ids, e.sqlIDs("true", "ASC"))
	ids, _ = e.walk("", 100) // defaults: newest first, pages of 100
	eq("default pages", ids, all)
	if p := e.transfers(""); len(p.Items) != 100 || !p.HasMore {
		t.Errorf("the default page has %d items (hasMore %v), want 100 and more", len(p.Items), p.HasMore)
	}

	// The id of the last transfer is the end: nothing after it.
	if p := e.transfers("id=" + all[len(all)-1]); len(p.Items) != 0 || p.HasMore {
		t.Errorf("after the oldest transfer: %d items, hasMore %v", len(p.Items), p.HasMore)
	}

	// Each filter, against SQL.
	sender, recipient := account(1), account(2)
	sequencer := db.MustFelt("0x5e9")
	eth := ethAddr.Hex()
	fromTime, toTime := baseTime+50, baseTime+120 // blocks 5 to 12
	for _, c := range []struct {
		query, where string
		args         []any
	}{
		{"token_address=" + eth, "token_address = $1", []any{ethAddr}},
		{"from_address=" + sender.Hex(), "from_address = $1", []any{sender}},
		{"to_address=" + recipient.Hex(), "to_address = $1", []any{recipient}},
		{"from_address=" + sender.Hex() + "&to_address=" + recipient.Hex(), "from_address = $1 AND to_address = $2", []any{sender, recipient}},
		{"from_block=10&to_block=12", "block_number BETWEEN 10 AND 12", nil},
		{"from_block=29", "block_number >= 29", nil},
		{fmt.Sprintf("from_timestamp=%d&to_timestamp=%d", fromTime, toTime), "timestamp BETWEEN $1 AND $2", []any{fromTime, toTime}},
		{fmt.Sprintf("to_timestamp=%d", fromTime-1), "timestamp < $1", []any{fromTime}},
		{"invocation_type=FEE_TRANSFER", "is_fee AND to_address = $1", []any{sequencer}},
		{"invocation_type=execute", "NOT is_fee", nil},
		{"invocation_type=all_except_fee_transfer&to_address=" + recipient.Hex(), "NOT is_fee AND to_address = $1", []any{recipient}},
		{"event_selector=" + db.FeltOf(starknet.Selector("Transfer")).Hex(), "true", nil},
	} {
		want := e.sqlIDs(c.where, "DESC", c.args...)
		if len(want) == 0 {
			t.Fatalf("%s: the seed has no matching transfer, the case proves nothing", c.query)
		}
		ids, _ := e.walk(c.query, 9)
		eq(c.query, ids, want)
	}

	// Empty answers.
	for _, q := range []string{
		"token_address=" + strkAddr.Hex(), // no STRK transfer
		"from_block=31",                   // after the head
		"invocation_type=validate",        // never told apart
		"event_selector=0x1234",           // not a Transfer
		fmt.Sprintf("from_timestamp=%d", baseTime+nBlocks*10+1),
	} {
		if p := e.transfers(q); len(p.Items) != 0 || p.HasMore {
			t.Errorf("%s: %d items, hasMore %v; want none", q, len(p.Items), p.HasMore)
		}
	}

	// An item in full: the newest transfer is block 30's second transaction's fee transfer.
	p := e.transfers("page_size=2")
	fee, moved := p.Items[0], p.Items[1]
	wantFee := map[string]any{
		"id": "30_1_1", "blockNumber": 30.0, "timestamp": float64(baseTime + 300), "transactionHash": txHash(30, 1).Hex(),
		"eventIndex": 1.0, "tokenAddress": ethAddr.Padded(), "tokenName": "Ether", "tokenSymbol": "ETH", "tokenDecimals": 18.0,
		"fromAddress": account(31 % nAccounts).Padded(), "toAddress": sequencer.Padded(), "amount": "48912831549305",
		"invocationType": "FEE_TRANSFER",
	}
	for k, v := range wantFee {
		if fee[k] != v {
			t.Errorf("fee transfer %s = %v, want %v", k, fee[k], v)
		}
	}
	if moved["invocationType"] != "EXECUTE" || moved["amount"] != "7" || moved["toAddress"] != account(32%nAccounts).Padded() {
		t.Errorf("the transfer of the event = %v", moved)
	}
}

// Every parameter refuses what is not its kind, with a 400 that names it.
func TestTokenTransfersBadInput(t *testing.T) {
	e := newEnv(t)
	e.expectRefusals(t, []refusal{
		{"/beta/token-transfers?page_size=0", 400, "page_size"},
		{"/beta/token-transfers?page_size=101", 400, "page_size"},
		{"/beta/token-transfers?page_size=ten", 400, "page_size"},
		{"/beta/token-transfers?token_address=xyz", 400, "token_address"},
		{"/beta/token-transfers?from_address=0x" + strings.Repeat("f", 64), 400, "from_address"}, // above the prime
		{"/beta/token-transfers?to_address=", 400, "to_address"},
		{"/beta/token-transfers?from_block=-1", 400, "from_block"},
		{"/beta/token-transfers?to_block=1.5", 400, "to_block"},
		{"/beta/token-transfers?from_block=5&to_block=4", 400, "from_block"},
		{"/beta/token-transfers?from_timestamp=abc", 400, "from_timestamp"},
		{"/beta/token-transfers?from_timestamp=100&to_timestamp=99", 400, "from_timestamp"},
		{"/beta/token-transfers?to_timestamp=-" + strings.Repeat("9", 30), 400, "to_timestamp"}, // above its domain reads as its largest
		{"/beta/token-transfers?event_selector=Transfer", 400, "event_selector"},
		{"/beta/token-transfers?order_by=sideways", 400, "order_by"},
		{"/beta/token-transfers?invocation_type=SOME", 400, "invocation_type"},
		{"/beta/token-transfers?id=abc", 400, "id"},
		{"/beta/token-transfers?id=1_2", 400, "id"},
		{"/beta/token-transfers?id=1_2_x", 400, "id"},
		{"/beta/token-transfers?id=-1_0_0", 400, "id"},
		{"/beta/token-transfers?id=01_0_0", 400, "id"},
		{"/beta/token-transfers?id=1_2_3_4", 400, "id"},
		{"/beta/token-transfers?id=" + url.QueryEscape("1_2_3\x00"), 400, "id"},
	})
}

func TestContractTransfers(t *testing.T) {
	e := newEnv(t)
	acct := account(1)
	base := "/beta/contracts/" + acct.Hex() + "/transfers"
	get := func(query string) map[string]any { t.Helper(); return e.mustGet(base + "?" + query).(map[string]any) }
	walk := func(query string) []string {
		t.Helper()
		var ids []string
		id := ""
		for pages := 0; ; pages++ {
			q := query + "&ps=10"
			if id != "" {
				q += "&id=" + id
			}
			body := get(q)
			items := body["items"].([]any)
			for _, it := range items {
				ids = append(ids, it.(map[string]any)["id"].(string))
			}
			if body["hasMore"] != true {
				return ids
			}
			if len(items) != 10 || pages > 50 {
				t.Fatalf("%s: %d items with hasMore", q, len(items))
			}
			id = ids[len(ids)-1]
		}
	}
	eq := func(what string, got, want []string) {
		t.Helper()
		if len(want) == 0 {
			t.Fatalf("%s: the seed has no matching transfer, the case proves nothing", what)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s:\n got %v\nwant %v", what, got, want)
		}
	}
	mine := "(from_address = $1 OR to_address = $1)"
	head := baseTime + nBlocks*10

	// The default window is the 90 days up to the newest block: the whole seeded chain.
	body := get("")
	if r := body["range"].(map[string]any); r["to"] != float64(head) || r["from"] != float64(head-90*24*3600) {
		t.Errorf("default range = %v", r)
	}
	eq("all, newest first", walk(""), e.sqlIDs(mine, "DESC", acct))
	eq("oldest first", walk("order_by=asc"), e.sqlIDs(mine, "ASC", acct))
	eq("sent", walk("from="+acct.Hex()), e.sqlIDs("from_address = $1", "DESC", acct))
	eq("received", walk("to="+acct.Hex()), e.sqlIDs("to_address = $1", "DESC", acct))
	eq("fees", walk("invocationType=FEE_TRANSFER"), e.sqlIDs(mine+" AND is_fee", "DESC", acct))
	eq("symbol in any case", walk("symbol=eth"), e.sqlIDs(mine, "DESC", acct))
	eq("token", walk("tokenAddress="+ethAddr.Hex()), e.sqlIDs(mine, "DESC", acct))
	from, to := baseTime+100, baseTime+150
	eq("a window", walk(fmt.Sprintf("timestampFrom=%d&timestampTo=%d", from, to)),
		e.sqlIDs(mine+" AND timestamp BETWEEN $2 AND $3", "DESC", acct, from, to))
	if r := get(fmt.Sprintf("timestampFrom=%d", from))["range"].(map[string]any); r["from"] != float64(from) || r["to"] != float64(from+90*24*3600) {
		t.Errorf("a window from timestampFrom = %v", r)
	}

	for _, q := range []string{"symbol=STRK", "symbol=NOPE", "tokenAddress=" + strkAddr.Hex(), "timestampTo=" + fmt.Sprint(baseTime)} {
		if b := get(q); len(b["items"].([]any)) != 0 || b["hasMore"] != false {
			t.Errorf("%s: %v, want no items", q, b)
		}
	}

	e.expectRefusals(t, []refusal{
		{base + "?timestampFrom=0&timestampTo=" + fmt.Sprint(90*24*3600+1), 400, "timestampFrom"},
		{base + "?timestampFrom=200&timestampTo=100", 400, "timestampFrom"},
		{base + "?type=erc721", 400, "type"},
		{base + "?ps=7", 400, "ps"},
		{base + "?id=7", 400, "id"},
		{base + "?invocationType=x", 400, "invocationType"},
		{base + "?from=0xg", 400, "from"},
		{base + "?symbol=" + strings.Repeat("S", 101), 400, "symbol"},
		{"/beta/contracts/0xzz/transfers", 400, "contractAddress"},
	})
	if r := e.get("/beta/contracts/0x1234/transfers"); r.status != 404 {
		t.Errorf("unknown contract: %d %s", r.status, r.raw)
	}
}

func TestEventActivity(t *testing.T) {
	e := newEnv(t)
	sender, recipient := account(1), account(2)
	get := func(query string) map[string]any {
		t.Helper()
		return e.mustGet("/beta/event-activity?" + query).(map[string]any)
	}
	ids := func(body map[string]any) []string {
		var out []string
		for _, it := range body["items"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	for _, c := range []struct {
		query, where string
		args         []any
	}{
		{"from_address=" + sender.Hex(), "from_address = $1", []any{sender}},
		{"to_address=" + recipient.Hex(), "to_address = $1", []any{recipient}},
		{"from_address=" + sender.Hex() + "&to_address=" + recipient.Hex() + "&from_block=5&to_block=25", "from_address = $1 AND to_address = $2 AND block_number BETWEEN 5 AND 25", []any{sender, recipient}},
	} {
		want := e.sqlIDs(c.where, "DESC", c.args...)
		if len(want) < 8 {
			t.Fatalf("%s: only %d matching transfers in the seed", c.query, len(want))
		}
		// Pages by number: first, middle, last (shorter, hasMore false).
		var got []string
		for page := 1; ; page++ {
			body := get(fmt.Sprintf("%s&page_size=3&page=%d", c.query, page))
			got = append(got, ids(body)...)
			if body["hasMore"] != true {
				break
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s by page:\n got %v\nwant %v", c.query, got, want)
		}
		// By last_id, oldest first; page is not used with it.
		asc := e.sqlIDs(c.where, "ASC", c.args...)
		body := get(c.query + "&sort=ASC&page_size=4&page=9&last_id=" + asc[3])
		if strings.Join(ids(body), ",") != strings.Join(asc[4:min(8, len(asc))], ",") {
			t.Errorf("%s after %s: %v, want %v", c.query, asc[3], ids(body), asc[4:8])
		}
		if end := get(c.query + "&last_id=" + want[len(want)-1]); len(ids(end)) != 0 || end["hasMore"] != false {
			t.Errorf("%s after the last: %v", c.query, end)
		}
	}
	if body := get("from_address=0x1234"); len(ids(body)) != 0 || body["hasMore"] != false {
		t.Errorf("an address without transfers: %v", body)
	}
	e.expectRefusals(t, []refusal{
		{"/beta/event-activity?", 400, "from_address"},
		{"/beta/event-activity?to_block=5", 400, "from_address"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&page=0", 400, "page"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&page=101", 400, "page"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&page_size=101", 400, "page_size"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&token_type=erc721", 400, "token_type"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&sort=up", 400, "sort"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&last_id=x", 400, "last_id"},
		{"/beta/event-activity?from_address=" + sender.Hex() + "&from_block=9&to_block=3", 400, "from_block"},
		{"/beta/event-activity?to_address=0xq", 400, "to_address"},
	})
}
