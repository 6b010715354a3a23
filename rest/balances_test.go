package rest

import (
	"strings"
	"testing"
)

func TestContractTokenBalances(t *testing.T) {
	e := newEnv(t)
	body := e.mustGet("/beta/contracts/" + account(0).Hex() + "/token-balances").(map[string]any)
	items := body["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("account 0 holds ETH and STRK, got %d items: %v", len(items), body)
	}
	eth, strk := items[0].(map[string]any), items[1].(map[string]any)
	// 1273198304298242227 wei each; ETH at 3000.5 USD is worth more than STRK at 0.119393.
	if eth["tokenSymbol"] != "ETH" || strk["tokenSymbol"] != "STRK" || eth["formattedBalance"] != "1.273198304298242227" ||
		eth["balance"] != "1273198304298242227" || eth["tokenDecimals"] != 18.0 || eth["isVerified"] != true {
		t.Errorf("items: %v", items)
	}
	ethValue, strkValue := 1.273198304298242227*3000.5, 1.273198304298242227*0.119393
	near := func(got any, want float64) bool {
		f, ok := got.(float64)
		return ok && f > want*0.999999 && f < want*1.000001
	}
	if !near(eth["usdValue"], ethValue) || !near(strk["usdValue"], strkValue) || !near(body["totalUsdValue"], ethValue+strkValue) {
		t.Errorf("values: ETH %v, STRK %v, total %v", eth["usdValue"], strk["usdValue"], body["totalUsdValue"])
	}
	if body["contractAddress"] != account(0).Padded() {
		t.Errorf("contractAddress = %v", body["contractAddress"])
	}
	// The contract, its balances and their two tokens in one statement, for either route.
	for _, route := range []string{"token-balances", "erc20-tokens-held"} {
		before := e.store.Statements()
		e.mustGet("/beta/contracts/" + account(0).Hex() + "/" + route)
		if n := e.store.Statements() - before; n != 3 {
			t.Errorf("%s of a contract holding two tokens took %d statements, want 3", route, n)
		}
	}

	// A contract without balances, an unknown one, a malformed address.
	empty := e.mustGet("/beta/contracts/" + ethAddr.Hex() + "/token-balances").(map[string]any)
	if items := empty["items"].([]any); len(items) != 0 || empty["totalUsdValue"] != 0.0 {
		t.Errorf("the ETH contract holds nothing: %v", empty)
	}
	if r := e.get("/beta/contracts/0x1234/token-balances"); r.status != 404 || !strings.Contains(string(r.raw), "contractAddress") {
		t.Errorf("unknown contract: %d %s", r.status, r.raw)
	}
	if r := e.get("/beta/contracts/0xzz/token-balances"); r.status != 400 || !strings.Contains(string(r.raw), "contractAddress") {
		t.Errorf("malformed address: %d %s", r.status, r.raw)
	}
}

func TestContractBalanceHistory(t *testing.T) {
	e := newEnv(t)
	// account 0's ETH balance changed at blocks 3 and 12 (all seeded blocks share one day).
	for _, c := range []struct {
		block   int
		balance string
	}{{3, "1500000000000000000"}, {12, "1273198304298242227"}} {
		if _, err := e.db.Exec(`INSERT INTO erc20_balance_changes (token_id, owner_id, block_number, balance)
			VALUES (felt_id($1), felt_id($2), $3, $4)`, ethAddr, account(0), c.block, c.balance); err != nil {
			t.Fatal(err)
		}
	}
	base := "/beta/contracts/" + account(0).Hex() + "/erc20-balance-history"
	before := e.store.Statements()
	body := e.mustGet(base + "?timerange=1w&token_address=" + ethAddr.Hex()).(map[string]any)
	oneToken := e.store.Statements() - before
	items := body["items"].([]any)
	if len(items) != 1 || body["timerange"] != "1w" || body["contractAddress"] != account(0).Padded() {
		t.Fatalf("one token asked for: %v", body)
	}
	eth := items[0].(map[string]any)
	points := eth["balanceHistory"].([]any)
	if eth["symbol"] != "ETH" || eth["address"] != ethAddr.Padded() || eth["decimals"] != 18.0 || eth["balance"] != "1273198304298242227" || len(points) != 7 {
		t.Fatalf("ETH over a week: %v", eth)
	}
	last := points[6].(map[string]any)
	if last["date"] != "2023-11-14" || last["balance"] != "1273198304298242227" || last["formattedBalance"] != "1.273198304298242227" ||
		last["timestamp"] != float64(1700006399) {
		t.Errorf("the newest day: %v", last)
	}
	if first := points[0].(map[string]any); first["date"] != "2023-11-08" || first["balance"] != "0" || first["formattedBalance"] != "0" {
		t.Errorf("a day before any change: %v", first)
	}

	// By default a month of every token held now (ETH and STRK), STRK without changes.
	before = e.store.Statements()
	all := e.mustGet(base).(map[string]any)
	if items := all["items"].([]any); len(items) != 2 || all["timerange"] != "1m" {
		t.Fatalf("every token held: %v", all)
	}
	// The tokens and their series are read for all the tokens at once: the two tokens cost
	// what one token costs (the list of tokens held is read either way, for the items'
	// latest balance).
	if n := e.store.Statements() - before; n != oneToken {
		t.Errorf("the history of two tokens took %d statements, of one %d", n, oneToken)
	}
	for _, it := range all["items"].([]any) {
		h := it.(map[string]any)
		if n := len(h["balanceHistory"].([]any)); n != 30 {
			t.Errorf("%v: %d points over a month", h["symbol"], n)
		}
	}

	e.expectRefusals(t, []refusal{
		{base + "?timerange=max", 400, "timerange"},
		{base + "?timerange=2w", 400, "timerange"},
		{base + "?token_address=0xzz", 400, "token_address"},
		{"/beta/contracts/0x1234/erc20-balance-history", 404, "contractAddress"},
	})
}
