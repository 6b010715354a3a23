package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/bench"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// skewTxs is the size of the skewed chain: large enough that a deep page (5,000 rows) is
// deeper than an average key's rows, which is what misled the generic plans.
const skewTxs = 30_000

// The simulated chain is skewed like mainnet: STRK emits about half of the events. Every
// hot-key workload (each list by the key with the most rows, at its first, middle, deep
// and last page) runs through the REST and GraphQL handlers, and each statement it ran is
// run again as the API's sessions run it (its generic plan) under EXPLAIN ANALYZE: no scan
// may read more rows than the page needs, its offset (or, for the lists with kept positions,
// at most db.MarkEvery, however deep) and its rows and the one more the pager reads to learn
// whether another page follows. A plan that sorts a hot key's rows,
// or joins every row it skips, reads the whole key and fails.
func TestHotKeyPagesReadOnlyWhatTheyNeed(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	if _, err := bench.Build(ctx, log, conn, skewTxs); err != nil {
		t.Fatal(err)
	}
	hot, err := bench.HotKeys(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	var events int64
	if err := conn.Get(&events, `SELECT count(*) FROM events`); err != nil {
		t.Fatal(err)
	}
	if emitter := hot["events by emitter"]; emitter.Rows*5 < events*2 || emitter.Rows < bench.DeepOffset*2 {
		t.Fatalf("the chain is not skewed: the hottest emitter has %d of %d events", emitter.Rows, events)
	}

	workloads, err := bench.HotKeyWorkloads(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if len(workloads) < 40 {
		t.Fatalf("only %d hot-key workloads", len(workloads))
	}
	store := db.NewStore(conn)
	handler := api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: log})})
	// Capture records each request with the store's caches warm, as a running service has
	// them (the parsed ABIs that decode calls' inputs, the felts read by id).
	captured, err := bench.Capture(store, handler, workloads)
	if err != nil {
		t.Fatal(err)
	}
	explained := 0
	for i, w := range workloads {
		if most, ok := mostStatements(w.Name); ok && len(captured[i].Statements) > most {
			t.Errorf("%s ran %d statements, more than its %d:\n  %s", w.Name, len(captured[i].Statements), most, statementList(captured[i].Statements))
		}
		// The rows a page needs: those it skips, its own, and one more. A list with kept
		// positions skips fewer than db.MarkEvery rows from the nearest one, at any depth.
		need := int64(w.Skip + w.Limit + 1)
		for _, st := range captured[i].Statements {
			if isCappedCount(st.Query) {
				continue // reads at most db.CountCap index entries by construction, and is kept (db.TestLargeCountsAreKeptAWhile)
			}
			raw, err := dbtest.ExplainAnalyze(conn, st.Query, st.Args)
			if err != nil {
				t.Fatalf("%s: EXPLAIN ANALYZE: %v\n%s", w.Name, err, st.Query)
			}
			var plan []struct{ Plan analyzedNode }
			if err := json.Unmarshal(raw, &plan); err != nil {
				t.Fatal(err)
			}
			explained++
			for _, over := range plan[0].Plan.readsOver(need) {
				t.Errorf("%s reads more than its page needs (%d rows): %s\n  %s", w.Name, need, over, oneLine(st.Query))
			}
			if table := listTable(w.Name); table != "" {
				for _, probe := range plan[0].Plan.probes(table) {
					t.Errorf("%s looks its rows up in %s one by one: %s\n  %s", w.Name, table, probe, oneLine(st.Query))
				}
			}
			if skipsKeysAlone(w.Name) {
				for _, heap := range plan[0].Plan.heapSkips(int64(w.Limit + 1)) {
					t.Errorf("%s skips rows through the table, not its index alone: %s\n  %s", w.Name, heap, oneLine(st.Query))
				}
			}
		}
	}
	if explained == 0 {
		t.Fatal("no statement was explained: the capture found nothing to judge")
	}

	// A block's first 25 transactions, with their transfers: the block's page reads its 25
	// rows and one more, not every transaction of the block sorted (db's
	// TransactionsOfBlocks), in 5 statements (block, transactions, transfers, tokens, prices).
	all, err := bench.Workloads(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	nested := slices.DeleteFunc(all, func(w bench.Workload) bool { return w.Name != "GraphQL block -> txs -> transfers" })
	if len(nested) != 1 {
		t.Fatal("no workload GraphQL block -> txs -> transfers")
	}
	got, err := bench.Capture(store, handler, nested)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got[0].Statements); n > 5 {
		t.Errorf("%s ran %d statements, more than 5:\n  %s", nested[0].Name, n, statementList(got[0].Statements))
	}
	var blockTxs int
	for _, st := range got[0].Statements {
		raw, err := dbtest.ExplainAnalyze(conn, st.Query, st.Args)
		if err != nil {
			t.Fatalf("EXPLAIN ANALYZE: %v\n%s", err, st.Query)
		}
		var plan []struct{ Plan analyzedNode }
		if err := json.Unmarshal(raw, &plan); err != nil {
			t.Fatal(err)
		}
		if plan[0].Plan.reads("transactions") > 0 {
			blockTxs++
		}
		if plan[0].Plan.reads("token_transfers") > 0 {
			continue // each transfer probes its own transaction by key, for its hash and time
		}
		for _, over := range plan[0].Plan.readsOver(26) {
			if strings.Contains(over, " on transactions") {
				t.Errorf("%s reads more than its 25 transactions and one more: %s\n  %s", nested[0].Name, over, oneLine(st.Query))
			}
		}
	}
	if blockTxs == 0 {
		t.Errorf("%s read no transactions: nothing was judged", nested[0].Name)
	}
	t.Logf("%d statements of %d workloads explained", explained, len(workloads))
}

