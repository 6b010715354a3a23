package webhooks

import (
	"context"
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
}

func newChainRows() *chainRows {
	return &chainRows{blocks: map[int64]*db.Block{}, txs: map[int64][]*db.Transaction{}, transfers: map[int64][]*db.TokenTransfer{},
		events: map[int64][]*db.Event{}, nfts: map[int64][]*db.NftEvent{}}
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
	add := func(p db.Position, typ string, data any) {
		items = append(items, item{pos: p, typ: typ, data: data})
	}
	for n := from; n <= to; n++ {
		b := r.blocks[n]
		if b == nil {
			return nil, errRaced
		}
		switch kind {
		case KindBlocks:
			add(db.Position{Block: b.Number, Tx: -1, Event: -1}, "block", blockData(b))
		case KindTransactions:
			for _, t := range r.txs[n] {
				if f.transaction(t) {
					add(db.Position{Block: t.BlockNumber, Tx: t.Index, Event: -1}, "transaction", transactionData(t, b.Hash))
				}
			}
		case KindTransfers:
			for _, t := range r.transfers[n] {
				if f.transfer(t) {
					add(db.Position{Block: t.BlockNumber, Tx: t.TxIndex, Event: t.EventIndex}, "transfer", transferData(t))
				}
			}
		case KindEvents:
			for _, e := range r.events[n] {
				if f.event(e) {
					add(db.Position{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.Index}, "event", eventData(e))
				}
			}
		case KindNftTransfers:
			for _, e := range r.nfts[n] {
				if f.nftTransfer(e) {
					add(db.Position{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.EventIndex, Sub: e.SubIndex}, "nft_transfer", nftTransferData(e))
				}
			}
		default:
			return nil, fmt.Errorf("webhooks: unknown kind %q", kind)
		}
	}
	return items, nil
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
