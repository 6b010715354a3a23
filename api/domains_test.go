package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/graph"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// Every Int argument and input field of the schema names its domain (@domain), and every
// domain the directive can name is one of db's: together with db's
// TestDomainsFitTheirColumns, no Int a client sends can be wider than the column it meets.
func TestEveryIntNamesItsDomain(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for _, v := range model.AllValueDomain {
		if resolvers.DomainOf(v) == nil {
			t.Errorf("ValueDomain %s has no db.Domain in resolvers/domains.go", v)
		}
	}
	check := func(where string, typ *ast.Type, dirs ast.DirectiveList) {
		if typ.Name() != "Int" {
			return
		}
		d := dirs.ForName("domain")
		if d == nil {
			t.Errorf("%s is an Int without @domain(of: ...): name the domain of the column it meets", where)
			return
		}
		if of := d.Arguments.ForName("of"); of == nil || resolvers.DomainOf(model.ValueDomain(of.Value.Raw)) == nil {
			t.Errorf("%s: @domain names no known domain", where)
		}
	}
	n := 0
	for _, def := range schema.Types {
		if strings.HasPrefix(def.Name, "__") {
			continue
		}
		for _, f := range def.Fields {
			if def.Kind == ast.InputObject {
				n++
				check(def.Name+"."+f.Name, f.Type, f.Directives)
			}
			for _, a := range f.Arguments {
				n++
				check(def.Name+"."+f.Name+"("+a.Name+")", a.Type, a.Directives)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d arguments and input fields walked", n)
	}
}

// Block and time bounds past the 4-byte columns, as literals and as variables: an answer,
// not an internal error; a negative bound a BAD_USER_INPUT naming the argument.
func TestBoundsPastTheColumns(t *testing.T) {
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: db.NewStore(dbtest.New(t)), Limits: api.DefaultGraphQLLimits}))
	defer srv.Close()
	type answer struct {
		Data   map[string]any `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	post := func(doc string, vars map[string]any) (int, answer) {
		t.Helper()
		raw, _ := json.Marshal(map[string]any{"query": doc, "variables": vars})
		resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var a answer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s: %v: %s", doc, err, body)
		}
		return resp.StatusCode, a
	}
	docs := []string{
		`query($n: Int) { transactions(first: 2, filter: {fromBlock: $n}) { totalCount edges { node { hash } } } }`,
		`query($n: Int) { transactions(first: 2, filter: {toBlock: $n}) { totalCount } }`,
		`query($n: Int) { events(first: 2, filter: {fromBlock: $n, toBlock: $n}) { totalCount } }`,
		`query($n: Int) { tokenTransfers(first: 2, filter: {fromBlock: $n}) { totalCount } }`,
		`query($n: Int) { tokenTransfers(first: 2, filter: {toTimestamp: $n}) { totalCount } }`,
		`query($n: Int) { messages(first: 2, filter: {blockNumber: $n}) { totalCount } }`,
		`query($n: Int) { stakingActivity(first: 2, filter: {fromTimestamp: $n}) { totalCount } }`,
		`query($n: Int) { block(number: $n) { number } }`,
		`query($n: Int) { wallet(address: "0x1") { activity(first: 2, fromBlock: $n) { totalCount } } }`,
		`query($n: Int) { wallet(address: "0x1") { balance(token: "0x2", at: {number: $n}) } }`,
	}
	for _, doc := range docs {
		for _, edge := range rest.NumberEdges(db.BlockNumbers.Min, db.BlockNumbers.Max) {
			if strings.HasPrefix(edge, "0x") {
				continue
			}
			n := json.Number(edge)
			status, a := post(doc, map[string]any{"n": n})
			if status >= 500 {
				t.Errorf("%s with %s: status %d", doc, edge, status)
			}
			for _, e := range a.Errors {
				code, _ := e.Extensions["code"].(string)
				switch {
				case code == "INTERNAL_SERVER_ERROR":
					t.Errorf("%s with %s: internal error %s", doc, edge, e.Message)
				case strings.HasPrefix(edge, "-") && code == resolvers.CodeBadInput && e.Extensions["argument"] == "":
					t.Errorf("%s with %s: the error names no argument", doc, edge)
				}
			}
			// A non-negative Int (64 bits in gqlgen) is in its domain or above it: an answer.
			if v, err := strconv.ParseInt(edge, 10, 64); err == nil && v >= 0 && len(a.Errors) > 0 {
				t.Errorf("%s with %s: %s; want an answer", doc, edge, a.Errors[0].Message)
			}
		}
	}

	// The literal requests of issue 53, and the argument a negative bound names.
	status, a := post(`{ transactions(first: 2, filter: {fromBlock: 2147483648}) { totalCount } }`, nil)
	if status != 200 || len(a.Errors) > 0 {
		t.Errorf("fromBlock 2147483648: %d %+v", status, a.Errors)
	}
	for doc, arg := range map[string]string{
		`{ transactions(first: 2, filter: {fromBlock: -1}) { totalCount } }`:    "filter.fromBlock",
		`{ events(first: 2, filter: {toBlock: -5}) { totalCount } }`:            "filter.toBlock",
		`{ block(number: -1) { number } }`:                                      "number",
		`{ wallet(address: "0x1") { activity(fromBlock: -1) { totalCount } } }`: "fromBlock",
		`{ blocks(first: 101) { totalCount } }`:                                 "first",
	} {
		_, a := post(doc, nil)
		if len(a.Errors) != 1 || a.Errors[0].Extensions["code"] != resolvers.CodeBadInput || a.Errors[0].Extensions["argument"] != arg {
			t.Errorf("%s: %+v; want one BAD_USER_INPUT naming %s", doc, a.Errors, arg)
		}
	}
}
