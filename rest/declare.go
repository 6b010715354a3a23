package rest

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Operation is one route of the interface as the route table declares it, for what is
// generated from the declarations outside this package (the hostile load). Its parameters
// are the ones parseArgs validates, in the same order.
type Operation struct {
	Method, Path, OpID string
	Params             []Param
	// Body says the operation reads a request body (class verification).
	Body bool
}

// Param is a declared parameter: where it goes, what kind of value it takes, its limits.
type Param struct {
	Name, In, Kind string
	Required       bool
	Enum           []string
	Default        string
	MaxLen         int
	// Min and Max are an integer parameter's domain (db.Domain), both 0 for other kinds.
	Min, Max int64
}

var kindNames = map[paramKind]string{
	kindPage: "page", kindPageSize: "pageSize", kindLimit: "limit", kindCursor: "cursor",
	kindFelt: "felt", kindInt: "int", kindEnum: "enum", kindBigInt: "bigint",
	kindString: "string", kindHash: "hash",
}

// Operations lists every route of the interface with its declared parameters.
func Operations() []Operation {
	var out []Operation
	for _, rt := range routeTable() {
		op := Operation{Method: rt.method, Path: rt.path, OpID: rt.opID, Body: rt.body != nil}
		for _, p := range rt.params {
			op.Params = append(op.Params, p.export())
		}
		out = append(out, op)
	}
	return out
}

func (p param) export() Param {
	out := Param{Name: p.name, In: p.in, Kind: kindNames[p.kind], Required: p.required,
		Enum: slices.Clone(p.enum), Default: p.def, MaxLen: p.maxLen()}
	if p.domain != nil {
		out.Min, out.Max = p.domain.Min, p.domain.Max
	}
	return out
}

// placeholder matches a path parameter's place in a route's path.
var placeholder = regexp.MustCompile(`\{(\w+)\}`)

// checkRoute tells what is wrong with a route's declaration: a path placeholder without a
// declared path parameter or the reverse, a parameter declared twice, an enum without
// values or with a default it refuses. NewHandler refuses to start with such a route.
func checkRoute(rt route) error {
	inPath := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(rt.path, -1) {
		inPath[m[1]] = true
	}
	seen := map[string]bool{}
	for _, p := range rt.params {
		if seen[p.name] {
			return fmt.Errorf("%s %s: parameter %s declared twice", rt.method, rt.path, p.name)
		}
		seen[p.name] = true
		switch {
		case p.in == "path" && !inPath[p.name]:
			return fmt.Errorf("%s %s: path parameter %s has no {%s} in the path", rt.method, rt.path, p.name, p.name)
		case p.in == "query" && inPath[p.name]:
			return fmt.Errorf("%s %s: {%s} is declared as a query parameter", rt.method, rt.path, p.name)
		case p.in != "path" && p.in != "query":
			return fmt.Errorf("%s %s: parameter %s is in %q", rt.method, rt.path, p.name, p.in)
		case p.kind == kindInt && p.domain == nil:
			return fmt.Errorf("%s %s: integer parameter %s names no domain (db.Domain)", rt.method, rt.path, p.name)
		case p.kind == kindEnum && len(p.enum) == 0:
			return fmt.Errorf("%s %s: enum parameter %s lists no values", rt.method, rt.path, p.name)
		case p.kind == kindEnum && p.def != "" && !slices.Contains(p.enum, p.def):
			return fmt.Errorf("%s %s: default %q of %s is not one of its values", rt.method, rt.path, p.def, p.name)
		case p.def != "" && checkText(p, p.def) != nil:
			return fmt.Errorf("%s %s: default of %s: %v", rt.method, rt.path, p.name, checkText(p, p.def))
		}
	}
	for name := range inPath {
		if !seen[name] {
			return fmt.Errorf("%s %s: {%s} is not declared", rt.method, rt.path, name)
		}
	}
	return nil
}

// Valid is a value the parameter accepts (not necessarily one naming something indexed).
func (p Param) Valid() string {
	switch p.Kind {
	case "page":
		return "1"
	case "pageSize":
		return "25"
	case "limit":
		return "10"
	case "cursor":
		return startCursor
	case "felt", "hash":
		return "0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7"
	case "int", "bigint":
		return "1"
	case "enum":
		if p.Default != "" {
			return p.Default
		}
		return p.Enum[0]
	}
	if p.Default != "" {
		return p.Default
	}
	return "1"
}

