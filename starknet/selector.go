package starknet

import (
	"golang.org/x/crypto/sha3"
)

// Keccak is starknet_keccak (sn_keccak): keccak256 of data with the result masked to its
// low 250 bits, so that it is a felt.
func Keccak(data []byte) Felt {
	h := sha3.NewLegacyKeccak256()
	h.Write(data)
	var f Felt
	h.Sum(f[:0])
	f[0] &= 0x03
	return f
}

// Selector is the entry-point selector of a function or event name: sn_keccak(name).
// The Cairo 0 default entry points "__default__" and "__l1_default__" have selector 0,
// as in cairo-lang's get_selector_from_name.
func Selector(name string) Felt {
	if name == "__default__" || name == "__l1_default__" {
		return Felt{}
	}
	return Keccak([]byte(name))
}

// MessageToL1Hash is the hash of an L2 -> L1 message as the Starknet core contract computes
// it: keccak256 of the sender, the recipient, the payload's length and the payload, each a
// 32-byte big-endian word. Unlike a felt it may exceed the field prime.
func MessageToL1Hash(from, to Felt, payload []Felt) Hash256 {
	h := sha3.NewLegacyKeccak256()
	word := func(f Felt) { h.Write(f[:]) }
	word(from)
	word(to)
	word(FeltFromUint64(uint64(len(payload))))
	for _, p := range payload {
		word(p)
	}
	var out Hash256
	h.Sum(out[:0])
	return out
}
