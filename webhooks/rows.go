package webhooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starkgraph/starkgraph/db"
)

// chainRows are the indexed rows of a range of blocks, read once and shared by every
// webhook that needs them: the blocks, and the rows of each kind read, by block. Each
// webhook's items are its filter applied to them (items).
type chainRows struct {
	blocks    map[int64]*db.Block
	txs       map[int64][]*db.Transaction
	transfers map[int64][]*db.TokenTransfer
	events    map[int64][]*db.Event
	nfts      map[int64][]*db.NftEvent
	// data is each item's payload data, made once for every webhook it goes to.
	data map[dataKey]json.RawMessage
	// The rows of a block by the address most filters name (made when first wanted):
	// transactions by sender, transfers by token and by wallet (from or to), events by
	// emitter, so that a webhook's filter looks at the rows of its address only.
	bySender  map[int64]map[string][]*db.Transaction
	byToken   map[int64]map[string][]*db.TokenTransfer
	byWallet  map[int64]map[string][]*db.TokenTransfer
	byEmitter map[int64]map[string][]*db.Event
}

// key is a felt as the indexes of chainRows hold it.
func key(f db.Felt) string { return string(db.Normalize(f)) }

// index groups rows by the keys of each (in their order), once per block.
func index[T any](cache map[int64]map[string][]T, n int64, rows []T, keys func(T) []db.Felt) map[string][]T {
	if m, ok := cache[n]; ok {
		return m
	}
	m := map[string][]T{}
	for _, r := range rows {
		var last string
		for i, k := range keys(r) {
			if k == nil || (i > 0 && key(k) == last) {
				continue
			}
			last = key(k)
			m[last] = append(m[last], r)
		}
	}
	cache[n] = m
	return m
}

type dataKey struct {
	typ string
	pos db.Position
}

func newChainRows() *chainRows {
	return &chainRows{blocks: map[int64]*db.Block{}, txs: map[int64][]*db.Transaction{}, transfers: map[int64][]*db.TokenTransfer{},
		events: map[int64][]*db.Event{}, nfts: map[int64][]*db.NftEvent{}, data: map[dataKey]json.RawMessage{},
		bySender: map[int64]map[string][]*db.Transaction{}, byToken: map[int64]map[string][]*db.TokenTransfer{},
		byWallet: map[int64]map[string][]*db.TokenTransfer{}, byEmitter: map[int64]map[string][]*db.Event{}}
}

// readBlocks reads blocks from..to.
func (r *chainRows) readBlocks(ctx context.Context, store *db.Store, from, to int64) error {
	bs, err := store.BlocksInRange(ctx, from, to)
	if err != nil {
		return err
	}
	for _, b := range bs {
		r.blocks[b.Number] = b
	}
	return nil
}

// read reads the rows of kind in blocks from..to (a blocks webhook's are the blocks).
func (r *chainRows) read(ctx context.Context, store *db.Store, kind string, from, to int64) error {
	switch kind {
	case KindBlocks:
		return nil
	case KindTransactions:
		rows, err := store.TransactionsInRange(ctx, from, to)
		for _, t := range rows {
			r.txs[t.BlockNumber] = append(r.txs[t.BlockNumber], t)
		}
		return err
	case KindTransfers:
		rows, err := store.TransfersInRange(ctx, from, to)
		for _, t := range rows {
			r.transfers[t.BlockNumber] = append(r.transfers[t.BlockNumber], t)
		}
		return err
	case KindEvents:
		rows, err := store.EventsInRange(ctx, from, to)
		for _, e := range rows {
			r.events[e.BlockNumber] = append(r.events[e.BlockNumber], e)
		}
		return err
	case KindNftTransfers:
		rows, err := store.NftTransfersInRange(ctx, from, to)
		for _, e := range rows {
			r.nfts[e.BlockNumber] = append(r.nfts[e.BlockNumber], e)
		}
		return err
	}
	return fmt.Errorf("webhooks: unknown kind %q", kind)
}

// current says whether blocks from..to were read and still have the hashes read (now:
// the hashes read after their rows): the rows read belong to them only if no reorg came in
// between.
func (r *chainRows) current(now map[int64]db.Felt, from, to int64) bool {
	for n := from; n <= to; n++ {
		b := r.blocks[n]
		if b == nil || !now[n].Equal(b.Hash) {
			return false
		}
	}
	return true
}

