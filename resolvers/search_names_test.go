package resolvers_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/resolvers"
)

// A search by name loads what the names name with one statement per kind, however many
// names it finds: in GraphQL and in REST's sequential loaders alike.
func TestSearchByNameStatementsDoNotGrowWithResults(t *testing.T) {
	s := indexedSim(t, 4, 12, 4)
	var contracts []db.Felt
	if err := s.db.Select(&contracts, `SELECT address FROM contracts ORDER BY address LIMIT 8`); err != nil {
		t.Fatal(err)
	}
	if len(contracts) < 8 {
		t.Fatalf("%d contracts on the chain, want 8", len(contracts))
	}
	var labels []db.Label
	for i, c := range contracts {
		labels = append(labels, db.Label{Address: c, Name: fmt.Sprintf("Acme %d", i+1), Kind: "contract"})
	}
	// One name: "Solo"; eight: "Acme 1" to "Acme 8".
	labels = append(labels, db.Label{Address: contracts[0], Name: "Solo", Kind: "contract"})
	labels = labels[1:] // contracts[0] is Solo
	if err := db.ImportLabels(context.Background(), s.db, labels); err != nil {
		t.Fatal(err)
	}
	const doc = `query($q: String!) { search(query: $q, first: 20) { __typename ... on Contract { address } } }`

	graphql := func(q string) (found int, statements int64) {
		t.Helper()
		var out struct {
			Search []struct {
				Typename string `json:"__typename"`
				Address  string
			}
		}
		before := s.store.Statements()
		s.mustQuery(doc, map[string]any{"q": q}, &out)
		for _, r := range out.Search {
			if r.Typename == "Contract" {
				found++
			}
		}
		return found, s.store.Statements() - before
	}
	rest := func(q string) (found int, statements int64) {
		t.Helper()
		ctx := loaders.WithSequential(context.Background(), s.store)
		n := 20
		before := s.store.Statements()
		nodes, err := (&resolvers.Resolver{Store: s.store}).Query().Search(ctx, q, &n)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range nodes {
			if _, ok := x.(*db.Contract); ok {
				found++
			}
		}
		return found, s.store.Statements() - before
	}
	for _, api := range []struct {
		name string
		run  func(string) (int, int64)
	}{{"graphql", graphql}, {"rest", rest}} {
		one, oneStatements := api.run("Solo")
		many, manyStatements := api.run("Acme")
		if one != 1 || many != 7 {
			t.Fatalf("%s: found %d contracts named Solo and %d named Acme, want 1 and 7", api.name, one, many)
		}
		// Tokens by text, names by text, then one statement per kind of key.
		if limit := int64(2 + 6); manyStatements != oneStatements || manyStatements > limit {
			t.Errorf("%s: %d statements for one name, %d for seven; want the same, at most %d", api.name, oneStatements, manyStatements, limit)
		}
		t.Logf("%s: %d statements for one name, %d for seven", api.name, oneStatements, manyStatements)
	}
}
