package decode

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
)

// Value is one decoded input. Value holds, by type:
//   - felt252, felt, bytes31 and other plain felts: canonical hex string ("0x1f")
//   - ContractAddress, ClassHash, EthAddress: address form (0x + 64 hex digits)
//   - u8..u128, usize, i8..i128: decimal string
//   - u256 / Uint256: U256{Low, High, Decimal}
//   - bool: bool
//   - ByteArray: string
//   - Array, Span, Cairo 0 T*, tuples: []any
//   - structs: []Value (members in order)
//   - enums: Variant{Name, Value}
type Value struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// U256 is a decoded u256: its halves as felts and the whole as a decimal string.
type U256 struct {
	Low     string `json:"low"`
	High    string `json:"high"`
	Decimal string `json:"decimal"`
}

// Variant is a decoded enum value.
type Variant struct {
	Name  string `json:"variant"`
	Value any    `json:"value,omitempty"`
}

// Decoded is a call decoded against the callee's ABI.
type Decoded struct {
	Function string  // function name, "" when the selector is not in the ABI
	Inputs   []Value // as far as decoding got
	// Partial is set when the ABI did not explain the calldata completely: unknown selector,
	// unknown or unsupported type, too few or too many felts. Err says why.
	Partial bool
	Err     error
}

// DecodeCall finds the function with selector in abi and decodes calldata as its inputs.
func DecodeCall(abi *class.ABI, selector Felt, calldata []Felt) Decoded {
	fn, ok := abi.FunctionBySelector(selector)
	if !ok {
		return Decoded{Partial: true, Err: fmt.Errorf("selector %s not in the ABI", selector)}
	}
	inputs, err := DecodeInputs(abi, fn.Inputs, calldata)
	return Decoded{Function: fn.Name, Inputs: inputs, Partial: err != nil, Err: err}
}

// DecodeInputs decodes calldata as the given parameters. On error it returns the inputs
// decoded before the problem, so the caller can show a partial decoding.
func DecodeInputs(abi *class.ABI, params []class.Param, calldata []Felt) ([]Value, error) {
	d := &decoder{abi: abi, cd: calldata}
	out := make([]Value, 0, len(params))
	var prev *Felt // Cairo 0: the felt before a T* array is its length
	for _, p := range params {
		var (
			v   any
			err error
		)
		if elem, ok := strings.CutSuffix(p.Type, "*"); ok && !strings.HasPrefix(p.Type, "(") {
			if prev == nil {
				return out, fmt.Errorf("input %s: pointer type %s without a preceding length", p.Name, p.Type)
			}
			v, err = d.array(*prev, elem, 0)
		} else {
			start := d.pos
			v, err = d.value(p.Type, 0)
			prev = nil
			if err == nil && d.pos == start+1 {
				prev = &d.cd[start]
			}
		}
		if err != nil {
			return out, fmt.Errorf("input %s: %w", p.Name, err)
		}
		out = append(out, Value{Name: p.Name, Type: p.Type, Value: v})
	}
	if d.pos != len(d.cd) {
		return out, fmt.Errorf("%d felts left over after the inputs", len(d.cd)-d.pos)
	}
	return out, nil
}

// maxDepth bounds nesting; a hostile ABI could define a struct that contains itself.
const maxDepth = 32

var errShort = errors.New("calldata too short")

type decoder struct {
	abi *class.ABI
	cd  []Felt
	pos int
}

func (d *decoder) next() (Felt, error) {
	if d.pos >= len(d.cd) {
		return Felt{}, errShort
	}
	d.pos++
	return d.cd[d.pos-1], nil
}

var (
	halfP   = new(big.Int).Rsh(starknet.Prime(), 1)
	primeBI = starknet.Prime()
)

