package sim

import (
	"math/bits"
	"strconv"

	"github.com/starkgraph/starkgraph/starknet"
)

// felt is a field element as four big-endian 64-bit words (f[0] most significant).
// The simulator keeps every value below 2^251, so every felt is valid.
type felt [4]uint64

func feltU(v uint64) felt { return felt{0, 0, 0, v} }

func (f felt) isZero() bool { return f == felt{} }

const hexDigits = "0123456789abcdef"

// appendHex writes f as canonical hex (0x, lower case, no leading zeros), unquoted.
func (f felt) appendHex(b []byte) []byte {
	b = append(b, '0', 'x')
	i := 0
	for i < 3 && f[i] == 0 {
		i++
	}
	b = strconv.AppendUint(b, f[i], 16)
	for i++; i < 4; i++ {
		w := f[i]
		for s := 60; s >= 0; s -= 4 {
			b = append(b, hexDigits[(w>>uint(s))&0xf])
		}
	}
	return b
}

func (f felt) String() string { return string(f.appendHex(nil)) }

// parseFelt reads a felt as starknet.ParseFelt does (0x + 1..64 hex digits, below the
// prime) into the simulator's form.
func parseFelt(s string) (felt, bool) {
	sf, err := starknet.ParseFelt(s)
	if err != nil {
		return felt{}, false
	}
	return fromStarknet(sf), true
}

// snKeccak is Starknet's keccak (keccak256 masked to its low 250 bits) in the simulator's
// form. Selectors of entry points and events are snKeccak of their names.
func snKeccak(data []byte) felt { return fromStarknet(starknet.Keccak(data)) }

func fromStarknet(sf starknet.Felt) felt {
	var f felt
	for i := 0; i < 4; i++ {
		for _, c := range sf[i*8 : i*8+8] {
			f[i] = f[i]<<8 | uint64(c)
		}
	}
	return f
}

func selector(name string) felt { return snKeccak([]byte(name)) }

// shortString packs up to 31 ASCII bytes into a felt (Cairo short string).
func shortString(s string) felt {
	var f felt
	for i := 0; i < len(s) && i < 31; i++ {
		f[0] = f[0]<<8 | f[1]>>56
		f[1] = f[1]<<8 | f[2]>>56
		f[2] = f[2]<<8 | f[3]>>56
		f[3] = f[3]<<8 | uint64(s[i])
	}
	return f
}

// byteArray encodes s as a Cairo ByteArray: data_len, full 31-byte words,
// pending_word, pending_word_len.
func byteArray(s string) []felt {
	full := len(s) / 31
	out := []felt{feltU(uint64(full))}
	for i := 0; i < full; i++ {
		out = append(out, shortString(s[i*31:i*31+31]))
	}
	rest := s[full*31:]
	return append(out, shortString(rest), feltU(uint64(len(rest))))
}

// mix64 is the splitmix64 finaliser: a fast, well-distributed bijection on uint64.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash3 derives a pseudo-random 251-bit felt from three words. It is how the
// simulator names things (blocks, transactions, addresses): deterministic and
// cheap, not a real Starknet hash.
func hash3(a, b, c uint64) felt {
	h := mix64(a ^ 0x9e3779b97f4a7c15)
	h = mix64(h ^ b)
	h = mix64(h ^ c)
	f := felt{mix64(h + 1), mix64(h + 2), mix64(h + 3), mix64(h + 4)}
	f[0] &= 1<<59 - 1
	return f
}

// u128 is an unsigned 128-bit amount (token balances stay far below 2^128).
type u128 struct{ hi, lo uint64 }

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

func (a u128) sub(b u128) u128 {
	lo, br := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, br)
	return u128{hi, lo}
}

func (a u128) felt() felt { return felt{0, 0, a.hi, a.lo} }

// mulU returns v*m as u128.
func mulU(v, m uint64) u128 {
	hi, lo := bits.Mul64(v, m)
	return u128{hi, lo}
}
