package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/bench"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/graph"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// The workloads every list of both APIs needs, computed from the declarations as a client
// would read them: every REST route that pages (a page, page size, limit or cursor
// parameter) and every GraphQL root connection, on its first page and a deep one,
// unfiltered unless it requires a key, and by its hottest key when it takes one (an
// address or hash parameter; an Address argument, or one in its filter input).
func expectedListWorkloads(t *testing.T) map[string]bool {
	t.Helper()
	want := map[string]bool{}
	pages := func(list, variant string, deep bool) {
		want[list+" | "+variant+" | "+bench.PageFirst] = true
		if deep {
			want[list+" | "+variant+" | "+bench.PageDeep] = true
		}
	}
	for _, op := range rest.Operations() {
		if op.Method != "GET" || !slices.ContainsFunc(op.Params, func(p rest.Param) bool {
			return p.Kind == "page" || p.Kind == "pageSize" || p.Kind == "limit" || p.Kind == "cursor"
		}) {
			continue
		}
		list := op.Method + " " + op.Path
		_, noDeep := bench.NoDeepPage[op.Path]
		if noDeep && slices.ContainsFunc(op.Params, func(p rest.Param) bool { return p.Kind == "page" || p.Kind == "cursor" }) {
			t.Errorf("%s declares a page or a cursor, yet the bench says it has no deep page", list)
		}
		_, keyRequired := bench.KeyRequired[op.Path]
		if !keyRequired && !slices.ContainsFunc(op.Params, func(p rest.Param) bool {
			return p.Required && (p.Kind == "felt" || p.Kind == "hash" || p.Kind == "bigint")
		}) {
			pages(list, "unfiltered", !noDeep)
		}
		if slices.ContainsFunc(op.Params, func(p rest.Param) bool { return p.Kind == "felt" || p.Kind == "hash" }) {
			pages(list, "hottest key", !noDeep)
		}
	}
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	takesAddress := func(a *ast.ArgumentDefinition) bool {
		if a.Type.Name() == "Address" {
			return true
		}
		in := schema.Types[a.Type.Name()]
		return in != nil && in.Kind == ast.InputObject && slices.ContainsFunc(in.Fields, func(f *ast.FieldDefinition) bool { return f.Type.Name() == "Address" })
	}
	for _, f := range schema.Query.Fields {
		if !strings.HasSuffix(f.Type.Name(), "Connection") {
			continue
		}
		list := "GraphQL " + f.Name
		if !slices.ContainsFunc(f.Arguments, func(a *ast.ArgumentDefinition) bool { return a.Type.NonNull }) {
			pages(list, "unfiltered", true)
		}
		if slices.ContainsFunc(f.Arguments, takesAddress) {
			pages(list, "hottest key", true)
		}
	}
	return want
}

// TestEveryListIsInTheBench fails when a list of either API has no workload in the bench:
// a REST list route or a GraphQL root connection without its first and deep page,
// unfiltered and by its hottest key. The workloads are those of a database with a row for
// every key, so what is missing is missing from the bench, not from the data. Each
// workload reads the list it says: a REST path of its route, a GraphQL document whose
// root field is its connection.
func TestEveryListIsInTheBench(t *testing.T) {
	workloads, err := bench.ListWorkloadsWithEveryKey()
	if err != nil {
		t.Fatal(err)
	}
	want := expectedListWorkloads(t)
	if len(want) < 100 {
		t.Fatalf("only %d list workloads expected: the declarations were not read", len(want))
	}
	routes := map[string]*regexp.Regexp{}
	for _, op := range rest.Operations() {
		pattern := regexp.MustCompile(`\\\{\w+\\\}`).ReplaceAllString(regexp.QuoteMeta(op.Path), `[^/?]+`)
		routes[op.Method+" "+op.Path] = regexp.MustCompile(`^` + pattern + `(\?|$)`)
	}
	have := map[string]bool{}
	names := map[string]bool{}
	for _, w := range workloads {
		if names[w.Name] {
			t.Errorf("two workloads named %q", w.Name)
		}
		names[w.Name] = true
		variant := "unfiltered"
		if w.Keyed {
			variant = "hottest key"
		}
		have[w.List+" | "+variant+" | "+w.Page] = true
		if field, ok := strings.CutPrefix(w.List, "GraphQL "); ok {
			var body struct{ Query string }
			if err := json.Unmarshal([]byte(w.Body), &body); err != nil || w.Path != "/graphql" || !strings.HasPrefix(body.Query, "{ "+field+"(") {
				t.Errorf("%s: not a GraphQL document of %s: %s (%v)", w.Name, field, w.Body, err)
			}
			if (w.Page == bench.PageDeep) != strings.Contains(body.Query, "after:") {
				t.Errorf("%s: a deep page starts after a cursor, page 1 does not: %s", w.Name, body.Query)
			}
			continue
		}
		re := routes[w.List]
		if re == nil || !re.MatchString(w.Path) {
			t.Errorf("%s: %s is not a path of %s", w.Name, w.Path, w.List)
		}
		if w.Page == bench.PageDeep && !regexp.MustCompile(`[?&](p|page|cursor|id|last_id)=`).MatchString(w.Path) {
			t.Errorf("%s: a deep page with no page, cursor or id: %s", w.Name, w.Path)
		}
	}
	var missing []string
	for k := range want {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no workload in the bench for %s", m)
	}
	t.Logf("%d list workloads for %d expected", len(workloads), len(want))
}

