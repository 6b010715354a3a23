package starknet

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
)

// Felt is a Starknet field element: an integer below the STARK prime
// P = 2^251 + 17*2^192 + 1, held as 32 bytes big-endian. The zero value is the felt 0x0.
// Felt is comparable, so it can be used as a map key.
type Felt [32]byte

// primeBytes is P in big-endian bytes; every valid felt is strictly below it.
var primeBytes = Felt{0x08, 0, 0, 0, 0, 0, 0, 0x11, 31: 0x01}

// Prime returns the STARK field prime P as a big.Int (a fresh copy).
func Prime() *big.Int { return new(big.Int).SetBytes(primeBytes[:]) }

// ErrInvalidFelt is wrapped by every felt parsing error, for errors.Is.
var ErrInvalidFelt = errors.New("invalid felt")

// ParseFelt parses user or node input: "0x" (or "0X") followed by 1 to 64 hex digits in any
// case. Leading zeros are allowed; the value must be below the field prime. Anything else is
// rejected with an error that quotes (a prefix of) the input.
func ParseFelt(s string) (Felt, error) { return parseHex(s) }

// MustFelt is ParseFelt for constants in code and tests; it panics on bad input.
func MustFelt(s string) Felt {
	f, err := ParseFelt(s)
	if err != nil {
		panic(err)
	}
	return f
}

// parseHex is shared by ParseFelt and the JSON decoder, which hands over raw bytes without
// allocating a string.
func parseHex[T ~string | ~[]byte](s T) (Felt, error) {
	var f Felt
	if len(s) < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return f, feltError(string(s), "must be 0x followed by 1 to 64 hex digits")
	}
	digits := s[2:]
	if len(digits) > 64 {
		return f, feltError(string(s), "has more than 64 hex digits")
	}
	// Fill from the right: digit i from the end is nibble i of the number.
	for i := 0; i < len(digits); i++ {
		c := digits[len(digits)-1-i]
		v := unhex[c]
		if v == 0xff {
			return f, feltError(string(s), fmt.Sprintf("has a non-hex character %q", rune(c)))
		}
		b := &f[31-i/2]
		if i%2 == 0 {
			*b = v
		} else {
			*b |= v << 4
		}
	}
	if !f.valid() {
		return Felt{}, feltError(string(s), "is not a field element (it is not below the field prime)")
	}
	return f, nil
}

// FeltSyntaxError is why ParseFelt refused its input. Reason is a predicate that reads
// after the input ("has more than 64 hex digits"), so API errors can quote the input
// their own way; Error gives both.
type FeltSyntaxError struct {
	Input  string // the input, cut to 80 bytes
	Reason string
}

