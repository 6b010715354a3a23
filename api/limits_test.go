package api_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// fragmentBomb is n fragments, each spreading the previous one twice: 2^n copies of the
// innermost selection once expanded, in a document of about 50*n bytes.
func fragmentBomb(n int) string {
	var b strings.Builder
	b.WriteString("fragment F0 on Query { blocks(first: 1) { totalCount } }\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "query Bomb { ...F%d }\n", n)
	return b.String()
}

// The fragment bomb is refused for its cost, which is computed without expanding it.
func TestFragmentBombIsRefused(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	for _, n := range []int{25, 40, 60} {
		a, status, took := post(t, srv, map[string]any{"query": fragmentBomb(n)})
		wantRefused(t, a, "COMPLEXITY_LIMIT_EXCEEDED")
		msg := a.Errors[0].Message
		if status != http.StatusOK && status != http.StatusUnprocessableEntity || !strings.Contains(msg, "more than the limit of 5000 (--max-complexity)") {
			t.Errorf("%d levels: status %d, %q", n, status, msg)
		}
		if n == 25 && !strings.Contains(msg, "costs 67108864,") { // 2^25 copies of a cost-2 selection
			t.Errorf("25 levels: the refusal says how far above the limit: %q", msg)
		}
		t.Logf("%d levels refused in %v", n, took)
	}
	if store.Statements() != 0 {
		t.Errorf("refused documents ran %d statements", store.Statements())
	}
}

// BenchmarkFragmentBomb times the refusal at 25, 40 and 60 levels; with a baseline of a
// small valid document (refused by nothing) in the same run:
//
//	go test ./api -run '^$' -bench FragmentBomb
func BenchmarkFragmentBomb(b *testing.B) {
	store := db.NewStore(nil)
	h := api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits})
	run := func(b *testing.B, doc string) {
		body := fmt.Sprintf(`{"query": %q}`, doc)
		for b.Loop() {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(rec, req)
			want := "COMPLEXITY_LIMIT_EXCEEDED"
			if strings.Contains(doc, "__typename") {
				want = `"__typename":"Query"`
			}
			if !strings.Contains(rec.Body.String(), want) {
				b.Fatalf("not refused: %s", rec.Body)
			}
		}
	}
	b.Run("baseline-typename", func(b *testing.B) { run(b, "{ __typename }") })
	for _, n := range []int{25, 40, 60} {
		b.Run(fmt.Sprintf("levels-%d", n), func(b *testing.B) { run(b, fragmentBomb(n)) })
	}
}

// Each size limit is enforced, named, and says by how much.
func TestDocumentSizeLimits(t *testing.T) {
	limits := api.DefaultGraphQLLimits
	limits.MaxFields, limits.MaxAliases, limits.MaxFragments, limits.MaxDirectives = 30, 5, 3, 2
	srv, store := newServer(t, api.Config{Limits: limits})
	manyFields := "{ indexerStatus { " + strings.Repeat("headBlock ", 40) + "} }"
	var aliases strings.Builder
	aliases.WriteString("{")
	for i := range 6 {
		fmt.Fprintf(&aliases, " a%d: indexerStatus { headBlock }", i)
	}
	aliases.WriteString(" }")
	frags := "{ ...A } fragment A on Query { ...B } fragment B on Query { ...C } fragment C on Query { ...D } fragment D on Query { __typename }"
	directives := `{ indexerStatus { headBlock @include(if: true) lag @skip(if: false) chainId @include(if: true) } }`
	for _, c := range []struct{ name, doc, want string }{
		{"fields", manyFields, "the document has 41 fields, more than the limit of 30 (--max-fields)"},
		{"aliases", aliases.String(), "the document has 6 aliases, more than the limit of 5 (--max-aliases)"},
		{"fragments", frags, "the document has 4 fragments, more than the limit of 3 (--max-fragments)"},
		{"directives", directives, "the document has 3 directives, more than the limit of 2 (--max-directives)"},
	} {
		a, _, _ := post(t, srv, map[string]any{"query": c.doc})
		wantRefused(t, a, "DOCUMENT_TOO_LARGE")
		if a.Errors[0].Message != c.want {
			t.Errorf("%s: %q, want %q", c.name, a.Errors[0].Message, c.want)
		}
	}
	if store.Statements() != 0 {
		t.Errorf("refused documents ran %d statements", store.Statements())
	}
}

