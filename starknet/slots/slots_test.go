package slots

import (
	"encoding/json"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/starknet"
)

func TestNextAndBound(t *testing.T) {
	if n := Next(starknet.Felt{31: 0xff}); n != (starknet.Felt{30: 1}) {
		t.Errorf("Next does not carry: %x", n)
	}
	for i := uint64(0); i < 200; i++ {
		s := MapEntry(ERC20BalancesBase, starknet.FeltFromUint64(i*0x9e3779b97f4a7c15))
		if s.Big().Cmp(addressBound) >= 0 {
			t.Fatalf("slot %s above the address bound", s.Hex())
		}
	}
}

// TestSepoliaFeeTransfers: in Sepolia block 3100000 three STRK fee transfers move fees from
// one account to the sequencer, and the block's state diff writes exactly two STRK slots:
// the low halves of those two balances.
func TestSepoliaFeeTransfers(t *testing.T) {
	dir := fixtures.Set(t, "sepolia-3100000")
	var block struct {
		Sequencer    starknet.Felt `json:"sequencer_address"`
		Transactions []struct {
			Receipt struct {
				Events []struct {
					From starknet.Felt   `json:"from_address"`
					Keys []starknet.Felt `json:"keys"`
					Data []starknet.Felt `json:"data"`
				} `json:"events"`
			} `json:"receipt"`
		} `json:"transactions"`
	}
	var su struct {
		StateDiff struct {
			StorageDiffs []struct {
				Address starknet.Felt `json:"address"`
				Entries []struct {
					Key   starknet.Felt `json:"key"`
					Value starknet.Felt `json:"value"`
				} `json:"storage_entries"`
			} `json:"storage_diffs"`
		} `json:"state_diff"`
	}
	for rel, v := range map[string]any{"blocks/3100000.json": &block, "state_updates/3100000.json": &su} {
		if err := json.Unmarshal(fixtures.Read(t, filepath.Join(filepath.Base(dir), rel)), v); err != nil {
			t.Fatal(rel, err)
		}
	}
	strk := starknet.MustFelt("0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
	transfer := starknet.Selector("Transfer")
	moved := map[starknet.Felt]*big.Int{} // net change by holder
	transfers := 0
	for _, tx := range block.Transactions {
		for _, e := range tx.Receipt.Events {
			if e.From != strk || len(e.Keys) != 1 || e.Keys[0] != transfer || len(e.Data) != 4 {
				continue
			}
			transfers++
			amount := new(big.Int).Add(e.Data[2].Big(), new(big.Int).Lsh(e.Data[3].Big(), 128))
			for i, sign := range []int64{-1, 1} {
				h := e.Data[i]
				if moved[h] == nil {
					moved[h] = new(big.Int)
				}
				moved[h].Add(moved[h], new(big.Int).Mul(amount, big.NewInt(sign)))
			}
		}
	}
	if transfers != 3 || len(moved) != 2 || moved[block.Sequencer] == nil || moved[block.Sequencer].Sign() <= 0 {
		t.Fatalf("%d STRK transfers moving %v (sequencer %s)", transfers, moved, block.Sequencer.Hex())
	}
	stored := map[starknet.Felt]*big.Int{}
	for _, d := range su.StateDiff.StorageDiffs {
		if d.Address != strk {
			continue
		}
		for _, e := range d.Entries {
			stored[e.Key] = e.Value.Big()
		}
	}
	if len(stored) != 2 {
		t.Fatalf("STRK storage diff has %d entries, want 2", len(stored))
	}
	for holder, delta := range moved {
		low, high := ERC20Balance(holder)
		v, ok := stored[low]
		if !ok {
			t.Fatalf("no STRK storage diff at %s, the balance slot of %s", low.Hex(), holder.Hex())
		}
		if _, ok := stored[high]; ok {
			t.Errorf("the high half of %s's balance changed", holder.Hex())
		}
		// The value before the block, derived back from the diff, is a balance: not negative,
		// and below 2^128 (the high half stayed 0).
		before := new(big.Int).Sub(v, delta)
		if before.Sign() < 0 || before.BitLen() > 128 {
			t.Errorf("%s: stored %s and moved %s leave %s before the block", holder.Hex(), v, delta, before)
		}
		t.Logf("%s: slot %s, %s after the block (%+d)", holder.Hex(), low.Hex(), v, delta)
	}
}
