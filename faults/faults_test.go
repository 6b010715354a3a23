package faults_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/pglocal"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/sim"
)

// needPostgres skips without a PostgreSQL install, unless CI=true.
func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := pglocal.Find(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is not installed: %v", err)
		}
		t.Skipf("PostgreSQL is not installed (%v): skipping", err)
	}
}

// sample is one request of the steady load.
type sample struct {
	at         time.Time
	path       string
	status     int
	retryAfter string
	took       time.Duration
	body       string
}

// privateCluster starts a PostgreSQL cluster of the test's own, which it may stop and
// start, with a database "sg"; it is killed and removed when the test ends.
func privateCluster(t *testing.T) (cluster *pglocal.Cluster, restart func() *pglocal.Cluster) {
	t.Helper()
	needPostgres(t)
	quiet := slog.New(slog.DiscardHandler)
	// The server may run as the postgres user (when the test runs as root): it must be
	// able to enter the directory.
	top, err := os.MkdirTemp("", "starkgraph-faults-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if err := os.Chmod(top, 0o711); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(top, "pg")
	start := func() *pglocal.Cluster {
		c, err := pglocal.Start(context.Background(), pglocal.Options{DataDir: dataDir, Fast: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cluster = start()
	t.Cleanup(func() { _ = pglocal.Kill(dataDir) }) // runs before the directory is removed
	if err := cluster.CreateDatabase(context.Background(), "sg"); err != nil {
		t.Fatal(err)
	}
	return cluster, start
}

// TestPostgresRestartUnderLoad stops the API's PostgreSQL while clients keep asking (REST
// and GraphQL, with keys, so the key lookup meets the outage too), then starts it again.
// During the outage every answer is a fast 503 with Retry-After, never a 500 or a hang,
// and /readyz is unready; within 5 s of PostgreSQL's return everything answers 200
// again, with no restart of the API.
func TestPostgresRestartUnderLoad(t *testing.T) {
	cluster, restart := privateCluster(t)
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	url := cluster.URL("sg")
	conn, err := sqlx.Open("postgres", url+"&statement_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetMaxOpenConns(8)
	conn.SetMaxIdleConns(8)
	if err := db.Migrate(ctx, conn.DB); err != nil {
		t.Fatal(err)
	}
	var timeout string
	if err := conn.Get(&timeout, `SHOW statement_timeout`); err != nil || timeout != "5s" {
		t.Fatalf("statement_timeout from the URL: %q (%v)", timeout, err)
	}
	if _, err := conn.Exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (0, '\x01', '\x00', 1, 'ACCEPTED_ON_L2');
		INSERT INTO list_counts (name, count) VALUES ('blocks', 1)`); err != nil {
		t.Fatal(err)
	}
	keys := auth.NewStore(conn)
	key, err := auth.DevKey(ctx, keys, "")
	if err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	cfg := api.Config{
		Store: store, Limits: api.DefaultGraphQLLimits, Logger: quiet, Ready: api.ReadyCheck(store),
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: quiet}),
	}
	// Without keys, the APIs' own reads meet the outage; with keys, the key lookup does.
	open := httptest.NewServer(api.NewHandler(cfg))
	defer open.Close()
	cfg.Auth = auth.New(auth.Options{Keys: keys, Limiter: auth.NewMemoryLimiter(), Logger: quiet})
	srv := httptest.NewServer(api.NewHandler(cfg))
	defer srv.Close()
	client := &http.Client{Timeout: 15 * time.Second}
	ask := func(path string) sample {
		base := srv.URL
		if p, ok := strings.CutPrefix(path, "open:"); ok {
			base, path = open.URL, p
		}
		var req *http.Request
		if path == "/graphql" {
			req, _ = http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{"query": "{ blocks(first: 1) { totalCount edges { node { number } } } }"}`))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req, _ = http.NewRequest(http.MethodGet, base+path, nil)
		}
		req.Header.Set("x-api-key", key)
		began := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return sample{at: began, path: path, status: -1, body: err.Error(), took: time.Since(began)}
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return sample{at: began, path: path, status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"),
			took: time.Since(began), body: string(body)}
	}
	paths := []string{"/beta/blocks", "/graphql", "open:/beta/blocks", "open:/graphql"}
	for _, p := range paths {
		if s := ask(p); s.status != 200 {
			t.Fatalf("before the outage: %s %d %s", p, s.status, s.body)
		}
	}

	// Steady load: 4 clients, REST and GraphQL, with and without keys.
	var mu sync.Mutex
	var samples []sample
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 4 {
		path := paths[i]
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				s := ask(path)
				s.path = path
				mu.Lock()
				samples = append(samples, s)
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	if err := cluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	downAt := time.Now()
	time.Sleep(2 * time.Second)
	ready := ask("/readyz")
	if ready.status != http.StatusServiceUnavailable || strings.Contains(ready.body, "dial") || strings.Contains(ready.body, "/") {
		t.Errorf("/readyz during the outage: %d %s, want 503 without driver details", ready.status, ready.body)
	}
	restartAt := time.Now() // from here PostgreSQL may answer again
	cluster = restart()
	upAt := time.Now()
	if cluster.URL("sg") != url {
		t.Fatalf("the restarted cluster has another URL")
	}
	time.Sleep(5 * time.Second)
	close(stop)
	wg.Wait()

	var during, after, fiveHundreds int
	var slowest time.Duration
	recovered := map[string]time.Time{}
	for _, s := range samples {
		if s.status >= 500 && s.status != http.StatusServiceUnavailable || s.status == -1 {
			fiveHundreds++
			t.Errorf("%s at %s: %d %s", s.path, s.at.Sub(downAt).Round(time.Millisecond), s.status, s.body)
		}
		inOutage := s.at.After(downAt.Add(200*time.Millisecond)) && s.at.Before(restartAt)
		if inOutage {
			during++
			slowest = max(slowest, s.took)
			if s.status != http.StatusServiceUnavailable || s.retryAfter == "" || strings.Contains(s.body, "dial") {
				t.Errorf("during the outage %s: %d (Retry-After %q) %s, want 503 with Retry-After", s.path, s.status, s.retryAfter, s.body)
			}
		}
		if s.at.After(upAt) && s.status == 200 {
			after++
			if _, ok := recovered[s.path]; !ok {
				recovered[s.path] = s.at
			}
		}
	}
	if during < 10 {
		t.Errorf("only %d requests during the outage; the load did not run", during)
	}
	if slowest > time.Second {
		t.Errorf("a request during the outage took %s: failing is not fast", slowest)
	}
	for _, p := range paths {
		at, ok := recovered[p]
		if !ok || at.Sub(upAt) > 5*time.Second {
			t.Errorf("%s did not answer 200 within 5 s of PostgreSQL's return", p)
		}
	}
	// The last second: all 200.
	for _, s := range samples {
		if s.at.After(upAt.Add(4*time.Second)) && s.status != 200 {
			t.Errorf("after recovery %s: %d %s", s.path, s.status, s.body)
		}
	}
	if r := ask("/readyz"); r.status != 200 {
		t.Errorf("/readyz after recovery: %d %s", r.status, r.body)
	}
	t.Logf("%d requests in all; %d during the outage (slowest %s); %d answered 200 after it; recovered after %v",
		len(samples), during, slowest, after, func() string {
			var parts []string
			for p, at := range recovered {
				parts = append(parts, fmt.Sprintf("%s %s", p, at.Sub(upAt).Round(time.Millisecond)))
			}
			return strings.Join(parts, ", ")
		}())
}

// TestPostgresRestartWhileIndexing stops PostgreSQL while the indexer catches up with the
// simulated node and starts it again: the indexer retries, takes its lock again, reaches
// the head, and its incrementally kept counters agree with the rows (a block applied twice
// or lost would show).
func TestPostgresRestartWhileIndexing(t *testing.T) {
	cluster, restart := privateCluster(t)
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	conn, err := sqlx.Open("postgres", cluster.URL("sg"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := db.Migrate(ctx, conn.DB); err != nil {
		t.Fatal(err)
	}
	const head = 299
	chain := sim.New(sim.Config{Seed: 3, Blocks: head + 1, TxPerBlock: 60})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: head, BatchSize: 5, PollInterval: 50 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ix.Run(runCtx) }()

	// Stop PostgreSQL once some blocks are in, well before the head.
	deadline := time.Now().Add(time.Minute)
	for {
		var n int
		_ = conn.Get(&n, `SELECT count(*) FROM blocks`)
		if n >= 20 {
			if n >= head {
				t.Fatalf("the indexer was done before the outage (%d blocks): make the chain longer", n)
			}
			t.Logf("stopping PostgreSQL at %d blocks", n)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the indexer wrote no blocks")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	restart()
	if err := <-done; err != nil {
		t.Fatalf("the indexer ended with %v", err)
	}

	var got struct {
		Blocks, MaxBlock, Txs, TxsByBlocks, Events, EventsByBlocks int64
		CountTxs, CountEvents, CountBlocks                         int64
	}
	err = conn.QueryRow(`SELECT (SELECT count(*) FROM blocks), (SELECT max(number) FROM blocks),
		(SELECT count(*) FROM transactions), (SELECT sum(tx_count) FROM blocks),
		(SELECT count(*) FROM events), (SELECT sum(event_count) FROM blocks),
		(SELECT count FROM list_counts WHERE name = 'transactions'), (SELECT count FROM list_counts WHERE name = 'events'),
		(SELECT count FROM list_counts WHERE name = 'blocks')`).Scan(&got.Blocks, &got.MaxBlock, &got.Txs, &got.TxsByBlocks,
		&got.Events, &got.EventsByBlocks, &got.CountTxs, &got.CountEvents, &got.CountBlocks)
	if err != nil {
		t.Fatal(err)
	}
	if got.Blocks != head+1 || got.MaxBlock != head || got.Txs != got.TxsByBlocks || got.Events != got.EventsByBlocks ||
		got.CountTxs != got.Txs || got.CountEvents != got.Events || got.CountBlocks != got.Blocks {
		t.Errorf("after the outage the index disagrees with itself: %+v", got)
	}
	t.Logf("indexed %d blocks, %d transactions, %d events across the outage", got.Blocks, got.Txs, got.Events)
}
