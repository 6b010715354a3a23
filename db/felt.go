package db

import (
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/lib/pq"
)

// Felt is a Starknet field element in its storage form: big-endian bytes with leading zero
// bytes stripped (zero is the empty byte string), exactly what big.Int.Bytes gives. This
// form is canonical, so bytea equality is felt equality, and small values (most calldata
// words) take one or two bytes instead of 32.
type Felt []byte

// fieldPrime is P = 2^251 + 17*2^192 + 1, the Starknet field modulus.
var fieldPrime, _ = new(big.Int).SetString("800000000000011000000000000000000000000000000000000000000000001", 16)

// ParseFelt reads `0x` followed by 1 to 64 hex digits in any case, the form every API input
// takes, and rejects values outside the field.
func ParseFelt(s string) (Felt, error) {
	if len(s) < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return nil, errors.New("must be 0x followed by 1 to 64 hex digits")
	}
	digits := s[2:]
	if len(digits) > 64 {
		return nil, errors.New("has more than 64 hex digits")
	}
	for i := 0; i < len(digits); i++ {
		if !isHexDigit(digits[i]) {
			return nil, fmt.Errorf("has a non-hex character %q", digits[i])
		}
	}
	v, _ := new(big.Int).SetString(digits, 16)
	if v.Cmp(fieldPrime) >= 0 {
		return nil, errors.New("is not a field element (it is not below the Starknet prime)")
	}
	return FeltFromBig(v), nil
}

// MustFelt parses a constant; it panics on a malformed literal, so use it only for
// values written in the source.
func MustFelt(s string) Felt {
	f, err := ParseFelt(s)
	if err != nil {
		panic(fmt.Sprintf("felt %q %v", s, err))
	}
	return f
}

// FeltFromBig returns the storage form of a non-negative integer.
func FeltFromBig(v *big.Int) Felt { return append(Felt{}, v.Bytes()...) }

// FeltFromUint64 returns the storage form of a small integer.
func FeltFromUint64(v uint64) Felt { return FeltFromBig(new(big.Int).SetUint64(v)) }

// Normalize strips leading zero bytes from raw big-endian bytes of any length.
func Normalize(raw []byte) Felt {
	i := 0
	for i < len(raw) && raw[i] == 0 {
		i++
	}
	return Felt(raw[i:])
}

// Hex renders the node form: lowercase, no leading zeros, "0x0" for zero.
func (f Felt) Hex() string {
	if len(f) == 0 {
		return "0x0"
	}
	return "0x" + strings.TrimLeft(hex.EncodeToString(f), "0")
}

// Padded renders the address form: 0x and 64 lowercase hex digits.
func (f Felt) Padded() string {
	var b [32]byte
	copy(b[32-len(f):], f)
	return "0x" + hex.EncodeToString(b[:])
}

// Big returns the value as an integer.
func (f Felt) Big() *big.Int { return new(big.Int).SetBytes(f) }

// Uint64 returns the value when it fits, and false when it does not.
func (f Felt) Uint64() (uint64, bool) {
	if len(f) > 8 {
		return 0, false
	}
	var v uint64
	for _, b := range f {
		v = v<<8 | uint64(b)
	}
	return v, true
}

// Equal reports whether two felts hold the same value.
func (f Felt) Equal(g Felt) bool { return string(Normalize(f)) == string(Normalize(g)) }

// String is the node form, for logs.
func (f Felt) String() string { return f.Hex() }

// Value stores the felt as bytea; a nil felt is SQL NULL.
func (f Felt) Value() (driver.Value, error) {
	if f == nil {
		return nil, nil
	}
	return []byte(f), nil
}

// Scan reads bytea; NULL becomes a nil felt.
func (f *Felt) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*f = nil
	case []byte:
		*f = append(Felt{}, Normalize(v)...)
	default:
		return fmt.Errorf("felt: cannot scan %T", src)
	}
	return nil
}

func isHexDigit(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// FeltArray is a bytea[] column of felts (calldata, keys, data, signatures).
type FeltArray []Felt

// Value stores the array as bytea[].
func (a FeltArray) Value() (driver.Value, error) {
	if a == nil {
		return nil, nil
	}
	raw := make(pq.ByteaArray, len(a))
	for i, f := range a {
		raw[i] = []byte(f)
	}
	return raw.Value()
}

// Scan reads bytea[]; NULL becomes a nil array.
func (a *FeltArray) Scan(src any) error {
	if src == nil {
		*a = nil
		return nil
	}
	var raw pq.ByteaArray
	if err := raw.Scan(src); err != nil {
		return err
	}
	out := make(FeltArray, len(raw))
	for i, b := range raw {
		out[i] = append(Felt{}, Normalize(b)...)
	}
	*a = out
	return nil
}
