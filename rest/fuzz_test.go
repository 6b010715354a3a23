package rest

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/resolvers"
)

// requestFor builds a request to route number i (modulo the table) with value in every
// path parameter and rawQuery as the query string.
func requestFor(i uint8, value, rawQuery string) (route, *http.Request) {
	routes := routeTable()
	rt := routes[int(i)%len(routes)]
	path := placeholder.ReplaceAllStringFunc(rt.path, func(string) string { return url.PathEscape(value) })
	req := httptest.NewRequest(rt.method, "/", nil)
	req.URL = &url.URL{Path: path, RawQuery: rawQuery}
	for _, m := range placeholder.FindAllStringSubmatch(rt.path, -1) {
		req.SetPathValue(m[1], value)
	}
	return rt, req
}

// addSeeds gives the fuzzer the seeds below, one plain request per route (a short felt in
// its path parameters) so that every route is reached in every run, and the seeds made
// from the routes' declared parameters (declaredSeeds): every hostile value of every
// parameter when perParam is 0, else perParam of them, different ones for each parameter.
func addSeeds(f *testing.F, perParam int) {
	for _, s := range fuzzSeeds {
		f.Add(s.route, s.value, s.query)
	}
	for i := range routeTable() {
		f.Add(uint8(i), "0x1", "p=1")
	}
	for _, s := range declaredSeeds(perParam) {
		f.Add(s.route, s.value, s.query)
	}
}

type fuzzSeed struct {
	route uint8
	value string
	query string
}

// Shapes the fuzzer found on its own and kept as a corpus before these seeds replaced it:
// raw query strings that are not name=value pairs, bad escapes, bytes that are not UTF-8 in
// names and values, unknown and repeated parameters; and path values around a felt's
// limits (uppercase 0X, 64 and 65 digits, a letter inside the digits, spaces, non-UTF-8).
var (
	rawQueries = []string{
		"0", "7x", "\x00", "0\x19", "000%00", "%zz", "adAress=%zz", "N=c_:?", "f,0_2Xcc2x1",
		"000000000000\"0000000", "x=0&ps=7", "p=1&p=2", "=&=&", "a;b=c", "contract=0x1&t\xff\x80Hash=0x2",
		"con\xff\xffactd=1", "type=0", "block=0X", "contract=0Xx", "contract_address=0X721AA&cursorffff",
		"contract_addre900000000000000000000000000000000000000000000000000000",
	}
	pathValues = []string{
		"", " ", "   ", "0  ", "-A", "(", "A", "0", "0X0", "not-a-uuid",
		strings.Repeat("0", 32), strings.Repeat("0", 35),
		"0X1" + strings.Repeat("0", 62), "0x" + strings.Repeat("f", 64),
		"0xffffffffp" + strings.Repeat("f", 55), "e\xecEV?L\x93;\xe1\x84\x00p\xa2\xf4\xfc/\xd3",
	}
)

// declaredSeeds makes requests from every declared parameter of every route: the
// parameter carries a value of Param.Hostile (the others required a valid one, as
// Operation.Target gives them), each path parameter of the route a path value when the
// parameter is in the query; then each route with raw query strings and path values of
// the shapes above, and a route number past the table's end, which wraps round.
func declaredSeeds(perParam int) []fuzzSeed {
	var out []fuzzSeed
	ops := Operations()
	for i, op := range ops {
		for j, p := range op.Params {
			hostile := p.Hostile()
			values := hostile
			if perParam > 0 {
				values = nil
				for k := range perParam {
					values = append(values, hostile[(i*7+j*3+k*11)%len(hostile)])
				}
			}
			for k, v := range values {
				_, rawQuery := op.Target(map[string]string{p.Name: v})
				value := v
				if p.In != "path" {
					value = "0x1"
					if len(op.Params) > 0 && k%2 == 1 {
						value = pathValues[(i+j+k)%len(pathValues)]
					}
				}
				out = append(out, fuzzSeed{uint8(i), value, rawQuery})
			}
		}
		n := len(rawQueries)
		if perParam > 0 {
			n = 4 // rotated: the routes together still take every shape
		}
		for k := range n {
			out = append(out, fuzzSeed{uint8(i + len(ops)*(k%2)), pathValues[(i+k)%len(pathValues)], rawQueries[(i*3+k)%len(rawQueries)]})
		}
	}
	return out
}

