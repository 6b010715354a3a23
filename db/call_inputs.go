package db

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
	"github.com/starkgraph/starkgraph/starknet/decode"
)

// A call's inputs (its arguments named with the callee's ABI) are not stored since
// migration 00043: they are decoded when read, from the ABI of the call's class, its
// selector and its calldata. Classes never change, so each class's ABI is read and parsed
// once and kept, for the maxCachedABIs classes used last.

// maxCachedABIs bounds the parsed ABIs kept. A parsed ABI takes a few to a few hundred KB
// (a token's about 20 KB, the largest mainnet classes' about 400 KB), and the calls of a
// chain go mostly to a few hundred classes (tokens, DEXes, accounts).
const maxCachedABIs = 512

func newABICache() *lru.Cache[starknet.Felt, *class.ABI] {
	c, _ := lru.New[starknet.Felt, *class.ABI](maxCachedABIs) // errors only for a size below 1
	return c
}

// withABIs gives each call that has no stored inputs the parsed ABI of its class, reading
// in one statement the classes not cached yet. A class whose ABI cannot be parsed is kept
// as having none; a class without a row is looked up again the next time.
func (s *Store) withABIs(ctx context.Context, calls []*Call) error {
	var missing []Felt
	for _, c := range calls {
		if c.Inputs != nil || c.ClassHash == nil {
			continue
		}
		abi, ok := s.abis.Get(c.ClassHash.Starknet())
		if ok {
			c.abi = abi
		} else if !slices.ContainsFunc(missing, func(h Felt) bool { return string(h) == string(c.ClassHash) }) {
			missing = append(missing, c.ClassHash)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var rows []struct {
		Hash Felt `db:"hash"`
		ABI  JSON `db:"abi"`
	}
	if err := s.selectRows(ctx, &rows, `SELECT hash, abi FROM classes WHERE hash = ANY($1)`, feltList(missing)); err != nil {
		return err
	}
	for _, r := range rows {
		var abi *class.ABI
		if r.ABI != nil {
			abi, _ = class.ParseABI(r.ABI) // nil when unreadable: no inputs, as the indexer had none
		}
		s.abis.Add(r.Hash.Starknet(), abi)
	}
	for _, c := range calls {
		if c.Inputs == nil && c.ClassHash != nil && c.abi == nil {
			c.abi, _ = s.abis.Peek(c.ClassHash.Starknet())
		}
	}
	return nil
}

// DecodedInputs are the call's arguments by name, decoded with its class's ABI, as the
// explorer shows them: an object keyed by argument name, u256 values as {low, high}
// decimal strings, structs as objects, enums as {variant: value}. It is nil when the ABI
// does not explain the calldata completely, or the class's ABI is not known. A row written
// before migration 00043 gives its stored inputs.
//
// The text is the one jsonb gave for the stored inputs, byte for byte (jsonbText), so that
// the APIs answer as they did when the inputs were stored.
func (c *Call) DecodedInputs() JSON {
	if c.Inputs != nil || c.abi == nil {
		return c.Inputs
	}
	calldata := make([]starknet.Felt, len(c.Calldata))
	for i, f := range c.Calldata {
		calldata[i] = f.Starknet()
	}
	d := decode.DecodeCall(c.abi, c.Selector.Starknet(), calldata)
	if d.Function == "" || d.Partial {
		return nil
	}
	return JSON(appendNamedValues(make([]byte, 0, 64*len(d.Inputs)+2), d.Inputs))
}

// jsonbText: the inputs were written as a JSON object and read back from a jsonb column,
// so their text is jsonb's: an object's keys by length, then bytewise, a key given twice
// keeping its last value, ": " and ", " between, strings escaped as PostgreSQL's
// escape_json does. The values are those decode.Value holds, made as the indexer made them
// (u256 as decimal halves, structs and enum variants as objects).

// appendNamedValues appends the members of a struct, or a function's inputs, as an object.
func appendNamedValues(buf []byte, vals []decode.Value) []byte {
	names := make([]string, len(vals))
	order := make([]int, 0, len(vals))
	for i := range vals {
		names[i] = validUTF8(vals[i].Name)
		if j := slices.IndexFunc(order, func(j int) bool { return names[j] == names[i] }); j >= 0 {
			order[j] = i // the last value of a name
			continue
		}
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int { return jsonbKeyOrder(names[a], names[b]) })
	buf = append(buf, '{')
	for k, i := range order {
		if k > 0 {
			buf = append(buf, ", "...)
		}
		buf = appendJSONString(buf, names[i])
		buf = append(buf, ": "...)
		buf = appendExplorerValue(buf, vals[i].Value)
	}
	return append(buf, '}')
}

// jsonbKeyOrder is jsonb's order of an object's keys: shorter first, then bytewise.
func jsonbKeyOrder(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func appendExplorerValue(buf []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...)
	case string:
		return appendJSONString(buf, x)
	case bool:
		return strconv.AppendBool(buf, x)
	case decode.U256:
		buf = append(buf, `{"low": `...)
		buf = appendJSONString(buf, hexToDecimal(x.Low))
		buf = append(buf, `, "high": `...)
		buf = appendJSONString(buf, hexToDecimal(x.High))
		return append(buf, '}')
	case []decode.Value:
		return appendNamedValues(buf, x)
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendExplorerValue(buf, e)
		}
		return append(buf, ']')
	case decode.Variant:
		buf = append(buf, '{')
		buf = appendJSONString(buf, x.Name)
		buf = append(buf, ": "...)
		buf = appendExplorerValue(buf, x.Value)
		return append(buf, '}')
	}
	// decode gives no other type; should it one day, this is valid JSON still.
	b, err := json.Marshal(v)
	if err != nil {
		return append(buf, "null"...)
	}
	return append(buf, b...)
}

// hexToDecimal writes a u256 half, a felt's hex, in decimal as the explorer does.
func hexToDecimal(s string) string {
	f, err := starknet.ParseFelt(s)
	if err != nil {
		return s
	}
	return f.Decimal()
}

// validUTF8 is s with each byte that is not part of valid UTF-8 made U+FFFD, as the
// indexer's JSON encoder wrote it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

// appendJSONString appends s as jsonb prints a string (after validUTF8): PostgreSQL's
// escape_json escapes only the quote, the backslash and control characters (\b \f \n \r
// \t, others as \u00XX); everything else, non-ASCII, <, > and & included, is written as
// it is. (A NUL, which jsonb refused, is \u0000.)
func appendJSONString(buf []byte, s string) []byte {
	s = validUTF8(s)
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			if c < ' ' {
				buf = append(buf, `\u00`...)
				buf = append(buf, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			} else {
				buf = append(buf, c)
			}
		}
	}
	return append(buf, '"')
}
