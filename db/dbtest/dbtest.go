// Package dbtest gives every test its own freshly migrated PostgreSQL database.
//
// A package whose tests need a database says so once:
//
//	func TestMain(m *testing.M) { dbtest.Main(m) }
//
// and then each test takes a database of its own, dropped when the test ends:
//
//	db := dbtest.New(t)     // *sqlx.DB
//	url := dbtest.NewURL(t) // for tests that start a whole server
//
// The server is TEST_DATABASE_URL when that is set (the role needs CREATEDB);
// otherwise each test binary starts a private cluster (db/pglocal, with fsync
// off) in a temporary directory and removes it when done. The migrations run
// once per test binary, into a template database; New copies it (CREATE
// DATABASE ... TEMPLATE), about 0.1 s on an idle machine. Setting up takes
// about 1 s (2-3 s for the first binary on a machine, which runs initdb; later
// ones copy the emptied cluster it leaves in os.TempDir()).
//
// Without a PostgreSQL install, tests that need a database skip, unless CI=true,
// in which case the test binary fails at once saying why.
package dbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/pglocal"
)

// server is the PostgreSQL server of this test binary.
type server struct {
	admin    *sql.DB                    // runs CREATE and DROP DATABASE
	urlFor   func(dbname string) string // connection URL of one database
	prefix   string                     // names every database this binary makes
	template string                     // the migrated database that New copies
	made     atomic.Int64               // databases made so far, for unique names
}

var (
	mainRan     atomic.Bool
	srv         *server       // nil when there is no database
	unavailable string        // why srv is nil: tests skip with this
	setupTook   time.Duration // how long Main took to have srv ready
)

// setupTimeout bounds starting a cluster and migrating the template.
const setupTimeout = 2 * time.Minute

// Main runs the package's tests with a database server ready for New; call it
// from TestMain. It exits the process with the tests' result.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main for a TestMain that does more around the tests: it returns
// the exit code instead of exiting.
func Run(m *testing.M) int {
	mainRan.Store(true)
	began := time.Now()
	s, tearDown, err := setUp()
	switch {
	case errors.Is(err, pglocal.ErrNotFound) && os.Getenv("CI") != "true":
		unavailable = "no PostgreSQL for tests that need one: " + err.Error() +
			"; or set TEST_DATABASE_URL"
		fmt.Fprintln(os.Stderr, "dbtest: skipping database tests:", unavailable)
		return m.Run()
	case err != nil:
		fmt.Fprintln(os.Stderr, "dbtest: cannot set up the test database:", err)
		return 1
	}
	srv, setupTook = s, time.Since(began)
	code := m.Run()
	if err := tearDown(); err != nil {
		fmt.Fprintln(os.Stderr, "dbtest: tear down:", err)
	}
	return code
}

// setUp connects to TEST_DATABASE_URL or starts a private cluster, then
// builds the migrated template.
func setUp() (*server, func() error, error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	var (
		s        *server
		tearDown func() error
		err      error
	)
	if url := os.Getenv("TEST_DATABASE_URL"); url != "" {
		s, tearDown, err = useShared(ctx, url)
	} else {
		s, tearDown, err = startPrivate(ctx)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.makeTemplate(ctx); err != nil {
		return nil, nil, errors.Join(err, s.dropOurs(), tearDown())
	}
	return s, func() error { return errors.Join(s.dropOurs(), tearDown()) }, nil
}

// makeTemplate creates the template database and migrates it.
func (s *server) makeTemplate(ctx context.Context) error {
	s.template = s.prefix + "_template"
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(s.template)); err != nil {
		return fmt.Errorf("create template database: %w", err)
	}
	conn, err := sql.Open("postgres", s.urlFor(s.template))
	if err != nil {
		return err
	}
	// Closed before any copy: CREATE DATABASE ... TEMPLATE needs the template idle.
	defer conn.Close()
	if err := db.Migrate(ctx, conn); err != nil {
		return fmt.Errorf("migrate template database: %w", err)
	}
	return nil
}

// dropOurs drops every database this binary made, the template included:
// New's cleanup drops each, but a test that panics skips its cleanups.
func (s *server) dropOurs() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := s.admin.QueryContext(ctx,
		`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, s.prefix+"_")
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		names = append(names, name)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		errs = append(errs, s.drop(ctx, name))
	}
	return errors.Join(errs...)
}

// drop drops a database, ending any session still open on it.
func (s *server) drop(ctx context.Context, name string) error {
	_, err := s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pq.QuoteIdentifier(name)+" WITH (FORCE)")
	if err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// New returns a connection pool to a new database that holds every migration
// and nothing else. The pool is closed and the database dropped when t ends.
// It skips t when there is no PostgreSQL (outside CI).
func New(t testing.TB) *sqlx.DB {
	t.Helper()
	conn, _ := NewWithURL(t)
	return conn
}

// NewWithURL is New and the database's URL, for tests that also hand it to a server or
// a listener.
func NewWithURL(t testing.TB) (*sqlx.DB, string) {
	t.Helper()
	url := NewURL(t)
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close() }) // runs before NewURL's drop
	return conn, url
}

// NewURL creates a new migrated database like New and returns its lib/pq
// connection URL, for tests that hand it to a whole server. The database is
// dropped when t ends, ending any session still open on it.
func NewURL(t testing.TB) string {
	t.Helper()
	s := serverFor(t)
	name := s.nextName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name)+
		" TEMPLATE "+pq.QuoteIdentifier(s.template)+" STRATEGY FILE_COPY")
	if err != nil {
		t.Fatalf("dbtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.drop(ctx, name); err != nil {
			t.Logf("dbtest: %v", err)
		}
	})
	return s.urlFor(name)
}

// serverFor returns the server, or ends t: skipped when there is none (outside
// CI), failed when TestMain forgot dbtest.Main.
func serverFor(t testing.TB) *server {
	t.Helper()
	if !mainRan.Load() {
		t.Fatal("dbtest: this package's tests need a database, so it needs " +
			"`func TestMain(m *testing.M) { dbtest.Main(m) }`")
	}
	if srv == nil {
		t.Skip("dbtest: skipping: " + unavailable)
	}
	return srv
}

var notNameChars = regexp.MustCompile(`[^a-z0-9]+`)

// nextName makes a unique database name that says which test made it, within
// PostgreSQL's 63-byte limit: <prefix>_<n>_<test name>.
func (s *server) nextName(testName string) string {
	name := fmt.Sprintf("%s_%d_%s", s.prefix, s.made.Add(1),
		notNameChars.ReplaceAllString(strings.ToLower(testName), "_"))
	if len(name) > 63 {
		name = name[:63]
	}
	return strings.TrimRight(name, "_")
}

// discardLogs keeps the cluster's progress out of test output; its errors
// reach us as Start's error, with the end of the server log.
var discardLogs = slog.New(slog.DiscardHandler)
