package resolvers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tokenTransfers' filter and order: each bound, fee transfers apart, oldest first with its
// own cursors, and the arguments it refuses.
func TestTokenTransferFilterAndOrder(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES
		(1, '\x01', '\x00', 100, 'ACCEPTED_ON_L2'), (2, '\x02', '\x01', 200, 'ACCEPTED_ON_L2'), (3, '\x03', '\x02', 300, 'ACCEPTED_ON_L2')`)
	for b := 1; b <= 3; b++ {
		s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, execution_status, finality_status)
			VALUES ($1, 0, $2, 'INVOKE', 3, $3, felt_id('\xaa'), 'SUCCEEDED', 'ACCEPTED_ON_L2')`, b, []byte{0x70, byte(b)}, b*100)
		s.exec(`INSERT INTO token_transfers (block_number, tx_index, event_index, token_id, from_id, to_id, amount, is_fee)
			VALUES ($1, 0, 0, felt_id('\x070c'), felt_id('\xaa'), felt_id('\xbb'), 5, false),
			($1, 0, 1, felt_id('\x070c'), felt_id('\xaa'), felt_id('\x05e9'), 1, true)`, b)
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('token_transfers', 6)`) // kept by the indexer
	type page = connection[struct {
		BlockNumber, EventIndex int
		IsFee                   bool
	}]
	positions := func(p page) string {
		var out []string
		for _, e := range p.Edges {
			fee := ""
			if e.Node.IsFee {
				fee = "f"
			}
			out = append(out, string(rune('0'+e.Node.BlockNumber))+"."+string(rune('0'+e.Node.EventIndex))+fee)
		}
		return strings.Join(out, " ")
	}
	const doc = `query($f: TransferFilter, $o: SortDirection, $after: String, $first: Int) {
		tokenTransfers(filter: $f, order: $o, after: $after, first: $first) {
			totalCount pageInfo { hasNextPage endCursor } edges { node { blockNumber eventIndex isFee } } } }`
	run := func(vars map[string]any) page {
		var out struct{ TokenTransfers page }
		s.mustQuery(doc, vars, &out)
		return out.TokenTransfers
	}
	for _, c := range []struct {
		filter map[string]any
		want   string
	}{
		{nil, "3.1f 3.0 2.1f 2.0 1.1f 1.0"},
		{map[string]any{"fromBlock": 2, "toBlock": 2}, "2.1f 2.0"},
		{map[string]any{"fromTimestamp": 150, "toTimestamp": 300}, "3.1f 3.0 2.1f 2.0"},
		{map[string]any{"toTimestamp": 99}, ""},
		{map[string]any{"invocationType": "FEE_TRANSFER"}, "3.1f 2.1f 1.1f"},
		{map[string]any{"invocationType": "EXECUTE", "toAddress": "0xbb"}, "3.0 2.0 1.0"},
		{map[string]any{"invocationType": "VALIDATE"}, ""},
		{map[string]any{"fromAddress": "0xbb"}, ""},
	} {
		p := run(map[string]any{"f": c.filter})
		if got := positions(p); got != c.want || p.TotalCount != len(p.Edges) {
			t.Errorf("filter %v: %q (totalCount %d), want %q", c.filter, got, p.TotalCount, c.want)
		}
	}

	// Oldest first, two at a time; a cursor of one order is refused by the other.
	first := run(map[string]any{"o": "ASC", "first": 2})
	second := run(map[string]any{"o": "ASC", "first": 2, "after": first.PageInfo.EndCursor})
	if positions(first) != "1.0 1.1f" || positions(second) != "2.0 2.1f" || !second.PageInfo.HasNextPage {
		t.Errorf("ascending pages: %q then %q", positions(first), positions(second))
	}
	resp, _ := s.query(doc, map[string]any{"after": first.PageInfo.EndCursor})
	if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
		t.Errorf("an ascending cursor on the descending list: %+v", resp.Errors)
	}

	for _, f := range []map[string]any{
		{"fromBlock": -1}, {"fromBlock": 3, "toBlock": 2}, {"fromTimestamp": 301, "toTimestamp": 300}, {"toTimestamp": -5},
	} {
		resp, _ := s.query(doc, map[string]any{"f": f})
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(resp.Errors[0].Message, "filter.") {
			t.Errorf("filter %v: %+v, want BAD_USER_INPUT naming the bound", f, resp.Errors)
		}
	}
}

// A transfer's token and USD value are read with its list (they are not resolvers of
// their own), so every list of transfers must read them: a block's page of transactions
// (primed in one statement), one transaction's (through the loaders, asked in fragments)
// and the tokenTransfers connection all answer them, and alike. A list that did not read
// them would answer an error here.
func TestTransferLinksAnswerAlikeOnEveryList(t *testing.T) {
	s, _ := heavyChain(t)
	var block int64
	if err := s.db.Get(&block, `SELECT block_number FROM token_transfers GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	type transfer struct {
		TransactionHash string
		EventIndex      int
		Token           *struct{ Symbol string }
		UsdValue        *float64
	}
	show := func(hash string, tr transfer) string {
		symbol, usd := "no token", "no value"
		if tr.Token != nil {
			symbol = tr.Token.Symbol
		}
		if tr.UsdValue != nil {
			usd = fmt.Sprintf("%.6g", *tr.UsdValue)
		}
		return fmt.Sprintf("%s/%d %s %s", hash, tr.EventIndex, symbol, usd)
	}

	var page struct {
		Block struct {
			Transactions connection[struct {
				Hash           string
				TokenTransfers []transfer
			}]
		}
	}
	s.mustQuery(`query($b: Int!) { block(number: $b) { transactions(first: 100) { edges { node {
		hash tokenTransfers { eventIndex token { symbol } usdValue } } } } } }`, map[string]any{"b": block}, &page)
	var fromPage, fromTx []string
	values := 0
	for _, e := range page.Block.Transactions.Edges {
		for _, tr := range e.Node.TokenTransfers {
			fromPage = append(fromPage, show(e.Node.Hash, tr))
			if tr.UsdValue != nil {
				values++
			}
		}
		var one struct {
			Transaction struct{ TokenTransfers []transfer }
		}
		s.mustQuery(`query($h: Felt!) { transaction(hash: $h) { tokenTransfers {
			eventIndex ... on TokenTransfer { token { symbol } } ...value } } }
			fragment value on TokenTransfer { usdValue }`, map[string]any{"h": e.Node.Hash}, &one)
		for _, tr := range one.Transaction.TokenTransfers {
			fromTx = append(fromTx, show(e.Node.Hash, tr))
		}
	}
	var list struct{ TokenTransfers connection[transfer] }
	s.mustQuery(`query($b: Int!) { tokenTransfers(first: 100, order: ASC, filter: {fromBlock: $b, toBlock: $b}) {
		edges { node { transactionHash eventIndex token { symbol } usdValue } } } }`, map[string]any{"b": block}, &list)
	var fromList []string
	for _, e := range list.TokenTransfers.Edges {
		fromList = append(fromList, show(e.Node.TransactionHash, e.Node))
	}
	slices.Sort(fromPage)
	slices.Sort(fromTx)
	slices.Sort(fromList)
	if len(fromPage) < 2 || values == 0 || strings.Contains(strings.Join(fromPage, ","), "no token") {
		t.Fatalf("block %d's transfers show too little to compare: %v", block, fromPage)
	}
	if !slices.Equal(fromTx, fromPage) || !slices.Equal(fromList, fromPage) {
		t.Errorf("the block's page gives\n%v\none transaction at a time\n%v\nthe connection\n%v", fromPage, fromTx, fromList)
	}
}