// statementsOf are the most statements a page of a hot-key route may run, at any depth
// (issue 38): a deep page reads its key's count with its mark, and that count is the
// list's total (db.KeyCounts), not a statement of its own; tx-activity reads what its items
// show of its transactions and of their blocks, its mark and its count in its list
// (db.Store.TransactionActivity), not its transactions a second time by their keys nor its
// blocks by their numbers.
var statementsOf = map[string]int{
	// list with its mark, count and blocks; aliases; calls
	"/beta transactions of the busiest sender": 3,
	// mark or count, list, blocks, aliases
	"/beta transactions to the busiest contract": 4,
	"/beta transactions of the commonest type":   4,
	// mark or count, list
	"/beta events of the hottest emitter": 2,
	// mark or count, list: the events' transactions' hashes come with their rows
	// (resolvers.joinedTransaction), not in a statement of their own
	"GraphQL events of the hottest emitter": 2,
}

func mostStatements(workload string) (int, bool) {
	for prefix, n := range statementsOf {
		if strings.HasPrefix(workload, prefix) {
			return n, true
		}
	}
	return 0, false
}

func statementList(sts []bench.Statement) string {
	lines := make([]string, len(sts))
	for i, st := range sts {
		lines[i] = oneLine(st.Query)
	}
	return strings.Join(lines, "\n  ")
}

// skipsKeysAlone are the lists whose deep pages skip their rows by their keys alone, in an
// index-only scan (db's keysetQuery.keysFrom): a token's holders are ordered by balance,
// which changes, so they skip from the start of their span (db/rank_spans.go) up to a
// thousand holders, and each holder skipped through the table cost a heap fetch (101,746
// buffers for the last page of a token of 150,000 holders, before spans, against 1,894 by
// its keys).
func skipsKeysAlone(workload string) bool {
	return strings.Contains(workload, "holders of the most held token")
}

// listTables are the tables of the lists whose page is read in one walk along an index
// (db's keysetQuery.seekFromFirstKey): no statement of such a workload looks a row of
// that table up once per row of something else. A page that joined its keys back to its
// rows cost an index descent per row, 4 buffers each (116 for a page of the commonest
// transaction type on the 1M bench, against 15), and the calls of /beta/tx-activity read
// each transaction's calldata again beside the whole rows the list had read (100 of the
// statement's 200 buffers).
var listTables = map[string]string{
	"transactions of the busiest sender": "transactions", "transactions to the busiest contract": "transactions",
	"transactions of the commonest type": "transactions", "events of the hottest emitter": "events",
	"events of the commonest key": "events", "transfers of the most moved token": "token_transfers",
}

func listTable(workload string) string {
	for list, table := range listTables {
		if strings.Contains(workload, list) {
			return table
		}
	}
	return ""
}

// probes lists the scans of table in n's plan that ran more than once: once per row of
// another node (a nested loop's inner side, a subplan).
func (n analyzedNode) probes(table string) []string {
	var out []string
	if strings.Contains(n.NodeType, "Scan") && n.table() == table && n.Loops > 1 {
		out = append(out, fmt.Sprintf("%s on %s using %s: %d loops", n.NodeType, n.Relation, n.Index, n.Loops))
	}
	for _, c := range n.Plans {
		out = append(out, c.probes(table)...)
	}
	return out
}

