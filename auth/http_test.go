package auth

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/syncbuf"
)

// testAPI is the middleware in front of a small API over HTTP: a REST-like
// route, one that answers 400, and a GraphQL-like route whose document cost
// arrives in the "cost" query parameter and is charged with Charge.
type testAPI struct {
	t     *testing.T
	db    *sqlx.DB
	store *Store
	usage *UsageRecorder
	srv   *httptest.Server
	// now is the middleware's clock; the real one unless a test sets it
	// before the first request.
	now func() time.Time
	// maxInFlight is Options.MaxInFlightPerKey; slow holds GET /beta/slow until closed,
	// and heldIn (when set) hears of each request it holds.
	maxInFlight int
	slow        chan struct{}
	heldIn      chan struct{}
}

func newTestAPI(t *testing.T, limiter Limiter, storeOpts ...StoreOption) *testAPI {
	t.Helper()
	db := dbtest.New(t)
	api := &testAPI{t: t, db: db}
	api.store = NewStore(db, storeOpts...)
	api.usage = NewUsageRecorder(api.store, time.Hour, nil) // flushed by hand in tests
	t.Cleanup(func() { api.usage.Close(context.Background()) })
	api.srv = httptest.NewServer(api.handler(limiter))
	t.Cleanup(api.srv.Close)
	return api
}

func (api *testAPI) handler(limiter Limiter) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /beta/tokens", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[]}`)
	})
	mux.HandleFunc("GET /beta/slow", func(w http.ResponseWriter, r *http.Request) {
		if api.heldIn != nil {
			api.heldIn <- struct{}{}
		}
		<-api.slow
		io.WriteString(w, `{}`)
	})
	mux.HandleFunc("GET /beta/bad", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"bad"}`)
	})
	mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := KeyFromContext(r.Context()); !ok {
			api.t.Error("graphql handler reached without a key in the context")
		}
		cost, _ := strconv.Atoi(r.URL.Query().Get("cost"))
		err := Charge(r.Context(), cost)
		if err != nil && !IsLimitExceeded(err) {
			api.t.Errorf("Charge: %v", err)
		}
		// Like gqlgen, write a response whatever happened; after a refused
		// Charge it must not reach the client.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{}}`)
	})
	operation := func(r *http.Request) string {
		if r.URL.Path == "/graphql" {
			return "graphql"
		}
		return MuxOperation(mux)(r)
	}
	now := func() time.Time {
		if api.now != nil {
			return api.now()
		}
		return time.Now()
	}
	a := New(Options{Keys: api.store, Limiter: limiter, Usage: api.usage, Operation: operation, Now: now,
		MaxInFlightPerKey: api.maxInFlight})
	return a.Middleware(mux)
}

// plan creates a plan for the test.
func (api *testAPI) plan(p Plan) {
	api.t.Helper()
	if err := api.store.UpsertPlan(context.Background(), p); err != nil {
		api.t.Fatal(err)
	}
}

func (api *testAPI) key(plan string) string {
	api.t.Helper()
	text, _, err := api.store.CreateKey(context.Background(), plan, "test")
	if err != nil {
		api.t.Fatal(err)
	}
	return text
}

// answer is what a test looks at in a response.
type answer struct {
	status int
	body   string
	header http.Header
}

func (api *testAPI) do(method, path, key string) answer {
	api.t.Helper()
	return doRequest(api.t, api.srv.URL, method, path, key)
}

func doRequest(t *testing.T, base, method, path, key string) answer {
	t.Helper()
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header["x-api-key"] = []string{key} // sent lower-case, as written
	}
	return send(t, req)
}

// send sends req and reads the whole answer.
func send(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: string(body), header: resp.Header}
}

func (a answer) intHeader(t *testing.T, name string) int {
	t.Helper()
	v := a.header.Get(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("header %s = %q, want an integer (status %d)", name, v, a.status)
	}
	return n
}

func assertForbidden(t *testing.T, a answer, why string) {
	t.Helper()
	if a.status != http.StatusForbidden || a.body != `{"message":"Forbidden"}` {
		t.Fatalf("%s: got %d %s, want 403 {\"message\":\"Forbidden\"}", why, a.status, a.body)
	}
	for _, h := range []string{HeaderLimit, HeaderRemaining, HeaderReset} {
		if a.header.Get(h) != "0" {
			t.Fatalf("%s: %s = %q, want 0", why, h, a.header.Get(h))
		}
	}
}

