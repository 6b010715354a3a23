package resolvers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// TestNames: on an indexed simulated chain, accounts are named by their Starknet ID
// domain, search finds them by it (and classes by a curated label), and the names of a
// token's holders come in one statement for the page.
func TestNames(t *testing.T) {
	s := indexedSim(t, 8, 25, 4)
	var named struct {
		Address db.Felt `db:"address"`
		Domain  string  `db:"domain"`
	}
	if err := s.db.Get(&named, `SELECT n.address, n.domain FROM starknet_id_names n
		JOIN erc20_balances b ON b.owner_address = n.address AND b.token_address = $1 ORDER BY n.domain LIMIT 1`,
		db.MustFelt("0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")); err != nil {
		t.Fatal(err)
	}

	var found struct {
		Search []struct {
			Typename string `json:"__typename"`
			Address  string
			Name     *struct{ Value, Source string }
		}
	}
	const doc = `query($q: String!) { search(query: $q) { __typename ... on Contract { address name { value source } } ... on Class { address: hash name { value source } } } }`
	for _, q := range []string{named.Domain, strings.ToUpper(named.Domain)} {
		s.mustQuery(doc, map[string]any{"q": q}, &found)
		if len(found.Search) == 0 || found.Search[0].Typename != "Contract" || found.Search[0].Address != named.Address.Padded() ||
			found.Search[0].Name == nil || found.Search[0].Name.Value != named.Domain || found.Search[0].Name.Source != db.NameSourceStarknetID {
			t.Fatalf("search %q: %+v, want the account %s named %s", q, found.Search, named.Address.Padded(), named.Domain)
		}
	}

	// A curated label names a class, and wins over what the chain says.
	var class db.Felt
	if err := s.db.Get(&class, `SELECT hash FROM classes WHERE is_account ORDER BY hash LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportLabels(context.Background(), s.db, []db.Label{{Address: class, Name: "Argent Account", Kind: "class"},
		{Address: named.Address, Name: "Treasury", Kind: "account"}}); err != nil {
		t.Fatal(err)
	}
	s.mustQuery(doc, map[string]any{"q": "argent"}, &found)
	if len(found.Search) == 0 || found.Search[0].Typename != "Class" || found.Search[0].Address != class.Padded() {
		t.Fatalf("search argent: %+v", found.Search)
	}

	// token -> holders -> owner name, the names of a page read at once.
	var tok struct {
		Token struct {
			DisplayName *struct{ Value, Source string }
			Holders     struct {
				Edges []struct {
					Node struct {
						OwnerAddress      string
						OwnerAddressAlias *string
						OwnerName         *struct{ Value, Source string }
					}
				}
			}
		}
	}
	holdersDoc := `query($a: Address!, $n: Int) { token(address: $a) { displayName { value source }
		holders(first: $n) { edges { node { ownerAddress ownerAddressAlias ownerName { value source } } } } } }`
	strk := "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
	statements := func(n int) int64 {
		before := s.store.Statements()
		s.mustQuery(holdersDoc, map[string]any{"a": strk, "n": n}, &tok)
		return s.store.Statements() - before
	}
	few, many := statements(2), statements(100)
	if few != many {
		t.Errorf("holders with names: %d statements for 2, %d for 100", few, many)
	}
	if d := tok.Token.DisplayName; d == nil || d.Source != db.NameSourceToken || d.Value != "Starknet Token" {
		t.Errorf("token displayName: %+v", d)
	}
	var domains, curated int
	for _, e := range tok.Token.Holders.Edges {
		n := e.Node
		if n.OwnerName == nil {
			continue
		}
		if n.OwnerAddressAlias == nil || *n.OwnerAddressAlias != n.OwnerName.Value {
			t.Errorf("%s: alias %v, name %v", n.OwnerAddress, n.OwnerAddressAlias, n.OwnerName)
		}
		switch n.OwnerName.Source {
		case db.NameSourceStarknetID:
			domains++
			if !strings.HasSuffix(n.OwnerName.Value, ".stark") {
				t.Errorf("domain %q", n.OwnerName.Value)
			}
		case db.NameSourceCurated:
			curated++
			if n.OwnerAddress != named.Address.Padded() || n.OwnerName.Value != "Treasury" {
				t.Errorf("curated %+v", n)
			}
		}
	}
	if domains*5 < len(tok.Token.Holders.Edges) || curated != 1 {
		t.Errorf("of %d holders, %d named by a domain and %d curated", len(tok.Token.Holders.Edges), domains, curated)
	}
}
