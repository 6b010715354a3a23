package rest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// Messages between L1 and L2 over the seeded chain: a deposit (L1 -> L2, with its mint and
// its L1 transaction), one withdrawal message sent twice (L2 -> L1, with the burns), and
// 22 more L1 -> L2 messages; with the seed's, lists have three pages of ten.
func TestMessages(t *testing.T) {
	e := newEnv(t)
	exec := e.exec
	bridge, l1Sender, l1Recipient := db.MustFelt("0xb41d9e"), db.MustFelt("0xabc"), db.MustFelt("0xdef")
	deposit := (mustHash(t, "0x"+strings.Repeat("f", 64))) // above the field prime
	withdrawal := mustHash(t, "0x77")
	insert := func(block, tx, dir, idx int, hash, from, to db.Felt) {
		t.Helper()
		exec(`INSERT INTO messages (block_number, tx_index, direction, msg_index, message_hash, from_address, to_address, l2_address,
			selector, payload, transaction_hash, timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			block, tx, dir, idx, hash, from, to, bridge, map[bool]any{true: db.MustFelt("0x2d757788"), false: nil}[dir == 0],
			db.FeltArray{account(1), db.FeltFromUint64(1000), db.FeltFromUint64(0)}, txHash(block, tx), baseTime+int64(block)*10)
	}
	insert(5, 0, 0, 0, deposit, l1Sender, bridge)
	exec(`UPDATE transactions SET l1_transaction_hash = '\x1111' WHERE block_number = 5 AND tx_index = 0`)
	exec(`INSERT INTO token_transfers (block_number, tx_index, event_index, token_id, from_id, to_id, amount)
		VALUES (5, 0, 2, felt_id($1), felt_id('\x'), felt_id($2), 1000)`, ethAddr, account(1))
	for _, b := range []int{7, 9} {
		insert(b, 1, 1, 0, withdrawal, bridge, l1Recipient)
		exec(`INSERT INTO token_transfers (block_number, tx_index, event_index, token_id, from_id, to_id, amount)
			VALUES ($1, 1, 2, felt_id($2), felt_id($3), felt_id('\x'), 300)`, b, ethAddr, account(2))
	}
	for b := 10; b < 32; b++ {
		insert(b/2+5, b%2, 0, 0, db.FeltFromUint64(uint64(0x5000+b)), l1Sender, bridge)
	}
	exec(`UPDATE list_counts SET count = count + 25 WHERE name = 'messages'`) // the seed has one

	key := func(it map[string]any) string {
		return fmt.Sprintf("%v/%v/%v/%v", it["blockNumber"], it["transactionHash"], it["type"], it["index"])
	}
	var want []string
	rows, err := e.db.Query(`SELECT block_number, transaction_hash, direction, msg_index FROM messages
		ORDER BY block_number DESC, tx_index DESC, direction DESC, msg_index DESC`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b, d, i int
		var h db.Felt
		if err := rows.Scan(&b, &h, &d, &i); err != nil {
			t.Fatal(err)
		}
		want = append(want, fmt.Sprintf("%d/%s/%s/%d", b, h.Hex(), map[int]string{0: "L1_TO_L2", 1: "L2_TO_L1"}[d], i))
	}
	rows.Close()

	// Three pages of ten, newest first: the first, the middle, the last shorter one.
	var got []string
	for p := 1; p <= 3; p++ {
		body := e.mustGet(fmt.Sprintf("/beta/messages?ps=10&p=%d", p)).(map[string]any)
		if body["lastPage"] != 3.0 {
			t.Errorf("page %d: lastPage %v, want 3", p, body["lastPage"])
		}
		for _, it := range body["items"].([]any) {
			got = append(got, key(it.(map[string]any)))
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("pages:\n got %v\nwant %v", got, want)
	}
	if items := e.mustGet("/beta/messages?ps=10&p=4").(map[string]any)["items"].([]any); len(items) != 0 {
		t.Errorf("past the last page: %d items", len(items))
	}
	// The L2 transactions of a page's messages from L1 are read once for the page: 25 items
	// cost what ten do.
	statements := func(ps int) int64 {
		before := e.store.Statements()
		e.mustGet(fmt.Sprintf("/beta/messages?ps=%d", ps))
		return e.store.Statements() - before
	}
	if ten, more := statements(10), statements(25); ten != more {
		t.Errorf("a page of 10 messages took %d statements, of 25 %d", ten, more)
	}

	count := func(query string) int {
		t.Helper()
		return len(e.mustGet("/beta/messages?ps=100&" + query).(map[string]any)["items"].([]any))
	}
	for q, n := range map[string]int{
		"type=0": 24, "type=1": 2, "type=null": 26, "contract=" + bridge.Hex(): 25, "contract=0x1234": 0,
		"block=5": 1, "block=" + blockHash(9).Hex(): 1, "block=10": 2, "block=5&type=1": 0,
	} {
		if got := count(q); got != n {
			t.Errorf("%s: %d messages, want %d", q, got, n)
		}
	}

	// One message, by a hash above the prime and in any case.
	msg := e.mustGet("/beta/message/0x" + strings.Repeat("F", 64)).(map[string]any)
	if msg["type"] != "L1_TO_L2" || msg["hash"] != deposit.Hex() || msg["l1TransactionHash"] != "0x1111" ||
		msg["fromAddress"] != "0xabc" || msg["l2Address"] != bridge.Padded() || msg["selector"] != "0x2d757788" ||
		msg["blockNumber"] != 5.0 || fmt.Sprint(msg["payload"]) != fmt.Sprint([]any{account(1).Hex(), "0x3e8", "0x0"}) {
		t.Errorf("the deposit message: %v", msg)
	}
	if w := e.mustGet("/beta/message/" + withdrawal.Hex()).(map[string]any); w["blockNumber"] != 9.0 || w["type"] != "L2_TO_L1" ||
		w["toAddress"] != "0xdef" || w["l1TransactionHash"] != nil {
		t.Errorf("the newest of the withdrawal messages: %v", w)
	}

	// Bridge transactions: the deposit's mint; the withdrawal's two burns, newest first.
	// The felts read by id are not counted: the first page reads those of its rows, and
	// the Store keeps them (db.Store.feltsOf).
	var felts int64
	e.store.OnQuery = func(q string, _ []any) {
		if strings.Contains(q, feltsByIDStatement) {
			felts++
		}
	}
	defer func() { e.store.OnQuery = nil }()
	before := e.store.Statements()
	dep := e.mustGet("/beta/message/" + deposit.Hex() + "/bridgeTransactions").(map[string]any)["items"].([]any)
	oneItem := e.store.Statements() - before - felts
	if len(dep) != 1 {
		t.Fatalf("deposit bridge transactions: %v", dep)
	}
	if d := dep[0].(map[string]any); d["type"] != "DEPOSIT" || d["amount"] != "1000" || d["account"] != account(1).Padded() ||
		d["tokenSymbol"] != "ETH" || d["l1TransactionHash"] != "0x1111" || d["l1Address"] != "0xabc" || d["transactionHash"] != txHash(5, 0).Hex() {
		t.Errorf("the deposit: %v", d)
	}
	before, felts = e.store.Statements(), 0
	wd := e.mustGet("/beta/message/" + withdrawal.Hex() + "/bridgeTransactions?ps=10").(map[string]any)
	items := wd["items"].([]any)
	if len(items) != 2 || wd["lastPage"] != 1.0 {
		t.Fatalf("withdrawal bridge transactions: %v", wd)
	}
	// The page's transactions, their transfers and the transfers' tokens are read for the
	// whole page: a second item costs no statement more.
	if n := e.store.Statements() - before - felts; n != oneItem {
		t.Errorf("two bridge transactions took %d statements, one took %d", n, oneItem)
	}
	for i, b := range []int{9, 7} {
		w := items[i].(map[string]any)
		if w["type"] != "WITHDRAWAL" || w["blockNumber"] != float64(b) || w["amount"] != "300" || w["account"] != account(2).Padded() ||
			w["l1Address"] != "0xdef" || w["bridgeAddress"] != bridge.Padded() {
			t.Errorf("withdrawal %d: %v", i, w)
		}
	}

	e.expectRefusals(t, []refusal{
		{"/beta/message/0x1234", 404, "msgHash"},
		{"/beta/message/0x1234/bridgeTransactions", 404, "msgHash"},
		{"/beta/message/0xzz", 400, "msgHash"},
		{"/beta/message/0x" + strings.Repeat("1", 65), 400, "msgHash"},
		{"/beta/message/" + deposit.Hex() + "/bridgeTransactions?ps=7", 400, "ps"},
		{"/beta/messages?type=2", 400, "type"},
		{"/beta/messages?contract=xyz", 400, "contract"},
		{"/beta/messages?p=0", 400, "p"},
		{"/beta/messages?block=0x9999", 404, "block"},
	})
}

func mustHash(t *testing.T, s string) db.Felt {
	t.Helper()
	v, err := parseValue(param{name: "hash", kind: kindHash}, s)
	if err != nil {
		t.Fatal(err)
	}
	return v.(db.Felt)
}
