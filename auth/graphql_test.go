package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/executor/testexecutor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// A real gqlgen server behind the middleware: documents are charged their
// complexity, and a document that does not fit gets 429 at the HTTP level.
func TestComplexityChargeWithGqlgen(t *testing.T) {
	for _, withLimitExtension := range []bool{true, false} {
		name := "computing complexity itself"
		if withLimitExtension {
			name = "after FixedComplexityLimit"
		}
		t.Run(name, func(t *testing.T) {
			api := newTestAPI(t, NewMemoryLimiter())
			api.plan(Plan{Name: "gqlgen", RatePerSecond: 0.001, Burst: 20})
			key := api.key("gqlgen")

			exec := testexecutor.New()
			exec.SetCalculatedComplexity(12) // every field costs 12
			srv := handler.New(exec.Schema())
			srv.AddTransport(transport.POST{})
			if withLimitExtension {
				srv.Use(extension.FixedComplexityLimit(1000))
			}
			srv.Use(NewComplexityCharge())
			a := New(Options{Keys: api.store, Limiter: NewMemoryLimiter()})
			server := httptest.NewServer(a.Middleware(srv))
			defer server.Close()

			post := func() answer {
				req, _ := http.NewRequest("POST", server.URL, strings.NewReader(`{"query":"{ name }"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Api-Key", key)
				return send(t, req)
			}

			first := post()
			if first.status != http.StatusOK || !strings.Contains(first.body, `"name":"test"`) || first.intHeader(t, HeaderRemaining) != 8 {
				t.Fatalf("first document (cost 12 of 20): %d %s remaining %s", first.status, first.body, first.header.Get(HeaderRemaining))
			}
			assertLimited(t, post(), "second document (cost 12, 8 left)")
		})
	}
}
