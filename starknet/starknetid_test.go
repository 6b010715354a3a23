package starknet

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestStarknetIDLabels(t *testing.T) {
	for _, label := range []string{"alice", "bob", "a", "ba", "ben-42", "starknet", "z9", "aaaa"} {
		f, err := EncodeStarknetIDLabel(label)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if got := DecodeStarknetIDLabel(f); got != label {
			t.Errorf("%s: encoded %s, decoded %q", label, f.Hex(), got)
		}
	}
	// Known encodings (ben = 18925 in the Starknet ID docs).
	for label, hex := range map[string]string{"ben": "0x49ed", "fricoben": "0x15d246f6c1b"} {
		f, _ := EncodeStarknetIDLabel(label)
		if f.Hex() != hex {
			t.Errorf("%s: %s, want %s", label, f.Hex(), hex)
		}
	}
	if _, err := EncodeStarknetIDLabel("Alice"); err == nil {
		t.Error("upper case accepted")
	}
	if got := StarknetIDDomain([]Felt{MustFelt("0x49ed"), MustFelt("0x15d246f6c1b")}); got != "ben.fricoben.stark" {
		t.Errorf("domain %q", got)
	}
}

// Encodings published with Starknet ID's libraries (starknetid.rs tests/encoding.rs,
// starknetid.js's tests and docs), the big alphabet's among them.
var starknetIDVectors = []struct {
	label   string
	encoded string // decimal
}{
	{"", "0"},
	{"a", "37"},
	{"ben", "18925"},
	{"thomas", "1426911989"},
	{"fricoben", "1499554868251"},
	{"这来", "8625"},
	{"efghijk来aa", "12234603501699554"},
}

func TestStarknetIDKnownEncodings(t *testing.T) {
	for _, v := range starknetIDVectors {
		n, _ := new(big.Int).SetString(v.encoded, 10)
		f, err := FeltFromBig(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := DecodeStarknetIDLabel(f); got != v.label {
			t.Errorf("decode %s: %q, want %q", v.encoded, got, v.label)
		}
		enc, err := EncodeStarknetIDLabel(v.label)
		if err != nil || enc != f {
			t.Errorf("encode %q: %s (%v), want %s", v.label, enc.Big(), err, v.encoded)
		}
	}
	if got := StarknetIDDomain([]Felt{FeltFromUint64(1499554868251), FeltFromUint64(18925)}); got != "fricoben.ben.stark" {
		t.Errorf("fricoben.ben: %q", got)
	}
	if got := StarknetIDDomain([]Felt{FeltFromUint64(8625), FeltFromUint64(18925)}); got != "这来.ben.stark" {
		t.Errorf("这来.ben: %q", got)
	}
}

// Every number is some label's encoding, and the decoder gives the label that encodes to
// it (starknetid.js's test: decode then encode, for 0 to 2,500); and labels of both
// alphabets, the big one's endings in particular, survive encoding and decoding.
func TestStarknetIDRoundTrips(t *testing.T) {
	for i := uint64(0); i < 2500; i++ {
		label := DecodeStarknetIDLabel(FeltFromUint64(i))
		enc, err := EncodeStarknetIDLabel(label)
		if err != nil || enc != FeltFromUint64(i) {
			t.Fatalf("%d decodes to %q, which encodes to %s (%v)", i, label, enc.Big(), err)
		}
	}
	all := []rune(idBasic + idBig)
	labels := []string{"这", "来", "来来", "来来来", "这b", "来这b", "来来这b", "a这", "这a", "a来a", "b来来", "这来这来", "-来-"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		r := make([]rune, 1+rng.IntN(12))
		for i := range r {
			r[i] = all[rng.IntN(len(all))]
			if rng.IntN(3) == 0 { // more of the big alphabet than chance gives
				r[i] = []rune(idBig)[rng.IntN(2)]
			}
		}
		labels = append(labels, string(r))
	}
	for _, label := range labels {
		f, err := EncodeStarknetIDLabel(label)
		if err != nil {
			t.Fatalf("%q: %v", label, err)
		}
		if got := DecodeStarknetIDLabel(f); got != label {
			t.Fatalf("%q encodes to %s, which decodes to %q", label, f.Big(), got)
		}
	}
	for _, bad := range []string{"Alice", "a.b", "é", "a_b"} {
		if _, err := EncodeStarknetIDLabel(bad); err == nil {
			t.Errorf("%q encoded", bad)
		}
	}
}
