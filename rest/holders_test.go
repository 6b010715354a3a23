package rest

import (
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// A holder shows its address's alias whether or not its contract is indexed, and the page
// costs three statements (the token, the holders, their aliases) whatever its length.
func TestTokenHoldersAliases(t *testing.T) {
	e := newEnv(t)
	bridge := db.MustFelt("0x0777") // holds ETH, has an alias, no contract row
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
			VALUES ($1, $2, 9000000000000000000000, 1, 1765226160)`, []any{ethAddr, bridge}},
		{`INSERT INTO aliases (address, name) VALUES ($1, 'Alice'), ($2, 'Bridge')`, []any{account(0), bridge}},
	} {
		if _, err := e.db.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	before := e.store.Statements()
	items := e.mustGet("/beta/tokens/" + ethAddr.Hex() + "/holders").(map[string]any)["items"].([]any)
	if n := e.store.Statements() - before; n != 3 {
		t.Errorf("a page of %d holders took %d statements, want 3", len(items), n)
	}
	aliases := map[string]any{}
	for _, it := range items {
		h := it.(map[string]any)
		aliases[h["address"].(string)] = h["alias"]
	}
	if aliases[bridge.Padded()] != "Bridge" || aliases[account(0).Padded()] != "Alice" || aliases[account(1).Padded()] != nil {
		t.Errorf("holders' aliases: %v", aliases)
	}
}