func assertLimited(t *testing.T, a answer, why string) {
	t.Helper()
	if a.status != http.StatusTooManyRequests || a.body != `{"message":"Limit Exceeded"}` {
		t.Fatalf("%s: got %d %s, want 429 {\"message\":\"Limit Exceeded\"}", why, a.status, a.body)
	}
	if a.intHeader(t, HeaderRetryAfter) < 1 {
		t.Fatalf("%s: Retry-After %q, want >= 1", why, a.header.Get(HeaderRetryAfter))
	}
	if a.intHeader(t, HeaderRemaining) != 0 {
		t.Fatalf("%s: X-RateLimit-Remaining = %s, want 0", why, a.header.Get(HeaderRemaining))
	}
	a.intHeader(t, HeaderLimit)
	a.intHeader(t, HeaderReset)
}

func TestForbiddenWithoutAValidKey(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	key := api.key("free")

	assertForbidden(t, api.do("GET", "/beta/tokens", ""), "no key")
	assertForbidden(t, api.do("GET", "/beta/tokens", "sg_000000000000000000000000000000000000000000000000"), "unknown key")
	assertForbidden(t, api.do("GET", "/beta/tokens", strings.Repeat("k", 10000)), "oversized key")
	assertForbidden(t, api.do("POST", "/graphql", ""), "graphql without key")

	if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK || a.body != `{"items":[]}` {
		t.Fatalf("valid key: got %d %s", a.status, a.body)
	}
	// Header name in another case.
	req, _ := http.NewRequest("GET", api.srv.URL+"/beta/tokens", nil)
	req.Header["X-API-KEY"] = []string{key}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("X-API-KEY spelling: got %d", resp.StatusCode)
	}

	// Revoked through the same store: refused at once, although cached.
	if _, err := api.store.RevokeKey(context.Background(), displayPrefix(key)); err != nil {
		t.Fatal(err)
	}
	assertForbidden(t, api.do("GET", "/beta/tokens", key), "revoked key")
}

func TestRevocationByAnotherProcessTakesEffectWithinTheCacheTTL(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter(), WithCacheTTL(300*time.Millisecond))
	key := api.key("free")
	if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK {
		t.Fatalf("got %d", a.status)
	}
	other := NewStore(api.db) // e.g. `starkgraph keys revoke` in another process
	if _, err := other.RevokeKey(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for api.do("GET", "/beta/tokens", key).status != http.StatusForbidden {
		if time.Now().After(deadline) {
			t.Fatal("revoked key still accepted after 2s with a 300ms cache")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRateLimitHeadersOnEveryAnswer(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "tiny", RatePerSecond: 0.001, Burst: 3})
	key := api.key("tiny")

	for i, path := range []string{"/beta/tokens", "/beta/bad", "/beta/tokens"} {
		a := api.do("GET", path, key)
		if a.intHeader(t, HeaderLimit) != 3 || a.intHeader(t, HeaderRemaining) != 2-i {
			t.Fatalf("request %d (%d): limit %s remaining %s, want 3 and %d", i, a.status,
				a.header.Get(HeaderLimit), a.header.Get(HeaderRemaining), 2-i)
		}
		if reset := a.intHeader(t, HeaderReset); reset < 999*(i+1) || reset > 1000*(i+1) {
			t.Fatalf("request %d: reset %d, want about %d s", i, reset, 1000*(i+1))
		}
	}
	a := api.do("GET", "/beta/tokens", key)
	assertLimited(t, a, "4th request on a burst of 3")
	if ra := a.intHeader(t, HeaderRetryAfter); ra < 999 || ra > 1000 {
		t.Fatalf("Retry-After = %d, want about 1000 (one unit at 0.001/s)", ra)
	}
}

// The acceptance test of exactness: 64 clients hammer one key over HTTP at
// the same time and get exactly the plan's allowance.
func TestConcurrentClientsGetExactlyTheAllowance(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "hammer", RatePerSecond: 0.001, Burst: 40})
	key := api.key("hammer")
	ok, limited := hammerHTTP(t, []string{api.srv.URL}, key, 64, 3)
	if ok != 40 || limited != 64*3-40 {
		t.Fatalf("64 clients x 3 requests: %d answered 200 and %d 429, want exactly 40 and %d", ok, limited, 64*3-40)
	}
}

