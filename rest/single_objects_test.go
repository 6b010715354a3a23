package rest

import (
	"strings"
	"sync"
	"testing"
)

// ranFor returns the statements a request ran, but the names' (db.Store.AliasesOf, which
// an in-process cache may answer) and the felts read by id (db.Store.feltsOf, which the
// Store's cache of felt_ids answers once warm).
func (e *env) ranFor(path string) []string {
	e.t.Helper()
	var mu sync.Mutex
	var ran []string
	e.store.OnQuery = func(q string, _ []any) {
		if !strings.Contains(q, "FROM aliases") && !strings.Contains(q, feltsByIDStatement) {
			mu.Lock()
			ran = append(ran, strings.Join(strings.Fields(q), " "))
			mu.Unlock()
		}
	}
	defer func() { e.store.OnQuery = nil }()
	if r := e.get(path); r.status != 200 {
		e.t.Fatalf("%s answered %d: %s", path, r.status, r.raw)
	}
	return ran
}

// feltsByIDStatement is db.Store.feltsOf's statement.
const feltsByIDStatement = "FROM felt_ids WHERE id = ANY"

// A single object's route reads each of its rows once, and the rows it shows together in
// one statement: a transaction by hash with its block (db.Store.TransactionsByHash), a
// contract with its class, verification, deploy block and token
// (db.Store.ContractWithLinks). Each of those was a statement of its own, and a
// transaction's position by hash one more.
func TestSingleObjectsReadTheirRowsTogether(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		path string
		want []string // what each statement reads, in order
	}{
		{"/beta/txns/" + txHash(3, 0).Hex(), []string{"JOIN transactions t ON substring(t.hash, 1, 6)", "FROM calls c", "FROM nft_events e", "FROM nft_items i"}},
		{"/beta/contracts/" + ethAddr.Hex(), []string{"FROM contracts c LEFT JOIN classes k"}},
		{"/beta/contracts/" + account(0).Hex(), []string{"FROM contracts c LEFT JOIN classes k"}},
	} {
		ran := e.ranFor(c.path)
		ok := len(ran) == len(c.want)
		for i := 0; ok && i < len(ran); i++ {
			ok = strings.Contains(ran[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s ran %d statements besides names, want %d reading %q:\n%s", c.path, len(ran), len(c.want), c.want, strings.Join(ran, "\n"))
		}
	}
	// The contract's links as the details show them, from the one statement.
	c := e.mustGet("/beta/contracts/" + ethAddr.Hex()).(map[string]any)
	if c["contractAlias"] != "Ether" || c["classAlias"] != "ERC20" || c["tokenSymbol"] != "ETH" || c["tokenName"] == nil || c["blockHash"] != blockHash(1).Hex() {
		t.Errorf("contract details: %v", c)
	}
	a := e.mustGet("/beta/contracts/" + account(0).Hex()).(map[string]any)
	if a["isAccount"] != true || a["tokenSymbol"] != nil || a["version"] == nil {
		t.Errorf("account details: %v", a)
	}
	if r := e.get("/beta/contracts/0x123456"); r.status != 404 {
		t.Errorf("a contract nowhere: %d %s", r.status, r.raw)
	}
}

// A class's contracts read the class without its ABI, together with its verification
// (db.Store.ClassWithVerification), and of the contracts' deploy blocks their hashes alone
// (db.Store.BlockHashesByNumber): the class and its verification were two statements, one of
// them reading the ABI the route does not show, and the blocks were read whole.
func TestClassContractsReadTheClassHeaderAndBlockHashes(t *testing.T) {
	e := newEnv(t)
	path := "/beta/classes/" + accountClass.Hex() + "/contracts"
	ran := e.ranFor(path)
	want := []string{"FROM classes k LEFT JOIN verified_classes v", "FROM contracts", "FROM rank_spans", "SELECT number, hash FROM blocks"}
	ok := len(ran) == len(want)
	for i := 0; ok && i < len(ran); i++ {
		ok = strings.Contains(ran[i], want[i])
	}
	if !ok || strings.Contains(ran[0], "abi") {
		t.Errorf("%s ran %d statements besides names, want %d reading %q, the first without the ABI:\n%s", path, len(ran), len(want), want, strings.Join(ran, "\n"))
	}
	page := obj(t, e.mustGet(path))
	items := page["items"].([]any)
	if len(items) == 0 {
		t.Fatalf("no contracts of the account class: %v", page)
	}
	for _, it := range items {
		c := it.(map[string]any)
		n := int(c["blockNumber"].(float64))
		if c["blockHash"] != blockHash(n).Hex() || c["isAccount"] != true || c["classHash"] != accountClass.Padded() {
			t.Errorf("contract item: %v", c)
		}
	}
	if r := e.get("/beta/classes/0x123456/contracts"); r.status != 404 {
		t.Errorf("the contracts of a class nowhere: %d %s", r.status, r.raw)
	}
}
