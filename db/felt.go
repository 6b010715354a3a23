package db

import (
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"

	"github.com/starkgraph/starkgraph/starknet"
)

// Felt is a felt in its column form: big-endian bytes with leading zero bytes stripped
// (zero is the empty byte string), exactly what starknet.Felt.Bytes gives, and nil for SQL
// NULL. This form is canonical, so bytea equality is felt equality, and small values (most
// calldata words) take one or two bytes instead of 32. Parsing and rendering are
// starknet.Felt's: this type only adds the storage form and NULL.
type Felt []byte

// ParseFelt reads `0x` followed by 1 to 64 hex digits in any case, the form every API input
// takes, with starknet.ParseFelt. Its error is the reason alone ("has more than 64 hex
// digits"), for messages that quote the input themselves.
func ParseFelt(s string) (Felt, error) {
	f, err := starknet.ParseFelt(s)
	if err != nil {
		var syntax *starknet.FeltSyntaxError
		if errors.As(err, &syntax) {
			return nil, errors.New(syntax.Reason)
		}
		return nil, err
	}
	return FeltOf(f), nil
}

// MustFelt parses a constant; it panics on a malformed literal, so use it only for
// values written in the source.
func MustFelt(s string) Felt { return FeltOf(starknet.MustFelt(s)) }

// FeltOf is the column form of a felt.
func FeltOf(f starknet.Felt) Felt { return Felt(f.Bytes()) }

// FeltPtrOf is the column form of an optional felt: nil (NULL) for none.
func FeltPtrOf(f *starknet.Felt) Felt {
	if f == nil {
		return nil
	}
	return FeltOf(*f)
}

// FeltsOf is the column form of a felt list; nil stays nil (NULL). The felts share one
// buffer: the indexer converts millions of them per batch (calldata, event keys and data),
// and with an allocation each, BenchmarkFeltsOf took twice as long (930 against 470 ns).
func FeltsOf(fs []starknet.Felt) FeltArray {
	if fs == nil {
		return nil
	}
	size := 0
	for i := range fs {
		size += len(fs[i].Significant())
	}
	buf := make([]byte, 0, size)
	out := make(FeltArray, len(fs))
	for i := range fs {
		start := len(buf)
		buf = append(buf, fs[i].Significant()...)
		out[i] = Felt(buf[start:len(buf):len(buf)]) // capped: appending to one never writes into the next
	}
	return out
}

// Starknet is the felt as a value (zero for nil). Column values are felts the store
// wrote, so they fit in 32 bytes; longer input is read as zero rather than trusted.
func (f Felt) Starknet() starknet.Felt {
	var out starknet.Felt
	if len(f) <= 32 {
		copy(out[32-len(f):], f)
	}
	return out
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
func (f Felt) Hex() string { return f.Starknet().Hex() }

// Padded renders the address form: 0x and 64 lowercase hex digits.
func (f Felt) Padded() string { return f.Starknet().Padded() }

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

// FeltArray is a list of felts (calldata, signatures, event keys and data, message
// payloads) in its column form: one bytea holding, for each felt in order, one length byte
// (0 to 32) and then that many bytes of its column form (Felt), and nil for SQL NULL. The
// empty list is the empty bytea, so NULL and empty stay apart. Packed, a list costs one
// byte per felt besides its bytes; as a bytea[] it cost a 24-byte array header and 4 to 7
// bytes per element (migration 00040). SQL reads the form with the functions of that
// migration: felts_at(packed, i) for the i-th felt (from 1), felts_count, felts_unpack.
type FeltArray []Felt

// maxPackedFelt is the longest felt a packed list holds: 32 bytes, the length byte's top.
const maxPackedFelt = 32

// packedFelt is the i-th felt of a list as the packed form holds it: its column form
// (leading zero bytes stripped), at most 32 bytes.
func packedFelt(i int, f Felt) (Felt, error) {
	f = Normalize(f)
	if len(f) > maxPackedFelt {
		return nil, fmt.Errorf("felt list: felt %d has %d bytes, more than %d", i, len(f), maxPackedFelt)
	}
	return f, nil
}

// appendPacked appends the packed form of a.
func (a FeltArray) appendPacked(buf []byte) ([]byte, error) {
	for i, f := range a {
		f, err := packedFelt(i, f)
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, byte(len(f))), f...)
	}
	return buf, nil
}

// appendPackedHex appends the packed form of a in hex digits (for bytea's hex text form,
// which COPY takes: copy.go).
func (a FeltArray) appendPackedHex(buf []byte) ([]byte, error) {
	const digits = "0123456789abcdef"
	for i, f := range a {
		f, err := packedFelt(i, f)
		if err != nil {
			return nil, err
		}
		buf = hex.AppendEncode(append(buf, digits[len(f)>>4], digits[len(f)&15]), f)
	}
	return buf, nil
}

// packedSize is the length of a's packed form (an upper bound when felts have leading zeros).
func (a FeltArray) packedSize() int {
	n := len(a)
	for _, f := range a {
		n += len(f)
	}
	return n
}

// Packed is the packed column form of a (nil for a nil list).
func (a FeltArray) Packed() ([]byte, error) {
	if a == nil {
		return nil, nil
	}
	return a.appendPacked(make([]byte, 0, a.packedSize()))
}

// UnpackFelts reads a packed list. Column values are lists the store wrote, but the bytes
// are checked all the same: a length byte above 32 or a felt cut short by the end is an
// error, never a panic or a read past the end. The felts share one new buffer (src is not
// kept); a felt with leading zero bytes is read in its column form. nil is NULL.
func UnpackFelts(src []byte) (FeltArray, error) {
	if src == nil {
		return nil, nil
	}
	n := 0
	for i := 0; i < len(src); n++ {
		l := int(src[i])
		if l > maxPackedFelt {
			return nil, fmt.Errorf("felt list: felt %d at byte %d has length %d, more than %d", n, i, l, maxPackedFelt)
		}
		if i+1+l > len(src) {
			return nil, fmt.Errorf("felt list: felt %d at byte %d has length %d, past the end (%d bytes)", n, i, l, len(src))
		}
		i += 1 + l
	}
	buf := make([]byte, 0, len(src)-n)
	out := make(FeltArray, n)
	for i, k := 0, 0; i < len(src); k++ {
		l := int(src[i])
		f := Normalize(src[i+1 : i+1+l])
		i += 1 + l
		start := len(buf)
		buf = append(buf, f...)
		out[k] = Felt(buf[start:len(buf):len(buf)]) // capped: appending to one never writes into the next
	}
	return out, nil
}

// Value stores the list in its packed form; a nil list is SQL NULL, an empty one the
// empty bytea.
func (a FeltArray) Value() (driver.Value, error) {
	if a == nil {
		return nil, nil
	}
	return a.Packed()
}

// Scan reads the packed form; NULL becomes a nil list, the empty bytea an empty one.
func (a *FeltArray) Scan(src any) error {
	var raw []byte
	switch v := src.(type) {
	case nil:
		*a = nil
		return nil
	case []byte:
		raw = v
		if raw == nil {
			raw = []byte{}
		}
	case string:
		raw = []byte(v)
	default:
		return fmt.Errorf("felt list: cannot scan %T", src)
	}
	out, err := UnpackFelts(raw)
	if err != nil {
		return err
	}
	*a = out
	return nil
}
