package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// Under a steady load of parallel requests the API's read pool opens no new PostgreSQL
// sessions: every connection stays open while idle. The same load over a pool that keeps
// fewer idle connections than it opens (the old setting) is measured in the same run, to
// show that the count would tell.
func TestSteadyLoadOpensNoSessions(t *testing.T) {
	url := dbtest.NewURL(t)
	ctx := context.Background()
	monitor, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer monitor.Close()
	monitor.SetMaxOpenConns(1)
	if _, err := monitor.Exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (0, '\x01', '\x00', 1, 'ACCEPTED_ON_L2');
		INSERT INTO list_counts (name, count) VALUES ('blocks', 1)`); err != nil {
		t.Fatal(err)
	}
	sessions := func() int64 {
		time.Sleep(1500 * time.Millisecond) // backends report their counters at least every second
		var n int64
		if err := monitor.Get(&n, `SELECT sessions FROM pg_stat_database WHERE datname = current_database()`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	load := func(pool *sqlx.DB) int64 {
		store := db.NewStore(pool)
		srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
			REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: slog.New(slog.DiscardHandler)})}))
		defer srv.Close()
		run := func(d time.Duration) {
			var wg sync.WaitGroup
			end := time.Now().Add(d)
			for range 16 {
				wg.Go(func() {
					for time.Now().Before(end) {
						resp, err := http.Get(srv.URL + "/beta/blocks")
						if err != nil {
							t.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				})
			}
			wg.Wait()
		}
		run(time.Second) // warm up: the pool opens its connections
		before := sessions()
		run(2 * time.Second)
		return sessions() - before
	}

	steady, err := openReadPool(ctx, url, 8, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer steady.Close()
	newSessions := load(steady)

	churning, err := openReadPool(ctx, url, 8, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer churning.Close()
	churning.SetMaxIdleConns(2)
	baseline := load(churning)

	t.Logf("new PostgreSQL sessions in 2 s of 16 clients: %d with the API's pool, %d with 2 idle of 8", newSessions, baseline)
	if newSessions != 0 {
		t.Errorf("the API's pool opened %d new sessions under a steady load, want 0", newSessions)
	}
	if baseline < 10 {
		t.Errorf("the churning pool opened only %d sessions: the measure does not tell", baseline)
	}
}

// The read pool's settings reach lib/pq in both forms of a connection string, and a
// setting the operator gave is kept.
func TestReadPoolSettings(t *testing.T) {
	for _, c := range []struct{ dsn, want string }{
		{"postgres://u@h/db?sslmode=disable", "postgres://u@h/db?binary_parameters=yes&sslmode=disable&statement_timeout=10000"},
		{"host=/run dbname=x", "host=/run dbname=x statement_timeout=10000 binary_parameters=yes"},
		{"postgres://u@h/db?binary_parameters=no&statement_timeout=5", "postgres://u@h/db?binary_parameters=no&statement_timeout=5"},
		{"host=/run binary_parameters = 'no' statement_timeout=5", "host=/run binary_parameters = 'no' statement_timeout=5"},
		// A setting's name elsewhere in the string is not the setting.
		{"postgres://statement_timeout:binary_parameters@h/db", "postgres://statement_timeout:binary_parameters@h/db?binary_parameters=yes&statement_timeout=10000"},
		{"user=statement_timeout password='a binary_parameters=no' dbname=x", "user=statement_timeout password='a binary_parameters=no' dbname=x statement_timeout=10000 binary_parameters=yes"},
		{`password=a\ binary_parameters=no host=h`, `password=a\ binary_parameters=no host=h statement_timeout=10000 binary_parameters=yes`},
	} {
		if got := withBinaryParameters(withStatementTimeout(c.dsn, 10*time.Second)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.dsn, got, c.want)
		}
	}
}

// The read pool's sessions plan each prepared statement once, generically, unless the
// connection string says otherwise, and without parallel workers, JIT or Memoize.
func TestReadPoolPlansGenerically(t *testing.T) {
	ctx := context.Background()
	url := dbtest.NewURL(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for dsn, want := range map[string]string{url: "force_generic_plan", url + sep + "plan_cache_mode=auto": "auto"} {
		pool, err := openReadPool(ctx, dsn, 2, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var mode, workers, jit, memoize string
		err = pool.GetContext(ctx, &mode, `SHOW plan_cache_mode`)
		if err == nil {
			err = pool.GetContext(ctx, &workers, `SHOW max_parallel_workers_per_gather`)
		}
		if err == nil {
			err = pool.GetContext(ctx, &jit, `SHOW jit`)
		}
		if err == nil {
			err = pool.GetContext(ctx, &memoize, `SHOW enable_memoize`)
		}
		pool.Close()
		if err != nil || mode != want {
			t.Errorf("%s: plan_cache_mode %q (%v), want %q", dsn, mode, err, want)
		}
		// Without workers: a generic plan given them sorted a hot key's whole range for a
		// deep page (openReadPool).
		if workers != "0" {
			t.Errorf("%s: max_parallel_workers_per_gather %q, want 0", dsn, workers)
		}
		// Without JIT: a generic plan's cost estimate of a page at 10M transactions made
		// every execution compile itself for 85-215 ms (openReadPool).
		if jit != "off" {
			t.Errorf("%s: jit %q, want off", dsn, jit)
		}
		// Without Memoize: a generic plan sized its cache of a page's joined rows for a
		// tenth of the key's, 6.7 ms an execution at 10M transactions (openReadPool).
		if memoize != "off" {
			t.Errorf("%s: enable_memoize %q, want off", dsn, memoize)
		}
	}
}
