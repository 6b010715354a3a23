package indexer

import (
	"context"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// senderActivity is what a batch changes of the sender activity tables (migration 00012):
// each sender moves to its newest block in the batch, leaving its previous block's count of
// senders and joining the new one's.
type senderActivity struct {
	senders []db.Felt
	blocks  []int64         // senders[i]'s newest block
	counts  map[int64]int64 // the new count of every block whose count changes
}

// prepareSenderActivity reads the previous blocks of the batch's senders (one statement)
// and works out the new rows, queuing their old images for the journal when journal is set;
// flush writes them.
func (w *batchWriter) prepareSenderActivity(ctx context.Context, batch []*blockData, journal bool) error {
	newest := map[starknet.Felt]int64{}
	for _, bd := range batch {
		for _, t := range bd.Block.Transactions {
			if t.SenderAddress != nil {
				newest[*t.SenderAddress] = int64(bd.Block.Number)
			}
		}
	}
	if len(newest) == 0 {
		return nil
	}
	senders := make([]db.Felt, 0, len(newest))
	blocks := make([]int64, 0, len(newest))
	for s, b := range newest {
		senders, blocks = append(senders, db.FeltOf(s)), append(blocks, b)
	}
	previous, err := db.LoadSenderLastBlocks(ctx, w.tx, senders)
	if err != nil {
		return err
	}
	counts := map[int64]int64{}
	for _, p := range previous {
		if _, seen := counts[p.BlockNumber]; !seen {
			counts[p.BlockNumber] = p.Senders
		}
		counts[p.BlockNumber]--
	}
	// The batch's blocks are new: their counts start at zero, and a previous block in the
	// batch cannot be one (the batch comes after everything written).
	for _, b := range blocks {
		counts[b]++
	}
	if journal {
		touched := make([]int64, 0, len(counts))
		for b := range counts {
			touched = append(touched, b)
		}
		w.journalFelts("sender_last_blocks", senders)
		w.journalAdd("active_sender_blocks", pq.Int64Array(touched))
	}
	w.activity = &senderActivity{senders, blocks, counts}
	return nil
}

// writeSenderActivity writes what prepareSenderActivity worked out.
func (w *batchWriter) writeSenderActivity(ctx context.Context) error {
	if w.activity == nil {
		return nil
	}
	return db.WriteSenderActivity(ctx, w.tx, w.activity.senders, w.activity.blocks, w.activity.counts)
}
