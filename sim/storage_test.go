package sim

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/slots"
)

// TestStorageAndOddTokens: every state update writes the ERC-20 slots its block changes,
// with the values starknet_getStorageAt and balance_of give at that block; the misbehaving
// tokens misbehave as documented (odd.go), and only in the ways documented.
func TestStorageAndOddTokens(t *testing.T) {
	const blocks = 60
	c := New(Config{Seed: 5, Blocks: blocks, TxPerBlock: 20})
	cl := serveChain(t, c)
	type su struct {
		StateDiff struct {
			StorageDiffs []struct {
				Address string `json:"address"`
				Entries []struct {
					Key   string `json:"key"`
					Value string `json:"value"`
				} `json:"storage_entries"`
			} `json:"storage_diffs"`
		} `json:"state_diff"`
	}
	call := func(n uint64, token, fn string, args ...string) *big.Int {
		return u256(t, cl.OK("starknet_call", map[string]any{"contract_address": token, "entry_point_selector": selector(fn).String(), "calldata": args},
			map[string]uint64{"block_number": n}))
	}
	odd := func(j int) string { return c.w.addr(oddToken(j)).String() }
	// slot -> holder for the accounts of the chain, in both layouts.
	std, other := map[string]string{}, map[string]string{}
	for i := 0; i < c.w.accountsAt(blocks); i++ {
		a := toStarknet(c.w.account(i))
		low, _ := slots.ERC20Balance(a)
		std[low.Hex()] = a.Hex()
		other[slots.MapEntry(starknet.Keccak([]byte("balances")), a).Hex()] = a.Hex()
	}
	var others []felt
	for i := 0; i < numFixed; i++ {
		others = append(others, fixedAddr[i])
	}
	for i := 0; i < 2*numStakers; i++ {
		others = append(others, c.w.addr(entity{kindPool, uint32(i)}))
	}
	for _, f := range others {
		a := toStarknet(f)
		low, _ := slots.ERC20Balance(a)
		std[low.Hex()] = a.Hex()
	}
	events := map[[2]string]*big.Int{} // (token, holder) -> balance the Transfer events tell
	entries, differ := 0, map[int]int{}
	for n := uint64(0); n < blocks; n++ {
		for _, tx := range cl.block(n).Transactions {
			for _, e := range tx.Receipt.Events {
				if len(e.Keys) == 3 && e.Keys[0] == hexTransfer {
					amount := bigHex(e.Data[0])
					for i, sign := range []int64{-1, 1} {
						k := [2]string{e.From, e.Keys[1+i]}
						if events[k] == nil {
							events[k] = new(big.Int)
						}
						events[k].Add(events[k], new(big.Int).Mul(amount, big.NewInt(sign)))
					}
				}
			}
		}
		var u su
		if err := json.Unmarshal(cl.OK("starknet_getStateUpdate", map[string]uint64{"block_number": n}), &u); err != nil {
			t.Fatal(err)
		}
		for _, d := range u.StateDiff.StorageDiffs {
			for _, s := range d.Entries {
				entries++
				got := cl.OK("starknet_getStorageAt", d.Address, s.Key, map[string]uint64{"block_number": n})
				if string(got) != `"`+s.Value+`"` {
					t.Fatalf("block %d: %s slot %s: diff %s, getStorageAt %s", n, d.Address, s.Key, s.Value, got)
				}
				if s.Key == totalSupplySlot.String() {
					stored := bigHex(s.Value)
					if d.Address == odd(oddInterest) {
						stored = interestBig(stored, n)
					}
					if sup := call(n, d.Address, "total_supply"); sup.Cmp(stored) != 0 {
						t.Fatalf("block %d: %s supply %s, stored %s", n, d.Address, sup, s.Value)
					}
					continue
				}
				layout := std
				if d.Address == odd(oddOtherSlot) {
					layout = other
				}
				holder, ok := layout[s.Key]
				if !ok {
					t.Fatalf("block %d: %s writes slot %s, no holder's balance slot", n, d.Address, s.Key)
				}
				bal, stored := call(n, d.Address, "balance_of", holder), bigHex(s.Value)
				if d.Address == odd(oddInterest) {
					stored = interestBig(stored, n)
				}
				if bal.Cmp(stored) != 0 {
					t.Fatalf("block %d: %s balance_of %s = %s, storage %s", n, d.Address, holder, bal, stored)
				}
				for j := 0; j < numOdd; j++ {
					if d.Address == odd(j) {
						if ev := events[[2]string{d.Address, holder}]; ev == nil || ev.Cmp(bigHex(s.Value)) != 0 {
							differ[j]++
						}
					}
				}
			}
		}
	}
	// Storage and events agree for the interest and other-slot tokens (raw amounts), not for
	// the fee-on-transfer and silent-mint ones.
	if entries < 1000 || differ[oddInterest] != 0 || differ[oddOtherSlot] != 0 || differ[oddFeeOnTransfer] == 0 || differ[oddSilentMint] == 0 {
		t.Fatalf("%d storage entries; holders whose stored balance differs from the events: %v", entries, differ)
	}
	// The interest token's balance grows with no event.
	h := c.w.account(3).String()
	if a, b := call(30, odd(oddInterest), "balance_of", h), call(31, odd(oddInterest), "balance_of", h); a.Cmp(b) >= 0 && events[[2]string{odd(oddInterest), h}] != nil {
		t.Errorf("interest balance %s then %s", a, b)
	}
}

func interestBig(raw *big.Int, n uint64) *big.Int {
	v := new(big.Int).Mul(raw, interestIndex(n))
	return v.Quo(v, interestOne)
}
