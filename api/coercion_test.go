package api_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/api"
)

// goTypes is what a message about an input must never show: Go's names for the values
// the server decoded.
var goTypes = regexp.MustCompile(`map\[|\[\]interface|interface \{|json\.Number|\bint64\b|\bfloat64\b|%!`)

// TestCoercionErrorsSpeakGraphQL: a variable or an argument of the wrong kind is refused
// in GraphQL's words (the type it should have been), never in Go's.
func TestCoercionErrorsSpeakGraphQL(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	contract := "query($a: Address!){ contract(address: $a){ address } }"
	first := `query($a: Int){ search(query: "x", first: $a){ __typename } }`
	for _, c := range []struct {
		query string
		vars  map[string]any
		want  string
	}{
		{contract, map[string]any{"a": map[string]any{"x": 1}}, "Address"},
		{contract, map[string]any{"a": 5}, "Address"},
		{contract, map[string]any{"a": []any{1}}, "Address"},
		{contract, map[string]any{"a": true}, "Address"},
		{"query($a: Felt!){ transaction(hash: $a){ hash } }", map[string]any{"a": map[string]any{}}, "Felt"},
		{`query($a: BigInt!){ nftItem(contractAddress: "0x1", tokenId: $a){ tokenId } }`, map[string]any{"a": map[string]any{"x": 1}}, "BigInt"},
		{`query($a: String!){ search(query: $a){ __typename } }`, map[string]any{"a": map[string]any{"x": 1}}, "String"},
		{first, map[string]any{"a": map[string]any{"x": 1}}, "Int"},
		{first, map[string]any{"a": []any{1, 2}}, "Int"},
		{"{ contract(address: 5){ address } }", nil, "Address"},
		{"{ contract(address: {x: 1}){ address } }", nil, "Address"},
	} {
		a, status, _ := post(t, srv, map[string]any{"query": c.query, "variables": c.vars})
		if len(a.Errors) == 0 {
			t.Errorf("%s %v: accepted (%d)", c.query, c.vars, status)
			continue
		}
		msg := a.Errors[0].Message
		if m := goTypes.FindString(msg); m != "" {
			t.Errorf("%s %v: %q shows %q", c.query, c.vars, msg, m)
		}
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %q does not name %s", c.query, c.vars, msg, c.want)
		}
		if status >= 500 || a.Errors[0].Extensions["code"] == "INTERNAL_SERVER_ERROR" {
			t.Errorf("%s %v: %d %v", c.query, c.vars, status, a.Errors[0])
		}
	}
	if store.Statements() != 0 {
		t.Errorf("refused documents ran %d statements", store.Statements())
	}
}

// TestControlCharactersAreRefused: a NUL (or another control character) in a string
// variable or literal is refused before any resolver runs, naming the variable or the
// argument; tabs and newlines pass (sources have them).
func TestControlCharactersAreRefused(t *testing.T) {
	srv, store := newServer(t, api.Config{})
	search := `query($a: String!){ search(query: $a){ __typename } }`
	for _, c := range []struct {
		query string
		vars  map[string]any
		want  string
	}{
		{search, map[string]any{"a": "a\x00b"}, "variable $a: control character U+0000"},
		{search, map[string]any{"a": "\x1b[1m"}, "variable $a: control character U+001B"},
		{`{ search(query: "a\u0000b"){ __typename } }`, nil, "argument query of search: control character U+0000"},
		{`query($a: String!){ search(query: $a){ __typename } } fragment F on Query { search(query: "\u0007"){ __typename } }`, map[string]any{"a": "x"}, ""},
		// Literal numbers that do not parse reach custom scalars, where gqlgen panicked.
		{`{ nftItem(contractAddress: "0x1", tokenId: 1e400){ tokenId } }`, nil, "argument tokenId of nftItem: the number 1e400 is out of range"},
		{`{ contract(address: 99999999999999999999999999){ address } }`, nil, "argument address of contract: the number 99999999999999999999999999 is out of range"},
		{`{ contract(address: {a: [1e400]}){ address } }`, nil, "argument address of contract: the number 1e400 is out of range"},
		{`mutation($v: VerificationInput!){ submitVerification(input: $v){ __typename } }`,
			map[string]any{"v": map[string]any{"classHash": "0x1", "name": "a", "compilerVersion": "2.6.3", "packageName": "a", "contractFile": "src/lib.cairo",
				"files": map[string]any{"src/lib.cairo": "mod a;\n\tfn\x00"}}}, "variable $v.files.src/lib.cairo: control character U+0000 at byte 10"},
	} {
		a, status, _ := post(t, srv, map[string]any{"query": c.query, "variables": c.vars})
		if len(a.Errors) == 0 {
			t.Errorf("%s %q: accepted (%d)", c.query, c.vars, status)
			continue
		}
		if c.want != "" && !strings.HasPrefix(a.Errors[0].Message, c.want) {
			t.Errorf("%s %q: %q, want %q", c.query, c.vars, a.Errors[0].Message, c.want)
		}
		if code := a.Errors[0].Extensions["code"]; code == "INTERNAL_SERVER_ERROR" || status >= 500 {
			t.Errorf("%s %q: %d %v", c.query, c.vars, status, a.Errors[0])
		}
	}
	if store.Statements() != 0 {
		t.Errorf("refused documents ran %d statements", store.Statements())
	}
}
