package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/resolvers"
)

// TestOpenAPIDocumentIsValid loads the served document with kin-openapi and validates it
// (structure, parameters, every $ref resolving).
func TestOpenAPIDocumentIsValid(t *testing.T) {
	raw, err := json.Marshal(openAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
}

// TestOpenAPIDocumentMatchesRoutes: every registered operation is documented, every
// documented operation is served (it does not fall through to the 404/405 answer), and
// the parameters documented are those each operation declares.
func TestOpenAPIDocumentMatchesRoutes(t *testing.T) {
	// The routing check needs no database: a handler without a store answers every
	// documented path, if only with an error from the missing store.
	h := NewHandler(&resolvers.Resolver{Store: db.NewStore(nil)}, Options{Logger: discardLogger()})
	doc := openAPIDocument()
	paths := doc["paths"].(map[string]any)

	documented := map[string]bool{}
	for p, item := range paths {
		for method := range item.(map[string]any) {
			documented[strings.ToUpper(method)+" /beta"+p] = true
		}
	}
	registered := map[string]bool{"GET /beta/openapi.json": true}
	for _, rt := range routeTable() {
		key := rt.method + " " + rt.path
		if registered[key] {
			t.Errorf("%s is registered twice", key)
		}
		registered[key] = true
		op := paths[strings.TrimPrefix(rt.path, "/beta")].(map[string]any)[strings.ToLower(rt.method)].(map[string]any)
		var names []string
		for _, p := range op["parameters"].([]any) {
			names = append(names, p.(map[string]any)["name"].(string))
		}
		var want []string
		for _, p := range rt.params {
			want = append(want, p.name)
		}
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Errorf("%s: documented parameters %v, declared %v", key, names, want)
		}
	}
	for k := range documented {
		if !registered[k] {
			t.Errorf("%s is documented but not registered", k)
		}
	}
	for k := range registered {
		if !documented[k] {
			t.Errorf("%s is registered but not documented", k)
		}
	}

	// Every documented path reaches its operation.
	keys := make([]string, 0, len(documented))
	for k := range documented {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		method, path, _ := strings.Cut(k, " ")
		for _, name := range []string{"address", "contractAddress", "classHash", "txnHash", "hash"} {
			path = strings.ReplaceAll(path, "{"+name+"}", "0x1")
		}
		path = strings.ReplaceAll(path, "{blockHash}", "1")
		path = strings.ReplaceAll(path, "{job}", jobID)
		rec := httptest.NewRecorder()
		func() {
			defer func() { _ = recover() }() // a nil store may panic past the handler's recover: routing is what is checked
			h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		}()
		if rec.Code == http.StatusMethodNotAllowed || strings.Contains(rec.Body.String(), "no operation at") {
			t.Errorf("%s (as %s %s) is not served: %d %s", k, method, path, rec.Code, rec.Body)
		}
	}
}

// TestEveryReferenceOperationIsServed: every operation of the reference (its 56) is in
// the route table, and so in the OpenAPI document, under its operationId.
func TestEveryReferenceOperationIsServed(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "voyager-beta.md"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference spec missing: %v", err)
		}
		t.Skipf("reference spec missing (../shared/spec/voyager-beta.md): %v", err)
	}
	// The 19 detailed ("## 1. GET /tokens — `listTokens`") and the others ("(`listTransactions`)").
	ref := map[string]bool{}
	for _, re := range []*regexp.Regexp{regexp.MustCompile("(?m)^## \\d+\\. [A-Z]+ \\S+ — `(\\w+)`"), regexp.MustCompile(`(?m)^ +\* (?:GET|POST) \S+ \(` + "`(\\w+)`" + `\)`)} {
		for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
			ref[m[1]] = true
		}
	}
	if len(ref) != 56 {
		t.Fatalf("read %d operations from the reference, want its 56", len(ref))
	}
	served := map[string]bool{}
	for _, rt := range routeTable() {
		served[rt.opID] = true
	}
	documented := 0
	for _, item := range openAPIDocument()["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			if ref[op.(map[string]any)["operationId"].(string)] {
				documented++
			}
		}
	}
	for op := range ref {
		if !served[op] {
			t.Errorf("%s is not served", op)
		}
	}
	if documented != 56 {
		t.Errorf("the OpenAPI document lists %d of the reference's 56 operations", documented)
	}
}

// TestDocsListEveryRoute: docs/rest.md's table has a row for every route.
func TestDocsListEveryRoute(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "rest.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range routeTable() {
		if !strings.Contains(string(raw), "| `"+rt.method+" "+rt.path) {
			t.Errorf("docs/rest.md's table of routes has no row for %s %s", rt.method, rt.path)
		}
	}
}