// The list workloads on a small chain: every one answers 200 without errors through the
// service's handlers, its SQL is captured, and it runs under load with no failure (no
// 5xx), a line of the report each.
func TestListWorkloadsAnswerOnASmallChain(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	if _, err := bench.Build(ctx, log, conn, 2000); err != nil {
		t.Fatal(err)
	}
	workloads, err := bench.ListWorkloads(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	lists := map[string]bool{}
	for _, w := range workloads {
		lists[w.List] = true
	}
	if len(workloads) < 80 || len(lists) < 45 {
		t.Fatalf("only %d list workloads, of %d lists", len(workloads), len(lists))
	}
	store := db.NewStore(conn)
	handler := api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: log})})
	var failed []string
	for _, w := range workloads {
		if _, err := bench.Capture(store, handler, []bench.Workload{w}); err != nil {
			failed = append(failed, err.Error())
		}
	}
	for _, f := range failed {
		t.Error(f)
	}
	if len(failed) > 0 {
		t.FailNow()
	}
	srv := httptest.NewServer(handler)
	defer srv.Close()
	var results []bench.Result
	for _, w := range workloads {
		m := bench.HTTPLoad(ctx, srv.URL, "", w, 1, 20*time.Millisecond)
		if m.Requests == 0 || m.Errors > 0 || m.ServerErrors > 0 {
			t.Errorf("%s: %+v", w.Name, m)
		}
		results = append(results, bench.Result{Workload: w.Name, Service: m})
	}
	table := bench.Markdown(results)
	if lines := strings.Count(table, "\n"); lines != len(workloads)+2 {
		t.Errorf("the table has %d lines for %d workloads", lines, len(workloads))
	}
	t.Logf("%d list workloads of %d lists answered", len(workloads), len(lists))
}

// The report counts the answers that were 5xx apart from the other failures.
func TestHTTPLoadCountsServerErrors(t *testing.T) {
	for _, tc := range []struct {
		code    int
		fivexx  bool
		failing bool
	}{{http.StatusServiceUnavailable, true, true}, {http.StatusBadRequest, false, true}, {http.StatusOK, false, false}} {
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { rw.WriteHeader(tc.code) }))
		m := bench.HTTPLoad(context.Background(), srv.URL, "", bench.Workload{Path: "/beta/blocks"}, 1, 20*time.Millisecond)
		srv.Close()
		if (m.ServerErrors > 0) != tc.fivexx || (m.Errors > 0) != tc.failing || m.ServerErrors > m.Errors {
			t.Errorf("answers %d: %+v", tc.code, m)
		}
		if table := bench.Markdown([]bench.Result{{Workload: "w", Service: m}}); !strings.Contains(table, fmt.Sprintf("| %d |", m.ServerErrors)) ||
			!strings.Contains(table, "| 5xx |") {
			t.Errorf("the table does not show %d 5xx:\n%s", m.ServerErrors, table)
		}
	}
}
