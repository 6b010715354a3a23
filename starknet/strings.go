package starknet

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ShortString decodes a Cairo short string: up to 31 ASCII bytes packed big-endian into a
// felt (leading zero bytes are padding). ok is false when the bytes are not printable ASCII,
// in which case the felt is probably a number, not a string.
func ShortString(f Felt) (s string, ok bool) {
	i := 0
	for i < 32 && f[i] == 0 {
		i++
	}
	b := f[i:]
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return "", false
		}
	}
	return string(b), true
}

// EncodeShortString packs up to 31 ASCII bytes into a felt.
func EncodeShortString(s string) (Felt, error) {
	var f Felt
	if len(s) > 31 {
		return f, fmt.Errorf("short string %q longer than 31 bytes", s)
	}
	copy(f[32-len(s):], s)
	return f, nil
}

// ErrByteArray is wrapped by ByteArray decoding errors.
var ErrByteArray = errors.New("invalid ByteArray")

// DecodeByteArray reads a Cairo core::byte_array::ByteArray from the start of words:
// data_len, data_len full 31-byte words, pending_word, pending_word_len. It returns the
// bytes as a string and how many felts it consumed. The result need not be valid UTF-8.
func DecodeByteArray(words []Felt) (s string, consumed int, err error) {
	if len(words) < 3 {
		return "", 0, fmt.Errorf("%w: %d felts, need at least 3", ErrByteArray, len(words))
	}
	n, ok := words[0].Uint64()
	if !ok || n > uint64(len(words)-3) {
		return "", 0, fmt.Errorf("%w: data_len %s does not fit %d felts", ErrByteArray, words[0], len(words))
	}
	buf := make([]byte, 0, 31*int(n)+31)
	for _, w := range words[1 : 1+n] {
		if w[0] != 0 {
			return "", 0, fmt.Errorf("%w: data word %s is longer than 31 bytes", ErrByteArray, w)
		}
		buf = append(buf, w[1:]...)
	}
	pending := words[1+n]
	plen, ok := words[2+n].Uint64()
	if !ok || plen > 31 || pending.BitLen() > int(plen)*8 {
		return "", 0, fmt.Errorf("%w: pending word %s with length %s", ErrByteArray, pending, words[2+n])
	}
	buf = append(buf, pending[32-plen:]...)
	return string(buf), int(n) + 3, nil
}

// DecodeString decodes the result of a name() or symbol() call, which older tokens return as
// one short-string felt and newer ones as a ByteArray. ok is false when it is neither or
// not valid UTF-8.
func DecodeString(result []Felt) (s string, ok bool) {
	if len(result) == 1 {
		return ShortString(result[0])
	}
	s, n, err := DecodeByteArray(result)
	if err != nil || n != len(result) || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}
