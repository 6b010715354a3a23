package rest

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
)

// bigTables grow with the chain: reading one of them whole, or sorting its rows, makes a
// route's cost grow with the chain.
var bigTables = map[string]bool{
	"blocks": true, "transactions": true, "events": true, "calls": true, "contracts": true, "classes": true,
	"erc20_balances": true, "nft_items": true, "nft_events": true, "nft_balances": true, "meta_transactions": true,
	"delegations": true, "staking_activity": true, "attestations": true,
	"token_transfers": true, "erc20_balance_changes": true, "messages": true, "felt_ids": true,
}

// statements records the distinct SQL statements a store runs, each with the first
// arguments and the request it came from.
type statements struct {
	mu      sync.Mutex
	seen    map[string]statement
	request string
}

type statement struct {
	query   string
	args    []any
	request string
}

func recordStatements(store *db.Store) *statements {
	st := &statements{seen: map[string]statement{}}
	store.OnQuery = func(q string, args []any) {
		st.mu.Lock()
		defer st.mu.Unlock()
		if _, ok := st.seen[q]; !ok {
			st.seen[q] = statement{query: q, args: args, request: st.request}
		}
	}
	return st
}

func (st *statements) during(request string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.request = request
}

// explainAll EXPLAINs each recorded statement with sequential scans and sorts disabled:
// what is left of them is what no index can serve. A sequential scan of a big table, or a
// sort of a big table's rows, fails the test. Each statement is explained twice: planned
// for its arguments, and as the generic plan the API's read sessions run (openReadPool),
// which must do without them.
func (st *statements) explainAll(t *testing.T, conn *sqlx.DB) {
	t.Helper()
	for text, s := range st.seen {
		for _, generic := range []bool{false, true} {
			plan, err := explain(conn, text, s.args, generic)
			if err != nil {
				t.Errorf("EXPLAIN (generic %v) %s: %v", generic, firstLineOf(text), err)
				continue
			}
			if problems := plan.problems(); len(problems) > 0 {
				t.Errorf("%s runs %s (generic plan: %v)\n  %s", s.request, strings.Join(problems, "; "), generic, firstLineOf(text))
			}
		}
	}
}

// explain plans a statement with sequential scans and sorts disabled (dbtest.Explain).
func explain(conn *sqlx.DB, text string, args []any, generic bool) (planNode, error) {
	raw, err := dbtest.Explain(conn, text, args, generic, "enable_seqscan = off", "enable_sort = off")
	if err != nil {
		return planNode{}, err
	}
	var root []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &root); err != nil {
		return planNode{}, err
	}
	return root[0].Plan, nil
}

// TestEveryRouteUsesIndexes runs every GET operation on the seeded chain, on its first
// page and its second, and EXPLAINs the SQL it executes (explainAll).
func TestEveryRouteUsesIndexes(t *testing.T) {
	conn := dbtest.New(t)
	seed(t, conn)
	store := db.NewStore(conn)
	st := recordStatements(store)
	n := runRoutes(t, store, st)
	if len(st.seen) < 20 {
		t.Fatalf("only %d statements collected", len(st.seen))
	}
	st.explainAll(t, conn)
	t.Logf("%d distinct statements of %d operations explained", len(st.seen), n)
}