func (d *decoder) value(typ string, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("types nested too deeply")
	}
	typ = strings.TrimSpace(strings.TrimPrefix(typ, "@"))
	switch typ {
	case "()":
		return nil, nil
	case "core::felt252", "felt", "core::bytes_31::bytes31", "core::starknet::storage_access::StorageAddress":
		f, err := d.next()
		return f.Hex(), err
	case "core::starknet::contract_address::ContractAddress", "core::starknet::class_hash::ClassHash",
		"core::starknet::eth_address::EthAddress":
		f, err := d.next()
		return f.Padded(), err
	case "core::bool":
		f, err := d.next()
		if err != nil {
			return nil, err
		}
		v, ok := f.Uint64()
		if !ok || v > 1 {
			return nil, fmt.Errorf("bool %s is neither 0 nor 1", f)
		}
		return v == 1, nil
	case "core::integer::u256", "Uint256":
		low, err := d.next()
		if err != nil {
			return nil, err
		}
		high, err := d.next()
		if err != nil {
			return nil, err
		}
		dec, err := starknet.U256Decimal(low, high)
		if err != nil {
			return nil, err
		}
		return U256{Low: low.Hex(), High: high.Hex(), Decimal: dec}, nil
	case "core::byte_array::ByteArray":
		s, n, err := starknet.DecodeByteArray(d.cd[d.pos:])
		if err != nil {
			return nil, err
		}
		d.pos += n
		return s, nil
	}
	if bits, signed, ok := intType(typ); ok {
		f, err := d.next()
		if err != nil {
			return nil, err
		}
		v := f.Big()
		if signed && v.Cmp(halfP) > 0 {
			v.Sub(v, primeBI)
		}
		if !inRange(v, bits, signed) {
			return nil, fmt.Errorf("%s out of range for %s", f, typ)
		}
		return v.String(), nil
	}
	if elem, ok := generic(typ, "core::array::Array::<"); ok {
		return d.lengthPrefixed(elem, depth)
	}
	if elem, ok := generic(typ, "core::array::Span::<"); ok {
		return d.lengthPrefixed(elem, depth)
	}
	if strings.HasPrefix(typ, "(") && strings.HasSuffix(typ, ")") {
		var out []any
		for _, part := range splitTuple(typ[1 : len(typ)-1]) {
			// Cairo 0 named tuples: "(x: felt, y: felt)".
			if i := strings.Index(part, ":"); i >= 0 && !strings.HasPrefix(part[i:], "::") {
				part = part[i+1:]
			}
			v, err := d.value(part, depth+1)
			if err != nil {
				return out, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	if s, ok := d.abi.Structs[typ]; ok {
		out := make([]Value, 0, len(s.Members))
		var prev *Felt
		for _, m := range s.Members {
			var (
				v   any
				err error
			)
			if elem, ok := strings.CutSuffix(m.Type, "*"); ok && prev != nil {
				v, err = d.array(*prev, elem, depth+1)
			} else {
				start := d.pos
				v, err = d.value(m.Type, depth+1)
				prev = nil
				if err == nil && d.pos == start+1 {
					prev = &d.cd[start]
				}
			}
			if err != nil {
				return out, fmt.Errorf("%s.%s: %w", typ, m.Name, err)
			}
			out = append(out, Value{Name: m.Name, Type: m.Type, Value: v})
		}
		return out, nil
	}
	if e, ok := d.abi.Enums[typ]; ok {
		f, err := d.next()
		if err != nil {
			return nil, err
		}
		i, ok := f.Uint64()
		if !ok || i >= uint64(len(e.Variants)) {
			return nil, fmt.Errorf("enum %s has no variant %s", typ, f)
		}
		variant := e.Variants[i]
		v, err := d.value(variant.Type, depth+1)
		if err != nil {
			return nil, err
		}
		return Variant{Name: variant.Name, Value: v}, nil
	}
	return nil, fmt.Errorf("unsupported type %s", typ)
}

// inRange checks v against [0, 2^bits) or, signed, [-2^(bits-1), 2^(bits-1)).
func inRange(v *big.Int, bits int, signed bool) bool {
	if !signed {
		return v.BitLen() <= bits
	}
	limit := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	if v.Sign() < 0 {
		return new(big.Int).Neg(v).Cmp(limit) <= 0
	}
	return v.Cmp(limit) < 0
}

func (d *decoder) lengthPrefixed(elem string, depth int) (any, error) {
	n, err := d.next()
	if err != nil {
		return nil, err
	}
	return d.array(n, elem, depth)
}

// array reads n elements. n may not exceed the felts left, which also bounds the loop for
// element types that take no felts.
func (d *decoder) array(n Felt, elem string, depth int) ([]any, error) {
	count, ok := smallInt(n, len(d.cd)-d.pos)
	if !ok {
		return nil, fmt.Errorf("array length %s exceeds the %d felts left", n, len(d.cd)-d.pos)
	}
	out := make([]any, 0, count)
	for i := 0; i < count; i++ {
		v, err := d.value(elem, depth+1)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

func generic(typ, prefix string) (string, bool) {
	if strings.HasPrefix(typ, prefix) && strings.HasSuffix(typ, ">") {
		return typ[len(prefix) : len(typ)-1], true
	}
	return "", false
}

// intType recognises core::integer::{u,i}{8,16,32,64,128} and usize.
func intType(typ string) (bits int, signed bool, ok bool) {
	name, found := strings.CutPrefix(typ, "core::integer::")
	if !found {
		return 0, false, false
	}
	switch name {
	case "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128":
	default:
		return 0, false, false
	}
	if name == "usize" {
		return 32, false, true
	}
	fmt.Sscanf(name[1:], "%d", &bits)
	return bits, name[0] == 'i', true
}

// splitTuple splits "a, b<c, d>, (e, f)" at top-level commas.
func splitTuple(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(s[start:]); last != "" {
		parts = append(parts, last)
	}
	return parts
}
