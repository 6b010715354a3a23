// PostgreSQL connections: the primary's, the API's read pool and the parameters added to
// their connection strings.

package main

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
)

// openDB connects to url and checks that the server answers.
func openDB(ctx context.Context, url string) (*sqlx.DB, error) {
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(20)
	conn.SetMaxIdleConns(10)
	conn.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.PingContext(pingCtx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w (is it running, and does the URL name its host, port, user and database?)", err)
	}
	return conn, nil
}

// instrument makes a store report its statements to /metrics: a count, and each
// statement's time by the store method that ran it.
func instrument(store *db.Store) {
	store.OnStatement = metrics.SQLStatements.Inc
	store.OnStatementDone = func(name string, took time.Duration) {
		metrics.SQLDuration.WithLabelValues(name).Observe(took.Seconds())
	}
}

// openReadPool opens the API's pool for chain reads: maxConns connections, all of them
// kept open while idle (a pool that closes idle connections makes PostgreSQL fork a new
// session for a burst of parallel loads, which costs more than the queries), each session
// stopping statements that run past timeout.
//
// Its sessions' settings are db.ReadSessionSettings. They plan each prepared statement once
// (plan_cache_mode = force_generic_plan).
// Left to choose, PostgreSQL planned the statements on partitioned tables again at every
// execution (a plan for the arguments prunes partitions; the generic plan prunes them at
// run time, which the choice does not count), and planning cost more than running them:
// 0.2-0.3 ms of the 0.05 ms a keyed read takes. Every statement the API runs uses its
// indexes in its generic plan too (rest.TestEveryRouteUsesIndexes checks both plans).
//
// They plan without parallel workers (max_parallel_workers_per_gather = 0). A page is a
// few dozen rows read in index order; given workers, the generic plan of a deep page of the
// commonest event key read every entry of the key below the page in parallel and sorted
// them: 650 ms instead of 4 ms on the 1M bench, 3 requests a second. The API's own
// concurrency already keeps the cores busy.
//
// And without JIT compilation (jit = off). A generic plan's LIMIT $1 is estimated at a
// tenth of the table, so at 10M transactions the page of /beta/txns cost 587,000 (over
// jit_above_cost's 100,000) and each execution compiled itself: 85-215 ms of LLVM for a
// 0.1 ms read of 26 rows, 3 requests a second on the 10M bench.
//
// And without Memoize (enable_memoize = off). A generic plan caches the rows of a join's
// inner side (an event's transaction, a folded event's transfer) in a hash table sized by
// its estimate, a tenth of the key's rows: at 10M transactions every execution of the page
// of the commonest event key built and freed a table for 53,000 entries, 6.7 ms of a
// statement whose rows took 0.07 ms (0.12 ms with it off), and the middle and deep pages
// took 160-210 ms at p99. A page joins a few dozen rows; there is little to memoize.
func openReadPool(ctx context.Context, url string, maxConns int, timeout time.Duration) (*sqlx.DB, error) {
	dsn := withBinaryParameters(withStatementTimeout(url, timeout))
	for _, setting := range db.ReadSessionSettings {
		dsn = withParam(dsn, setting.Name, setting.Value)
	}
	conn, err := openDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(maxConns)
	conn.SetMaxIdleConns(maxConns)
	conn.SetConnMaxIdleTime(0)
	conn.SetConnMaxLifetime(time.Hour) // renewed hourly, spread by the pool's use
	return conn, nil
}

// withStatementTimeout adds PostgreSQL's statement_timeout to a connection, so that a
// statement outliving its request is stopped by the server too.
func withStatementTimeout(dsn string, d time.Duration) string {
	if d <= 0 {
		return dsn
	}
	return withParam(dsn, "statement_timeout", strconv.FormatInt(d.Milliseconds(), 10))
}

// withBinaryParameters sets lib/pq's binary_parameters, under which a statement with
// arguments is parsed, bound and executed in one round trip instead of two.
func withBinaryParameters(dsn string) string { return withParam(dsn, "binary_parameters", "yes") }

// withParam adds a parameter to a connection URL or key=value string, unless it names the
// parameter already (lib/pq sends those it does not know as session settings). Only the
// string's keys count: a password or database name that contains a setting's name (a
// user "rajit" and jit) does not stop the setting.
func withParam(dsn, name, value string) string {
	if u, err := neturl.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		if q.Has(name) {
			return dsn
		}
		q.Set(name, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	if slices.Contains(dsnKeys(dsn), name) {
		return dsn
	}
	return dsn + " " + name + "=" + value
}

// dsnKeys are the keys of a key=value connection string, as libpq reads it: spaces
// around "=", values single-quoted or not, a backslash escaping the next character.
func dsnKeys(dsn string) []string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i, n := 0, len(dsn)
	skip := func(while func(c byte) bool) {
		for i < n && while(dsn[i]) {
			i++
		}
	}
	var keys []string
	for skip(isSpace); i < n; skip(isSpace) {
		start := i
		skip(func(c byte) bool { return c != '=' && !isSpace(c) })
		keys = append(keys, dsn[start:i])
		skip(isSpace)
		if i < n && dsn[i] == '=' {
			i++
		}
		skip(isSpace)
		quoted := i < n && dsn[i] == '\''
		if quoted {
			i++
		}
		for i < n && !(quoted && dsn[i] == '\'' || !quoted && isSpace(dsn[i])) {
			if dsn[i] == '\\' {
				i++ // the escaped character is the value's
			}
			i++
		}
		if quoted && i < n {
			i++ // the closing quote
		}
	}
	return keys
}

// requireDatabaseURL checks url, the DATABASE_URL which serve, index, migrate, keys, labels
// and verify-worker require.
func requireDatabaseURL(url string) (string, error) {
	if url == "" {
		return "", errors.New("DATABASE_URL is not set (for example postgres://user:pass@localhost:5432/starkgraph?sslmode=disable)")
	}
	return url, checkDatabaseURL("DATABASE_URL", url)
}

// openDatabaseURL connects to url, the DATABASE_URL.
func openDatabaseURL(ctx context.Context, url string) (*sqlx.DB, error) {
	url, err := requireDatabaseURL(url)
	if err != nil {
		return nil, err
	}
	return openDB(ctx, url)
}

// openDatabaseURLMigrated connects to url, the DATABASE_URL, and applies the migrations.
func openDatabaseURLMigrated(ctx context.Context, url string) (*sqlx.DB, error) {
	url, err := requireDatabaseURL(url)
	if err != nil {
		return nil, err
	}
	return openMigrated(ctx, url)
}

// openMigrated connects to url and applies the migrations, unless the database's schema is
// newer than this binary's (db.CheckSchemaVersion): then it stops with that line.
func openMigrated(ctx context.Context, url string) (*sqlx.DB, error) {
	conn, err := openDB(ctx, url)
	if err != nil {
		return nil, err
	}
	if _, err := db.CheckSchemaVersion(ctx, conn.DB); err != nil {
		conn.Close()
		return nil, err
	}
	if err := db.Migrate(ctx, conn.DB); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
