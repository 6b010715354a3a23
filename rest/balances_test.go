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
