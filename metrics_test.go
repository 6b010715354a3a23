package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// After a few requests, /metrics has latency histograms per REST route pattern, per
// GraphQL root field and per SQL statement (named by the store method).
func TestMetricsPerRouteFieldAndStatement(t *testing.T) {
	conn := dbtest.New(t)
	store := db.NewStore(conn)
	instrument(store)
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: slog.New(slog.DiscardHandler)})}))
	defer srv.Close()
	for _, path := range []string{"/beta/blocks", "/beta/classes/0x1", "/beta/contracts", "/beta/classes/verified"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// The OpenAPI document is compressed, and too large to remember (compressmemo.MaxBody).
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/beta/openapi.json", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(`{"query": "query LatestBlocks { blocks(first: 1) { totalCount } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	wants := []string{
		`http_request_duration_seconds_bucket{route="GET /beta/blocks",`,
		`http_request_duration_seconds_bucket{route="GET /beta/classes/{classHash}",`,
		`http_requests_total{route="GET /beta/classes/{classHash}",status="404"}`,
		`graphql_root_field_duration_seconds_bucket{field="blocks",`,
		`graphql_operation_duration_seconds_bucket{operation="LatestBlocks",`,
		`sql_statement_duration_seconds_bucket{statement="Blocks",`,
		`sql_statement_duration_seconds_bucket{statement="ClassesByHash",`,
		`sql_statement_duration_seconds_bucket{statement="ListCount",`, // called by a resolver
		`http_request_duration_seconds_bucket{route="GET /beta/openapi.json",`,
		`http_compressed_bodies_total{result="streamed"}`,
	}
	// A request is observed when its handler returns, which can be after its client has
	// read the whole answer (a body with its length is complete before): scrape until every
	// line is there, for a few seconds.
	var body []byte
	var missing []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		scrape := httptest.NewRecorder()
		metrics.Handler().ServeHTTP(scrape, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		body, _ = io.ReadAll(scrape.Body)
		missing = missing[:0]
		for _, want := range wants {
			if !strings.Contains(string(body), want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range missing {
		t.Errorf("/metrics lacks %s", want)
	}
	if strings.Contains(string(body), `route="/beta/"`) || strings.Contains(string(body), `statement="unknown"`) ||
		strings.Contains(string(body), `statement="func`) {
		t.Errorf("/metrics has a catch-all or closure label:\n%s", grepLines(string(body), "/beta/\"", "unknown", "statement=\"func"))
	}
}

func grepLines(s string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, sub := range subs {
			if strings.Contains(l, sub) {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, "\n")
}