func TestDailyQuotaIsExactUnderConcurrency(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	// Noon, so that no midnight falls within the test.
	noon := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	api.now = func() time.Time { return noon }
	daily := int64(30)
	api.plan(Plan{Name: "quota", RatePerSecond: 1000, Burst: 1000, DailyQuota: &daily})
	key := api.key("quota")
	ok, limited := hammerHTTP(t, []string{api.srv.URL}, key, 64, 2)
	if ok != 30 || limited != 128-30 {
		t.Fatalf("got %d 200 and %d 429, want exactly 30 and 98", ok, limited)
	}
	a := api.do("GET", "/beta/tokens", key)
	assertLimited(t, a, "over the daily quota")
	if ra := a.intHeader(t, HeaderRetryAfter); ra != 12*3600 {
		t.Fatalf("Retry-After = %d, want the seconds until midnight UTC (%d)", ra, 12*3600)
	}
	if reset := a.intHeader(t, HeaderReset); reset != 12*3600 {
		t.Fatalf("X-RateLimit-Reset = %d, want the seconds until midnight UTC", reset)
	}
	// The next day starts over.
	api.now = func() time.Time { return noon.Add(12 * time.Hour) }
	if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != 29 {
		t.Fatalf("next day: %d remaining %s, want 200 with 29", a.status, a.header.Get(HeaderRemaining))
	}
}

// hammerHTTP sends clients*perClient GET /beta/tokens at once, client i to
// bases[i % len(bases)], and counts 200 and 429 answers; anything else fails.
func hammerHTTP(t *testing.T, bases []string, key string, clients, perClient int) (ok, limited int) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range perClient {
				req, _ := http.NewRequest("GET", bases[c%len(bases)]+"/beta/tokens", nil)
				req.Header.Set("x-api-key", key)
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				switch {
				case resp.StatusCode == http.StatusOK:
					ok++
				case resp.StatusCode == http.StatusTooManyRequests && string(body) == `{"message":"Limit Exceeded"}` &&
					resp.Header.Get(HeaderRetryAfter) != "":
					limited++
				default:
					t.Errorf("unexpected answer %d %s", resp.StatusCode, body)
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	return ok, limited
}

func TestPlanRestrictsOperations(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "tokens-only", RatePerSecond: 10, Burst: 10,
		AllowedOperations: pq.StringArray{"GET /beta/tokens"}})
	api.plan(Plan{Name: "beta", RatePerSecond: 10, Burst: 10,
		AllowedOperations: pq.StringArray{"GET /beta/*"}})
	tokensOnly, beta := api.key("tokens-only"), api.key("beta")

	if a := api.do("GET", "/beta/tokens", tokensOnly); a.status != http.StatusOK {
		t.Fatalf("allowed operation: got %d", a.status)
	}
	assertForbidden(t, api.do("GET", "/beta/bad", tokensOnly), "operation outside the plan")
	assertForbidden(t, api.do("POST", "/graphql", tokensOnly), "graphql outside the plan")
	if a := api.do("GET", "/beta/bad", beta); a.status != http.StatusBadRequest {
		t.Fatalf("wildcard GET /beta/*: got %d, want the handler's 400", a.status)
	}
	assertForbidden(t, api.do("POST", "/graphql", beta), "graphql outside GET /beta/*")
}

// A GraphQL document's complexity is charged against the same bucket, and
// a refused charge answers 429 at the HTTP level.
func TestGraphQLCostCountsAgainstTheRate(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "gql", RatePerSecond: 0.001, Burst: 10})
	key := api.key("gql")

	a := api.do("POST", "/graphql?cost=8", key)
	if a.status != http.StatusOK || a.body != `{"data":{}}` || a.intHeader(t, HeaderRemaining) != 2 {
		t.Fatalf("cost 8 of 10: got %d %s remaining %s, want 200 and 2 remaining", a.status, a.body, a.header.Get(HeaderRemaining))
	}
	// The request takes 1 (1 left), the remaining cost of 4 does not fit.
	assertLimited(t, api.do("POST", "/graphql?cost=5", key), "cost 5 with 2 remaining")
	a = api.do("POST", "/graphql?cost=1", key)
	if a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != 0 {
		t.Fatalf("cost 1 with 1 remaining: got %d remaining %s", a.status, a.header.Get(HeaderRemaining))
	}
	assertLimited(t, api.do("POST", "/graphql?cost=1", key), "empty bucket")

	// One huge document costs the whole burst: after it, nothing is left.
	huge := api.key("gql")
	if a := api.do("POST", "/graphql?cost=100000", huge); a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != 0 {
		t.Fatalf("huge document on a full bucket: %d remaining %s", a.status, a.header.Get(HeaderRemaining))
	}
	assertLimited(t, api.do("GET", "/beta/tokens", huge), "after a huge document")
}

