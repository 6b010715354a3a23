package db_test

import (
	"testing"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/starknet/decode"
)

// Inputs decoded when read are written as jsonb printed the inputs the indexer stored
// before migration 00043 (its JSON encoder, then a jsonb column): the same key order,
// spacing and escapes, for awkward names and strings too.
func TestDecodedInputsTextIsJsonbs(t *testing.T) {
	conn := dbtest.New(t)
	awkward := []string{"plain", `quote" back\slash`, "ctl \x01\x1f \b\f\n\r\t", "html <a href>&amp;", "unicode é 漢字 😀",
		"separators \u2028 \u2029", "bad utf8 \xff\xfe\xc3 end", "del \x7f", ""}
	var vals []decode.Value
	for i, s := range awkward {
		vals = append(vals, decode.Value{Name: s, Value: s}, decode.Value{Name: string(rune('z' - i)), Value: i%2 == 0})
	}
	vals = append(vals,
		decode.Value{Name: "amount", Value: decode.U256{Low: "0x3e8", High: "0x1"}},
		decode.Value{Name: "dup", Value: "first"},
		decode.Value{Name: "nested", Value: []decode.Value{{Name: "bb", Value: []any{"x", nil, []any{}, []decode.Value{}}}, {Name: "a", Value: decode.Variant{Name: "Some", Value: "0x5"}}}},
		decode.Value{Name: "none", Value: decode.Variant{Name: "None"}},
		decode.Value{Name: "nil", Value: nil},
		decode.Value{Name: "dup", Value: "last"},
		decode.Value{Name: "tuple", Value: []any(nil)},
	)
	for _, in := range [][]decode.Value{vals, nil, vals[:1]} {
		// As the indexer wrote them (indexer/lean_calls_test.go keeps its code whole).
		m := map[string]any{}
		for _, v := range in {
			m[v.Name] = legacy(v.Value)
		}
		stored, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := conn.Get(&want, `SELECT $1::jsonb::text`, string(stored)); err != nil {
			t.Fatal(err)
		}
		if got := db.InputsText(in); got != want {
			t.Errorf("decoded on read:\n%s\nstored then:\n%s", got, want)
		}
	}
}

func legacy(v any) any {
	switch x := v.(type) {
	case decode.U256:
		return map[string]string{"low": "1000", "high": "1"} // the test's one u256
	case []decode.Value:
		m := map[string]any{}
		for _, e := range x {
			m[e.Name] = legacy(e.Value)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = legacy(e)
		}
		return out
	case decode.Variant:
		return map[string]any{x.Name: legacy(x.Value)}
	}
	return v
}
