package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/resolvers"
)

// simSTRK is the simulator's STRK, whose holders the bench's token document reads.
const simSTRK = "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"

// heavyDocument is one of the bench's GraphQL documents with the most work of the
// service's own (bench.Workloads, bench/hotkeys.go), made for an indexed simulated chain,
// with the statements it may run.
type heavyDocument struct {
	name       string
	doc        string
	statements int64
	maxAllocs  float64 // per request, as benchDocuments' bounds
}

// heavyDocuments builds the documents over s's chain: the block with the most
// transactions, STRK's holders, and the busiest emitter's events from 50 down, after a
// cursor of an offset as the bench's middle, deep and last pages ask for them (and the
// REST layer turns ?p= into).
func heavyDocuments(t testing.TB, s *gqlServer, h http.Handler) []heavyDocument {
	t.Helper()
	var pick struct {
		Block   int64  `db:"block"`
		Emitter []byte `db:"emitter"`
	}
	if err := s.db.GetContext(context.Background(), &pick, `SELECT
		(SELECT block_number FROM transactions GROUP BY 1 ORDER BY count(*) DESC, 1 DESC LIMIT 1) AS block,
		(SELECT from_address FROM events_named GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1) AS emitter`); err != nil {
		t.Fatal(err)
	}
	emitter := fmt.Sprintf("0x%064x", pick.Emitter)
	return []heavyDocument{
		// block, its transactions, their transfers, the transfers' tokens with their prices
		// (read with the transfers' lists, not by resolvers of their own: 5,626 allocations
		// before).
		{"block -> txs -> transfers", fmt.Sprintf(`{ block(number: %d) {
			transactions(first: 25) { edges { node { hash tokenTransfers { amount usdValue token { symbol } } } } } } }`, pick.Block), 4, 5600},
		// token, its holders, their contracts with their classes (a class's columns are read
		// with each of its contracts now, about 200 allocations more than the two reads).
		{"token -> 25 holders -> contract -> class", `{ token(address: "` + simSTRK + `") {
			symbol holders(first: 25) { edges { node { balance owner { address classHash class { hash isAccount } } } } } } }`, 3, 5700},
		// the events with their transactions' hashes (from the same row), and the page's start (db/keypos.go) on a deep page of a large chain.
		{"events of the busiest emitter, page 3", `{ events(first: 25, after: "` + resolvers.OffsetCursor(50) +
			`", filter: {fromAddress: "` + emitter + `"}) { edges { node { blockNumber index data transaction { hash } } } } }`, 1, 3610},
	}
}

func serveDoc(t testing.TB, h http.Handler, doc string) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": doc})
	r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %.300s", w.Code, w.Body.String())
	}
	return w.Body.Bytes()
}

// heavyChain is a simulated chain with blocks of 30 transactions, so that each heavy
// document answers 25 items.
func heavyChain(t testing.TB) (*gqlServer, http.Handler) {
	s := indexedChain(t, 7, 12, 30)
	return s, api.NewHandler(api.Config{Store: s.store, Limits: api.DefaultGraphQLLimits})
}

// The heavy documents run no more statements than their links need, and take no more
// allocations than their bounds: an extra statement (a link loaded per item, or one the
// page already read) fails here, as do the loads a page reads ahead coming back (25 items
// meeting in a batch instead of reading the request's cache).
func TestHeavyDocumentsStatements(t *testing.T) {
	s, h := heavyChain(t)
	for _, d := range heavyDocuments(t, s, h) {
		serve := serveInProcess(t, h, d.doc)
		serve()
		var ran []string
		s.store.OnQuery = func(q string, _ []any) { ran = append(ran, strings.Join(strings.Fields(q), " ")) }
		before := s.store.Statements()
		serve()
		s.store.OnQuery = nil
		if got := s.store.Statements() - before; got != d.statements {
			t.Errorf("%s: %d statements, want %d:\n%s", d.name, got, d.statements, strings.Join(ran, "\n"))
		}
		allocs := testing.AllocsPerRun(20, serve)
		t.Logf("%s: %.0f allocations per request", d.name, allocs)
		if d.maxAllocs > 0 && allocs > d.maxAllocs {
			t.Errorf("%s: %.0f allocations per request, more than %.0f", d.name, allocs, d.maxAllocs)
		}
	}
}

// BenchmarkHeavyDocuments serves the heavy documents in process with the loaders' batch
// window as served (2 ms), for the service's own work per request: cpu-ns/op is the
// process's CPU time (user and system) per request, which the batch window's waits do not
// count, next to ns/op (wall time, waits included), allocations and statements. Each runs
// with new goroutines' stacks started by the runtime and by the server (stackStarts).
//
//	go test ./resolvers -run '^$' -bench HeavyDocuments -benchtime 200x -count 5
func BenchmarkHeavyDocuments(b *testing.B) {
	saved := loaders.BatchWait
	loaders.BatchWait = 2 * time.Millisecond
	defer func() { loaders.BatchWait = saved }()
	s, h := heavyChain(b)
	for _, d := range heavyDocuments(b, s, h) {
		benchServed(b, s, h, d.name, d.doc)
	}
}

