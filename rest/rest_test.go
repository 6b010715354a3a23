package rest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// env is a /beta handler over a fresh seeded database, served over real HTTP.
type env struct {
	t     testing.TB
	db    *sqlx.DB
	store *db.Store // counts the statements the handler runs
	url   string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	conn := dbtest.New(t)
	seed(t, conn)
	store := db.NewStore(conn)
	srv := httptest.NewServer(NewHandler(&resolvers.Resolver{Store: store}, Options{}))
	t.Cleanup(srv.Close)
	return &env{t: t, db: conn, store: store, url: srv.URL}
}

// exec runs a statement on the test's database, for rows a test adds to the seed.
func (e *env) exec(q string, args ...any) {
	e.t.Helper()
	dbtest.Exec(e.t, e.db, q, args...)
}

// response is an answer with its body decoded as generic JSON.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   any
}

func (e *env) do(req *http.Request) response {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	out := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			e.t.Fatalf("%s %s: body is not JSON (status %d): %v\n%s", req.Method, req.URL, resp.StatusCode, err, raw)
		}
	}
	return out
}

func (e *env) get(path string) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.do(req)
}

// mustGet asserts a 200 and returns the body.
func (e *env) mustGet(path string) any {
	e.t.Helper()
	r := e.get(path)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s: status %d, want 200: %s", path, r.status, r.raw)
	}
	return r.body
}

// obj and list are shorthands for walking decoded JSON in assertions.
func obj(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("want a JSON object, got %T: %v", v, v)
	}
	return m
}

func list(t testing.TB, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("want a JSON array, got %T: %v", v, v)
	}
	return l
}

// errorOf asserts an error answer with the status and an `error` text naming want.
func errorOf(t testing.TB, r response, status int, want string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
	}
	m := obj(t, r.body)
	msg, ok := m["error"].(string)
	if !ok || len(m) != 1 {
		t.Fatalf(`body %s, want {"error": "..."}`, r.raw)
	}
	if !strings.Contains(msg, want) {
		t.Fatalf("error %q does not name %q", msg, want)
	}
}

// discardLogger keeps expected server faults out of the test output.
func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// with is the same server seen from another test (helpers fail that test).
func (e *env) with(t testing.TB) *env {
	c := *e
	c.t = t
	return &c
}

// TestReadOnlyOperations runs every check that only reads against one seeded database, in
// parallel; the tests that write have databases of their own.
func TestReadOnlyOperations(t *testing.T) {
	shared := newEnv(t)
	checks := map[string]func(*testing.T, *env){
		"ResponsesMatchReferenceAndDocument": checkResponsesMatchReferenceAndDocument,
		"ErrorBodiesMatchDocument":           checkErrorBodiesMatchDocument,
		"BadInputAndMissingThings":           checkBadInputAndMissingThings,
		"AcceptedVariants":                   checkAcceptedVariants,
		"AddressesAreNormalised":             checkAddressesAreNormalised,
		"StakeOverTimeRanges":                checkStakeOverTimeRanges,
		"UnknownPathsAndMethods":             checkUnknownPathsAndMethods,
		"CachingAndCompression":              checkCachingAndCompression,
		"PageNumberWalks":                    checkPageNumberWalks,
		"CursorWalks":                        checkCursorWalks,
		"CursorsAreValidated":                checkCursorsAreValidated,
		"APIStatus":                          checkAPIStatus,
		"MetaTransactions":                   checkMetaTransactions,
		"Values":                             checkValues,
	}
	for name, check := range checks {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			check(t, shared)
		})
	}
}

// refusal is a request that must be answered status, with an error text naming names.
type refusal struct {
	path   string
	status int
	names  string
}

// expectRefusals checks each refusal.
func (e *env) expectRefusals(t *testing.T, refusals []refusal) {
	t.Helper()
	for _, c := range refusals {
		if r := e.get(c.path); r.status != c.status || !strings.Contains(string(r.raw), c.names) {
			t.Errorf("%s: %d %s; want %d naming %s", c.path, r.status, r.raw, c.status, c.names)
		}
	}
}