// heapSkips lists the scans of the chain's tables in n's plan that read more than need rows
// from the table itself (any scan but an index-only one).
func (n analyzedNode) heapSkips(need int64) []string {
	var out []string
	read := (n.Rows + n.RemovedByFilter + n.RemovedByRecheck) * max(n.Loops, 1)
	if n.NodeType == "Seq Scan" && read < smallTable {
		read = 0 // the test chain's few hundred contracts, read whole for a page's owners
	}
	if strings.Contains(n.NodeType, "Scan") && n.NodeType != "Index Only Scan" && chainTables[n.table()] && read > need {
		out = append(out, fmt.Sprintf("%s on %s using %s: %d rows", n.NodeType, n.Relation, n.Index, read))
	}
	for _, c := range n.Plans {
		out = append(out, c.heapSkips(need)...)
	}
	return out
}

// reads is the rows n's plan read from table's partitions, in all loops.
func (n analyzedNode) reads(table string) int64 {
	var read int64
	if strings.Contains(n.NodeType, "Scan") && n.table() == table {
		read = (n.Rows + n.RemovedByFilter + n.RemovedByRecheck) * max(n.Loops, 1)
	}
	for _, c := range n.Plans {
		read += c.reads(table)
	}
	return read
}

// isCappedCount tells a list's count (db.Store's cappedCount) from its page.
func isCappedCount(q string) bool {
	return strings.HasPrefix(strings.TrimSpace(q), "SELECT count(*) FROM (SELECT 1 FROM")
}

// analyzedNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type analyzedNode struct {
	NodeType string `json:"Node Type"`
	Relation string `json:"Relation Name"`
	Index    string `json:"Index Name"`
	Rows     int64  `json:"Actual Rows"`
	Loops    int64  `json:"Actual Loops"`
	// What a scan read and dropped: rows its filter refused, and rows a bitmap's recheck did.
	RemovedByFilter  int64          `json:"Rows Removed by Filter"`
	RemovedByRecheck int64          `json:"Rows Removed by Index Recheck"`
	Plans            []analyzedNode `json:"Plans"`
}

// chainTables grow with the chain, and their hot keys with it: a list's scan of one of
// them that reads past its page is what this test is for. The small tables beside them (a
// page's names, its tokens) are read whole when PostgreSQL finds that cheaper.
var chainTables = map[string]bool{
	"blocks": true, "transactions": true, "events": true, "calls": true, "token_transfers": true,
	"erc20_balances": true, "erc20_balance_changes": true, "contracts": true, "classes": true,
	"nft_items": true, "nft_events": true, "nft_balances": true, "nft_holders": true, "meta_transactions": true,
	"delegations": true, "staking_activity": true, "attestations": true, "messages": true,
	"felt_ids": true,
}

// smallTable is the size under which a sequential scan of a whole table (the test chain's
// 150 blocks, its few hundred contracts) is PostgreSQL's right choice, not a page read past.
const smallTable = 1000

// table is the table a node reads: a partition (events_0) stands for its table, and a
// sort for whatever it sorts.
func (n analyzedNode) table() string {
	name := n.Relation
	if i := strings.LastIndexByte(name, '_'); i > 0 && strings.Trim(name[i+1:], "0123456789") == "" && chainTables[name[:i]] {
		name = name[:i]
	}
	return name
}

// readsOver lists the scans of the chain's tables in n's plan that read more than need
// rows in all their loops (those they returned and those their filters dropped), and the
// sorts that sorted more.
func (n analyzedNode) readsOver(need int64) []string {
	var out []string
	read := (n.Rows + n.RemovedByFilter + n.RemovedByRecheck) * max(n.Loops, 1)
	if n.NodeType == "Seq Scan" && read < smallTable {
		read = 0 // a table this small is read whole, rightly; at the chain's size it is not
	}
	scan := strings.Contains(n.NodeType, "Scan") && (chainTables[n.table()] || strings.HasPrefix(n.NodeType, "Bitmap Index"))
	if (scan || strings.Contains(n.NodeType, "Sort")) && read > need {
		what := n.NodeType
		if n.Relation != "" {
			what += " on " + n.Relation
		}
		if n.Index != "" {
			what += " using " + n.Index
		}
		out = append(out, fmt.Sprintf("%s: %d rows", what, read))
	}
	for _, c := range n.Plans {
		out = append(out, c.readsOver(need)...)
	}
	return out
}

func oneLine(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 300 {
		q = q[:300] + "..."
	}
	return q
}
