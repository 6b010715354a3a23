package rest

import (
	"testing"
)

func TestSearchOperation(t *testing.T) {
	e := newEnv(t)
	items := func(q string) []any {
		t.Helper()
		return e.mustGet("/beta/search?q=" + q).(map[string]any)["items"].([]any)
	}
	if r := items("5"); len(r) != 1 || r[0].(map[string]any)["type"] != "block" || r[0].(map[string]any)["blockNumber"] != 5.0 {
		t.Errorf("block 5: %v", r)
	}
	if r := items("ETH"); len(r) == 0 || r[0].(map[string]any)["symbol"] != "ETH" || r[0].(map[string]any)["address"] != ethAddr.Padded() {
		t.Errorf("ETH: %v", r)
	}
	tx := txHash(3, 1)
	if r := items(tx.Hex()); len(r) != 1 || r[0].(map[string]any)["type"] != "transaction" || r[0].(map[string]any)["hash"] != tx.Hex() {
		t.Errorf("a transaction by hash: %v", r)
	}
	// account 4 is a contract and a validator: both, exact matches.
	if r := items(account(4).Hex()); len(r) != 2 {
		t.Errorf("account 4: %v", r)
	}
	if r := items("nothing-like-this"); len(r) != 0 {
		t.Errorf("nothing: %v", r)
	}
	e.expectRefusals(t, []refusal{
		{"/beta/search", 400, "q"},
		{"/beta/search?q=0xzz", 400, "q: is not 0x"},
		{"/beta/search?q=eth&limit=0", 400, "limit"},
	})
}
