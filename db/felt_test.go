package db

import (
	"encoding/hex"
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

// A felt list goes into its packed column form and comes back as the same felts, in their
// column form; NULL and the empty list stay apart; the COPY text form is the same bytes.
func TestFeltArrayPackedRoundTrip(t *testing.T) {
	full := MustFelt("0x" + strings.Repeat("7", 63))
	for _, a := range []FeltArray{
		nil,
		{},
		{FeltFromUint64(0)},
		{FeltFromUint64(1), FeltFromUint64(0), full, FeltFromUint64(0x10000), MustFelt("0x800000000000011000000000000000000000000000000000000000000000000")},
		{Felt{0, 0, 5}, nil, Felt{}}, // leading zeros and nil elements are zero-stripped felts
	} {
		v, err := a.Value()
		if err != nil {
			t.Fatalf("%x: %v", a, err)
		}
		if a == nil {
			if v != nil {
				t.Errorf("a nil list is stored as %#v, want NULL", v)
			}
		} else if b, ok := v.([]byte); !ok || b == nil {
			t.Errorf("%x is stored as %#v, want bytes (the empty list is not NULL)", a, v)
		}
		var back FeltArray
		if err := back.Scan(v); err != nil {
			t.Fatalf("scan %x: %v", v, err)
		}
		if (back == nil) != (a == nil) || len(back) != len(a) {
			t.Fatalf("%x came back as %x", a, back)
		}
		size := 0
		for i := range a {
			if want := Normalize(a[i]); string(back[i]) != string(want) {
				t.Errorf("felt %d of %x came back as %x", i, a, back[i])
			}
			size += 1 + len(Normalize(a[i]))
		}
		if b, _ := v.([]byte); len(b) != size {
			t.Errorf("%x packs into %d bytes, want one length byte per felt and its bytes: %d", a, len(b), size)
		}
		if a != nil {
			line, err := appendCopyValue(nil, a)
			if b, _ := v.([]byte); err != nil || string(line) != `\\x`+hex.EncodeToString(b) {
				t.Errorf("COPY form of %x: %s %v, want the packed bytes %x", a, line, err, b)
			}
		}
	}
	// Each scanned felt owns its bytes: the source may be reused by the driver, and appending
	// to one felt does not write into the next.
	src, _ := FeltArray{FeltFromUint64(1), FeltFromUint64(2)}.Value()
	var got FeltArray
	if err := got.Scan(src); err != nil {
		t.Fatal(err)
	}
	clear(src.([]byte))
	_ = append(got[0], 0xff)
	if got[0][0] != 1 || got[1][0] != 2 {
		t.Errorf("scanned felts share bytes with the source or each other: %x", got)
	}
	// A felt of more than 32 bytes has no packed form.
	long := FeltArray{append(Felt{1}, make(Felt, 32)...)}
	if _, err := long.Value(); err == nil {
		t.Error("a 33-byte felt was packed")
	}
	if _, err := appendCopyValue(nil, long); err == nil {
		t.Error("a 33-byte felt was encoded for COPY")
	}
}

// Bytes that are not a packed list (a length byte above 32, a felt cut short) are an
// error, named as such.
func TestFeltArrayScanRefusesBadBytes(t *testing.T) {
	for _, raw := range [][]byte{{33}, {0xff, 1}, {2, 1}, {1, 5, 3, 1, 2}, []byte("{}"), []byte(`{"\\x01"}`)} {
		var a FeltArray
		if err := a.Scan(raw); err == nil || !strings.Contains(err.Error(), "felt list") {
			t.Errorf("scan %x: %x, %v; want a felt list error", raw, a, err)
		}
	}
	var a FeltArray
	if err := a.Scan(int64(1)); err == nil {
		t.Error("scanned an integer")
	}
}

// FuzzFeltArrayScan: whatever bytes a column holds, Scan gives an error or felts of at most
// 32 bytes in column form whose packed form is the input with each felt's leading zeros
// dropped, and never panics.
func FuzzFeltArrayScan(f *testing.F) {
	for _, seed := range [][]byte{{}, {0}, {1, 7}, {32}, {33}, {2, 0, 1, 0}, []byte("{}")} {
		f.Add(seed)
	}
	good, _ := FeltArray{MustFelt("0x" + strings.Repeat("7", 63)), FeltFromUint64(9)}.Value()
	f.Add(good.([]byte))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var a FeltArray
		if err := a.Scan(raw); err != nil {
			return
		}
		if a == nil {
			t.Fatalf("%x scanned as NULL", raw)
		}
		want := []byte{}
		for i := 0; i < len(raw); i += 1 + int(raw[i]) {
			f := Normalize(raw[i+1 : i+1+int(raw[i])])
			want = append(append(want, byte(len(f))), f...)
		}
		for _, f := range a {
			if len(f) > 32 || (len(f) > 0 && f[0] == 0) {
				t.Fatalf("%x scanned a felt %x not in column form", raw, f)
			}
		}
		again, err := a.Value()
		if err != nil || string(again.([]byte)) != string(want) {
			t.Fatalf("%x scanned as %x, which packs as %x (%v), want %x", raw, a, again, err, want)
		}
	})
}