// Hostile is what an attacker would send in the parameter: control characters, bytes
// that are not UTF-8, values at and past its limits, numbers out of range, other kinds'
// values, injections of SQL, paths and templates, odd case and white space. No answer to
// any of them may be a 5xx, nor show the server's insides.
func (p Param) Hostile() []string {
	out := []string{
		"", " ", "a\x00b", "\x00", strings.Repeat("\x00", 16), "%00", "\x00" + p.Valid(), p.Valid() + "\x00",
		"a\tb", "a\nb", "\r\n", "\x1b[31m", "\x7f", "\u0085", "\u2028", "\u202e", "\ufeff" + p.Valid(), "\U0001F600",
		"\xff", "\xfe\xff", "\xc0\x80", "\xed\xa0\x80", "a\xffb", p.Valid() + "\x80",
		strings.Repeat("a", p.MaxLen), strings.Repeat("a", p.MaxLen+1), strings.Repeat("9", p.MaxLen+1),
		strings.Repeat("\u00e9", p.MaxLen/2+1), strings.Repeat("x", 8000),
		"-1", "0", "-0", "+1", "1.5", "1e9", "1e400", "NaN", "Infinity", "0x", "0x-1", "0X1", "0xg",
		"9223372036854775807", "9223372036854775808", "18446744073709551616",
		"115792089237316195423570985008687907853269984665640564039457584007913129639936",
		"0x" + strings.Repeat("f", 64), "0x" + strings.Repeat("f", 65), "0x" + strings.Repeat("0", 200) + "1",
		"' OR '1'='1", "1; DROP TABLE blocks; --", "%", "_", "\\", "%_%", "' UNION SELECT version() --", "$1",
		"../../../../etc/passwd", "/etc/passwd", "C:\\Windows\\win.ini", "{{7*7}}", "${jndi:ldap://x/a}", "<script>alert(1)</script>",
		"null", "undefined", "true", "[]", "{}", `{"a":1}`, "[object Object]",
		strings.ToUpper(p.Valid()), " " + p.Valid() + " ",
	}
	out = append(out, NumberEdges(p.Min, p.Max)...)
	for _, v := range p.Enum {
		out = append(out, strings.ToUpper(v), v+"x", v+"\x00", v+",x")
	}
	if p.Kind == "cursor" {
		out = append(out, "e30", "e30.AAAA", "eyJrIjoibmZ0LWl0ZW1zIiwibyI6LTF9.AAAAAAAAAAAAAAAAAAAAAA", strings.Repeat("A", 4000)+".A")
	}
	return out
}

// Target is the path and raw query of a request to the operation: each parameter named
// in values carries that value (escaped), every other required parameter a valid value.
func (op Operation) Target(values map[string]string) (path, rawQuery string) {
	q := url.Values{}
	byName := map[string]Param{}
	for _, p := range op.Params {
		byName[p.Name] = p
		v, ok := values[p.Name]
		if !ok {
			if !p.Required {
				continue
			}
			v = p.Valid()
		}
		if p.In == "query" {
			q.Add(p.Name, v)
		}
	}
	path = placeholder.ReplaceAllStringFunc(op.Path, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := values[name]
		if !ok {
			v = byName[name].Valid()
		}
		return url.PathEscape(v)
	})
	return path, q.Encode()
}

// NumberEdges are the integers at and past the edges of a domain [min, max] and of the
// wider types a value goes through (4- and 8-byte integers, a felt's 2^251 and prime,
// 2^256), in decimal: where a value changes meaning or its column refuses it. The hostile
// load and the fuzz corpora of both APIs draw their numbers from here.
func NumberEdges(min, max int64) []string {
	edges := []string{
		"-1", "0", "1", "32767", "32768", "65536", "2147483647", "2147483648", "4294967295", "4294967296",
		"-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "18446744073709551615", "18446744073709551616",
		"3618502788666131106986593281521497120414687020801267626233049500247285301248",   // 2^251
		"3618502788666131213697322783095070105623107215331596699973092056135872020480",   // the prime - 1
		"3618502788666131213697322783095070105623107215331596699973092056135872020481",   // the prime
		"115792089237316195423570985008687907853269984665640564039457584007913129639936", // 2^256
		"0x80000000", "0x100000000", "0x800000000000000000000000000000000000000000000000000000000000000",
		"0x800000000000011000000000000000000000000000000000000000000000000", "0x800000000000011000000000000000000000000000000000000000000000001",
	}
	if min != 0 || max != 0 {
		edges = append(edges, strconv.FormatInt(min, 10), strconv.FormatInt(max, 10))
		if min > math.MinInt64 {
			edges = append(edges, strconv.FormatInt(min-1, 10))
		}
		if max < math.MaxInt64 {
			edges = append(edges, strconv.FormatInt(max+1, 10))
		}
	}
	return edges
}
