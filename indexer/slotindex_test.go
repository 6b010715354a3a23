package indexer

import (
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/slots"
	"testing"
)

// TestOwnerOfHighHalf: a written key is read back to its owner as the low or the high half
// of a balance (the high half one slot on, with a borrow across bytes going back).
func TestOwnerOfHighHalf(t *testing.T) {
	s := newSlotIndex()
	for _, a := range []starknet.Felt{starknet.MustFelt("0x123"), starknet.MustFelt("0x4f4e29add19afa12c868ba1f4439099f225403ff9a71fe667eebb50e13518d3")} {
		s.learn([]starknet.Felt{a})
		low, high := slots.ERC20Balance(a)
		if o, h, ok := s.ownerOf(low); !ok || h || o != a {
			t.Fatal("low")
		}
		if o, h, ok := s.ownerOf(high); !ok || !h || o != a {
			t.Fatal("high")
		}
	}
	if _, _, ok := s.ownerOf(starknet.Felt{31: 0}); ok {
		t.Fatal("zero")
	}
	// a borrow across bytes
	var k starknet.Felt
	k[30] = 1
	s.owner[starknet.Felt{31: 0xff}] = starknet.MustFelt("0x9")
	if o, h, ok := s.ownerOf(k); !ok || !h || o != starknet.MustFelt("0x9") {
		t.Fatal("borrow")
	}
}