// items are the items of kind matching f in blocks from..to, in chain order.
func (r *chainRows) items(kind string, f *filter, from, to int64) ([]item, error) {
	var items []item
	var err error
	add := func(p db.Position, typ string, data func() any) {
		k := dataKey{typ, p}
		raw, ok := r.data[k]
		if !ok && err == nil {
			if raw, err = json.Marshal(data()); err == nil {
				r.data[k] = raw
			}
		}
		items = append(items, item{pos: p, typ: typ, data: raw})
	}
	for n := from; n <= to; n++ {
		b := r.blocks[n]
		if b == nil {
			return nil, errRaced
		}
		switch kind {
		case KindBlocks:
			add(db.Position{Block: b.Number, Tx: -1, Event: -1}, "block", func() any { return blockData(b) })
		case KindTransactions:
			txs := r.txs[n]
			if f.sender != nil {
				txs = index(r.bySender, n, txs, func(t *db.Transaction) []db.Felt { return []db.Felt{t.SenderAddress} })[key(f.sender)]
			}
			for _, t := range txs {
				if f.transaction(t) {
					add(db.Position{Block: t.BlockNumber, Tx: t.Index, Event: -1}, "transaction", func() any { return transactionData(t, b.Hash) })
				}
			}
		case KindTransfers:
			transfers := r.transfers[n]
			switch {
			case f.wallet != nil:
				transfers = index(r.byWallet, n, transfers, func(t *db.TokenTransfer) []db.Felt { return []db.Felt{t.FromAddress, t.ToAddress} })[key(f.wallet)]
			case f.token != nil:
				transfers = index(r.byToken, n, transfers, func(t *db.TokenTransfer) []db.Felt { return []db.Felt{t.TokenAddress} })[key(f.token)]
			}
			for _, t := range transfers {
				if f.transfer(t) {
					add(db.Position{Block: t.BlockNumber, Tx: t.TxIndex, Event: t.EventIndex}, "transfer", func() any { return transferData(t) })
				}
			}
		case KindEvents:
			events := r.events[n]
			if f.contract != nil {
				events = index(r.byEmitter, n, events, func(e *db.Event) []db.Felt { return []db.Felt{e.FromAddress} })[key(f.contract)]
			}
			for _, e := range events {
				if f.event(e) {
					add(db.Position{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.Index}, "event", func() any { return eventData(e) })
				}
			}
		case KindNftTransfers:
			for _, e := range r.nfts[n] {
				if f.nftTransfer(e) {
					add(db.Position{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.EventIndex, Sub: e.SubIndex}, "nft_transfer",
						func() any { return nftTransferData(e) })
				}
			}
		default:
			return nil, fmt.Errorf("webhooks: unknown kind %q", kind)
		}
	}
	return items, err
}

// readItems reads the items of kind matching f in blocks from..to, in chain order, with
// those blocks, for one webhook at position pos (whose block's hash is posHash, nil when
// unknown). It returns errRaced when a reorg changed the blocks, or the block at the
// position, while they were read: the items then lead on from the position.
func readItems(ctx context.Context, store *db.Store, kind string, f *filter, from, to int64, pos db.Position, posHash db.Felt) ([]item, map[int64]*db.Block, error) {
	r := newChainRows()
	if err := r.readBlocks(ctx, store, from, to); err != nil {
		return nil, nil, err
	}
	if int64(len(r.blocks)) != to-from+1 {
		return nil, nil, errRaced
	}
	if err := r.read(ctx, store, kind, from, to); err != nil {
		return nil, nil, err
	}
	numbers := make([]int64, 0, to-from+2)
	for n := from; n <= to; n++ {
		numbers = append(numbers, n)
	}
	if posHash != nil && pos.Block < from {
		numbers = append(numbers, pos.Block)
	}
	now, err := store.BlockHashesOf(ctx, numbers)
	if err != nil {
		return nil, nil, err
	}
	if !r.current(now, from, to) || (posHash != nil && !now[pos.Block].Equal(posHash)) {
		return nil, nil, errRaced
	}
	items, err := r.items(kind, f, from, to)
	return items, r.blocks, err
}

