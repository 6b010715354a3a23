package metrics

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

func TestMiddlewareCountsByRoutePatternAndStatus(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /beta/tokens/{address}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("address") == "bad" {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		io.WriteString(w, "ok")
	})
	srv := httptest.NewServer(Middleware(MuxRoute(mux), mux))
	defer srv.Close()

	pattern := "GET /beta/tokens/{address}"
	okBefore := testutil.ToFloat64(HTTPRequests.WithLabelValues(pattern, "200"))
	badBefore := testutil.ToFloat64(HTTPRequests.WithLabelValues(pattern, "400"))
	unmatchedBefore := testutil.ToFloat64(HTTPRequests.WithLabelValues(Unmatched, "404"))

	for _, path := range []string{"/beta/tokens/0x1", "/beta/tokens/0x2", "/beta/tokens/bad", "/no/such/path/123"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	if got := testutil.ToFloat64(HTTPRequests.WithLabelValues(pattern, "200")) - okBefore; got != 2 {
		t.Errorf("200s on %q: got %v, want 2", pattern, got)
	}
	if got := testutil.ToFloat64(HTTPRequests.WithLabelValues(pattern, "400")) - badBefore; got != 1 {
		t.Errorf("400s on %q: got %v, want 1", pattern, got)
	}
	if got := testutil.ToFloat64(HTTPRequests.WithLabelValues(Unmatched, "404")) - unmatchedBefore; got != 1 {
		t.Errorf("unmatched 404s: got %v, want 1 (raw paths must not become labels)", got)
	}
}

func TestMiddlewareWithoutRouteFuncUsesRequestPattern(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	before := testutil.ToFloat64(HTTPRequests.WithLabelValues("GET /healthz", "204"))
	rec := httptest.NewRecorder()
	Middleware(nil, mux).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if got := testutil.ToFloat64(HTTPRequests.WithLabelValues("GET /healthz", "204")) - before; got != 1 {
		t.Fatalf("got %v, want 1", got)
	}
}

func TestHandlerExposesAllCollectors(t *testing.T) {
	SQLStatements.Inc()
	RateLimitRejections.WithLabelValues("rate").Inc()
	SetIndexerHeads(90, 100)
	HTTPDuration.WithLabelValues("GET /x").Observe(0.01)
	HTTPRequests.WithLabelValues("GET /x", "200").Inc()

	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	text := string(body)
	for _, want := range []string{
		"http_requests_total{",
		"http_request_duration_seconds_bucket{",
		"sql_statements_total ",
		`ratelimit_rejections_total{reason="rate"}`,
		"indexer_head_block 90",
		"indexer_node_head_block 100",
		"indexer_lag_blocks 10",
		"go_goroutines ",
		`starkgraph_build_info{goversion="go`,
		`,version="` + buildinfo.Version() + `"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestLagNeverNegative(t *testing.T) {
	SetIndexerHeads(120, 100) // node behind us, e.g. just after switching nodes
	if got := testutil.ToFloat64(IndexerLag); got != 0 {
		t.Fatalf("lag = %v, want 0", got)
	}
}

func TestRequireToken(t *testing.T) {
	h := RequireToken("s3cret-admin", Handler())
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusForbidden},
		{"Bearer wrong", http.StatusForbidden},
		{"s3cret-admin", http.StatusForbidden}, // no scheme
		{"Bearer s3cret-admin", http.StatusOK},
	} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want {
			t.Errorf("Authorization %q: got %d, want %d", tc.auth, rec.Code, tc.want)
		}
	}
	// An empty configured token never opens the door.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Authorization", "Bearer ")
	RequireToken("", Handler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("empty token: got %d, want 403", rec.Code)
	}
}

// An inner router's pattern replaces the outer one in the labels.
func TestSetRouteNamesTheInnerPattern(t *testing.T) {
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetRoute(r.Context(), "GET /beta/tokens/{address}/holders")
		w.WriteHeader(http.StatusOK)
	})
	h := Middleware(func(*http.Request) string { return "/beta/" }, inner)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/beta/tokens/0x1/holders", nil))
	if got := testutil.ToFloat64(HTTPRequests.WithLabelValues("GET /beta/tokens/{address}/holders", "200")); got != 1 {
		t.Errorf("requests labelled by the inner pattern: %v, want 1", got)
	}
	if got := testutil.ToFloat64(HTTPRequests.WithLabelValues("/beta/", "200")); got != 0 {
		t.Errorf("requests labelled by the outer pattern: %v, want 0", got)
	}
}

// Clients name operations, so the label set is bounded: past maxOperationLabels names, a
// new one is "other", while the names already seen keep their own series.
func TestOperationLabelIsBounded(t *testing.T) {
	if got := OperationLabel(""); got != "anonymous" {
		t.Errorf(`OperationLabel("") = %q`, got)
	}
	if got := OperationLabel(strings.Repeat("x", 65)); got != "other" {
		t.Errorf("a 65-character name = %q, want other", got)
	}
	first := OperationLabel("FirstSeen")
	for i := 0; i < 2*maxOperationLabels; i++ {
		OperationLabel(fmt.Sprintf("Op%d", i))
	}
	if first != "FirstSeen" || OperationLabel("FirstSeen") != "FirstSeen" {
		t.Errorf("a name seen early lost its label")
	}
	if got := OperationLabel("OneMoreName"); got != "other" {
		t.Errorf("a name past the bound = %q, want other", got)
	}
	operationLabels.Lock()
	n := len(operationLabels.seen)
	operationLabels.Unlock()
	if n != maxOperationLabels {
		t.Errorf("%d names kept, want %d", n, maxOperationLabels)
	}
}

// A SetGauge exports nothing until it is set, so a process that never measures it (an API
// replica follows no node) shows no 0 for an alert to fire on; once set, it exports the value.
func TestSetGaugeIsAbsentUntilSet(t *testing.T) {
	g := SetGauge{prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "test_set_gauge", Help: "test"}, nil)}
	if n := testutil.CollectAndCount(g); n != 0 {
		t.Fatalf("an unset gauge exports %d series", n)
	}
	g.Set(0)
	if n, v := testutil.CollectAndCount(g), testutil.ToFloat64(g); n != 1 || v != 0 {
		t.Fatalf("set to 0: %d series, value %v", n, v)
	}
}

// A pool registered again under its name (a server started twice in one process, as the
// bench's crowd does) replaces the first: no panic, one series, the new pool's.
func TestRegisterPoolAgainReplacesIt(t *testing.T) {
	RegisterPool("twice", func() sql.DBStats { return sql.DBStats{OpenConnections: 1} })
	RegisterPool("twice", func() sql.DBStats { return sql.DBStats{OpenConnections: 7} })
	families, err := Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, f := range families {
		if f.GetName() != "db_pool_open_connections" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "pool" && l.GetValue() == "twice" {
					got = append(got, m.GetGauge().GetValue())
				}
			}
		}
	}
	if len(got) != 1 || got[0] != 7 {
		t.Errorf("db_pool_open_connections{pool=twice}: %v, want [7]", got)
	}
}
