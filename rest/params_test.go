package rest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestRouteDeclarationsAreChecked: every route's declaration is whole (each path
// placeholder declared, nothing twice, enums with values), and checkRoute, which
// NewHandler runs on each route, catches one that is not.
func TestRouteDeclarationsAreChecked(t *testing.T) {
	for _, rt := range routeTable() {
		if err := checkRoute(rt); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []route{
		{method: "GET", path: "/beta/x/{id}"},
		{method: "GET", path: "/beta/x", params: []param{path("id", kindString, "")}},
		{method: "GET", path: "/beta/x/{id}", params: []param{query("id", kindString, "")}},
		{method: "GET", path: "/beta/x", params: []param{query("a", kindString, ""), query("a", kindInt, "")}},
		{method: "GET", path: "/beta/x", params: []param{query("a", kindEnum, "")}},
		{method: "GET", path: "/beta/x", params: []param{query("a", kindEnum, "").oneOf("b").withDefault("c")}},
	} {
		if checkRoute(bad) == nil {
			t.Errorf("checkRoute accepts %s %s %+v", bad.method, bad.path, bad.params)
		}
	}
}

// TestOnlyParseArgsReadsParameters: no operation reads the query string, the path or a
// form itself, so none can take a parameter the declarations (and so the checks, the
// OpenAPI document and the fuzz corpus) do not know.
func TestOnlyParseArgsReadsParameters(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	forbidden := map[string]bool{"Query": true, "RawQuery": true, "PathValue": true, "FormValue": true,
		"PostFormValue": true, "Form": true, "PostForm": true, "ParseForm": true, "ParseMultipartForm": true}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "params.go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !forbidden[sel.Sel.Name] {
				return true
			}
			// r.URL.Query(), r.PathValue(...), r.Form...: the receiver is a request (named r
			// or reached through .URL). s.res.Query() is the resolvers' Query.
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "r" {
				t.Errorf("%s: reads r.%s; declare the parameter in routes.go and read it from args", name, sel.Sel.Name)
			}
			if x, ok := sel.X.(*ast.SelectorExpr); ok && x.Sel.Name == "URL" {
				t.Errorf("%s: reads URL.%s; declare the parameter in routes.go and read it from args", name, sel.Sel.Name)
			}
			return true
		})
	}
}

// refused is the generated corpus of values every declared parameter must refuse with a
// 400 naming it: control characters anywhere (NUL first: PostgreSQL refuses it in text,
// which made a 500 of `q`, `search` and `symbol`), bytes that are not UTF-8, values past
// the declared length.
func refused(p Param) []string {
	var out []string
	for _, v := range p.Hostile() {
		if mustRefuse(p, v) {
			out = append(out, v)
		}
	}
	return out
}

// TestEveryDeclaredParamRefusesBadText sends, over the seeded database, every refused
// value in every declared parameter of every route (the other required parameters
// valid), and wants a 400 that names the parameter.
func TestEveryDeclaredParamRefusesBadText(t *testing.T) {
	e := newEnv(t)
	n, failed := 0, 0
	for _, op := range Operations() {
		for _, p := range op.Params {
			for _, v := range refused(p) {
				n++
				if msg := checkHostile(e, op, p, v); msg != "" {
					if failed++; failed <= 20 {
						t.Error(msg)
					}
				}
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d requests answered wrong", failed, n)
	}
	if n < 1000 {
		t.Fatalf("only %d requests: the corpus lost its values", n)
	}
	t.Logf("%d requests", n)
}

// checkHostile sends value in p of op and says what is wrong with the answer, or "": it
// must never be a 5xx nor show the server's insides, and it must be a 400 naming p when p
// must refuse the value.
func checkHostile(e *env, op Operation, p Param, value string) string {
	path, query := op.Target(map[string]string{p.Name: value})
	u := e.url + path
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequest(op.Method, u, nil)
	if err != nil {
		return fmt.Sprintf("%s %s: %v", op.Method, short(u), err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Sprintf("%s %s: %v", op.Method, short(u), err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Sprintf("%s %s (%s=%q): status %d: %s", op.Method, short(u), p.Name, short(value), resp.StatusCode, body)
	}
	if m := leakIn(body, value); m != "" {
		return fmt.Sprintf("%s %s: the answer shows %q: %s", op.Method, short(u), m, body)
	}
	if !mustRefuse(p, value) {
		return ""
	}
	var eb errorBody
	_ = json.Unmarshal(body, &eb)
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(eb.Error, p.Name+":") {
		return fmt.Sprintf("%s %s (%s=%q): want a 400 naming %s, got %d %s", op.Method, short(u), p.Name, short(value), p.Name, resp.StatusCode, body)
	}
	return ""
}

// FuzzDeclaredParams mutates values of every declared parameter of every route, from a
// corpus generated from the declarations (Param.Hostile), against the seeded database.
func FuzzDeclaredParams(f *testing.F) {
	ops := Operations()
	for i, op := range ops {
		for j, p := range op.Params {
			hostile := p.Hostile()
			// A few values per parameter, different ones for each, so that every value of
			// the corpus is in the seeds, and every refused kind (NUL first) for each.
			for k := range 3 {
				f.Add(uint16(i), uint8(j), hostile[(i*7+j*3+k*11)%len(hostile)])
			}
			f.Add(uint16(i), uint8(j), "a\x00b")
			if p.Kind == "int" { // every edge of its domain
				for _, v := range NumberEdges(p.Min, p.Max) {
					f.Add(uint16(i), uint8(j), v)
				}
			}
		}
	}
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, i uint16, j uint8, value string) {
		op := ops[int(i)%len(ops)]
		if len(op.Params) == 0 {
			return
		}
		p := op.Params[int(j)%len(op.Params)]
		if msg := checkHostile(e, op, p, value); msg != "" {
			t.Fatal(msg)
		}
	})
}

// mustRefuse is the test's own rule, written apart from checkText so that a change to what
// the server refuses cannot change what the test expects: a value (after the white space
// parseArgs trims) with bytes that are not UTF-8, a control character, or more bytes than
// the parameter's limit gets a 400 naming the parameter.
func mustRefuse(p Param, value string) bool {
	v := strings.TrimSpace(value)
	limit := (param{max: p.MaxLen, kind: kindString}).maxLen()
	return v != "" && (!utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) || len(v) > limit)
}

// leakIn is what body shows of the server's insides (leaks), once what the client sent
// (sent, echoed in an error as JSON escapes it) is taken out: an echo is the client's own.
func leakIn(body []byte, sent ...string) string {
	rest := string(body)
	for _, v := range sent {
		echo, _ := json.Marshal(short(strings.TrimSpace(v)))
		rest = strings.ReplaceAll(rest, string(echo[1:len(echo)-1]), "")
	}
	m := leaks.FindString(rest)
	for _, v := range sent {
		if m != "" && strings.Contains(v, m) {
			return ""
		}
	}
	return m
}
