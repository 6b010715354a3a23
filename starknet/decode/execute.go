// Package decode turns raw felts into meaning: an account's __execute__ calldata into the
// calls it makes, a call's calldata into named inputs using the callee's ABI, and events into
// ERC-20/721/1155 transfers.
package decode

import (
	"github.com/starkgraph/starkgraph/starknet"
)

// Felt is re-exported for readability.
type Felt = starknet.Felt

// Layout is how an account packs its calls into __execute__ calldata.
type Layout string

const (
	// LayoutCairo0: call_array_len, call_array[(to, selector, data_offset, data_len)],
	// calldata_len, calldata.
	LayoutCairo0 Layout = "cairo0"
	// LayoutCairo1: calls_len, [(to, selector, calldata_len, calldata...)].
	LayoutCairo1 Layout = "cairo1"
	// LayoutUnknown: neither layout fits the calldata exactly.
	LayoutUnknown Layout = ""
)

// Call is one call of a multicall.
type Call struct {
	To       Felt
	Selector Felt
	Calldata []Felt
	// Offset is where Calldata starts in the calldata it was read from: Calldata is
	// calldata[Offset : Offset+len(Calldata)] (the indexer stores that position instead of
	// the felts).
	Offset int
}

// Execute is the decoded __execute__ calldata.
type Execute struct {
	Calls  []Call
	Layout Layout
	// Partial is set when no layout consumed the calldata exactly; Calls then holds the calls
	// read (in the Cairo 1 layout) before the data stopped making sense.
	Partial bool
}

// DecodeExecute reads __execute__ calldata whose layout is not known. When the account's
// class is known, DecodeExecuteAs with its layout is safer. A Cairo 0 reading is accepted
// only if its data offsets are contiguous, which practically never happens by accident; a
// Cairo 1 reading must consume the calldata exactly.
func DecodeExecute(calldata []Felt) Execute {
	if calls, ok := cairo0(calldata); ok {
		return Execute{Calls: calls, Layout: LayoutCairo0}
	}
	calls, ok := cairo1(calldata)
	if ok {
		return Execute{Calls: calls, Layout: LayoutCairo1}
	}
	return Execute{Calls: calls, Partial: true}
}

// LayoutFor is the __execute__ layout of an account class with the given Cairo version
// (class.Class.CairoVersion): 0 for Cairo 0 accounts, 1 for Sierra accounts.
func LayoutFor(cairoVersion int) Layout {
	if cairoVersion == 0 {
		return LayoutCairo0
	}
	return LayoutCairo1
}

// DecodeExecuteAs reads __execute__ calldata in the given layout.
func DecodeExecuteAs(calldata []Felt, layout Layout) Execute {
	var (
		calls []Call
		ok    bool
	)
	switch layout {
	case LayoutCairo0:
		calls, ok = cairo0(calldata)
	case LayoutCairo1:
		calls, ok = cairo1(calldata)
	default:
		return DecodeExecute(calldata)
	}
	if !ok {
		return Execute{Calls: calls, Layout: layout, Partial: true}
	}
	return Execute{Calls: calls, Layout: layout}
}

// smallInt reads a felt that must be a count no larger than limit.
func smallInt(f Felt, limit int) (int, bool) {
	v, ok := f.Uint64()
	if !ok || v > uint64(limit) {
		return 0, false
	}
	return int(v), true
}

func cairo1(cd []Felt) ([]Call, bool) {
	if len(cd) == 0 {
		return nil, false
	}
	n, ok := smallInt(cd[0], len(cd))
	if !ok {
		return nil, false
	}
	calls := make([]Call, 0, n)
	pos := 1
	for i := 0; i < n; i++ {
		if pos+3 > len(cd) {
			return calls, false
		}
		l, ok := smallInt(cd[pos+2], len(cd)-pos-3)
		if !ok {
			return calls, false
		}
		calls = append(calls, Call{To: cd[pos], Selector: cd[pos+1], Calldata: cd[pos+3 : pos+3+l], Offset: pos + 3})
		pos += 3 + l
	}
	return calls, pos == len(cd)
}

func cairo0(cd []Felt) ([]Call, bool) {
	if len(cd) < 2 {
		return nil, false
	}
	n, ok := smallInt(cd[0], (len(cd)-2)/4)
	if !ok {
		return nil, false
	}
	dataStart := 1 + 4*n + 1
	m, ok := smallInt(cd[dataStart-1], len(cd)-dataStart)
	if !ok || dataStart+m != len(cd) {
		return nil, false
	}
	data := cd[dataStart:]
	calls := make([]Call, n)
	next := 0
	for i := 0; i < n; i++ {
		e := cd[1+4*i : 5+4*i]
		off, ok1 := smallInt(e[2], m)
		l, ok2 := smallInt(e[3], m)
		if !ok1 || !ok2 || off != next || off+l > m {
			return nil, false
		}
		next = off + l
		calls[i] = Call{To: e[0], Selector: e[1], Calldata: data[off : off+l], Offset: dataStart + off}
	}
	return calls, next == m
}