var fuzzSeeds = []fuzzSeed{
	{0, "", "p=2&ps=10&type=ERC721&attribute=transfers"},
	{0, "", "p=0&ps=7"},
	{0, "", "p=99999999999999999999999&ps=100"},
	{1, "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", ""},
	{1, "0x" + strings.Repeat("f", 64), ""},
	{2, "", "contract_address=0x721aa&limit=7&cursor=ffffffffffffffffffffff"},
	{2, "", "contract_address=0x721aa&cursor=eyJrIjoibmZ0LWl0ZW1zIiwibyI6NX0.AAAA"},
	{3, "", "contract_address=0x721aa&token_id=0x1f&limit=100"},
	{3, "", "contract_address=0x721aa&token_id=115792089237316195423570985008687907853269984665640564039457584007913129639936"},
	{5, "", "contract_address=0x721aa&p=3&ps=10&token_id=1"},
	{7, "", "from_block=1"},
	{7, "", "from_block=9007199254740993&sender_address=0x1&sort=DESC"},
	{8, "", "address=%zz"},
	{11, "", "type=NULL&ps=50"},
	{17, "", "timerange=3M&address=0x1"},
	{19, "pre_confirmed", ""},
	{19, "-1", ""},
	{19, "0xB10C005", ""},
	{20, "", "block=0x&type=4&rejected=TRUE&to=0X1"},
	{22, "", "contract=0x1&txnHash=0x2"},
	{22, "", "blockHash=18446744073709551616"},
	{26, "not-a-uuid", ""},
	{26, "6b3f1f2c-0d4e-4c1a-9a59-2a0a5a0c9e11", ""},
	{0, "\x00\xff", "p=%00&ps=%ff"},
}

// FuzzParseArgs: no parameter string makes parsing panic, and every refusal is a 400
// naming a declared parameter.
func FuzzParseArgs(f *testing.F) {
	addSeeds(f, 0)
	f.Fuzz(func(t *testing.T, i uint8, value, rawQuery string) {
		rt, req := requestFor(i, value, rawQuery)
		a, err := parseArgs(req, rt.params)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != http.StatusBadRequest {
				t.Fatalf("%s: %v is not a 400", rt.opID, err)
			}
			named := false
			for _, p := range rt.params {
				named = named || strings.HasPrefix(ae.msg, p.name+":")
			}
			if !named {
				t.Fatalf("%s: error %q names no parameter", rt.opID, ae.msg)
			}
			return
		}
		for _, p := range rt.params {
			_ = a.has(p.name)
			switch p.kind {
			case kindFelt:
				if len(a.felt(p.name)) > 32 {
					t.Fatalf("%s: felt longer than 32 bytes", p.name)
				}
			case kindPage, kindPageSize, kindLimit, kindInt:
				if n := a.int(p.name); n != nil && *n < 0 {
					t.Fatalf("%s: negative %d", p.name, *n)
				}
			default:
				_ = a.str(p.name)
			}
		}
	})
}

// FuzzCursor: decoding any string either fails with a 400 or gives a position in range.
func FuzzCursor(f *testing.F) {
	c := cursorCodec{}
	f.Add(c.encode(listCursor{Op: "nft-items", Offset: 5, After: "abc"}))
	f.Add(c.encode(listCursor{Op: "nft-items", Offset: 0, Until: 3}))
	f.Add("ffffffffffffffffffffff")
	f.Add("e30.AAAAAAAAAAAAAAAAAAAAAA")
	// The shapes the fuzzer kept: a dot with digits, spaces, tabs, CR and LF around it on
	// either side, and long runs of digits before or after it.
	for _, before := range []string{"", "0", strings.Repeat("0", 56), strings.Repeat("0", 64)} {
		for _, after := range []string{"", " ", "0", "\r\r", "\r ", "\n\n\n ", ".", "0 000000000", "0000\n000000000\n0000", "000000 0000", strings.Repeat("0", 131)} {
			f.Add(before + "." + after)
		}
	}
	f.Add("0")
	f.Fuzz(func(t *testing.T, s string) {
		cur, err := c.decode("nft-items", s)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status != http.StatusBadRequest {
				t.Fatalf("%v is not a 400", err)
			}
			return
		}
		if cur.Offset < 0 || cur.Offset > maxOffset || cur.Until < 0 || cur.Op != "nft-items" {
			t.Fatalf("decoded out of range: %+v", cur)
		}
	})
}

// FuzzHandler sends fuzzed requests to every operation over a seeded database: no input
// gives a 500 or breaks the server.
func FuzzHandler(f *testing.F) {
	addSeeds(f, 3)
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, i uint8, value, rawQuery string) {
		_, req := requestFor(i, value, rawQuery)
		u := e.url + req.URL.EscapedPath()
		if req.URL.RawQuery != "" {
			u += "?" + req.URL.RawQuery
		}
		out, err := http.NewRequest(req.Method, u, nil)
		if err != nil {
			return // not a URL an HTTP client can send
		}
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			t.Fatalf("%s %s: %v", req.Method, u, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %s: status %d", req.Method, u, resp.StatusCode)
		}
		if resp.StatusCode >= 400 {
			sent := []string{value, u}
			for _, vs := range req.URL.Query() {
				sent = append(sent, vs...)
			}
			if m := leakIn(body, sent...); m != "" {
				t.Fatalf("%s %s: the error shows %q: %s", req.Method, u, m, body)
			}
		}
	})
}

// leaks matches what an error must never show a client: Go type names, driver and SQL
// text, file paths, stack traces.
var leaks = regexp.MustCompile(`Go value|Go struct|map\[|\[\]byte|interface \{|\*[a-z]+\.[A-Z][a-zA-Z]+|pq: |sql: |(?i:\bselect\b.+\bfrom\b)|/(root|home|tmp|usr|work)/|\.go:\d|goroutine \d|runtime\.`)

