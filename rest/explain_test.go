package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
)

// bigTables grow with the chain: reading one of them whole, or sorting its rows, makes a
// route's cost grow with the chain.
var bigTables = map[string]bool{
	"blocks": true, "transactions": true, "events": true, "calls": true, "contracts": true, "classes": true,
	"erc20_balances": true, "nft_items": true, "nft_events": true, "nft_balances": true, "meta_transactions": true,
	"contract_changes": true, "delegations": true,
}

// TestEveryRouteUsesIndexes runs every GET operation on the seeded chain, collects the SQL
// it executes, and EXPLAINs each statement with sequential scans and sorts disabled: what
// is left of them is what no index can serve. A sequential scan of a big table, or a sort
// of a big table's rows, fails the test.
func TestEveryRouteUsesIndexes(t *testing.T) {
	conn := dbtest.New(t)
	seed(t, conn)
	store := db.NewStore(conn)
	type statement struct {
		query string
		args  []any
		route string
	}
	var mu sync.Mutex
	seen := map[string]statement{}
	route := ""
	store.OnQuery = func(q string, args []any) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := seen[q]; !ok {
			seen[q] = statement{query: q, args: args, route: route}
		}
	}
	srv := httptest.NewServer(NewHandler(&resolvers.Resolver{Store: store}, Options{}))
	defer srv.Close()
	var ops []string
	for op := range sampleRequests {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		for _, path := range []string{sampleRequests[op], withQuery(sampleRequests[op], "p=2")} {
			mu.Lock()
			route = path
			mu.Unlock()
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Fatalf("%s: %d", path, resp.StatusCode)
			}
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d statements collected", len(seen))
	}

	ctx := context.Background()
	for text, st := range seen {
		tx, err := conn.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off`); err != nil {
			t.Fatal(err)
		}
		var plan []byte
		err = tx.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+text, st.args...).Scan(&plan)
		_ = tx.Rollback()
		if err != nil {
			t.Errorf("EXPLAIN %s: %v", firstLineOf(text), err)
			continue
		}
		var root []struct{ Plan planNode }
		if err := json.Unmarshal(plan, &root); err != nil {
			t.Fatal(err)
		}
		if problems := root[0].Plan.problems(); len(problems) > 0 {
			t.Errorf("%s runs %s\n  %s", st.route, strings.Join(problems, "; "), firstLineOf(text))
		}
	}
	t.Logf("%d distinct statements of %d operations explained", len(seen), len(ops))
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	SortKey  []string   `json:"Sort Key"`
	Plans    []planNode `json:"Plans"`
}

// problems lists sequential scans of big tables, and sorts whose input is a big table's
// scan (the ORDER BY no index serves).
func (n planNode) problems() []string {
	var out []string
	if n.NodeType == "Seq Scan" && bigTables[n.Relation] {
		out = append(out, "a sequential scan of "+n.Relation)
	}
	if n.NodeType == "Sort" || n.NodeType == "Incremental Sort" {
		for _, c := range n.Plans {
			if strings.Contains(c.NodeType, "Scan") && bigTables[c.Relation] {
				out = append(out, fmt.Sprintf("a sort of %s rows by %s", c.Relation, strings.Join(n.SortKey, ", ")))
			}
		}
	}
	for _, c := range n.Plans {
		out = append(out, c.problems()...)
	}
	return out
}

func withQuery(path, q string) string {
	if strings.Contains(path, "?") {
		return path + "&" + q
	}
	return path + "?" + q
}

func firstLineOf(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 160 {
		q = q[:160] + "..."
	}
	return q
}