// rowCache keeps the rows of the blocks read lately, by block, so that the rounds after
// (webhooks that were delivering, or further behind) read only the rows they lack: during a
// catch-up, the webhooks come back at different times, each for the blocks after its
// position. The blocks themselves are read again every round (their status changes when
// they become final, and so do their transactions'): rows read while a block had another
// hash or status are read again. Only the round's goroutine uses it; the blocks no webhook
// needs any more go.
type rowCache struct {
	blocks map[int64]*cachedBlock
}

// cachedBlock is the rows read of a block, by kind, while it had that hash and status.
type cachedBlock struct {
	hash      db.Felt
	status    string
	read      map[string]bool
	txs       []*db.Transaction
	transfers []*db.TokenTransfer
	events    []*db.Event
	nfts      []*db.NftEvent
}

// runs calls read for each run of consecutive blocks in from..to that want says to read.
func runs(from, to int64, want func(int64) bool, read func(a, b int64) error) error {
	for n := from; n <= to; n++ {
		if !want(n) {
			continue
		}
		a := n
		for n < to && want(n+1) {
			n++
		}
		if err := read(a, n); err != nil {
			return err
		}
	}
	return nil
}

// fill reads blocks lo..hi, and into the cache what it lacks of the rows of each kind over
// spans (by kind, a range within lo..hi); it returns the blocks read.
func (c *rowCache) fill(ctx context.Context, store *db.Store, lo, hi int64, spans map[string][2]int64) (map[int64]*db.Block, error) {
	bs, err := store.BlocksInRange(ctx, lo, hi)
	if err != nil {
		return nil, err
	}
	blocks := make(map[int64]*db.Block, len(bs))
	for _, b := range bs {
		blocks[b.Number] = b
	}
	for n := lo; n <= hi; n++ {
		b, cb := blocks[n], c.blocks[n]
		switch {
		case b == nil:
			delete(c.blocks, n)
		case cb == nil || !cb.hash.Equal(b.Hash) || cb.status != b.RawStatus:
			c.blocks[n] = &cachedBlock{hash: b.Hash, status: b.RawStatus, read: map[string]bool{}}
		}
	}
	for _, kind := range Kinds {
		span, ok := spans[kind]
		if !ok || kind == KindBlocks {
			continue
		}
		err := runs(span[0], span[1], func(n int64) bool { cb := c.blocks[n]; return cb != nil && !cb.read[kind] }, func(a, b int64) error {
			r := newChainRows()
			if err := r.read(ctx, store, kind, a, b); err != nil {
				return err
			}
			for n := a; n <= b; n++ {
				cb := c.blocks[n]
				switch kind {
				case KindTransactions:
					cb.txs = r.txs[n]
				case KindTransfers:
					cb.transfers = r.transfers[n]
				case KindEvents:
					cb.events = r.events[n]
				case KindNftTransfers:
					cb.nfts = r.nfts[n]
				}
				cb.read[kind] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return blocks, nil
}

// view is the rows of blocks lo..hi (as fill read them) whose hash is still now's; the
// others, which a reorg replaced while they were read, are dropped.
func (c *rowCache) view(lo, hi int64, blocks map[int64]*db.Block, now map[int64]db.Felt) *chainRows {
	r := newChainRows()
	for n := lo; n <= hi; n++ {
		cb, b := c.blocks[n], blocks[n]
		if cb == nil || b == nil {
			continue
		}
		if !now[n].Equal(b.Hash) || !cb.hash.Equal(b.Hash) {
			delete(c.blocks, n)
			continue
		}
		r.blocks[n], r.txs[n], r.transfers[n], r.events[n], r.nfts[n] = b, cb.txs, cb.transfers, cb.events, cb.nfts
	}
	return r
}

// evict forgets the blocks before from (no webhook needs them) and, beyond max blocks, those
// outside lo..lo+max-1.
func (c *rowCache) evict(from, lo int64, max int) {
	for n := range c.blocks {
		if n < from {
			delete(c.blocks, n)
		}
	}
	if len(c.blocks) <= max {
		return
	}
	for n := range c.blocks {
		if n < lo || n >= lo+int64(max) {
			delete(c.blocks, n)
		}
	}
}
