package starknet

import (
	"bytes"
	"database/sql/driver"
	"fmt"
)

// Hash256 is a full 256-bit value that need not be a felt, such as the keccak256 hash of an
// L1 -> L2 message (receipt message_hash). It parses and prints like a felt but has no
// field-prime bound.
type Hash256 [32]byte

// ParseHash256 accepts "0x" followed by 1 to 64 hex digits in any case.
func ParseHash256(s string) (Hash256, error) { return parseHash256(s) }

func parseHash256[T ~string | ~[]byte](s T) (Hash256, error) {
	var h Hash256
	if len(s) < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len(s) > 66 {
		return h, fmt.Errorf("invalid 256-bit hash %q: want 0x followed by 1 to 64 hex digits", truncate(string(s)))
	}
	digits := s[2:]
	for i := 0; i < len(digits); i++ {
		v := unhex[digits[len(digits)-1-i]]
		if v == 0xff {
			return Hash256{}, fmt.Errorf("invalid 256-bit hash %q: not hex", truncate(string(s)))
		}
		if i%2 == 0 {
			h[31-i/2] = v
		} else {
			h[31-i/2] |= v << 4
		}
	}
	return h, nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// Hex is lowercase without leading zeros ("0x0" for zero).
func (h Hash256) Hex() string { return string(Felt(h).appendHex(nil)) }

func (h Hash256) String() string { return h.Hex() }

// Bytes is the compact bytea form, as Felt.Bytes.
func (h Hash256) Bytes() []byte {
	i := 0
	for i < 31 && h[i] == 0 {
		i++
	}
	return bytes.Clone(h[i:])
}

func (h Hash256) MarshalJSON() ([]byte, error) {
	return append(append([]byte{'"'}, Felt(h).appendHex(nil)...), '"'), nil
}

func (h *Hash256) UnmarshalJSON(data []byte) error {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("invalid 256-bit hash %s: want a JSON string", truncate(string(data)))
	}
	v, err := parseHash256(data[1 : len(data)-1])
	if err != nil {
		return err
	}
	*h = v
	return nil
}

func (h Hash256) Value() (driver.Value, error) { return h.Bytes(), nil }

func (h *Hash256) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok || len(b) > 32 {
		return fmt.Errorf("cannot scan %T into Hash256", src)
	}
	*h = Hash256{}
	copy(h[32-len(b):], b)
	return nil
}
