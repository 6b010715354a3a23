package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/rest"
)

// leaks matches what an error must never show a client: Go type names, driver and SQL
// text, file paths, stack traces.
var leaks = regexp.MustCompile(`Go value|Go struct|map\[|\[\]byte|interface \{|\*[a-z]+\.[A-Z][a-zA-Z]+|pq: |sql: |(?i:\bselect\b.+\bfrom\b)|/(root|home|tmp|usr|work)/|\.go:\d|goroutine \d|runtime\.`)

// FuzzGraphQL: any document with any variables, over HTTP to a real database, is answered
// without a 5xx, a panic, or internals in the answer.
func FuzzGraphQL(f *testing.F) {
	for _, seed := range []struct{ doc, vars string }{
		{`{ blocks(first: 2) { totalCount edges { node { number hash transactions(first: 2) { edges { node { hash } } } } } } }`, `{}`},
		{`query($a: Address!) { contract(address: $a) { address class { hash } tokensHeld { balance } } }`, `{"a": "0x1"}`},
		{`query($a: Address!) { contract(address: $a) { address } }`, `{"a": 12}`},
		{`query($c: String) { contracts(first: 2, after: $c) { edges { cursor } } }`, `{"c": "eyJvIjoxfQ.AAAA"}`},
		{`query($n: Int) { blocks(first: $n) { totalCount } }`, `{"n": "x"}`},
		{fragmentBomb(30), `{}`},
		{`{ __schema { types { name } } }`, `null`},
		{`mutation { submitVerification(input: {classHash: "0x1", name: "a", compilerVersion: "2", packageName: "a", contractFile: "a", files: {}}) { alreadyVerified } }`, `{}`},
		{`{ block(number: -1) { number } nftEvents(tokenId: "-5") { totalCount } }`, `{}`},
		{`{`, `{}`},
		{`query { blocks(first: 1) { edges { node { number @skip(if: $x) } } } }`, `{"x": true}`},
	} {
		f.Add(seed.doc, seed.vars)
	}
	// The edges of the integers' domains (rest.NumberEdges), in a block bound, a time bound
	// and a page size, as the REST parameters of those domains get them.
	for _, edge := range rest.NumberEdges(db.BlockNumbers.Min, db.BlockNumbers.Max) {
		if strings.HasPrefix(edge, "0x") {
			edge = `"` + edge + `"`
		}
		f.Add(`query($n: Int) { transactions(first: 2, filter: {fromBlock: $n, toBlock: $n}) { totalCount } }`, `{"n": `+edge+`}`)
		f.Add(`query($n: Int) { tokenTransfers(first: $n, filter: {toTimestamp: $n}) { totalCount } }`, `{"n": `+edge+`}`)
		f.Add(`{ events(first: 2, filter: {fromBlock: `+edge+`}) { totalCount } block(number: `+edge+`) { number } }`, `{}`)
	}
	conn := dbtest.New(f)
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: db.NewStore(conn), Limits: api.DefaultGraphQLLimits, Introspection: true}))
	defer srv.Close()
	f.Fuzz(func(t *testing.T, doc, vars string) {
		body := map[string]any{"query": doc}
		if json.Valid([]byte(vars)) {
			body["variables"] = json.RawMessage(vars)
		}
		raw, err := json.Marshal(body)
		if err != nil {
			return
		}
		resp, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("status %d for %q %s:\n%s", resp.StatusCode, doc, vars, answer)
		}
		if m := leaks.Find(answer); m != nil && !strings.Contains(doc, string(m)) && !strings.Contains(vars, string(m)) {
			t.Fatalf("the answer shows %q for %q %s:\n%s", m, doc, vars, answer)
		}
	})
}
