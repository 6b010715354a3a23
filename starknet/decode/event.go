package decode

import (
	"errors"
	"fmt"

	"github.com/starkgraph/starkgraph/starknet/class"
)

// DecodedEvent is an event decoded against the emitting contract's ABI.
type DecodedEvent struct {
	Name   string  // the event's declared name, "" when keys[0] is not in the ABI
	Fields []Value // members in declaration order, as far as decoding got
	// Partial is set when the ABI did not explain the keys and data completely; Err says why.
	Partial bool
	Err     error
}

// DecodeEvent decodes an event whose keys[0] selects a struct event of abi: members of
// kind "key" are read from keys[1:], members of kind "data" from data. Components' events
// emitted "flat" are found by their own name, as they are emitted with it.
func DecodeEvent(abi *class.ABI, keys, data []Felt) DecodedEvent {
	if len(keys) == 0 {
		return DecodedEvent{Partial: true, Err: errors.New("event has no keys")}
	}
	ev, ok := abi.EventBySelector(keys[0])
	if !ok {
		return DecodedEvent{Partial: true, Err: fmt.Errorf("event selector %s not in the ABI", keys[0])}
	}
	out := DecodedEvent{Name: ev.Name, Fields: make([]Value, 0, len(ev.Members))}
	fromKeys := &decoder{abi: abi, cd: keys[1:]}
	fromData := &decoder{abi: abi, cd: data}
	fail := func(err error) DecodedEvent {
		out.Partial, out.Err = true, err
		return out
	}
	for _, m := range ev.Members {
		var d *decoder
		switch m.Kind {
		case "key":
			d = fromKeys
		case "data":
			d = fromData
		default:
			return fail(fmt.Errorf("member %s: kind %q not supported", m.Name, m.Kind))
		}
		v, err := d.value(m.Type, 0)
		if err != nil {
			return fail(fmt.Errorf("member %s: %w", m.Name, err))
		}
		out.Fields = append(out.Fields, Value{Name: m.Name, Type: m.Type, Value: v})
	}
	if fromKeys.pos != len(fromKeys.cd) || fromData.pos != len(fromData.cd) {
		return fail(fmt.Errorf("%d keys and %d data felts left over", len(fromKeys.cd)-fromKeys.pos, len(fromData.cd)-fromData.pos))
	}
	return out
}
