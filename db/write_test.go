package db

import "testing"

func TestCleanText(t *testing.T) {
	cases := map[string]string{
		"plain":                  "plain",
		"nul\x00byte":            "nulbyte",
		"bad\xffutf8":            "bad\uFFFDutf8",
		`{"name":"a\u0000b"}`:    `{"name":"a\ufffdb"}`,
		"Failure reason: 0x4e6f": "Failure reason: 0x4e6f",
	}
	for in, want := range cases {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}
