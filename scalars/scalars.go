// Package scalars marshals the GraphQL custom scalars (Felt, Address, BigInt, JSON) to and
// from the store's Go types. Inputs are validated here, so a resolver never sees a malformed
// felt or number.
package scalars

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/starkgraph/starkgraph/db"
)

// MarshalFelt writes the node form: 0x, lowercase, no leading zeros.
func MarshalFelt(f db.Felt) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		writeAppended(w, 68, func(b []byte) []byte { return appendQuotedHex(b, f.Starknet()) })
	})
}

// UnmarshalFelt accepts 0x and 1 to 64 hex digits in any case.
func UnmarshalFelt(v any) (db.Felt, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("must be a Felt, a string such as \"0x1a\"; got %s", kindOf(v))
	}
	f, err := db.ParseFelt(s)
	if err != nil {
		return nil, fmt.Errorf("felt %q %v", truncate(s), err)
	}
	return f, nil
}

// MarshalAddress writes the address form: 0x and 64 lowercase hex digits.
func MarshalAddress(f db.Felt) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		writeAppended(w, 68, func(b []byte) []byte { return appendQuotedPadded(b, f.Starknet()) })
	})
}

// UnmarshalAddress accepts what UnmarshalFelt accepts.
func UnmarshalAddress(v any) (db.Felt, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("must be an Address, a string such as \"0x49d3...\"; got %s", kindOf(v))
	}
	f, err := db.ParseFelt(s)
	if err != nil {
		return nil, fmt.Errorf("address %q %v", truncate(s), err)
	}
	return f, nil
}

// MarshalBigInt writes a decimal string (the store reads numeric columns as text).
func MarshalBigInt(s string) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		writeAppended(w, len(s)+2, func(b []byte) []byte { return strconv.AppendQuote(b, s) })
	})
}

// UnmarshalBigInt accepts a non-negative decimal integer as a string (or a JSON number
// that is an integer) below 2^256.
func UnmarshalBigInt(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case int64:
		s = strconv.FormatInt(x, 10)
	case int:
		s = strconv.Itoa(x)
	case json.Number:
		s = x.String()
	default:
		return "", fmt.Errorf("must be a BigInt, a decimal string such as \"1000\"; got %s", kindOf(v))
	}
	return ParseBigInt(s)
}

var maxU256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseBigInt validates a decimal or 0x-hex u256 and returns it in decimal.
func ParseBigInt(s string) (string, error) {
	n, ok := new(big.Int).SetString(s, 0)
	if !ok || len(s) > 80 {
		return "", fmt.Errorf("%q is not an integer", truncate(s))
	}
	if n.Sign() < 0 || n.Cmp(maxU256) > 0 {
		return "", fmt.Errorf("%q is outside 0..2^256-1", truncate(s))
	}
	return n.String(), nil
}

// MarshalJSON writes the raw JSON value.
func MarshalJSON(j db.JSON) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		if j == nil {
			_, _ = io.WriteString(w, "null")
			return
		}
		_, _ = w.Write(j)
	})
}

// UnmarshalJSON accepts any JSON value.
func UnmarshalJSON(v any) (db.JSON, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("must be a JSON value")
	}
	return db.JSON(b), nil
}

// kindOf names the GraphQL (JSON) kind of an input value, never its Go type: a message
// about an input speaks the client's language and shows nothing of the server's.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, int, int32, int64, float32, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "a value of another kind"
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
