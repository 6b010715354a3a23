package indexer

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/slots"
)

// Balances checked against the chain's storage (issue 55; docs/indexer.md, "Balances and
// the chain's storage").
//
// A standard ERC-20 (OpenZeppelin Cairo 0 and 1, StarkGate's ETH, STRK and bridged tokens)
// keeps a holder's balance at slots.ERC20Balance(holder), and every state update carries the
// new value of each slot its block wrote. For each block, the storage diff of every contract
// known to be an ERC-20 (by its class's ABI or its token row) is read: a key that is the
// balance slot (low or high half) of an address the indexer has seen is that address's
// balance after the block, and it is compared with what the block's Transfer events left.
// Where they differ the stored value wins (the holder count follows), the difference is
// recorded in balance_corrections, and the token's balances_source becomes "storage"; a
// token whose diffs always agree is "events_match_storage". ERC20_total_supply, when
// written, sets the token's supply.
//
// The layout is recognized by the keys themselves: the slot of an address is a Pedersen
// hash, which no other variable of a contract lands on by chance, so a key that matches a
// known address's balance slot is that balance. A token that keeps its balances elsewhere
// (another variable name, shares scaled by an index) shows no such key: nothing is compared,
// and its balances stay as its events tell ("events"). A slot whose owner the indexer has
// never seen in any address of the batch or before it (an airdrop to an address that never
// appeared) cannot be read back to its owner and is left out.

// totalSupplySlot is ERC20_total_supply's slot (a plain storage variable: sn_keccak of its name).
var totalSupplySlot = starknet.Keccak([]byte("ERC20_total_supply"))

// maxSlotIndex bounds the addresses whose slots are remembered (about 150 bytes each);
// beyond it the index starts again (the batch's own addresses are always learnt anew).
const maxSlotIndex = 1 << 19

// slotIndex maps balance slots back to addresses: a Pedersen hash costs tens of µs, so each
// address is hashed once per process.
type slotIndex struct {
	mu    sync.Mutex
	owner map[starknet.Felt]starknet.Felt // low slot -> address
	known map[starknet.Felt]bool          // addresses learnt
}

func newSlotIndex() *slotIndex {
	return &slotIndex{owner: map[starknet.Felt]starknet.Felt{}, known: map[starknet.Felt]bool{}}
}

// processSlots is the slot index every indexer of the process shares: slots are a pure
// function of addresses.
var processSlots = newSlotIndex()

// learn computes the balance slots of the addresses not seen yet.
func (s *slotIndex) learn(addrs []starknet.Felt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range addrs {
		if s.known[a] || a.IsZero() {
			continue
		}
		if len(s.known) >= maxSlotIndex {
			clear(s.known)
			clear(s.owner)
		}
		low, _ := slots.ERC20Balance(a)
		s.known[a] = true
		s.owner[low] = a
	}
}

// ownerOf says whose balance key holds, and whether it is the high half.
func (s *slotIndex) ownerOf(key starknet.Felt) (owner starknet.Felt, high, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.owner[key]; ok {
		return a, false, true
	}
	if key.IsZero() {
		return starknet.Felt{}, false, false
	}
	pk := key // key - 1
	for i := 31; i >= 0; i-- {
		pk[i]--
		if pk[i] != 0xff {
			break
		}
	}
	if a, ok := s.owner[pk]; ok {
		return a, true, true
	}
	return starknet.Felt{}, false, false
}

// reconcileStats counts what the comparisons of a batch found.
type reconcileStats struct {
	Compared  int // balances read from storage diffs and compared
	Corrected int // of which the events were wrong
}

// preloadStorage learns the balance slots of the batch's addresses, loads the contracts,
// classes and tokens of the contracts whose storage the batch writes, and adds the balances
// the storage diffs name to the pairs to load.
func (w *batchWriter) preloadStorage(ctx context.Context, batch []*blockData, addrs map[starknet.Felt]bool,
	pairsT, pairsO *[]db.Felt, seenPair map[[2]starknet.Felt]bool) error {
	if w.slots == nil {
		return nil
	}
	var learn []starknet.Felt
	for a := range addrs {
		learn = append(learn, a)
	}
	for _, o := range *pairsO {
		learn = append(learn, o.Starknet())
	}
	for _, bd := range batch {
		learn = append(learn, bd.Block.SequencerAddress)
	}
	w.slots.learn(learn)
	var unknown []db.Felt
	for _, bd := range batch {
		if bd.State == nil {
			continue
		}
		for _, d := range bd.State.StorageDiffs {
			if _, seen := w.contracts[d.Address]; !seen {
				w.contracts[d.Address] = nil
				unknown = append(unknown, db.FeltOf(d.Address))
			}
		}
	}
	if len(unknown) > 0 {
		contracts, err := db.LoadContracts(ctx, w.tx, unknown)
		if err != nil {
			return fmt.Errorf("load storage contracts: %w", err)
		}
		var hashes []starknet.Felt
		for i := range contracts {
			c := contracts[i]
			w.contracts[c.Address.Starknet()] = &c
			hashes = append(hashes, c.ClassHash.Starknet())
		}
		if err := w.classes.load(ctx, w.tx, hashes); err != nil {
			return err
		}
		tokens, err := db.LoadTokens(ctx, w.tx, unknown)
		if err != nil {
			return fmt.Errorf("load storage tokens: %w", err)
		}
		for i := range tokens {
			t := tokens[i]
			w.tokens[t.Address.Starknet()] = &t
		}
	}
	for _, bd := range batch {
		if bd.State == nil {
			continue
		}
		for _, d := range bd.State.StorageDiffs {
			if w.knownStandard(d.Address) != "erc20" {
				continue
			}
			for _, e := range d.StorageEntries {
				owner, _, ok := w.slots.ownerOf(e.Key)
				if !ok {
					continue
				}
				p := [2]starknet.Felt{d.Address, owner}
				if !seenPair[p] {
					seenPair[p] = true
					*pairsT, *pairsO = append(*pairsT, db.FeltOf(d.Address)), append(*pairsO, db.FeltOf(owner))
				}
			}
		}
	}
	return nil
}

