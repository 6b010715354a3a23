package resolvers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/internal/stackstart"
	"github.com/starkgraph/starkgraph/sim"
)

// benchDocuments are the GraphQL documents of `starkgraph bench` that PostGraphile can
// run too (bench.Workloads), with the most allocations each may take per request, served
// in process (no network). The bounds are what the service took when they were set
// (docs/performance-history.md, "GraphQL's own work") with about 3% to spare: a change
// that gives the documents back their per-request work (loaders built for every
// request, a felt written through two strings, the response's data copied, the
// document's checks walked again) fails here.
var benchDocuments = []struct {
	name, doc string
	maxAllocs float64
}{
	{"latest 25 blocks", `{ blocks(first: 25) { edges { node { number hash timestamp txnCount } } } }`, 2520},
	{"blocks with totalCount", `{ blocks(first: 25) { totalCount edges { node { number hash } } } }`, 2070},
	{"25 txs with their block", `{ transactions(first: 25) { edges { node { hash type actualFee block { number timestamp } } } } }`, 4070},
	{"25 txs with their block, as Relay asks", `{ transactions(first: 25) { edges { node { id __typename hash type actualFee block { id __typename number timestamp } } } } }`, 4815},
}

// serveInProcess returns a function that sends doc to h and checks that it answered 25
// edges without errors.
func serveInProcess(t testing.TB, h http.Handler, doc string) func() {
	body, _ := json.Marshal(map[string]string{"query": doc})
	return func() {
		r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"errors"`) ||
			strings.Count(w.Body.String(), `"node":`) != 25 {
			t.Fatalf("status %d: %.300s", w.Code, w.Body.String())
		}
	}
}

func TestBenchDocumentsAllocations(t *testing.T) {
	s := indexedChain(t, 5, 30, 2)
	h := api.NewHandler(api.Config{Store: s.store, Limits: api.DefaultGraphQLLimits})
	for _, d := range benchDocuments {
		serve := serveInProcess(t, h, d.doc)
		serve() // the document is parsed and its checks made once, as any repeated document
		got := testing.AllocsPerRun(50, serve)
		t.Logf("%s: %.0f allocations per request", d.name, got)
		if d.maxAllocs > 0 && got > d.maxAllocs {
			t.Errorf("%s: %.0f allocations per request, more than %.0f", d.name, got, d.maxAllocs)
		}
	}
}

// BenchmarkBenchDocuments serves the bench's documents in process, for their CPU time and
// allocations per request apart from the network and the load generator, with new
// goroutines' stacks started as the runtime chooses and as the server starts them
// (internal/stackstart), alternated in the same run:
//
//	go test ./resolvers -run '^$' -bench BenchDocuments -benchtime 500x -count 3
func BenchmarkBenchDocuments(b *testing.B) {
	s := indexedChain(b, 5, 30, 2)
	h := api.NewHandler(api.Config{Store: s.store, Limits: api.DefaultGraphQLLimits})
	for _, d := range benchDocuments {
		benchServed(b, s, h, d.name, d.doc)
	}
}

// benchServed serves doc through h in a sub-benchmark for each of stackStarts, reporting
// the process's CPU time per request (cpu-ns/op: the loaders' batch windows are waiting,
// not work), allocations and statements.
func benchServed(b *testing.B, s *gqlServer, h http.Handler, name, doc string) {
	for _, st := range stackStarts {
		b.Run(name+"/"+st.name, func(b *testing.B) {
			defer holdStacks(st.kib)()
			serve := serveInProcess(b, h, doc)
			serve()
			b.ReportAllocs()
			statements, cpu := s.store.Statements(), cpuTime()
			for b.Loop() {
				serve()
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(s.store.Statements()-statements)/float64(b.N), "statements/op")
		})
	}
}

// stackStarts are the two starts of new goroutines' stacks the benchmarks compare: the
// runtime's (2-8 KiB in a test binary) and the server's (--goroutine-stack-kib, 16 KiB).
var stackStarts = []struct {
	name string
	kib  int
}{{"runtime-stacks", 0}, {"server-stacks", 14}}

// holdStacks makes new goroutines start as stackstart.Hold(kib) has them, from a
// collection on, until the returned function is called.
func holdStacks(kib int) (release func()) {
	stop := stackstart.Hold(kib)
	runtime.GC()
	return func() {
		stop()
		runtime.GC()
	}
}

// indexedChain is indexedSim for benchmarks too.
func indexedChain(t testing.TB, seed uint64, blocks, txPerBlock int) *gqlServer {
	t.Helper()
	s := newGQLServer(t)
	node := httptest.NewServer(sim.New(sim.Config{Seed: seed, Blocks: uint64(blocks), TxPerBlock: txPerBlock}).Handler())
	t.Cleanup(node.Close)
	indexertest.Run(t, s.db, node.URL, 0, int64(blocks-1))
	return s
}