// FuzzVerifyBody: any class-verification body is read or refused with a 4xx, never a
// panic or a server error.
func FuzzVerifyBody(f *testing.F) {
	f.Add("application/json", `{"compiler_version":"2.6.3","scarb_version":"2.6.4","name":"a","package_name":"a","files":{"src/lib.cairo":"x"}}`)
	f.Add("application/json", `{"files":{"a":1}}`)
	f.Add("multipart/form-data; boundary=xx", "--xx\r\nContent-Disposition: form-data; name=\"files[src/lib.cairo]\"\r\n\r\nmod a;\r\n--xx--\r\n")
	f.Add("multipart/form-data; boundary=xx", "--xx\r\nContent-Disposition: form-data; name=\"files\"\r\n\r\n{\"a.cairo\":\"\"}\r\n--xx--\r\n")
	f.Add("multipart/form-data", "")
	f.Add("text/plain", "hello")
	for _, s := range verifySeeds() {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, contentType, body string) {
		req := httptest.NewRequest(http.MethodPost, "/beta/class-verify/0x1", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		sub, err := readSubmission(req)
		if err == nil {
			err = sub.validate()
		}
		var job db.NewVerificationJob
		if err == nil {
			// What the mutation checks next, with its errors named as REST names them.
			if job, err = resolvers.CheckVerification(sub.input(db.MustFelt("0x1"))); err != nil {
				err = formError(err) // all its errors are argument errors
			}
		}
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.status >= 500 {
				t.Fatalf("%v is not a 4xx", err)
			}
			if m := leaks.FindString(ae.msg); m != "" && !strings.Contains(body, m) {
				t.Fatalf("the error shows %q: %s", m, ae.msg)
			}
			return
		}
		if _, ok := job.Files[job.ContractFile]; !ok {
			t.Fatalf("accepted contract file %q is not among the files", job.ContractFile)
		}
	})
}

// verifySeeds are the shapes the fuzzer kept for FuzzVerifyBody before these seeds replaced
// its corpus: content types in mixed case, with parameters that are not key=value, white
// space, long runs and bytes that are not UTF-8, each with a short body; JSON cut short or
// malformed; multipart bodies whose parts or headers are cut short.
func verifySeeds() [][2]string {
	var out [][2]string
	for _, ct := range []string{
		"", " ", "0        ", "A", "AAAA", strings.Repeat("A", 128), strings.Repeat("a", 127) + "A",
		strings.Repeat("0", 64), strings.Repeat("0", 69), strings.Repeat("0", 64) + "\xff", "000000000000000a\xc1 ",
		"0/\"", "0/0\"", "0/000000000000000AAAAAAAAAAAAAAAAA", "0000/000\x800000",
		"0;", "0; 0\"", "0;0=", "0;0=0\xb8", "0;\xff\xff", "0;\ue34d\x8d", "A0;A0", "0A0A;0000",
		"\x97    ", "\xff ", "\xe4\x94\xe40", "\u00a00", "A\U000de79e", "\xd5\xac\xd5\xac", "A\xbfA",
		"aaa\xffaaaaa", strings.Repeat("\xa5", 32), "\xf0\x92\x8b\xd3",
	} {
		out = append(out, [2]string{ct, "0"})
	}
	for _, ct := range []string{"application/json", "AppliCAtion/json"} {
		for _, body := range []string{
			"", " ", "\t", "\n", "\f", "\r\r0", "\x10", "\xff", "\x84", "00", "10", "10000000", "[", "[0", "[[0\x14", "'",
			"\"", "\"\"", "\"0000000", "\"\x0f", "n", "t", "{", "{\"0000\"0", "{\"\":000", "{\"\":\"\",",
			"{\"\":\"\",\"\":\"\",\"\":\"\",\"\":\"\",\"\"\"", "{\"\":{\x1d", "{\"aaaa\x87\":{\"\":1}}",
			`{"files":{}}`, `{"files":{"src/lib.cairo":"x"},"compiler_version":"x"}`,
			`{"compiler_version":"2.6.3","scarb_version":"2.6.4","name":"a","package_name":"a","files":{"../x":"x"}}`,
		} {
			out = append(out, [2]string{ct, body})
		}
	}
	for _, ct := range []string{"multipart/form-data; boundary=xx", "multipArt/form-dAtA;BoundArY=xx", "multipArt/form-dAtA; BoundArY=xx", "multipArt/form-dAtA;BoundArY=0"} {
		for _, body := range []string{
			"\n\n", "--xx", "--xx\n00:", "--xx\n0:\x01\"\n", "--xx0\n--xx 0\n\n\n", "--xx\n0AAAAAAAA:\n\n--xx",
			"--xx\nContent-Disposition:0\"\n\n--xx",
			"--xx\r\nContent-Disposition:form-dAtA;nAme=\"files\"\n\n A\r\n--xx 0",
			"--xx\r\nContent-Disposition: form-data; name=\"files[]\"\r\n\r\nx\r\n--xx--\r\n",
		} {
			out = append(out, [2]string{ct, body})
		}
	}
	return out
}
