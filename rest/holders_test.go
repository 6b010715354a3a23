package rest

import (
	"fmt"
	"slices"
	"strings"
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

// A client walking a token's holders page by page: each page after the first continues
// from the last holder of the page before (db: page_ends.go), and the pages together
// are the whole list in order.
func TestHolderPagesWalkedInTurn(t *testing.T) {
	e := newEnv(t)
	for i := 0; i < 35; i++ {
		e.exec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
			VALUES ($1, $2, $3, 1, 1765226160)`, ethAddr, db.FeltFromUint64(uint64(0xe000+i)), (i*7)%11*1000+i)
	}
	var all []string
	if err := e.db.Select(&all, `SELECT '0x' || lpad(encode(owner_address, 'hex'), 64, '0') FROM erc20_balances
		WHERE token_address = $1 AND balance > 0 ORDER BY balance DESC, owner_address DESC`, ethAddr); err != nil {
		t.Fatal(err)
	}
	var continued []bool
	e.store.OnQuery = func(q string, _ []any) {
		if strings.Contains(q, "FROM erc20_balances b") {
			continued = append(continued, strings.Contains(q, "(b.balance, b.owner_address) <"))
		}
	}
	var walked []string
	for p := 1; p <= (len(all)+9)/10; p++ {
		for _, it := range e.mustGet(fmt.Sprintf("/beta/tokens/%s/holders?ps=10&p=%d", ethAddr.Hex(), p)).(map[string]any)["items"].([]any) {
			walked = append(walked, it.(map[string]any)["address"].(string))
		}
	}
	if !slices.Equal(walked, all) {
		t.Errorf("the pages walked in turn:\n%v\nthe list:\n%v", walked, all)
	}
	if want := append([]bool{false}, slices.Repeat([]bool{true}, len(continued)-1)...); !slices.Equal(continued, want) {
		t.Errorf("pages continued from the page before: %v, want %v", continued, want)
	}
}
