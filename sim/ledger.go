package sim

import (
	"sort"
	"sync"
)

// ledger replays the token effects of the generated blocks, in order, so that
// starknet_call answers (balances, supplies, owners) agree with the events the
// blocks carry. It keeps, per balance, the history of its values by block, so a
// call can ask about any block up to the head; a reorg truncates the histories.
// It only advances when a call needs it.
type ledger struct {
	mu       sync.Mutex
	next     uint64 // first block not applied yet
	balances map[balanceKey][]hist
	owners   map[balanceKey][]ownerHist // ERC-721 (collection, token id) -> owner
}

// balanceKey: (token, holder, id); id is the ERC-1155 token id, 0 otherwise.
// Supplies are kept under holder zeroHolder. For owners, holder is unused.
type balanceKey struct {
	token  entity
	holder holder
	id     uint64
}

type hist struct {
	block uint64
	v     u128
}

type ownerHist struct {
	block uint64
	owner holder
}

func newLedger() *ledger {
	return &ledger{balances: map[balanceKey][]hist{}, owners: map[balanceKey][]ownerHist{}}
}

// advance applies blocks up to and including n; gen returns a block as served.
func (l *ledger) advance(n uint64, gen func(uint64) *block) {
	for l.next <= n {
		b := gen(l.next)
		for _, e := range b.effects {
			l.apply(b.number, e)
		}
		l.next++
	}
}

func (l *ledger) add(k balanceKey, block uint64, delta u128, negative bool) {
	h := l.balances[k]
	var cur u128
	if len(h) > 0 {
		cur = h[len(h)-1].v
	}
	if negative {
		cur = cur.sub(delta)
	} else {
		cur = cur.add(delta)
	}
	if len(h) > 0 && h[len(h)-1].block == block {
		h[len(h)-1].v = cur
	} else {
		h = append(h, hist{block, cur})
	}
	l.balances[k] = h
}

func (l *ledger) apply(block uint64, e effect) {
	id := uint64(0)
	if e.kind == effERC1155 {
		id = e.id
	}
	amount := e.amount
	if e.kind == effERC721 {
		amount = u128{0, 1}
		k := balanceKey{token: e.token, id: e.id}
		l.owners[k] = append(l.owners[k], ownerHist{block, e.to})
	}
	// Supply (under zeroHolder) grows on mints and shrinks on burns.
	if e.from == zeroHolder {
		l.add(balanceKey{e.token, zeroHolder, id}, block, amount, false)
	} else {
		l.add(balanceKey{e.token, e.from, id}, block, amount, true)
	}
	if e.to == zeroHolder {
		l.add(balanceKey{e.token, zeroHolder, id}, block, amount, true)
	} else {
		l.add(balanceKey{e.token, e.to, id}, block, amount, false)
	}
}

// rollback forgets every block above n.
func (l *ledger) rollback(n uint64) {
	if l.next <= n+1 {
		return
	}
	for k, h := range l.balances {
		i := sort.Search(len(h), func(i int) bool { return h[i].block > n })
		if i == 0 {
			delete(l.balances, k)
		} else {
			l.balances[k] = h[:i]
		}
	}
	for k, h := range l.owners {
		i := sort.Search(len(h), func(i int) bool { return h[i].block > n })
		if i == 0 {
			delete(l.owners, k)
		} else {
			l.owners[k] = h[:i]
		}
	}
	l.next = n + 1
}

// balance at the end of block n (the ledger must have advanced to n).
func (l *ledger) balance(k balanceKey, n uint64) u128 {
	h := l.balances[k]
	i := sort.Search(len(h), func(i int) bool { return h[i].block > n })
	if i == 0 {
		return u128{}
	}
	return h[i-1].v
}

// owner of an ERC-721 token at the end of block n; ok is false before its mint.
func (l *ledger) owner(k balanceKey, n uint64) (holder, bool) {
	h := l.owners[k]
	i := sort.Search(len(h), func(i int) bool { return h[i].block > n })
	if i == 0 {
		return 0, false
	}
	return h[i-1].owner, true
}
