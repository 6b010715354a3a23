package scalars

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

func TestFeltAndAddressRoundTrip(t *testing.T) {
	for _, in := range []string{"0x4d0", "0x004D0", "0X4d0"} {
		f, err := UnmarshalAddress(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var addr, felt bytes.Buffer
		MarshalAddress(f).MarshalGQL(&addr)
		MarshalFelt(f).MarshalGQL(&felt)
		if addr.String() != `"0x`+strings.Repeat("0", 61)+`4d0"` {
			t.Errorf("%s as address: %s", in, addr.String())
		}
		if felt.String() != `"0x4d0"` {
			t.Errorf("%s as felt: %s", in, felt.String())
		}
	}
	var zero bytes.Buffer
	MarshalFelt(db.MustFelt("0x0")).MarshalGQL(&zero)
	if zero.String() != `"0x0"` {
		t.Errorf("zero: %s", zero.String())
	}
}

func TestFeltRejects(t *testing.T) {
	for _, in := range []any{"", "0x", "4d0", "0xg", "0x" + strings.Repeat("1", 65), 12, nil,
		"0x800000000000011000000000000000000000000000000000000000000000001"} {
		if _, err := UnmarshalFelt(in); err == nil {
			t.Errorf("%v was accepted", in)
		}
	}
}

func TestBigInt(t *testing.T) {
	for in, want := range map[any]string{"0": "0", "123": "123", "0x10": "16", int64(7): "7"} {
		got, err := UnmarshalBigInt(in)
		if err != nil || got != want {
			t.Errorf("%v: got %q, %v; want %q", in, got, err, want)
		}
	}
	max := "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	if _, err := UnmarshalBigInt(max); err != nil {
		t.Errorf("2^256-1 refused: %v", err)
	}
	for _, in := range []any{"-1", "1.5", "abc", max + "0", 1.5, ""} {
		if _, err := UnmarshalBigInt(in); err == nil {
			t.Errorf("%v was accepted", in)
		}
	}
}

// TestCoercionErrorsSpeakGraphQL: a value of the wrong kind for a custom scalar gets a
// message naming the GraphQL type and the JSON kind sent, never a Go type.
func TestCoercionErrorsSpeakGraphQL(t *testing.T) {
	goTypes := regexp.MustCompile(`map\[|\[\]|interface|json\.|int64|float64|\bbool\b|%!|\*`)
	values := []any{map[string]any{"x": 1}, []any{1}, true, json.Number("5"), int64(5), 1.5, nil, map[string]any{}}
	for name, unmarshal := range map[string]func(any) error{
		"Felt":    func(v any) error { _, err := UnmarshalFelt(v); return err },
		"Address": func(v any) error { _, err := UnmarshalAddress(v); return err },
		"BigInt":  func(v any) error { _, err := UnmarshalBigInt(v); return err },
	} {
		for _, v := range values {
			err := unmarshal(v)
			if err == nil {
				if name == "BigInt" { // numbers are integers it accepts
					continue
				}
				t.Errorf("%s accepts %#v", name, v)
				continue
			}
			if m := goTypes.FindString(err.Error()); m != "" {
				t.Errorf("%s of %#v: %q shows %q", name, v, err, m)
			}
			if !strings.Contains(err.Error(), " "+name+", ") {
				t.Errorf("%s of %#v: %q does not name the type", name, v, err)
			}
		}
	}
}
