package bench_test

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/bench"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// The benchmark's machinery on a small chain: the database is built once and then reused,
// every workload answers, its SQL is captured and replays on its own, and the report has a
// line per workload with both measurements.
func TestBenchOnASmallChain(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	curve, err := bench.Build(ctx, log, conn, 2000)
	if err != nil {
		t.Fatal(err)
	}
	var txs int64
	if err := conn.Get(&txs, `SELECT count(*) FROM transactions`); err != nil || txs < 1500 {
		t.Fatalf("%d transactions built (%v), want about 2000", txs, err)
	}
	// The curve counts what was written: every transaction, in one segment (under a million).
	if curve == nil || curve.Transactions != txs || len(curve.Segments) != 1 || curve.Segments[0].ToTx != txs || curve.TxPerSecond <= 0 {
		t.Errorf("the catch-up's curve: %+v, want one segment of %d transactions", curve, txs)
	}
	if again, err := bench.Build(ctx, log, conn, 2000); err != nil || again != nil { // the cache: nothing to index
		t.Fatalf("a second build: curve %+v, %v; want none", again, err)
	}
	var again int64
	if err := conn.Get(&again, `SELECT count(*) FROM transactions`); err != nil || again != txs {
		t.Fatalf("a second build changed the database: %d transactions, then %d", txs, again)
	}

	workloads, err := bench.Workloads(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	handler := api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: log})})
	captured, err := bench.Capture(store, handler, workloads)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	var results []bench.Result
	for i, w := range workloads {
		if len(captured[i].Statements) == 0 || len(captured[i].Body) == 0 {
			t.Fatalf("%s ran no SQL or answered nothing", w.Name)
		}
		// Recorded warm: the felts a page names by id come from the store's cache, as in
		// a running service, not from a statement of the request.
		for _, st := range captured[i].Statements {
			if strings.Contains(st.Query, "FROM felt_ids WHERE id = ANY") {
				t.Errorf("%s: the capture counts the read of felts by id, which a warm store skips", w.Name)
			}
		}
		service := bench.HTTPLoad(ctx, srv.URL, "", w, 2, 150*time.Millisecond)
		baseline := bench.SQLLoad(ctx, conn.DB, captured[i].Statements, 2, 150*time.Millisecond)
		alone := bench.HTTPAlone(ctx, captured[i], w, 2, 150*time.Millisecond)
		if service.Requests == 0 || service.Errors > 0 || baseline.Requests == 0 || baseline.Errors > 0 || service.P99 < service.P50 ||
			alone.Requests == 0 || alone.Errors > 0 {
			t.Errorf("%s: service %+v, raw SQL %+v, HTTP alone %+v", w.Name, service, baseline, alone)
		}
		results = append(results, bench.Result{Workload: w.Name, Service: service, Statements: len(captured[i].Statements), Baseline: baseline,
			HTTPAlone: &alone, Ceiling: bench.Ceiling(baseline.PerSecond, alone.PerSecond)})
	}
	table := bench.Markdown(results)
	if lines := strings.Count(table, "\n"); lines != len(workloads)+2 {
		t.Errorf("the table has %d lines for %d workloads:\n%s", lines, len(workloads), table)
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if cells := strings.Count(line, "|") - 1; cells != 10 {
			t.Errorf("%d cells, want 10 (with the 5xx count, HTTP alone and the ceiling): %s", cells, line)
		}
	}
}

