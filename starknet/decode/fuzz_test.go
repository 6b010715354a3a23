package decode_test

import (
	"testing"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
	"github.com/starkgraph/starkgraph/starknet/decode"
)

// feltsFrom turns fuzz bytes into felts: one felt per byte when small is set (so that
// lengths and counts line up often), else 31-byte chunks.
func feltsFrom(b []byte, small bool) []starknet.Felt {
	var out []starknet.Felt
	if small {
		for _, c := range b {
			out = append(out, starknet.FeltFromUint64(uint64(c)))
		}
		return out
	}
	for len(b) > 0 {
		n := min(31, len(b))
		f, _ := starknet.FeltFromBytes(b[:n])
		out = append(out, f)
		b = b[n:]
	}
	return out
}

// FuzzDecoders feeds arbitrary felts to every decoder: none may panic or loop, and a
// non-partial result must account for every felt.
func FuzzDecoders(f *testing.F) {
	f.Add([]byte{1, 5, 6, 2, 7, 8}, true, uint8(1))
	f.Add([]byte{1, 5, 6, 0, 2, 2, 7, 8}, true, uint8(3))
	f.Add([]byte{200, 255, 0, 0, 0, 2, 1, 0, 2, 1, 7, 1, 0, 9, 1, 0, 1}, true, uint8(0))
	f.Add([]byte("some longer bytes that make big felts, more than thirty-one of them"), false, uint8(2))
	abi, err := class.ParseABI([]byte(richABI))
	if err != nil {
		f.Fatal(err)
	}
	fns := []string{"rich", "legacy", "weird"}
	f.Fuzz(func(t *testing.T, b []byte, small bool, k uint8) {
		fs := feltsFrom(b, small)
		ex := decode.DecodeExecute(fs)
		for _, c := range ex.Calls { // partial readings too: the indexer stores these positions
			if c.Offset < 0 || c.Offset+len(c.Calldata) > len(fs) || (len(c.Calldata) > 0 && &fs[c.Offset] != &c.Calldata[0]) {
				t.Fatalf("call at offset %d (%d felts) is not that slice of the %d felts read", c.Offset, len(c.Calldata), len(fs))
			}
		}
		if !ex.Partial {
			n := 0
			for _, c := range ex.Calls {
				n += len(c.Calldata)
			}
			if ex.Layout == decode.LayoutCairo1 && n+1+3*len(ex.Calls) != len(fs) {
				t.Fatalf("cairo1 reading does not cover the calldata: %+v", ex)
			}
		}
		split := min(int(k%6), len(fs))
		keys := append([]starknet.Felt{decode.TransferSelector}, fs[:split]...)
		decode.ClassifyTransfer(keys, fs[split:])
		keys[0] = decode.TransferBatchSelector
		decode.ClassifyTransfer(keys, fs[split:])
		d := decode.DecodeCall(abi, starknet.Selector(fns[int(k)%len(fns)]), fs)
		if d.Partial == (d.Err == nil) {
			t.Fatalf("Partial %v but Err %v", d.Partial, d.Err)
		}
	})
}
