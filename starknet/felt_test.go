package starknet

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
)

func TestParseFelt(t *testing.T) {
	tests := []struct {
		in      string
		hex     string // want canonical Hex; "" means want an error
		errPart string
	}{
		{"0x0", "0x0", ""},
		{"0x00000", "0x0", ""},
		{"0x1", "0x1", ""},
		{"0X1", "0x1", ""},
		{"0xABCdef", "0xabcdef", ""},
		{"0x049D36570D4e46f48e99674bd3fcc84644DdD6b96F7C741B1562B82f9e004dC7", "0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", ""},
		{"0x" + strings.Repeat("0", 64), "0x0", ""},
		{"0x0800000000000011000000000000000000000000000000000000000000000000", "0x800000000000011000000000000000000000000000000000000000000000000", ""}, // P-1
		{"0x0800000000000011000000000000000000000000000000000000000000000001", "", "field prime"},                                                       // P
		{"0x" + strings.Repeat("f", 64), "", "field prime"},
		{"0x" + strings.Repeat("0", 65), "", "more than 64"},
		{"", "", "must be 0x"},
		{"0x", "", "must be 0x"},
		{"1", "", "must be 0x"},
		{"123", "", "must be 0x"},
		{"x12", "", "must be 0x"},
		{"0x12g", "", "non-hex character"},
		{"0x 12", "", "non-hex character"},
		{"0x-1", "", "non-hex character"},
		{" 0x1", "", "must be 0x"},
		{"0x1 ", "", "non-hex character"},
		{"0x1é", "", "non-hex character"},
	}
	for _, tt := range tests {
		f, err := ParseFelt(tt.in)
		if tt.hex == "" {
			if err == nil || !errors.Is(err, ErrInvalidFelt) || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("ParseFelt(%q) = %v, %v; want error containing %q", tt.in, f, err, tt.errPart)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFelt(%q): %v", tt.in, err)
			continue
		}
		if f.Hex() != tt.hex {
			t.Errorf("ParseFelt(%q).Hex() = %s, want %s", tt.in, f.Hex(), tt.hex)
		}
	}
}

func TestFeltForms(t *testing.T) {
	f := MustFelt("0x49D36570D4E46F48E99674BD3FCC84644DDD6B96F7C741B1562B82F9E004DC7")
	if got := f.Padded(); got != "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7" {
		t.Errorf("Padded = %s", got)
	}
	if got := len(f.Bytes()); got != 32 {
		t.Errorf("Bytes len = %d, want 32", got)
	}
	small := FeltFromUint64(0x1234)
	if got := small.Bytes(); len(got) != 2 || got[0] != 0x12 || got[1] != 0x34 {
		t.Errorf("Bytes(0x1234) = %x", got)
	}
	// The leading zeros are skipped a word at a time: a first byte in each of its places.
	for k := range 31 {
		var f Felt
		f[31-k] = 0x5
		if got := f.Bytes(); len(got) != k+1 || got[0] != 0x5 || !bytes.Equal(got, f.Big().Bytes()) {
			t.Errorf("Bytes(5 << %d) = %x", 8*k, got)
		}
	}
	// Zero is the empty string, as in db.Felt, so both write the same bytea for it.
	if got := (Felt{}).Bytes(); got == nil || len(got) != 0 {
		t.Errorf("Bytes(0) = %x (nil: %v), want an empty, non-nil slice", got, got == nil)
	}
	if got := (Felt{}).Padded(); got != "0x"+strings.Repeat("0", 64) {
		t.Errorf("Padded(0) = %s", got)
	}
	for _, b := range [][]byte{{}, {0}, {0, 0, 0x12, 0x34}} {
		g, err := FeltFromBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		want := Felt{}
		if len(b) == 4 {
			want = small
		}
		if g != want {
			t.Errorf("FeltFromBytes(%x) = %s", b, g)
		}
	}
	if _, err := FeltFromBytes(make([]byte, 33)); err == nil {
		t.Error("33 bytes accepted")
	}
	if _, err := FeltFromBytes(primeBytes[:]); err == nil {
		t.Error("P accepted")
	}
	if v, ok := small.Uint64(); !ok || v != 0x1234 {
		t.Errorf("Uint64 = %d %v", v, ok)
	}
	if _, ok := f.Uint64(); ok {
		t.Error("Uint64 of a 251-bit felt fits?")
	}
	if f.Big().Text(16) != "49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7" {
		t.Error("Big mismatch")
	}
	if g, err := FeltFromBig(f.Big()); err != nil || g != f {
		t.Errorf("FeltFromBig round trip: %v %v", g, err)
	}
	if _, err := FeltFromBig(Prime()); err == nil {
		t.Error("FeltFromBig(P) accepted")
	}
	if _, err := FeltFromBig(big.NewInt(-1)); err == nil {
		t.Error("FeltFromBig(-1) accepted")
	}
}

func TestFeltJSONAndSQL(t *testing.T) {
	type doc struct {
		A Felt          `json:"a"`
		B []Felt        `json:"b"`
		M map[Felt]Felt `json:"m"`
	}
	in := `{"a":"0x00AB","b":["0x1","0x0"],"m":{"0x02":"0x3"}}`
	var d doc
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(d)
	if string(out) != `{"a":"0xab","b":["0x1","0x0"],"m":{"0x2":"0x3"}}` {
		t.Errorf("round trip: %s", out)
	}
	for _, bad := range []string{`{"a":1}`, `{"a":"0xzz"}`, `{"a":null}`, `{"a":"12"}`, `{"a":"0x` + strings.Repeat("1", 65) + `"}`} {
		var d doc
		if err := json.Unmarshal([]byte(bad), &d); err == nil && bad != `{"a":null}` {
			t.Errorf("%s accepted", bad)
		}
	}

	f := MustFelt("0xabc")
	v, _ := f.Value()
	var g Felt
	if err := g.Scan(v); err != nil || g != f {
		t.Errorf("Scan(Value) = %s, %v", g, err)
	}
	if err := g.Scan("0xdef"); err != nil || g.Hex() != "0xdef" {
		t.Errorf("Scan(string) = %s, %v", g, err)
	}
	if err := g.Scan(nil); err == nil {
		t.Error("Scan(nil) accepted")
	}
	if err := g.Scan(int64(5)); err == nil {
		t.Error("Scan(int64) accepted")
	}
}

