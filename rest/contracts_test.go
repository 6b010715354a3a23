package rest

import "testing"

// A contract's details read the contract with its class, the class's verification, its
// deploy block and its token in one statement, and the aliases of the contract and of its
// class in another. A page of contracts reads each of those links once for the page.
func TestContractDetailsReadEachLinkOnce(t *testing.T) {
	e := newEnv(t)
	before := e.store.Statements()
	c := e.mustGet("/beta/contracts/" + ethAddr.Hex()).(map[string]any)
	if n := e.store.Statements() - before; n != 2 {
		t.Errorf("a contract's details took %d statements, want 2", n)
	}
	if c["contractAlias"] != "Ether" || c["classAlias"] != "ERC20" || c["tokenSymbol"] != "ETH" || c["blockHash"] != blockHash(1).Hex() {
		t.Errorf("contract details: %v", c)
	}

	before = e.store.Statements()
	items := e.mustGet("/beta/contracts?ps=25").(map[string]any)["items"].([]any)
	// The page, its total, and the four links.
	if n := e.store.Statements() - before; n != 6 {
		t.Errorf("a page of %d contracts took %d statements, want 6", len(items), n)
	}
	aliased := 0
	for _, it := range items {
		c := it.(map[string]any)
		if c["classAlias"] == "Ready" && c["isAccount"] == true && c["verifiedTimestamp"] != nil {
			aliased++
		}
	}
	if aliased < 2 {
		t.Errorf("accounts showing their class's alias and verification: %d of %d items", aliased, len(items))
	}
}