// A body over the limit is a 413 with a GraphQL error, not a parse error.
func TestGraphQLBodyLimit(t *testing.T) {
	srv, _ := newServer(t, api.Config{})
	body := `{"query": "{ __typename }", "variables": {"pad": "` + strings.Repeat("x", 2<<20) + `"}}`
	resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(buf.String(), "1048576 bytes") {
		t.Errorf("oversized body: %d %s", resp.StatusCode, buf.String())
	}
}

// Bodies that are not a GraphQL request get a 400 in the API's words: no Go type names.
func TestMalformedBodiesAreExplained(t *testing.T) {
	srv, _ := newServer(t, api.Config{})
	goish := regexp.MustCompile(`Go value|Go struct|map\[|\[\]|transport\.|json: |unmarshal|\.go:`)
	for _, c := range []struct{ body, want string }{
		{`123`, "must be a JSON object"},
		{`"query"`, "must be a JSON object"},
		{`[{"query": "{ __typename }"}]`, "batched requests are not supported"},
		{`{"query": "{ __typename }", "variables": "x"}`, "variables must be an object or null"},
		{`{"query": 5}`, "query must be a string"},
		{`{"query": "{ __typename }", "operationName": []}`, "operationName must be a string or null"},
		{`{"query": "{ __typename }", "extensions": 1}`, "extensions must be an object or null"},
		{``, "the request body is empty"},
		{`{"query": "{ __typename }"`, "must be a JSON object"},
	} {
		resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(buf.String(), c.want) || goish.MatchString(buf.String()) {
			t.Errorf("body %q: %d %s, want 400 saying %q", c.body, resp.StatusCode, buf.String(), c.want)
		}
	}
	// A well-formed request still works, with null variables and operationName.
	a, status, _ := post(t, srv, map[string]any{"query": "query Q { __typename }", "variables": nil, "operationName": "Q"})
	if status != 200 || len(a.Errors) > 0 || a.Data["__typename"] != "Query" {
		t.Errorf("well-formed request: %d %+v", status, a)
	}
}

// A request that runs past the timeout is cancelled with its SQL and answered 503 with
// Retry-After, on both APIs.
func TestRequestTimeoutIs503(t *testing.T) {
	conn := dbtest.New(t)
	store := db.NewStore(conn)
	limits := api.DefaultGraphQLLimits
	limits.Timeout = time.Nanosecond // every statement starts past its deadline
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: limits,
		REST:   rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: slog.New(slog.DiscardHandler)}),
		Logger: slog.New(slog.DiscardHandler)}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(`{"query": "{ blocks { totalCount } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"TIMEOUT"`) ||
		!strings.Contains(string(body), "--request-timeout") {
		t.Errorf("GraphQL past its deadline: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, err = http.Get(srv.URL + "/beta/blocks")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "--request-timeout") {
		t.Errorf("REST past its deadline: %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

// Beyond MaxInFlight requests at once the process answers 503 with Retry-After; health
// checks still pass.
func TestInFlightCap(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{}, 4)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-hold
		io.WriteString(w, `{"items":[]}`)
	})
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: db.NewStore(nil), Limits: api.DefaultGraphQLLimits, REST: slow, MaxInFlight: 2}))
	defer srv.Close()
	var released sync.Once
	release := func() { released.Do(func() { close(hold) }) }
	defer release()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if resp, err := http.Get(srv.URL + "/beta/blocks"); err == nil {
				resp.Body.Close()
			}
		})
	}
	<-entered
	<-entered
	resp, err := http.Get(srv.URL + "/beta/blocks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("third request: %d %v, want 503 with Retry-After", resp.StatusCode, resp.Header)
	}
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("health check under the cap: %v %v", resp, err)
	}
	release()
	wg.Wait()
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Errorf("after: %v %v", resp, err)
	}
}
