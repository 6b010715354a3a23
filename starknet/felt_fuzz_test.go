package starknet

import (
	"strings"
	"testing"
)

// FuzzParseFelt checks that parsing never panics and that every accepted input round-trips
// through all the printed and stored forms. The seed corpus is in testdata/fuzz.
func FuzzParseFelt(f *testing.F) {
	for _, s := range []string{"0x0", "0x1", "0XaB", "0x" + strings.Repeat("f", 63), "0x", "0x-1", "1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseFelt(s)
		if err != nil {
			return
		}
		digits := strings.TrimLeft(strings.ToLower(s[2:]), "0")
		if digits == "" {
			digits = "0"
		}
		if v.Hex() != "0x"+digits {
			t.Fatalf("Hex(%q) = %s", s, v.Hex())
		}
		if p := v.Padded(); len(p) != 66 || !strings.HasSuffix(p, strings.TrimPrefix(v.Hex(), "0x")) {
			t.Fatalf("Padded(%q) = %s", s, p)
		}
		for _, form := range []string{v.Hex(), v.Padded(), strings.ToUpper(v.Padded()[2:])} {
			if !strings.HasPrefix(form, "0x") {
				form = "0x" + form
			}
			w, err := ParseFelt(form)
			if err != nil || w != v {
				t.Fatalf("reparse %q = %s, %v", form, w, err)
			}
		}
		w, err := FeltFromBytes(v.Bytes())
		if err != nil || w != v {
			t.Fatalf("FeltFromBytes(Bytes(%q)) = %s, %v", s, w, err)
		}
		b, _ := v.MarshalJSON()
		var j Felt
		if err := j.UnmarshalJSON(b); err != nil || j != v {
			t.Fatalf("JSON round trip %s: %v", b, err)
		}
	})
}
