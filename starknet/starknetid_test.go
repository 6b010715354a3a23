package starknet

import "testing"

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