func TestUsageIsRecordedInBatches(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "usage", RatePerSecond: 0.001, Burst: 4})
	key := api.key("usage")
	for _, path := range []string{"/beta/tokens", "/beta/tokens", "/beta/bad", "/beta/tokens", "/beta/tokens", "/beta/tokens"} {
		api.do("GET", path, key)
	}
	ctx := context.Background()
	// Nothing is written until the batch is flushed.
	if _, days, err := api.store.Usage(ctx, key); err != nil || len(days) != 0 {
		t.Fatalf("before the flush: %v %v, want no rows", days, err)
	}
	if err := api.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	api.do("GET", "/beta/tokens", key) // one more 429, in a second batch
	if err := api.usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	_, days, err := api.store.Usage(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Requests != 7 || days[0].ClientErrors != 1 || days[0].RateLimited != 3 {
		t.Fatalf("usage = %+v, want one day: 7 requests, 1 4xx, 3 429", days)
	}
	if got, want := days[0].Day.Format("2006-01-02"), time.Now().UTC().Format("2006-01-02"); got != want {
		t.Fatalf("day %s, want %s", got, want)
	}

	var out bytes.Buffer
	if err := RunKeysCommand(ctx, api.db, []string{"usage", displayPrefix(key)}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), time.Now().UTC().Format("2006-01-02")) || !strings.Contains(out.String(), " 7 ") {
		t.Fatalf("keys usage output lacks today's row:\n%s", out.String())
	}
}

func TestUsageRecorderKeepsCountsWhenTheDatabaseFails(t *testing.T) {
	db := dbtest.New(t)
	store := NewStore(db)
	_, k, err := store.CreateKey(context.Background(), "free", "")
	if err != nil {
		t.Fatal(err)
	}
	u := NewUsageRecorder(store, time.Hour, nil)
	u.Record(k.ID, 200, time.Now())
	db.Close() // the database goes away
	if err := u.Flush(context.Background()); err == nil {
		t.Fatal("flush on a closed database succeeded")
	}
	u.Record(k.ID, 404, time.Now())
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, c := range u.pending {
		if c.Requests != 2 || c.ClientErrors != 1 {
			t.Fatalf("pending = %+v, want the failed batch kept and merged", *c)
		}
	}
}

func TestKeysCommand(t *testing.T) {
	// The command is another process: the server sees its revocations when
	// its cache entry expires.
	api := newTestAPI(t, NewMemoryLimiter(), WithCacheTTL(100*time.Millisecond))
	ctx := context.Background()
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := RunKeysCommand(ctx, api.db, args, &out)
		return out.String(), err
	}

	out, err := run("create", "--plan", "pro", "--label", "ci robot")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if !strings.HasPrefix(key, "sg_") || len(key) != 51 {
		t.Fatalf("last line %q is not a key", key)
	}
	if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK || a.intHeader(t, HeaderLimit) != 200 {
		t.Fatalf("new pro key: got %d, limit %s", a.status, a.header.Get(HeaderLimit))
	}
	// The key itself is nowhere in the database.
	var n int
	if err := api.db.Get(&n, `SELECT count(*) FROM api_keys WHERE encode(key_hash, 'escape') LIKE '%' || $1 || '%' OR key_prefix = $1 OR label = $1`, key); err != nil || n != 0 {
		t.Fatalf("key text found in the database (%d rows, %v)", n, err)
	}

	out, err = run("list")
	if err != nil || !strings.Contains(out, displayPrefix(key)) || !strings.Contains(out, "ci robot") || strings.Contains(out, key) {
		t.Fatalf("list: %v\n%s", err, out)
	}

	if _, err := run("create", "--plan", "gold"); err == nil || !strings.Contains(err.Error(), "free") {
		t.Fatalf("unknown plan: %v, want an error naming the plans", err)
	}
	for _, bad := range [][]string{{}, {"create"}, {"create", "--plan"}, {"create", "--plan", "pro", "extra"}, {"revoke"}, {"frobnicate"}, {"revoke", "sg_nope"}, {"create", "--plan", "free", "--label", strings.Repeat("l", 201)}} {
		if _, err := run(bad...); err == nil {
			t.Errorf("keys %q: no error", bad)
		}
	}

	if out, err = run("revoke", displayPrefix(key)); err != nil || !strings.Contains(out, "Revoked") {
		t.Fatalf("revoke: %v %s", err, out)
	}
	time.Sleep(150 * time.Millisecond)
	assertForbidden(t, api.do("GET", "/beta/tokens", key), "key revoked by the command")
	if out, _ = run("list"); !strings.Contains(out, "revoked") {
		t.Fatalf("list does not show the revocation:\n%s", out)
	}
	if out, err = run("plans"); err != nil || !strings.Contains(out, "unlimited") || !strings.Contains(out, "free") {
		t.Fatalf("plans: %v\n%s", err, out)
	}
}

