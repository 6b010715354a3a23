package starknet

import (
	"errors"
	"math/big"
	"slices"
	"strings"
)

// Starknet ID domain labels are felts in a base-38 code (github.com/starknet-id,
// "encoding" of starknetid.js): each character of "abcdefghijklmnopqrstuvwxyz0123456789-"
// is a digit, the 38th digit escapes a character of the big alphabet "这来", and an "a"
// ending the label is written as the escape digit alone. starknet/starknetid_test.go checks
// both directions against the encodings published with starknetid.js and starknetid.rs. A domain is a list of labels,
// innermost first: [bob, alice] is bob.alice.stark.

const (
	idBasic = "abcdefghijklmnopqrstuvwxyz0123456789-"
	idBig   = "这来"
)

var (
	idBasicBase = big.NewInt(int64(len(idBasic) + 1)) // 38
	idBigRunes  = []rune(idBig)
	idBigSize   = big.NewInt(int64(len(idBigRunes)))     // 2
	idBigBase   = big.NewInt(int64(len(idBigRunes) + 1)) // 3
)

// DecodeStarknetIDLabel decodes one encoded label ("" for 0).
func DecodeStarknetIDLabel(f Felt) string {
	n := f.Big()
	var out []rune
	mod := new(big.Int)
	for n.Sign() != 0 {
		n.DivMod(n, idBasicBase, mod)
		code := int(mod.Int64())
		if code == len(idBasic) {
			next := new(big.Int).Div(n, idBigBase)
			if next.Sign() == 0 {
				code2 := int(new(big.Int).Mod(n, idBigBase).Int64())
				n = next
				if code2 == 0 {
					out = append(out, rune(idBasic[0]))
				} else {
					out = append(out, idBigRunes[code2-1])
				}
			} else {
				n.DivMod(n, idBigSize, mod)
				out = append(out, idBigRunes[mod.Int64()])
			}
		} else {
			out = append(out, rune(idBasic[code]))
		}
	}
	// Trailing repetitions of the last big character encode a suffix of their own.
	k := 0
	last := idBigRunes[len(idBigRunes)-1]
	for len(out) > 0 && out[len(out)-1] == last {
		out = out[:len(out)-1]
		k++
	}
	if k > 0 {
		if k%2 == 0 {
			out = append(out, []rune(strings.Repeat(string(last), k/2-1))...)
			out = append(out, idBigRunes[0], rune(idBasic[1]))
		} else {
			out = append(out, []rune(strings.Repeat(string(last), k/2+1))...)
		}
	}
	return string(out)
}

// ErrStarknetIDLabel is returned for a label with characters the code has no digit for.
var ErrStarknetIDLabel = errors.New("a Starknet ID label has only a-z, 0-9, - and 这来")

// EncodeStarknetIDLabel encodes one label (without ".stark"), the inverse of
// DecodeStarknetIDLabel: a basic character is its digit; a big one is the escape digit then
// its index in base 2 (base 3, counting from 1, at the end of the label); a final "a" is the
// escape digit alone; and a label that ends in "这b" or in "来"s has that ending rewritten as
// "来"s first (twice their count plus two, or twice minus one), which the decoder undoes.
func EncodeStarknetIDLabel(label string) (Felt, error) {
	runes := []rune(label)
	for _, c := range runes {
		if !strings.ContainsRune(idBasic, c) && !strings.ContainsRune(idBig, c) {
			return Felt{}, ErrStarknetIDLabel
		}
	}
	last := idBigRunes[len(idBigRunes)-1]
	trailing := func(r []rune) ([]rune, int) {
		k := 0
		for len(r) > 0 && r[len(r)-1] == last {
			r, k = r[:len(r)-1], k+1
		}
		return r, k
	}
	stars := func(n int) []rune { return []rune(strings.Repeat(string(last), n)) }
	if n := len(runes); n >= 2 && runes[n-2] == idBigRunes[0] && runes[n-1] == rune(idBasic[1]) {
		rest, k := trailing(runes[:n-2])
		runes = append(append([]rune(nil), rest...), stars(2*(k+1))...)
	} else if rest, k := trailing(runes); k > 0 {
		runes = append(append([]rune(nil), rest...), stars(2*k-1)...)
	}
	out, mul := new(big.Int), big.NewInt(1)
	add := func(digit int64, base *big.Int) {
		out.Add(out, new(big.Int).Mul(big.NewInt(digit), mul))
		mul.Mul(mul, base)
	}
	for i, c := range runes {
		end := i == len(runes)-1
		if idx := strings.IndexRune(idBasic, c); idx >= 0 {
			if end && c == rune(idBasic[0]) {
				add(int64(len(idBasic)), idBasicBase) // the escape alone: a final "a"
			} else {
				add(int64(idx), idBasicBase)
			}
			continue
		}
		add(int64(len(idBasic)), idBasicBase) // the escape, then the big character
		idx := int64(slices.Index(idBigRunes, c))
		if end {
			add(idx+1, idBigBase)
		} else {
			add(idx, idBigSize)
		}
	}
	return FeltFromBig(out)
}

// StarknetIDDomain renders encoded labels (innermost first) as a domain name, e.g.
// bob.alice.stark; "" when there are none or one decodes to nothing.
func StarknetIDDomain(labels []Felt) string {
	if len(labels) == 0 {
		return ""
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = DecodeStarknetIDLabel(l)
		if parts[i] == "" {
			return ""
		}
	}
	return strings.Join(parts, ".") + ".stark"
}