// The HTTP exchange alone answers exactly what the service answered, headers and all, and
// the ceiling is the ratio of a service whose requests cost the machine one SQL run and one
// HTTP exchange each.
func TestHTTPAloneReplaysTheCapturedResponse(t *testing.T) {
	c := bench.Captured{
		Header: http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}, "Content-Length": {"999"}},
		Body:   []byte("not really gzip, but replayed as it was"),
	}
	rec := httptest.NewRecorder()
	bench.Replay(c).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/beta/blocks", nil))
	if rec.Body.String() != string(c.Body) || rec.Header().Get("Content-Encoding") != "gzip" ||
		rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Content-Length") == "999" {
		t.Errorf("replayed %v %q", rec.Header(), rec.Body.String())
	}
	if m := bench.HTTPAlone(context.Background(), c, bench.Workload{Path: "/beta/blocks"}, 2, 100*time.Millisecond); m.Requests == 0 || m.Errors > 0 {
		t.Errorf("HTTP alone: %+v", m)
	}
	for _, tc := range []struct{ raw, alone, want float64 }{{18000, 54000, 0.75}, {1000, 1000, 0.5}, {0, 1000, 0}, {1000, 0, 0}} {
		if got := bench.Ceiling(tc.raw, tc.alone); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Ceiling(%v, %v) = %v, want %v", tc.raw, tc.alone, got, tc.want)
		}
	}
}

// The indexer's timing: each mode indexes the whole chain into an empty database, counts
// what it wrote, and a bulk load ends with its indexes rebuilt.
func TestMeasureIndexing(t *testing.T) {
	ctx := context.Background()
	var runs []bench.Indexing
	for _, mode := range []struct {
		name string
		bulk int64
	}{{"bulk load", 5}, {"through the indexes", -1}} {
		conn := dbtest.New(t)
		var logged strings.Builder
		log := slog.New(slog.NewTextHandler(&logged, nil))
		r, err := bench.MeasureIndexing(ctx, log, conn, 100*bench.TxPerBlock, mode.name, mode.bulk)
		if err != nil {
			t.Fatal(err)
		}
		var blocks int64
		if err := conn.Get(&blocks, `SELECT count(*) FROM blocks`); err != nil || blocks != 100 {
			t.Fatalf("%s: %d blocks indexed (%v), want 100", mode.name, blocks, err)
		}
		if rebuilt := strings.Contains(logged.String(), "bulk load: secondary indexes and foreign keys rebuilt"); rebuilt != (mode.bulk > 0) {
			t.Errorf("%s: indexes rebuilt at the end: %v", mode.name, rebuilt)
		}
		if r.Transactions < 100*bench.TxPerBlock/2 || r.Events == 0 || r.Seconds <= 0 || r.TxPerSecond <= 0 {
			t.Fatalf("%s: %+v", mode.name, r)
		}
		if deferred, err := db.ConstraintsDeferred(ctx, conn); err != nil || deferred {
			t.Fatalf("%s: constraints left deferred (%v)", mode.name, err)
		}
		runs = append(runs, r)
	}
	if table := bench.IndexingMarkdown(runs); strings.Count(table, "\n") != 4 || !strings.Contains(table, "| bulk load |") {
		t.Errorf("indexing table:\n%s", table)
	}
}

// Load warms a workload up before it counts: the first calls (which open connections and
// prepare statements) are made but not measured, so the slow first call of each client is
// not in the p99.
func TestLoadDoesNotCountItsWarmUp(t *testing.T) {
	var calls, slow atomic.Int64
	// The first calls are far slower than the others, so that a busy machine (a 1 ms sleep
	// taking 50 ms) cannot pass them off as counted.
	const slowCall = 400 * time.Millisecond
	m := bench.Load(context.Background(), 2, 600*time.Millisecond, func(context.Context) error {
		if calls.Add(1) <= 2 { // each client's first call, as on a fresh connection
			slow.Add(1)
			time.Sleep(slowCall)
			return nil
		}
		time.Sleep(time.Millisecond)
		return nil
	})
	if slow.Load() != 2 || int64(m.Requests) >= calls.Load() {
		t.Fatalf("%d calls, %d counted, %d slow first calls: the warm-up was counted or skipped", calls.Load(), m.Requests, slow.Load())
	}
	if m.P99 >= slowCall {
		t.Errorf("p99 %v includes the slow first calls the warm-up should have taken", m.P99)
	}
}