func TestDevKey(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	ctx := context.Background()

	random, err := DevKey(ctx, api.store, "")
	if err != nil || !strings.HasPrefix(random, "sg_") {
		t.Fatalf("random dev key: %q %v", random, err)
	}
	const known = "dev-key-for-scripts"
	for range 2 { // idempotent: every `dev` start installs it again
		got, err := DevKey(ctx, api.store, known)
		if err != nil || got != known {
			t.Fatalf("DevKey(%q) = %q, %v", known, got, err)
		}
	}
	a := api.do("GET", "/beta/tokens", known)
	if a.status != http.StatusOK || a.intHeader(t, HeaderLimit) != 100000 {
		t.Fatalf("dev key: %d limit %s", a.status, a.header.Get(HeaderLimit))
	}
	// A revoked dev key comes back on the next start.
	if _, err := api.store.RevokeKey(ctx, known); err != nil {
		t.Fatal(err)
	}
	assertForbidden(t, api.do("GET", "/beta/tokens", known), "revoked dev key")
	if _, err := DevKey(ctx, api.store, known); err != nil {
		t.Fatal(err)
	}
	if a := api.do("GET", "/beta/tokens", known); a.status != http.StatusOK {
		t.Fatalf("dev key installed again: %d", a.status)
	}
	for _, bad := range []string{"short", "has space in it", "tab\tinside!", strings.Repeat("x", 300)} {
		if _, err := DevKey(ctx, api.store, bad); err == nil {
			t.Errorf("DevKey(%q): no error", bad)
		}
	}
}

func newTestLogger() (*slog.Logger, *syncbuf.Buffer) {
	buf := &syncbuf.Buffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

// A database outage is not the client's fault: 503, never a 500 or a hang,
// while keys already in the cache keep working.
func TestDatabaseOutage(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	cached := api.key("free")
	if a := api.do("GET", "/beta/tokens", cached); a.status != http.StatusOK {
		t.Fatalf("got %d", a.status)
	}
	api.db.Close()
	a := api.do("GET", "/beta/tokens", "sg_not-in-the-cache-0000000000000000000000000")
	if a.status != http.StatusServiceUnavailable || a.body != `{"message":"Service Unavailable"}` || a.header.Get(HeaderLimit) != "0" {
		t.Fatalf("uncached key with the database down: %d %s", a.status, a.body)
	}
	if a := api.do("GET", "/beta/tokens", cached); a.status != http.StatusOK {
		t.Fatalf("cached key with the database down: got %d", a.status)
	}
}

// A WebSocket admitted by its connection_init passes the middleware's checks: a key in
// either place and in any case, the plan's operations, the rate, and a limiter that
// fails closed.
func TestAdmitStream(t *testing.T) {
	ctx := context.Background()
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "one", RatePerSecond: 0.001, Burst: 1})
	api.plan(Plan{Name: "rest-only", RatePerSecond: 100, Burst: 100, AllowedOperations: []string{"GET /beta/*"}})
	admit := func(limiter Limiter, payload map[string]any) error {
		_, err := New(Options{Keys: api.store, Limiter: limiter}).AdmitStream(ctx, payload)
		return err
	}
	one := api.key("one")
	memory := NewMemoryLimiter()
	if err := admit(memory, map[string]any{"headers": map[string]any{"X-API-KEY": one}}); err != nil {
		t.Fatalf("a key in headers: %v", err)
	}
	if err := admit(memory, map[string]any{"x-api-key": one}); !errors.Is(err, ErrLimitExceeded) {
		t.Errorf("past the burst: %v, want ErrLimitExceeded", err)
	}
	for name, payload := range map[string]map[string]any{
		"no key":      {},
		"unknown key": {"x-api-key": "sg_unknown"},
		"REST plan":   {"x-api-key": api.key("rest-only")},
	} {
		if err := admit(NewMemoryLimiter(), payload); !errors.Is(err, ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", name, err)
		}
	}
	if err := admit(closedLimiter{}, map[string]any{"x-api-key": api.key("rest-only")}); !errors.Is(err, ErrForbidden) {
		t.Errorf("a plan without GraphQL is refused before the limiter: %v", err)
	}
	if err := admit(closedLimiter{}, map[string]any{"x-api-key": api.key("one")}); !errors.Is(err, ErrLimiterUnavailable) {
		t.Errorf("a limiter failing closed: %v, want ErrLimiterUnavailable", err)
	}
}
