package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/url"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/starkgraph/starkgraph/graph"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// spec is one hostile request: what to send and what kind of attack it is.
type spec struct {
	kind        string // the attack, for the report ("rest-param", "graphql-variable", ...)
	method      string
	target      string // path and raw query, as sent
	header      map[string]string
	body        []byte
	oversized   bool   // the body is over the server's limit: the answer must be a readable 413
	sent        string // what the request carried, decoded, so that an echo is not a leak
	noKey       bool   // sent without the API key
	raw         bool   // written as is on a connection of its own: no client library sends it
	contentType string
}

// generator makes the i-th request of a run from the declarations of the REST routes and
// the GraphQL schema; the same seed and i give the same request.
type generator struct {
	seed    uint64
	ops     []rest.Operation
	fields  []*ast.FieldDefinition // Query's fields, then Mutation's
	schema  *ast.Schema
	maxBody int

	json, literals, queries []string // hostileJSON(), hostileLiterals(), rawQueries()
}

func newGenerator(seed uint64, maxBody int) *generator {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	g := &generator{seed: seed, ops: rest.Operations(), schema: schema, maxBody: maxBody,
		json: hostileJSON(), literals: hostileLiterals(), queries: rawQueries()}
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		if root == nil {
			continue
		}
		for _, f := range root.Fields {
			if !strings.HasPrefix(f.Name, "__") {
				g.fields = append(g.fields, f)
			}
		}
	}
	return g
}