// reconcile compares the block's ERC-20 storage writes with the balances its events left,
// after the block's transactions are applied, and keeps the stored values.
func (w *batchWriter) reconcile(bd *blockData) {
	if w.slots == nil || bd.State == nil {
		return
	}
	num, ts := int64(bd.Block.Number), int64(bd.Block.Timestamp)
	for _, d := range bd.State.StorageDiffs {
		if w.knownStandard(d.Address) != "erc20" {
			continue
		}
		type halves struct{ low, high *starknet.Felt }
		var order []starknet.Felt
		stored := map[starknet.Felt]*halves{}
		var supplyLow, supplyHigh *starknet.Felt
		for i := range d.StorageEntries {
			e := &d.StorageEntries[i]
			switch e.Key {
			case totalSupplySlot:
				supplyLow = &e.Value
				continue
			case slots.Next(totalSupplySlot):
				supplyHigh = &e.Value
				continue
			}
			owner, high, ok := w.slots.ownerOf(e.Key)
			if !ok {
				continue
			}
			h := stored[owner]
			if h == nil {
				h = &halves{}
				stored[owner] = h
				order = append(order, owner)
			}
			if high {
				h.high = &e.Value
			} else {
				h.low = &e.Value
			}
		}
		if len(order) == 0 && supplyLow == nil && supplyHigh == nil {
			continue
		}
		tok := w.token(d.Address, "erc20", num)
		if supplyLow != nil || supplyHigh != nil {
			cur := new(big.Int)
			if tok.TotalSupply != nil {
				cur = bigOf(*tok.TotalSupply)
			}
			v := mergeU256(cur, supplyLow, supplyHigh).String()
			tok.TotalSupply = &v
		}
		if len(order) == 0 {
			continue
		}
		checked := num
		tok.StorageCheckedBlock = &checked
		if tok.BalancesSource == "" || tok.BalancesSource == db.BalancesFromEvents {
			tok.BalancesSource = db.BalancesMatchStorage
		}
		for _, owner := range order {
			k := [2]starknet.Felt{d.Address, owner}
			cur := new(big.Int)
			if b := w.balances[k]; b != nil {
				cur = b.amount
			}
			v := mergeU256(cur, stored[owner].low, stored[owner].high)
			w.reconciled.Compared++
			if v.Cmp(cur) == 0 {
				continue
			}
			w.reconciled.Corrected++
			if tok.BalancesSource != db.BalancesFromCalls { // what balance_of says wins over both
				tok.BalancesSource = db.BalancesFromStorage
			}
			w.corrections = append(w.corrections, db.BalanceCorrection{TokenAddress: db.FeltOf(d.Address), OwnerAddress: db.FeltOf(owner),
				BlockNumber: num, EventBalance: cur.String(), StoredBalance: v.String()})
			w.setERC20(tok, k, v, num, ts)
		}
	}
}

// mergeU256 is the u256 whose halves the storage wrote, the other half taken from cur.
func mergeU256(cur *big.Int, low, high *starknet.Felt) *big.Int {
	mask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))
	var lo, hi *big.Int
	if low != nil {
		lo = low.Big()
	} else {
		lo = new(big.Int).And(cur, mask)
	}
	if high != nil {
		hi = high.Big()
	} else {
		hi = new(big.Int).Rsh(cur, 128)
		if cur.Sign() < 0 {
			hi = new(big.Int) // a negative balance from events: its halves mean nothing
		}
	}
	return new(big.Int).Add(new(big.Int).Lsh(hi, 128), lo)
}

// setERC20 sets a balance to the stored value, keeping the holder count.
func (w *batchWriter) setERC20(tok *db.TokenRow, k [2]starknet.Felt, v *big.Int, num, ts int64) {
	b := w.balances[k]
	if b == nil {
		b = &balance{amount: new(big.Int), lastBlock: num, lastTime: ts}
		w.balances[k] = b
	}
	before, after := b.amount.Sign() > 0, v.Sign() > 0
	// The balance's newest change, as for a transfer: erc20_balance_changes says the same
	// when a bulk load derives the balances from it.
	b.amount, b.lastBlock, b.lastTime = v, num, ts
	switch {
	case !before && after:
		tok.HolderCount++
	case before && !after:
		tok.HolderCount--
	}
	w.dirtyBalances[k] = true
	w.blockBalances[k] = true
}