func TestHash256AndDecimal(t *testing.T) {
	// A keccak256 message hash is above the field prime: ParseFelt refuses it, Hash256 not.
	const msg = "0xD8824a75a588f0726d7d83b3e9560810c763043e979fdb77b11c1a51a991235d"
	if _, err := ParseFelt(msg); err == nil {
		t.Error("ParseFelt accepted a value above P")
	}
	h, err := ParseHash256(msg)
	if err != nil || h.Hex() != strings.ToLower(msg) {
		t.Fatalf("ParseHash256 = %s, %v", h, err)
	}
	var j Hash256
	b, _ := json.Marshal(h)
	if err := json.Unmarshal(b, &j); err != nil || j != h {
		t.Errorf("JSON round trip: %s %v", b, err)
	}
	v, _ := h.Value()
	var s Hash256
	if err := s.Scan(v); err != nil || s != h {
		t.Errorf("SQL round trip: %v", err)
	}
	for _, bad := range []string{"0x", "12", "0x" + strings.Repeat("1", 65), "0xg"} {
		if _, err := ParseHash256(bad); err == nil {
			t.Errorf("ParseHash256(%q) accepted", bad)
		}
	}
	if d := MustFelt("0x4a817c800").Decimal(); d != "20000000000" {
		t.Errorf("Decimal = %s", d)
	}
}

func TestU256(t *testing.T) {
	v, err := U256Decimal(MustFelt("0x54250f9725d38ac3c0000"), MustFelt("0x0"))
	if err != nil || v != "6357799000000000000000000" {
		t.Errorf("U256Decimal = %s, %v", v, err)
	}
	max := "0xffffffffffffffffffffffffffffffff"
	v, err = U256Decimal(MustFelt(max), MustFelt(max))
	want := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)).String()
	if err != nil || v != want {
		t.Errorf("U256 max = %s, %v", v, err)
	}
	if _, err := U256(MustFelt("0x100000000000000000000000000000000"), Felt{}); err == nil {
		t.Error("129-bit low accepted")
	}
	lo, hi, err := SplitU256(new(big.Int).Lsh(big.NewInt(3), 128))
	if err != nil || lo.Hex() != "0x0" || hi.Hex() != "0x3" {
		t.Errorf("SplitU256 = %s %s %v", lo, hi, err)
	}
}

func TestSelector(t *testing.T) {
	tests := map[string]string{
		"Transfer":    "0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9",
		"transfer":    "0x83afd3f4caedc6eebf44246fe54e38c95e3179a5ec9ea81740eca5b482d12e",
		"__execute__": "0x15d40a3d6ca2ac30f4031e42be28da9b056fef9bb7357ac5e85627ee876e5ad",
		"__default__": "0x0",
	}
	for name, want := range tests {
		if got := Selector(name).Hex(); got != want {
			t.Errorf("Selector(%s) = %s, want %s", name, got, want)
		}
	}
}

func TestStrings(t *testing.T) {
	if s, ok := ShortString(MustFelt("0x4254432f55534454")); !ok || s != "BTC/USDT" {
		t.Errorf("ShortString = %q %v", s, ok)
	}
	if _, ok := ShortString(MustFelt("0x1f")); ok {
		t.Error("control byte accepted as text")
	}
	f, _ := EncodeShortString("ETH")
	if s, _ := ShortString(f); s != "ETH" {
		t.Errorf("EncodeShortString round trip = %q", s)
	}
	// "Starknet Token Starknet Token!!" is 31 bytes: one full data word, empty pending.
	long := "Starknet Token Starknet Token!!X"
	w0, _ := EncodeShortString(long[:31])
	w1, _ := EncodeShortString(long[31:])
	words := []Felt{FeltFromUint64(1), w0, w1, FeltFromUint64(1), FeltFromUint64(99)}
	s, n, err := DecodeByteArray(words)
	if err != nil || s != long || n != 4 {
		t.Errorf("DecodeByteArray = %q %d %v", s, n, err)
	}
	if got, ok := DecodeString(words[:4]); !ok || got != long {
		t.Errorf("DecodeString = %q %v", got, ok)
	}
	if got, ok := DecodeString([]Felt{f}); !ok || got != "ETH" {
		t.Errorf("DecodeString(short) = %q %v", got, ok)
	}
	for _, bad := range [][]Felt{
		nil,
		{FeltFromUint64(5), w0, w1}, // data_len too large
		{FeltFromUint64(0), w1, FeltFromUint64(0)}, // pending word longer than its length
		{FeltFromUint64(0), w1, FeltFromUint64(40)},
		{FeltFromUint64(1), MustFelt("0x100000000000000000000000000000000000000000000000000000000000000"), w1, FeltFromUint64(1)},
	} {
		if _, _, err := DecodeByteArray(bad); err == nil {
			t.Errorf("DecodeByteArray(%v) accepted", bad)
		}
	}
}
