package sim

import (
	"encoding/binary"
	"sync"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/slots"
)

// Storage: the ERC-20 balances (and total supplies) live where the Cairo compilers put
// them, and every state update writes the slots its block changed. A balance's low half is
// at slots.ERC20Balance(holder) (oddOtherSlot: pedersen(sn_keccak("balances"), holder));
// balances stay below 2^128, so the high half is never written. The values are the ledger's,
// so starknet_getStorageAt, the storage diffs and balance_of agree (oddInterest's balance_of
// scales its stored raw amount by the block's index).

var (
	otherBalancesBase = starknet.Keccak([]byte("balances"))
	totalSupplySlot   = fromStarknet(starknet.Keccak([]byte("ERC20_total_supply")))
)

func toStarknet(f felt) starknet.Felt {
	var out starknet.Felt
	for i, w := range f {
		binary.BigEndian.PutUint64(out[8*i:], w)
	}
	return out
}

// slotCache remembers the balance slots of holders (a Pedersen hash costs tens of µs) and
// the holder of each slot computed so far.
type slotCache struct {
	mu     sync.Mutex
	slot   map[slotKey]felt
	holder map[slotKey]holder // by (layout, slot) — slotKey.h unused there
	// accounts is how many accounts' slots have been filled in for reverse lookups.
	accounts int
}

type slotKey struct {
	other bool // the oddOtherSlot layout
	h     holder
	slot  felt
}

func newSlotCache() *slotCache {
	return &slotCache{slot: map[slotKey]felt{}, holder: map[slotKey]holder{}}
}

// usesOtherSlot says which layout token keeps its balances in.
func usesOtherSlot(token entity) bool { return token.kind == kindOdd && token.idx == oddOtherSlot }

// isERC20 says whether token is a fungible token whose balances the ledger keeps.
func isERC20(token entity) bool {
	switch token.kind {
	case kindERC20, kindOdd:
		return true
	case kindFixed:
		return token.idx == fixedETH || token.idx == fixedSTRK || token.idx == fixedUSDC || token.idx == fixedWBTC
	}
	return false
}

// balanceSlot is the low slot of h's balance in the layout; callers hold s.mu.
func (s *slotCache) balanceSlot(w *world, h holder, other bool) felt {
	k := slotKey{other: other, h: h}
	if v, ok := s.slot[k]; ok {
		return v
	}
	base := slots.ERC20BalancesBase
	if other {
		base = otherBalancesBase
	}
	v := fromStarknet(slots.MapEntry(base, toStarknet(w.addr(h.entity()))))
	s.slot[k] = v
	s.holder[slotKey{other: other, slot: v}] = h
	return v
}

// holderAt finds whose balance slot key is, filling in the slots of the accounts live at
// block n (and of the fixed contracts) when it is not known yet.
func (s *slotCache) holderAt(w *world, key felt, other bool, n uint64) (holder, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok := s.holder[slotKey{other: other, slot: key}]; ok {
		return h, true
	}
	for i := 0; i < numFixed; i++ {
		s.balanceSlot(w, holderOf(entity{kindFixed, uint32(i)}), other)
	}
	for i := 0; i < 2*numStakers; i++ {
		s.balanceSlot(w, holderOf(entity{kindPool, uint32(i)}), other)
	}
	for ; s.accounts < w.accountsAt(n); s.accounts++ {
		s.balanceSlot(w, accountHolder(s.accounts), false)
		s.balanceSlot(w, accountHolder(s.accounts), true)
	}
	h, ok := s.holder[slotKey{other: other, slot: key}]
	return h, ok
}

type storageEntry struct{ key, value felt }

type storageDiff struct {
	addr    felt
	entries []storageEntry
}

// storageDiffs lists the ERC-20 slots block b writes, with their values after it, contracts
// and slots in the order the block first touches them. The ledger has reached b.number.
func (c *Chain) storageDiffs(l *ledger, b *block) []storageDiff {
	var out []storageDiff
	type touched struct {
		token entity
		h     holder
	}
	seen := make(map[touched]bool, 2*len(b.effects))
	idx := make(map[entity]int, 8)
	c.slots.mu.Lock()
	defer c.slots.mu.Unlock()
	add := func(token entity, h holder) {
		if seen[touched{token, h}] {
			return
		}
		seen[touched{token, h}] = true
		i, ok := idx[token]
		if !ok {
			i = len(out)
			idx[token] = i
			out = append(out, storageDiff{addr: c.w.addr(token)})
		}
		v := l.balance(balanceKey{token, h, 0}, b.number).felt()
		key := totalSupplySlot
		if h != zeroHolder {
			key = c.slots.balanceSlot(c.w, h, usesOtherSlot(token))
		}
		out[i].entries = append(out[i].entries, storageEntry{key, v})
	}
	for _, e := range b.effects {
		if e.kind != effERC20 || !isERC20(e.token) {
			continue
		}
		add(e.token, e.from)
		add(e.token, e.to)
	}
	return out
}

// tokenStorage answers getStorageAt for an ERC-20: a balance's low half or the supply.
func (c *Chain) tokenStorage(e entity, key felt, n uint64) (felt, bool) {
	if !isERC20(e) {
		return felt{}, false
	}
	h := zeroHolder
	if key != totalSupplySlot {
		var ok bool
		if h, ok = c.slots.holderAt(c.w, key, usesOtherSlot(e), n); !ok {
			return felt{}, true // an unwritten slot reads 0
		}
	}
	var v u128
	c.ledgerAt(n, func(l *ledger) { v = l.balance(balanceKey{e, h, 0}, n) })
	return v.felt(), true
}