// cpuTime is the process's CPU time so far, user and system, in nanoseconds.
func cpuTime() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

// An event's and a transfer's transaction made of their rows (asked only for what the rows
// hold) answer what the transaction read whole answers.
func TestTransactionOfRowsAnswersAsLoaded(t *testing.T) {
	s, h := heavyChain(t)
	const fields = `id __typename hash blockNumber index timestamp block { number } blockHash`
	for _, list := range []string{
		`events(first: 40, filter: {fromAddress: "` + simSTRK + `"})`,
		`tokenTransfers(token: "` + simSTRK + `", first: 40)`,
	} {
		doc := func(extra string) string {
			return `{ ` + list + ` { edges { node { transaction { ` + fields + extra + ` } } } } }`
		}
		var fromRows, loaded struct {
			Data map[string]struct {
				Edges []struct {
					Node struct{ Transaction map[string]any }
				}
			}
			Errors []any
		}
		serveDoc(t, h, doc("")) // the store's cache of felt ids warm, as in a running service
		before := s.store.Statements()
		if err := json.Unmarshal(serveDoc(t, h, doc("")), &fromRows); err != nil {
			t.Fatal(err)
		}
		made := s.store.Statements() - before
		if err := json.Unmarshal(serveDoc(t, h, doc(" type")), &loaded); err != nil {
			t.Fatal(err)
		}
		if len(fromRows.Errors) > 0 || len(loaded.Errors) > 0 {
			t.Fatalf("%s: errors %v %v", list, fromRows.Errors, loaded.Errors)
		}
		var a, b []map[string]any
		for _, conn := range fromRows.Data {
			for _, e := range conn.Edges {
				a = append(a, e.Node.Transaction)
			}
		}
		for _, conn := range loaded.Data {
			for _, e := range conn.Edges {
				delete(e.Node.Transaction, "type")
				b = append(b, e.Node.Transaction)
			}
		}
		if len(a) < 2 {
			t.Fatalf("%s: %d items", list, len(a))
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: made of the rows\n%s\nloaded\n%s", list, ja, jb)
		}
		// the list and the blocks; not the transactions
		if made != 2 {
			t.Errorf("%s: %d statements, want 2 (the list and its blocks)", list, made)
		}
	}
}

// A page of holders reads its owners' contracts with their classes in one statement, the
// classes without their ABIs unless the document asks for them: an owner's class answers
// the ABI the class itself answers, and without abi asked, what it answers besides is the
// same.
func TestHolderOwnersClassesAnswerAsTheClass(t *testing.T) {
	_, h := heavyChain(t)
	type class struct {
		Hash      string          `json:"hash"`
		IsAccount bool            `json:"isAccount"`
		Abi       json.RawMessage `json:"abi"`
	}
	holders := func(fields string) []class {
		var out struct {
			Data struct {
				Token struct {
					Holders struct {
						Edges []struct {
							Node struct {
								Owner *struct {
									Class *class `json:"class"`
								} `json:"owner"`
							} `json:"node"`
						} `json:"edges"`
					} `json:"holders"`
				} `json:"token"`
			} `json:"data"`
		}
		body := serveDoc(t, h, `{ token(address: "`+simSTRK+`") { holders(first: 25) { edges { node { owner { class { `+fields+` } } } } } } }`)
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		var classes []class
		for _, e := range out.Data.Token.Holders.Edges {
			if e.Node.Owner != nil && e.Node.Owner.Class != nil {
				classes = append(classes, *e.Node.Owner.Class)
			}
		}
		return classes
	}
	withABI, without := holders("hash isAccount abi"), holders("hash isAccount")
	if len(withABI) < 2 || len(withABI) != len(without) {
		t.Fatalf("%d and %d owners with classes, want the same, at least 2", len(withABI), len(without))
	}
	for i, c := range withABI {
		var one struct {
			Data struct {
				Class class `json:"class"`
			} `json:"data"`
		}
		if err := json.Unmarshal(serveDoc(t, h, `{ class(hash: "`+c.Hash+`") { hash isAccount abi } }`), &one); err != nil {
			t.Fatal(err)
		}
		if string(c.Abi) == "null" || string(c.Abi) != string(one.Data.Class.Abi) || c.IsAccount != one.Data.Class.IsAccount {
			t.Errorf("owner %d's class %s: abi %.80s, isAccount %v; the class answers %.80s, %v", i, c.Hash, c.Abi, c.IsAccount, one.Data.Class.Abi, one.Data.Class.IsAccount)
		}
		if without[i].Hash != c.Hash || without[i].IsAccount != c.IsAccount {
			t.Errorf("owner %d's class without abi asked: %+v, with: %s %v", i, without[i], c.Hash, c.IsAccount)
		}
	}
}