func (e *FeltSyntaxError) Error() string {
	return fmt.Sprintf("%v %q: %s", ErrInvalidFelt, e.Input, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidFelt) hold.
func (e *FeltSyntaxError) Unwrap() error { return ErrInvalidFelt }

func feltError(input, why string) error {
	if len(input) > 80 {
		input = input[:80] + "..."
	}
	return &FeltSyntaxError{Input: input, Reason: why}
}

var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

const hexDigits = "0123456789abcdef"

func (f Felt) valid() bool { return bytes.Compare(f[:], primeBytes[:]) < 0 }

// IsZero reports whether f is 0x0.
func (f Felt) IsZero() bool { return f == Felt{} }

// Hex is the canonical form nodes print: "0x", lowercase, no leading zeros, "0x0" for zero.
// Use it for transaction and block hashes, calldata and other plain felts.
func (f Felt) Hex() string {
	var buf [66]byte // on the stack: the string is the one allocation
	return string(f.appendHex(buf[:0]))
}

// String is Hex, so felts print canonically with %s and %v.
func (f Felt) String() string { return f.Hex() }

func (f Felt) appendHex(dst []byte) []byte {
	dst = append(dst, '0', 'x')
	i := 0
	for i < 32 && f[i] == 0 {
		i++
	}
	if i == 32 {
		return append(dst, '0')
	}
	if f[i] < 0x10 {
		dst = append(dst, hexDigits[f[i]])
		i++
	}
	for ; i < 32; i++ {
		dst = append(dst, hexDigits[f[i]>>4], hexDigits[f[i]&0xf])
	}
	return dst
}

// Padded is the address form: "0x" followed by exactly 64 lowercase hex digits.
// Use it for contract addresses and class hashes.
func (f Felt) Padded() string {
	b := make([]byte, 66)
	b[0], b[1] = '0', 'x'
	for i, v := range f {
		b[2+2*i], b[3+2*i] = hexDigits[v>>4], hexDigits[v&0xf]
	}
	return string(b)
}

// Bytes is the compact form stored in PostgreSQL bytea columns, the same as db.Felt's:
// big-endian with leading zero bytes stripped, and the empty string for zero (what
// big.Int.Bytes gives). It is unique per value, so equality
// lookups on bytea work. Byte order of bytea is not numeric order across lengths; order by
// (length(col), col) for numeric order. FeltFromBytes reads this form back (and any
// zero-padded form up to 32 bytes).
func (f Felt) Bytes() []byte { return append([]byte{}, f.Significant()...) }

// Significant is the compact form as a view into f, without Bytes' copy: for writers that
// gather many felts into one buffer. The leading zeros are skipped a word at a time.
func (f *Felt) Significant() []byte {
	for w := 0; w < 32; w += 8 {
		if v := binary.BigEndian.Uint64(f[w:]); v != 0 {
			return f[w+bits.LeadingZeros64(v)/8:]
		}
	}
	return f[32:]
}

// FeltFromBytes reads a big-endian value of at most 32 bytes (empty means zero), such as the
// output of Bytes. It fails when the value is not below the field prime.
func FeltFromBytes(b []byte) (Felt, error) {
	var f Felt
	if len(b) > 32 {
		return f, fmt.Errorf("%w: %d bytes, at most 32 allowed", ErrInvalidFelt, len(b))
	}
	copy(f[32-len(b):], b)
	if !f.valid() {
		return Felt{}, fmt.Errorf("%w: 0x%x is not below the field prime", ErrInvalidFelt, b)
	}
	return f, nil
}

// FeltFromUint64 returns v as a felt.
func FeltFromUint64(v uint64) Felt {
	var f Felt
	for i := 0; i < 8; i++ {
		f[31-i] = byte(v >> (8 * i))
	}
	return f
}

// FeltFromBig converts a non-negative integer below the field prime.
func FeltFromBig(v *big.Int) (Felt, error) {
	if v.Sign() < 0 || v.BitLen() > 252 {
		return Felt{}, fmt.Errorf("%w: %s is out of range", ErrInvalidFelt, v)
	}
	var f Felt
	v.FillBytes(f[:])
	if !f.valid() {
		return Felt{}, fmt.Errorf("%w: %s is not below the field prime", ErrInvalidFelt, v)
	}
	return f, nil
}

// Decimal is f as a decimal string (for gas prices, fees and other amounts).
func (f Felt) Decimal() string { return f.Big().String() }

// Big returns f as a new big.Int.
func (f Felt) Big() *big.Int { return new(big.Int).SetBytes(f[:]) }

// Uint64 returns f as a uint64 and whether it fits.
func (f Felt) Uint64() (uint64, bool) {
	for _, b := range f[:24] {
		if b != 0 {
			return 0, false
		}
	}
	var v uint64
	for _, b := range f[24:] {
		v = v<<8 | uint64(b)
	}
	return v, true
}

// BitLen is the number of bits needed to represent f (0 for zero).
func (f Felt) BitLen() int {
	for i, b := range f {
		if b != 0 {
			n := 0
			for ; b != 0; b >>= 1 {
				n++
			}
			return (31-i)*8 + n
		}
	}
	return 0
}

// Cmp compares two felts as numbers: -1, 0 or +1.
func (f Felt) Cmp(g Felt) int { return bytes.Compare(f[:], g[:]) }

// MarshalJSON writes the canonical hex string, as nodes do.
func (f Felt) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 68)
	b = append(b, '"')
	b = f.appendHex(b)
	return append(b, '"'), nil
}

// MarshalText writes the canonical hex form (used for map keys in JSON).
func (f Felt) MarshalText() ([]byte, error) { return f.appendHex(nil), nil }

// UnmarshalJSON reads a JSON string holding 0x-prefixed hex (1 to 64 digits).
func (f *Felt) UnmarshalJSON(data []byte) error {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return feltError(string(data), "want a JSON string")
	}
	v, err := parseHex(data[1 : len(data)-1])
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// UnmarshalText reads 0x-prefixed hex (used for map keys in JSON).
func (f *Felt) UnmarshalText(data []byte) error {
	v, err := parseHex(data)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Value stores the felt as bytea in the compact form of Bytes.
func (f Felt) Value() (driver.Value, error) { return f.Bytes(), nil }

// Scan reads a bytea (compact or padded) or a hex string. NULL is an error; scan into *Felt
// (a **Felt destination) for nullable columns.
func (f *Felt) Scan(src any) error {
	var (
		v   Felt
		err error
	)
	switch s := src.(type) {
	case []byte:
		v, err = FeltFromBytes(s)
	case string:
		v, err = ParseFelt(s)
	case nil:
		return fmt.Errorf("%w: NULL cannot be scanned into Felt (use *Felt)", ErrInvalidFelt)
	default:
		return fmt.Errorf("%w: cannot scan %T into Felt", ErrInvalidFelt, src)
	}
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// FeltsToHex renders a list of felts in canonical form.
func FeltsToHex(fs []Felt) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Hex()
	}
	return out
}

// FeltsToBytes renders a list of felts in the compact bytea form, each on its own (e.g. a
// bytea[] parameter with pq.ByteaArray).
func FeltsToBytes(fs []Felt) [][]byte {
	out := make([][]byte, len(fs))
	for i, f := range fs {
		out[i] = f.Bytes()
	}
	return out
}

// FeltsFromBytes is the inverse of FeltsToBytes.
func FeltsFromBytes(bs [][]byte) ([]Felt, error) {
	out := make([]Felt, len(bs))
	for i, b := range bs {
		f, err := FeltFromBytes(b)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = f
	}
	return out, nil
}
