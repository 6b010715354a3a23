package db

import (
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/starknet"
)

// db parses with starknet's parser: the same values, and its reason alone as the error,
// so an API message reads `"0x1g" has a non-hex character 'g'`.
func TestParseFeltIsStarknets(t *testing.T) {
	for _, in := range []string{"0x0", "0x1", "0X00ABcd", "0x" + strings.Repeat("0", 63) + "7"} {
		got, err := ParseFelt(in)
		want := starknet.MustFelt(in)
		if err != nil || got.Starknet() != want || got.Hex() != want.Hex() || got.Padded() != want.Padded() {
			t.Errorf("ParseFelt(%q) = %x, %v; starknet says %s", in, []byte(got), err, want)
		}
		if len(got) > 0 && got[0] == 0 {
			t.Errorf("ParseFelt(%q) = %x is not in the compact column form", in, []byte(got))
		}
	}
	for in, reason := range map[string]string{
		"12":                           "must be 0x followed by 1 to 64 hex digits",
		"0x1g":                         "has a non-hex character 'g'",
		"0x" + strings.Repeat("1", 65): "has more than 64 hex digits",
		"0x" + strings.Repeat("f", 64): "is not a field element (it is not below the field prime)",
	} {
		if _, err := ParseFelt(in); err == nil || err.Error() != reason {
			t.Errorf("ParseFelt(%q) error = %v, want %q", in, err, reason)
		}
	}
	if FeltPtrOf(nil) != nil || FeltsOf(nil) != nil {
		t.Errorf("a missing felt or list must stay nil (NULL)")
	}
}

// FeltsOf gives each felt the compact form FeltOf gives it, and the felts, which share one
// buffer, stay apart when one is appended to.
func TestFeltsOfIsFeltOfEach(t *testing.T) {
	fs := []starknet.Felt{starknet.MustFelt("0x0"), starknet.MustFelt("0x1"), starknet.MustFelt("0x" + strings.Repeat("ab", 31)),
		starknet.MustFelt("0x10000"), {}}
	got := FeltsOf(fs)
	if len(got) != len(fs) {
		t.Fatalf("%d felts, want %d", len(got), len(fs))
	}
	for i, f := range fs {
		if want := FeltOf(f); string(got[i]) != string(want) {
			t.Errorf("felt %d = %x, want %x", i, []byte(got[i]), []byte(want))
		}
	}
	_ = append(got[1], 0xff)
	if got[2][0] != 0xab {
		t.Errorf("appending to one felt changed the next: %x", []byte(got[2]))
	}
	if len(FeltsOf([]starknet.Felt{})) != 0 || FeltsOf([]starknet.Felt{}) == nil {
		t.Errorf("an empty list must stay an empty list, not NULL")
	}
}

// BenchmarkFeltsOf converts a call's worth of felts: small numbers and full-width hashes.
func BenchmarkFeltsOf(b *testing.B) {
	fs := make([]starknet.Felt, 24)
	for i := range fs {
		fs[i] = starknet.FeltFromUint64(uint64(i))
		if i%3 == 0 {
			fs[i] = starknet.MustFelt("0x" + strings.Repeat("7", 63))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		FeltsOf(fs)
	}
}
