package cursor

import (
	"strings"
	"testing"
)

type pos struct {
	O int      `json:"o"`
	K []string `json:"k,omitempty"`
}

func TestSealOpen(t *testing.T) {
	c := New([]byte("secret"))
	s := c.Seal("blocks", pos{O: 3, K: []string{"7"}})
	var p pos
	if scope, err := c.Open("blocks", s, &p); err != nil || scope != "blocks" || p.O != 3 || p.K[0] != "7" {
		t.Fatalf("round trip: %v %v %+v", scope, err, p)
	}
	any := c.Seal(AnyList, pos{O: 9})
	if scope, err := c.Open("contracts", any, &p); err != nil || scope != AnyList || p.O != 9 {
		t.Fatalf("an AnyList cursor opens in any list: %v %v", scope, err)
	}
	body, sig, _ := strings.Cut(s, ".")
	for name, bad := range map[string]string{
		"other list":  s, // opened as contracts below
		"other key":   New([]byte("other")).Seal("contracts", pos{O: 3}),
		"edited body": body[:len(body)-1] + "A." + sig,
		"no tag":      body,
		"empty":       "",
		"too long":    strings.Repeat("A", 2000) + "." + sig,
		"bad base64":  "!!." + sig,
	} {
		if _, err := c.Open("contracts", bad, &p); err != ErrInvalid {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// FuzzOpen: without the key, no string opens but one sealed by it (or an equivalent
// spelling of its tag), and nothing panics.
func FuzzOpen(f *testing.F) {
	c := New([]byte("k"))
	f.Add(c.Seal("l", pos{O: 1, K: []string{"0x1"}}))
	f.Add("e30.AAAAAAAAAAAAAAAAAAAAAA")
	f.Fuzz(func(t *testing.T, s string) {
		var p pos
		if _, err := c.Open("l", s, &p); err == nil && (p.O != 1 || len(p.K) != 1 || p.K[0] != "0x1") {
			t.Fatalf("a cursor nobody sealed opened: %q -> %+v", s, p)
		}
	})
}