// request is the i-th request. The mix: half REST parameters, a tenth other REST attacks
// (paths, methods, bodies), the rest GraphQL (variables, literals, documents, bodies),
// keys forged throughout, and one in 200 an oversized body.
func (g *generator) request(i int) spec {
	r := rand.New(rand.NewPCG(g.seed, uint64(i)))
	var s spec
	switch n := r.IntN(1000); {
	case n < 5:
		s = g.oversized(r)
	case n < 500:
		s = g.restParam(r)
	case n < 560:
		s = g.restOther(r)
	case n < 580:
		s = g.verifyBody(r)
	case n < 800:
		s = g.graphQLVariables(r)
	case n < 880:
		s = g.graphQLLiterals(r)
	default:
		s = g.graphQLDocument(r)
	}
	if r.IntN(40) == 0 { // a forged or missing key
		forged := []string{"", "x", "0000", strings.Repeat("k", 5000), "' OR 1=1 --", "Bearer abc", "../../etc/passwd"}
		k := forged[r.IntN(len(forged))]
		if s.header == nil {
			s.header = map[string]string{}
		}
		s.header["x-api-key"] = k
		s.noKey = true
	}
	return s
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// restParam puts a hostile value in one declared parameter of one route; now and then a
// raw encoding no client library would write, or the parameter twice.
func (g *generator) restParam(r *rand.Rand) spec {
	op := pick(r, g.ops)
	if len(op.Params) == 0 {
		path, _ := op.Target(nil)
		return spec{kind: "rest-param", method: op.Method, target: path + "?" + pick(r, g.queries), sent: path}
	}
	p := pick(r, op.Params)
	v := pick(r, p.Hostile())
	path, query := op.Target(map[string]string{p.Name: v})
	switch r.IntN(10) {
	case 0: // a raw escape instead of the value
		raw := pick(r, rawEscapes)
		if p.In == "path" {
			others := map[string]string{}
			path, _ = op.Target(others)
			path = strings.Replace(path, url.PathEscape(p.Valid()), raw, 1)
		} else {
			query = replaceParam(query, p.Name, raw)
		}
	case 1: // the parameter twice
		if p.In == "query" {
			query += "&" + url.QueryEscape(p.Name) + "=" + url.QueryEscape(pick(r, p.Hostile()))
		}
	}
	target := path
	if query != "" {
		target += "?" + query
	}
	return spec{kind: "rest-param", method: op.Method, target: target, sent: v + " " + decoded(target)}
}

var rawEscapes = []string{"%zz", "%", "%0", "%00", "%c0%80", "%ff%fe", "%ed%a0%80", "a%00b", "%2500", "%e2%80%ae", "%0d%0aX-Injected:%201", "%u0000", "%2e%2e%2f%2e%2e%2f", "%5c..%5c"}

func rawQueries() []string {
	return []string{"", "a=%zz", "%", "&&&", "=", "==", "p=1;ps=10", "q[]=1", strings.Repeat("a=1&", 2000), "x=" + strings.Repeat("%41", 3000)}
}

func replaceParam(query, name, raw string) string {
	parts := strings.Split(query, "&")
	for i, part := range parts {
		if strings.HasPrefix(part, url.QueryEscape(name)+"=") {
			parts[i] = url.QueryEscape(name) + "=" + raw
			return strings.Join(parts, "&")
		}
	}
	return strings.Join(append(parts, url.QueryEscape(name)+"="+raw), "&")
}

func decoded(target string) string {
	if s, err := url.PathUnescape(target); err == nil {
		return target + " " + s + " " + strings.ReplaceAll(s, "+", " ")
	}
	return target
}

// restOther: unknown paths, odd segments, other methods, requests Go's server refuses
// itself.
func (g *generator) restOther(r *rand.Rand) spec {
	op := pick(r, g.ops)
	path, query := op.Target(nil)
	target := path
	if query != "" {
		target += "?" + query
	}
	method := op.Method
	switch r.IntN(7) {
	case 6:
		return g.unparsable(r, method, target)
	case 0:
		method = pick(r, []string{"PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "POST", "GET"})
	case 1:
		target = pick(r, []string{"/beta", "/beta/", "/beta//tokens", "/beta/tokens/", "/beta/%00", "/beta/..%2f..%2fetc%2fpasswd",
			"/beta/tokens/%2e%2e/%2e%2e", "/beta/" + strings.Repeat("a/", 2000), "/beta/nft/0x1/0x1/0x1", "/beta/openapi.json?x=%00",
			"/beta/blocks/" + strings.Repeat("9", 500), "/beta/txns/0x" + strings.Repeat("f", 70), "/graphql/../beta/tokens", "/beta/tokens#frag"})
	case 2:
		target = strings.Replace(target, "/beta/", "/BETA/", 1)
	case 3:
		target += pick(r, []string{"/", "//", "/.", "/..", "%20", "%00", ";x=1", "?" + strings.Repeat("&", 100)})
	case 4:
		for _, p := range op.Params { // every parameter hostile at once
			if p.In == "query" {
				target += "&" + url.QueryEscape(p.Name) + "=" + url.QueryEscape(pick(r, p.Hostile()))
			}
		}
		if !strings.Contains(target, "?") {
			target = strings.Replace(target, "&", "?", 1)
		}
	case 5:
		method = "GET"
		target = "/beta/openapi.json"
	}
	return spec{kind: "rest-route", method: method, target: target, sent: decoded(target)}
}

// unparsable is a request Go's HTTP server answers itself, before any handler, and then
// hangs up on with part of it unread: a request line it cannot parse (an invalid escape),
// a header line it cannot parse, or two Content-Lengths, followed by 2 to 60 KB of headers
// (within the 64 KiB header limit) and up to 100 KB of body. The connection must not be
// reset before the client has read the answer (the hostile run's broken connection of
// `GET /beta/contracts/%u0000` with a 5,000-character key, before internal/linger).
func (g *generator) unparsable(r *rand.Rand, method, target string) spec {
	s := spec{kind: "rest-unparsable", method: method, target: target, raw: true,
		header: map[string]string{"x-pad": strings.Repeat("p", 2000+r.IntN(58000))}}
	switch r.IntN(3) {
	case 0:
		s.target = strings.Replace(target, "/beta/", "/beta/"+pick(r, []string{"%u0000/", "%zz", "%/", "%0"}), 1)
	case 1:
		s.header["bad header "+pick(r, []string{"name", "\x01", "(x)"})] = "1"
	case 2: // a second Content-Length, which disagrees with the first
		s.method = "POST"
		s.header["Content-Length"] = pick(r, []string{"1", "-1", "0x10", "1, 2"})
		s.body = bytes.Repeat([]byte("z"), 2000+r.IntN(100000))
	}
	s.sent = decoded(s.target)
	return s
}

// verifyBody is a malformed class-verification submission.
func (g *generator) verifyBody(r *rand.Rand) spec {
	target := "/beta/class-verify/" + pick(r, []string{"0x1", "0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", "%00", "zz"})
	bodies := []struct{ ct, body string }{
		{"application/json", ""},
		{"application/json", "{"},
		{"application/json", "[]"},
		{"application/json", `{"files":{"a":1}}`},
		{"application/json", `{"files":"x"}`},
		{"application/json", `{"compiler_version":"2.6.3","name":"a","package_name":"a","files":{"../../etc/passwd":"x"}}`},
		{"application/json", `{"compiler_version":"2.6.3\u0000","name":"a\u0000","package_name":"a","files":{"src/lib.cairo":"x\u0000"}}`},
		{"application/json", `{"compiler_version":1e400,"name":{},"files":[]}`},
		{"application/json", `{"files":{"` + strings.Repeat("a/", 3000) + `":"x"}}`},
		{"application/json", strings.Repeat("[", 100000)},
		{"text/plain", "hello"},
		{"multipart/form-data", "--x\r\n"},
		{"multipart/form-data; boundary=", "--\r\n"},
		{"multipart/form-data; boundary=xx", "--xx\r\nContent-Disposition: form-data; name=\"files[../x]\"\r\n\r\nmod a;\r\n--xx--\r\n"},
		{"multipart/form-data; boundary=xx", "--xx\r\nContent-Disposition: form-data; name=\"files\"\r\n\r\n{\"a\":\r\n--xx--\r\n"},
		{"multipart/form-data; boundary=xx", "--xx\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n\x00\xff\r\n--xx"},
		{"application/x-www-form-urlencoded", "files=%00"},
	}
	b := pick(r, bodies)
	if r.IntN(4) == 0 { // many parts
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for i := range 200 + r.IntN(800) {
			fw, _ := w.CreateFormFile("files", fmt.Sprintf("src/%d\x00.cairo", i))
			_, _ = fw.Write([]byte("fn a() {}"))
		}
		_ = w.Close()
		b.ct, b.body = w.FormDataContentType(), buf.String()
	}
	return spec{kind: "rest-verify", method: "POST", target: target, body: []byte(b.body), contentType: b.ct, sent: b.body + " " + decoded(target)}
}

// oversized is a body over its limit: a GraphQL document or variables of more than
// maxBody bytes, or a verification upload of more than 10 MB (up to 26 MB: under
// api.MaxDrain past the limit, so its 413 must be readable). It goes out whole before
// the answer is read.
func (g *generator) oversized(r *rand.Rand) spec {
	if r.IntN(5) == 0 {
		body := []byte(`{"files":{"src/lib.cairo":"` + strings.Repeat("a", 10<<20+r.IntN(16<<20)) + `"}}`)
		return spec{kind: "oversized-verify", method: "POST", target: "/beta/class-verify/0x1", body: body, contentType: "application/json", oversized: true}
	}
	// From just over the limit to 16 times it: past what the loopback's socket buffers
	// hold, so that a server that closes without reading breaks the connection here too.
	pad := strings.Repeat("x", g.maxBody+1+r.IntN(15*g.maxBody))
	var body []byte
	if r.IntN(2) == 0 {
		body = []byte(`{"query": "{ __typename ` + pad + ` }"}`)
	} else {
		body = []byte(`{"query": "{ __typename }", "variables": {"pad": "` + pad + `"}}`)
	}
	return spec{kind: "oversized-graphql", method: "POST", target: "/graphql", body: body, contentType: "application/json", oversized: true}
}

// hostileJSON are variable values of every wrong kind and size, as raw JSON. (Functions,
// not variables: the tables are built by a hostile run, not in every server process.)
func hostileJSON() []string {
	return []string{
		`{"x":1}`, `{}`, `[1,"a"]`, `[]`, `true`, `null`, `0`, `-1`, `1.5`, `1e400`, `-1e400`, `2147483648`, `9223372036854775808`,
		`115792089237316195423570985008687907853269984665640564039457584007913129639936`, `""`, `"a\u0000b"`, `"\u0000"`, `"\u001b[31m"`,
		`"\ud800"`, `"\uffff"`, `"a\tb\nc"`, `"` + strings.Repeat("a", 100000) + `"`, `"0x` + strings.Repeat("f", 65) + `"`, `"0x"`, `"-0x1"`,
		`"' OR 1=1 --"`, `"../../etc/passwd"`, `"%00"`, `"ZZZ_NOT_AN_ENUM"`, `"DESC"`, `"2147483648"`, `"1e9"`,
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000), `[` + strings.Repeat(`1,`, 20000) + `1]`,
		`{"__proto__":{"a":1}}`, `{"first":100000}`,
	}
}

// graphQLVariables calls one field with every argument from a variable: a valid value of
// its type, or one of hostileJSON.
func (g *generator) graphQLVariables(r *rand.Rand) spec {
	f := pick(r, g.fields)
	var defs, args []string
	vars := map[string]json.RawMessage{}
	for i, a := range f.Arguments {
		name := fmt.Sprintf("v%d", i)
		typ := a.Type.String()
		if r.IntN(8) == 0 { // declared with another type than the argument's
			typ = pick(r, []string{"String", "Int", "Address!", "[Int]", "Boolean!", "JSON"})
		}
		defs = append(defs, "$"+name+": "+typ)
		args = append(args, a.Name+": $"+name)
		switch r.IntN(3) {
		case 0:
			vars[name] = json.RawMessage(pick(r, g.json))
		case 1:
			vars[name] = g.edgeJSON(r, a.Type, a.Directives, 0)
		default:
			vars[name] = g.validJSON(a.Type, 0)
		}
	}
	doc := g.operation(f, defs, args)
	varsJSON, _ := json.Marshal(vars)
	if r.IntN(10) == 0 {
		varsJSON = []byte(pick(r, []string{`"x"`, `[1]`, `1`, `{"v0":`, `{"v0":"\ud800"}`}))
	}
	body := []byte(`{"query": ` + quote(doc) + `, "variables": ` + string(varsJSON) + `}`)
	return spec{kind: "graphql-variable", method: "POST", target: "/graphql", body: body, contentType: "application/json", sent: doc + " " + string(varsJSON)}
}

// edgeJSON is a value of t at the edges of the domains its integers name (@domain,
// rest.NumberEdges): an Int argument one edge, an input object every Int field one, its
// other fields valid; what is not an integer, a valid value.
func (g *generator) edgeJSON(r *rand.Rand, t *ast.Type, dirs ast.DirectiveList, depth int) json.RawMessage {
	if t.Elem == nil && t.NamedType == "Int" {
		return json.RawMessage(pick(r, domainEdges(dirs)))
	}
	def := g.schema.Types[t.NamedType]
	if t.Elem != nil || def == nil || def.Kind != ast.InputObject || depth > 3 {
		return g.validJSON(t, depth)
	}
	var parts []string
	for _, f := range def.Fields {
		if f.Type.NonNull || f.Type.Name() == "Int" || r.IntN(3) == 0 {
			parts = append(parts, quote(f.Name)+": "+string(g.edgeJSON(r, f.Type, f.Directives, depth+1)))
		}
	}
	sort.Strings(parts)
	return json.RawMessage("{" + strings.Join(parts, ", ") + "}")
}

// domainEdges are the integers at the edges of the domain a @domain directive names, as
// the REST parameters of that domain get them.
func domainEdges(dirs ast.DirectiveList) []string {
	var min, max int64
	if d := dirs.ForName("domain"); d != nil {
		if of := d.Arguments.ForName("of"); of != nil {
			if dom := resolvers.DomainOf(model.ValueDomain(of.Value.Raw)); dom != nil {
				min, max = dom.Min, dom.Max
			}
		}
	}
	var out []string
	for _, e := range rest.NumberEdges(min, max) {
		if !strings.HasPrefix(e, "0x") {
			out = append(out, e)
		}
	}
	return out
}

// graphQLLiterals writes hostile literals into the document itself.
func (g *generator) graphQLLiterals(r *rand.Rand) spec {
	f := pick(r, g.fields)
	var args []string
	for _, a := range f.Arguments {
		switch {
		case a.Type.Name() == "Int" && r.IntN(2) == 0:
			args = append(args, a.Name+": "+pick(r, domainEdges(a.Directives)))
		case r.IntN(3) == 0:
			args = append(args, a.Name+": "+g.validLiteral(a.Type, 0))
		default:
			args = append(args, a.Name+": "+pick(r, g.literals))
		}
	}
	doc := g.operation(f, nil, args)
	body := []byte(`{"query": ` + quote(doc) + `}`)
	if r.IntN(4) == 0 { // as a GET
		return spec{kind: "graphql-literal", method: "GET", target: "/graphql?query=" + url.QueryEscape(doc), sent: doc}
	}
	return spec{kind: "graphql-literal", method: "POST", target: "/graphql", body: body, contentType: "application/json", sent: doc}
}

func hostileLiterals() []string {
	return []string{
		`{x: 1}`, `[1, "a"]`, `true`, `null`, `-1`, `1.5`, `1e400`, `2147483648`, `99999999999999999999999999`, `""`, `"a\u0000b"`,
		`"\u0000"`, `"\ud800"`, `"""block \u0000"""`, `"` + strings.Repeat("a", 50000) + `"`, `"0x` + strings.Repeat("f", 65) + `"`,
		`ZZZ`, `DESC`, `$undefined`, `"' OR 1=1 --"`, `"../../etc/passwd"`, `[` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `]`,
	}
}

// graphQLDocument: malformed, huge, deep or odd documents and bodies.
func (g *generator) graphQLDocument(r *rand.Rand) spec {
	f := pick(r, g.fields)
	base := g.operation(f, nil, g.validArgs(f))
	docs := []string{
		"", "{", "}", "query {", "{ a(", "\x00", "{ __typename \x00 }", "query Q { __typename } query Q { __typename }",
		"query A { __typename } query B { __typename }", "subscription { __typename }", "mutation { __typename }",
		"{ " + strings.Repeat("block { ", 60) + "number" + strings.Repeat(" }", 61),
		"{ " + strings.Repeat("a: __typename ", 3000) + "}",
		fragmentBomb(40),
		"{ __typename " + strings.Repeat("@include(if: true) ", 500) + "}",
		"{ __schema { types { fields { type { ofType { ofType { ofType { ofType { name } } } } } } } } }",
		"query($x: Boolean!) { __typename @skip(if: $x) }",
		"{ blocks(first: 1000000) { edges { node { number } } } }",
		"{ blocks(first: -1) { totalCount } }",
		"{ blocks(first: 2147483648) { totalCount } }",
		"{ tokens(first: 100) { edges { node { holders(first: 100) { edges { node { wallet { tokens(first: 100) { totalCount } } } } } } } } }",
		"query ($a: Int = \"x\") { __typename }",
		"{ ...F } fragment F on Query { ...F }",
		"{ __typename } # " + strings.Repeat("\u202e", 1000),
		string([]byte{0xff, 0xfe, '{', '}'}),
		base, base + " " + base,
	}
	doc := pick(r, docs)
	bodies := []func() (string, string){
		func() (string, string) { return `{"query": ` + quote(doc) + `}`, "application/json" },
		func() (string, string) { return `[{"query": ` + quote(doc) + `}]`, "application/json" },
		func() (string, string) { return quote(doc), "application/json" },
		func() (string, string) {
			return `{"query": ` + quote(doc) + `, "operationName": "Nope"}`, "application/json"
		},
		func() (string, string) { return `{"query": 5}`, "application/json" },
		func() (string, string) { return `{"query": ` + quote(doc), "application/json" },
		func() (string, string) { return doc, "application/graphql" },
		func() (string, string) { return `{"query": ` + quote(doc) + `}`, "text/plain" },
		func() (string, string) { return `{"query": ` + quote(doc) + `}`, "" },
		func() (string, string) {
			return `{"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "` + strings.Repeat("0", 64) + `"}}}`, "application/json"
		},
		func() (string, string) {
			return `{"query": ` + quote(doc) + `, "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "x"}}}`, "application/json"
		},
		func() (string, string) { return "{\"query\": \"\xff\xfe\"}", "application/json" },
	}
	body, ct := pick(r, bodies)()
	if r.IntN(8) == 0 {
		return spec{kind: "graphql-document", method: "GET", target: "/graphql?query=" + url.QueryEscape(doc) + "&variables=" + url.QueryEscape(pick(r, g.json)), sent: doc}
	}
	return spec{kind: "graphql-document", method: "POST", target: "/graphql", body: []byte(body), contentType: ct, sent: doc}
}

func fragmentBomb(n int) string {
	var b strings.Builder
	b.WriteString("{ ...F0 }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Query { __typename }\n", n)
	return b.String()
}

// operation writes `query(defs) { field(args) selection }` (mutation for Mutation's fields).
func (g *generator) operation(f *ast.FieldDefinition, defs, args []string) string {
	kind := "query"
	if g.schema.Mutation != nil && g.schema.Mutation.Fields.ForName(f.Name) == f {
		kind = "mutation"
	}
	var b strings.Builder
	b.WriteString(kind)
	if len(defs) > 0 {
		b.WriteString("(" + strings.Join(defs, ", ") + ")")
	}
	b.WriteString(" { " + f.Name)
	if len(args) > 0 {
		b.WriteString("(" + strings.Join(args, ", ") + ")")
	}
	if def := g.schema.Types[f.Type.Name()]; def != nil && (def.Kind == ast.Object || def.Kind == ast.Interface || def.Kind == ast.Union) {
		b.WriteString(" { __typename }")
	}
	b.WriteString(" }")
	return b.String()
}

func (g *generator) validArgs(f *ast.FieldDefinition) []string {
	var args []string
	for _, a := range f.Arguments {
		args = append(args, a.Name+": "+g.validLiteral(a.Type, 0))
	}
	return args
}

// validJSON is a value of t as a variable.
func (g *generator) validJSON(t *ast.Type, depth int) json.RawMessage {
	if t.Elem != nil {
		return json.RawMessage("[" + string(g.validJSON(t.Elem, depth+1)) + "]")
	}
	switch t.NamedType {
	case "Int":
		return json.RawMessage("10")
	case "Float":
		return json.RawMessage("1.5")
	case "Boolean":
		return json.RawMessage("true")
	case "Address", "Felt":
		return json.RawMessage(`"0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7"`)
	case "BigInt":
		return json.RawMessage(`"1"`)
	case "JSON":
		return json.RawMessage(`{}`)
	case "String", "ID":
		return json.RawMessage(`"a"`)
	}
	def := g.schema.Types[t.NamedType]
	if def == nil {
		return json.RawMessage("null")
	}
	switch def.Kind {
	case ast.Enum:
		return json.RawMessage(quote(def.EnumValues[0].Name))
	case ast.InputObject:
		if depth > 3 {
			return json.RawMessage("null")
		}
		var parts []string
		for _, f := range def.Fields {
			if f.Type.NonNull {
				parts = append(parts, quote(f.Name)+": "+string(g.validJSON(f.Type, depth+1)))
			}
		}
		sort.Strings(parts)
		return json.RawMessage("{" + strings.Join(parts, ", ") + "}")
	}
	return json.RawMessage(`"a"`)
}

// validLiteral is a value of t written in a document.
func (g *generator) validLiteral(t *ast.Type, depth int) string {
	if t.Elem != nil {
		return "[" + g.validLiteral(t.Elem, depth+1) + "]"
	}
	def := g.schema.Types[t.NamedType]
	if def != nil && def.Kind == ast.Enum {
		return def.EnumValues[0].Name
	}
	if def != nil && def.Kind == ast.InputObject {
		if depth > 3 {
			return "null"
		}
		var parts []string
		for _, f := range def.Fields {
			if f.Type.NonNull {
				parts = append(parts, f.Name+": "+g.validLiteral(f.Type, depth+1))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return string(g.validJSON(t, depth))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