// runRoutes sends every sampled GET operation over store, on its first page, its second
// and a deep one, and returns how many operations it sent.
func runRoutes(t *testing.T, store *db.Store, st *statements) int {
	t.Helper()
	srv := httptest.NewServer(NewHandler(&resolvers.Resolver{Store: store}, Options{}))
	defer srv.Close()
	var ops []string
	for op := range sampleRequests {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		paths := append([]string{sampleRequests[op], withQuery(sampleRequests[op], "p=2"), withQuery(sampleRequests[op], "p=40")}, morePlanRequests[op]...)
		for _, path := range paths {
			st.during(path)
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
	return len(ops)
}

// morePlanRequests are requests beyond the samples whose statements differ from theirs:
// sort keys that join more.
var morePlanRequests = map[string][]string{
	"listValidators": {
		"/beta/staking/validators?sortBy=stakingPower",
		"/beta/staking/validators?sortBy=liveness&sortOrder=desc",
		"/beta/staking/validators?sortBy=liveness90d",
	},
}

// graphQLLists are the GraphQL lists that have no REST route of their own, or filters and
// orders REST does not offer; a root list is also walked to its second page by its
// endCursor.
var graphQLLists = map[string]string{
	"transactions by sender, oldest first":    `{ transactions(first: 2, filter: {senderAddress: "` + account(1).Hex() + `"}, order: ASC) { edges { node { hash } } pageInfo { endCursor } totalCount } }`,
	"transactions by type and blocks":         `{ transactions(first: 2, filter: {type: INVOKE, fromBlock: 3, toBlock: 20}) { edges { node { hash } } pageInfo { endCursor } totalCount } }`,
	"events by emitter and key":               `{ events(first: 2, filter: {fromAddress: "` + ethAddr.Hex() + `", key: "` + transferKey.Hex() + `"}) { edges { node { index } } pageInfo { endCursor } totalCount } }`,
	"contracts by type":                       `{ contracts(first: 2, type: ACCOUNT) { edges { node { address } } pageInfo { endCursor } totalCount } }`,
	"token transfers of a wallet":             `{ tokenTransfers(first: 2, wallet: "` + account(1).Hex() + `") { edges { node { amount } } pageInfo { endCursor } totalCount } }`,
	"token transfers of a token, oldest":      `{ tokenTransfers(first: 2, token: "` + ethAddr.Hex() + `", order: ASC) { edges { node { amount } } pageInfo { endCursor } totalCount } }`,
	"tokens by symbol":                        `{ tokens(first: 2, symbol: "eth") { edges { node { address } } pageInfo { endCursor } totalCount } }`,
	"validators by stake":                     `{ validators(first: 2, orderBy: STAKE, direction: DESC) { edges { node { stakerAddress } } pageInfo { endCursor } totalCount } }`,
	"nft items of an owner":                   `{ nftItems(first: 2, ownerAddress: "` + account(1).Hex() + `") { edges { node { tokenId } } pageInfo { endCursor } totalCount } }`,
	"nft events of a collection":              `{ nftEvents(first: 2, contractAddress: "` + nftAddr.Hex() + `") { edges { node { tokenId } } pageInfo { endCursor } totalCount } }`,
	"nft balances of a collection":            `{ nftBalances(first: 2, contractAddress: "` + nftAddr.Hex() + `") { edges { node { tokenId } } pageInfo { endCursor } totalCount } }`,
	"messages":                                `{ messages(first: 2) { edges { node { blockNumber } } pageInfo { endCursor } totalCount } }`,
	"staking activity of a wallet":            `{ stakingActivity(first: 2, filter: {wallet: "` + account(0).Hex() + `", operation: ADD_TO_DELEGATION_POOL}) { edges { node { amount transaction { hash } token { symbol } validator { rank } } } pageInfo { endCursor } totalCount } }`,
	"staking activity of a validator, oldest": `{ stakingActivity(first: 2, filter: {validator: "` + account(4).Hex() + `"}, order: ASC) { edges { node { operation } } pageInfo { endCursor } totalCount } }`,
	"attestations":                            `{ attestations(first: 2) { edges { node { epoch validator { rank } } } pageInfo { endCursor } totalCount } }`,
	"nft collection stats by volume":          `{ nftCollectionStats(first: 2, orderBy: SALES_VOLUME, timeframe: WEEK) { edges { node { sales collection { name } } } pageInfo { endCursor } totalCount } }`,
	"marketplace stats":                       `{ marketplaceStats(first: 2) { edges { node { sales name } } pageInfo { endCursor } totalCount } }`,
	"attestations of a validator":             `{ attestations(first: 2, validator: "` + account(4).Hex() + `") { edges { node { epoch } } pageInfo { endCursor } totalCount } }`,
	"daily stats":                             `{ dailyStats(first: 2) { edges { node { date } } pageInfo { endCursor } } }`,
	"a wallet's activity and balance":         `{ wallet(address: "` + account(1).Hex() + `") { activity(first: 2, fromBlock: 5) { edges { node { hash } } } balanceHistory(token: "` + ethAddr.Hex() + `", first: 2) { edges { node { balance } } } } }`,
	"a block's transactions and events":       `{ blocks(first: 2) { edges { node { transactions(first: 2) { edges { node { events(first: 2) { edges { node { index } } } } } } } } pageInfo { endCursor } } }`,
	"a token's holders and their contracts":   `{ tokens(first: 2) { edges { node { holders(first: 3) { edges { node { owner { class { hash } } } } } } } pageInfo { endCursor } } }`,
}

// TestEveryGraphQLListUsesIndexes does for the GraphQL-only lists what
// TestEveryRouteUsesIndexes does for the routes.
func TestEveryGraphQLListUsesIndexes(t *testing.T) {
	conn := dbtest.New(t)
	seed(t, conn)
	store := db.NewStore(conn)
	st := recordStatements(store)
	runGraphQLLists(t, store, st)
	if len(st.seen) < 15 {
		t.Fatalf("only %d statements collected", len(st.seen))
	}
	st.explainAll(t, conn)
	t.Logf("%d distinct statements of %d documents explained", len(st.seen), len(graphQLLists))
}

// runGraphQLLists sends every document of graphQLLists over store, and each root list's
// second page by its endCursor.
func runGraphQLLists(t *testing.T, store *db.Store, st *statements) {
	t.Helper()
	srv := httptest.NewServer(api.NewGraphQL(&resolvers.Resolver{Store: store}, api.DefaultGraphQLLimits, false, slog.New(slog.DiscardHandler)))
	defer srv.Close()
	post := func(name, query string) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query})
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Data   map[string]any `json:"data"`
			Errors []any          `json:"errors"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Errors) > 0 {
			t.Fatalf("%s: %v %v", name, err, out.Errors)
		}
		return out.Data
	}
	for name, query := range graphQLLists {
		st.during(name)
		data := post(name, query)
		// The second page: the first list's endCursor, as an after argument.
		for field, v := range data {
			conn, _ := v.(map[string]any)
			info, _ := conn["pageInfo"].(map[string]any)
			if cursor, ok := info["endCursor"].(string); ok {
				st.during(name + ", page 2")
				after, _ := json.Marshal(cursor)
				post(name, strings.Replace(query, field+"(", field+"(after: "+string(after)+", ", 1))
			}
		}
	}
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType string     `json:"Node Type"`
	Rows     float64    `json:"Plan Rows"`
	Relation string     `json:"Relation Name"`
	SortKey  []string   `json:"Sort Key"`
	Plans    []planNode `json:"Plans"`
}

// problems lists sequential scans of big tables, and sorts whose input is a big table's
// scan (the ORDER BY no index serves), whether of the table or of its partitions.
func (n planNode) problems() []string {
	var out []string
	if n.NodeType == "Seq Scan" && bigTables[n.table()] {
		out = append(out, "a sequential scan of "+n.Relation)
	}
	if n.NodeType == "Sort" || n.NodeType == "Incremental Sort" {
		for _, scan := range n.scansBelow() {
			if bigTables[scan.table()] {
				out = append(out, fmt.Sprintf("a sort of %s rows by %s", scan.Relation, strings.Join(n.SortKey, ", ")))
			}
		}
	}
	for _, c := range n.Plans {
		out = append(out, c.problems()...)
	}
	return out
}

// scansBelow are the scans that feed n directly, through the Append that gathers a
// partitioned table's partitions.
func (n planNode) scansBelow() []planNode {
	var scans []planNode
	for _, c := range n.Plans {
		switch {
		case strings.Contains(c.NodeType, "Scan"):
			scans = append(scans, c)
		case c.NodeType == "Append":
			scans = append(scans, c.scansBelow()...)
		}
	}
	return scans
}

// table is the table a scan reads: a partition (events_8) stands for its table.
func (n planNode) table() string {
	if i := strings.LastIndexByte(n.Relation, '_'); i > 0 && strings.Trim(n.Relation[i+1:], "0123456789") == "" &&
		slices.Contains(db.PartitionedTables, n.Relation[:i]) {
		return n.Relation[:i]
	}
	return n.Relation
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

// The plan check sees a partition as its table, and a sort of a partitioned table's rows
// through the Append that gathers its partitions.
func TestPlanProblemsOfPartitions(t *testing.T) {
	for _, c := range []struct {
		plan string
		want int
	}{
		{`{"Node Type": "Seq Scan", "Relation Name": "events_8"}`, 1},
		{`{"Node Type": "Sort", "Sort Key": ["block_number"], "Plans": [{"Node Type": "Append", "Plans": [
			{"Node Type": "Index Scan", "Relation Name": "token_transfers_0"},
			{"Node Type": "Index Scan", "Relation Name": "token_transfers_8"}]}]}`, 2},
		{`{"Node Type": "Limit", "Plans": [{"Node Type": "Merge Append", "Plans": [
			{"Node Type": "Index Scan", "Relation Name": "events_0"}, {"Node Type": "Index Scan", "Relation Name": "events_8"}]}]}`, 0},
		{`{"Node Type": "Seq Scan", "Relation Name": "aliases_2"}`, 0},
	} {
		var n planNode
		if err := json.Unmarshal([]byte(c.plan), &n); err != nil {
			t.Fatal(err)
		}
		if got := n.problems(); len(got) != c.want {
			t.Errorf("%s: %q, want %d problems", c.plan, got, c.want)
		}
	}
}
