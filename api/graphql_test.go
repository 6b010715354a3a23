package api_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/introspection"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
)

// These tests need no database: every document they send is refused, or answered, before
// any resolver reads the store, and the store's statement counter proves it.

type answer struct {
	Data   map[string]any `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func newServer(t *testing.T, cfg api.Config) (*httptest.Server, *db.Store) {
	t.Helper()
	store := db.NewStore(nil)
	cfg.Store = store
	if cfg.Limits == (api.GraphQLLimits{}) {
		cfg.Limits = api.DefaultGraphQLLimits
	}
	srv := httptest.NewServer(api.NewHandler(cfg))
	t.Cleanup(srv.Close)
	return srv, store
}

func post(t *testing.T, srv *httptest.Server, body any) (answer, int, time.Duration) {
	t.Helper()
	raw, _ := json.Marshal(body)
	began := time.Now()
	resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("status %d: undecodable answer: %v", resp.StatusCode, err)
	}
	return a, resp.StatusCode, time.Since(began)
}

func wantRefused(t *testing.T, a answer, code string) {
	t.Helper()
	if len(a.Errors) == 0 {
		t.Fatalf("want an error with code %s, got data %v", code, a.Data)
	}
	if got := a.Errors[0].Extensions["code"]; got != code {
		t.Fatalf("want code %s, got %v (%s)", code, got, a.Errors[0].Message)
	}
}

func TestDeepDocumentIsRefused(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	// block { parent { parent { ... 30 levels ... { number } } } }
	doc := "{ block " + strings.Repeat("{ parent ", 29) + "{ number }" + strings.Repeat(" }", 29) + " }"
	a, _, took := post(t, srv, map[string]any{"query": doc})
	wantRefused(t, a, "DEPTH_LIMIT_EXCEEDED")
	if store.Statements() != 0 {
		t.Errorf("a refused document ran %d statements", store.Statements())
	}
	t.Logf("refused in %v", took)
}

func TestDepthCountsThroughFragments(t *testing.T) {
	srv, _ := newServer(t, api.Config{})
	doc := "{ block { ...F } } fragment F on Block { parent " + strings.Repeat("{ parent ", 20) + "{ number }" + strings.Repeat(" }", 20) + " }"
	a, _, _ := post(t, srv, map[string]any{"query": doc})
	wantRefused(t, a, "DEPTH_LIMIT_EXCEEDED")
}

func TestTenThousandAliasesAreRefused(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 10000; i++ {
		b.WriteString(" a")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(hex.EncodeToString([]byte{byte(i >> 8), byte(i)}))
		b.WriteString(": indexerStatus { headBlock }")
	}
	b.WriteString(" }")
	a, _, took := post(t, srv, map[string]any{"query": b.String()})
	if len(a.Errors) == 0 {
		t.Fatal("10,000 aliases were answered")
	}
	if !strings.Contains(a.Errors[0].Message, "token limit") {
		t.Errorf("want the parser's token limit to refuse it, got %q", a.Errors[0].Message)
	}
	if store.Statements() != 0 {
		t.Errorf("a refused document ran %d statements", store.Statements())
	}
	t.Logf("refused in %v", took)
}

func TestExpensiveDocumentIsRefusedByComplexity(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	doc := `{ tokens(first: 100) { edges { node { holders(first: 100) { edges { node { owner { address } } } } } } } }`
	a, _, _ := post(t, srv, map[string]any{"query": doc})
	wantRefused(t, a, "COMPLEXITY_LIMIT_EXCEEDED")
	if store.Statements() != 0 {
		t.Errorf("a refused document ran %d statements", store.Statements())
	}
}

func TestPageSizeAboveMaximumIsBadInput(t *testing.T) {
	srv, _ := newServer(t, api.Config{Limits: api.GraphQLLimits{MaxComplexity: 1 << 20, MaxDepth: 12, MaxTokens: 5000, Timeout: time.Second}})
	a, _, _ := post(t, srv, map[string]any{"query": `{ blocks(first: 5000) { totalCount } }`})
	wantRefused(t, a, "BAD_USER_INPUT")
	if !strings.Contains(a.Errors[0].Message, "first") {
		t.Errorf("the error names the argument: %q", a.Errors[0].Message)
	}
}

func TestMalformedFeltIsBadInput(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	for _, bad := range []string{"0x", "12", "0xzz", "0x" + strings.Repeat("f", 65), "0x" + strings.Repeat("f", 64)} {
		a, _, _ := post(t, srv, map[string]any{"query": `query($a: Address!) { contract(address: $a) { address } }`, "variables": map[string]any{"a": bad}})
		if len(a.Errors) == 0 {
			t.Errorf("address %q was accepted", bad)
		}
	}
	if store.Statements() != 0 {
		t.Errorf("bad input ran %d statements", store.Statements())
	}
}

func TestIntrospectionSwitch(t *testing.T) {
	on, _ := newServer(t, api.Config{Introspection: true})
	a, _, _ := post(t, on, map[string]any{"query": `{ __schema { queryType { name } } }`})
	if len(a.Errors) > 0 {
		t.Fatalf("introspection on: %v", a.Errors)
	}
	off, _ := newServer(t, api.Config{Introspection: false})
	a, _, _ = post(t, off, map[string]any{"query": `{ __schema { queryType { name } } }`})
	if len(a.Errors) == 0 {
		t.Fatal("introspection off still answered __schema")
	}
}

// The full introspection query of GraphiQL and graphql-js (nested deeper than the depth
// limit, which counts data fields only) passes the default limits: the playground's docs
// and autocompletion depend on it.
func TestFullIntrospectionQueryPassesLimits(t *testing.T) {
	srv, _ := newServer(t, api.Config{Introspection: true, Limits: api.DefaultGraphQLLimits})
	a, status, _ := post(t, srv, map[string]any{"query": introspection.Query})
	schema, _ := a.Data["__schema"].(map[string]any)
	if status != http.StatusOK || len(a.Errors) > 0 || schema == nil || len(schema["types"].([]any)) < 50 {
		t.Fatalf("introspection: %d %v", status, a.Errors)
	}
}

func TestAutomaticPersistedQueryAndGET(t *testing.T) {
	srv, _ := newServer(t, api.Config{})
	doc := `{ __typename }`
	sum := sha256.Sum256([]byte(doc))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}

	a, _, _ := post(t, srv, map[string]any{"extensions": ext})
	if len(a.Errors) == 0 || a.Errors[0].Message != "PersistedQueryNotFound" {
		t.Fatalf("an unknown hash asks for the document, got %+v", a.Errors)
	}
	a, _, _ = post(t, srv, map[string]any{"query": doc, "extensions": ext})
	if a.Data["__typename"] != "Query" {
		t.Fatalf("registering the document: %+v", a)
	}
	// The hash alone now works, also over GET.
	extJSON, _ := json.Marshal(ext)
	resp, err := http.Get(srv.URL + "/graphql?extensions=" + url.QueryEscape(string(extJSON)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got answer
	_ = json.NewDecoder(resp.Body).Decode(&got)
	if got.Data["__typename"] != "Query" {
		t.Fatalf("GET with the hash: %+v", got)
	}
}

func TestCORSPreflight(t *testing.T) {
	srv, _ := newServer(t, api.Config{CORSOrigins: []string{"https://app.example"}})
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/graphql", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-api-key") // as browsers send it
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("allowed origin: got %q", resp.Header.Get("Access-Control-Allow-Origin"))
	}
	req.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("an unlisted origin was allowed")
	}
}

func TestPlaygroundAndHealth(t *testing.T) {
	srv, _ := newServer(t, api.Config{Playground: true, PlaygroundKey: "sg_devkey"})
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	_, _ = page.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(page.String(), "sg_devkey") {
		t.Errorf("playground: status %d, dev key pre-filled: %v", resp.StatusCode, strings.Contains(page.String(), "sg_devkey"))
	}
	resp, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d", resp.StatusCode)
	}
}
