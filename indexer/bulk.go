package indexer

import (
	"context"
	"fmt"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/starknet"
)

// Bulk loading: a catch-up long enough to at least double the indexed chain runs with the
// per-block tables' foreign keys and most secondary indexes dropped, and rebuilds them once when
// it ends, short of the blocks that may still be reorganised (db/bulk.go says why that is
// faster). A shorter catch-up over a big database would spend longer rebuilding than it
// saves, so it writes through the indexes as usual.

// defaultBulkLoadMinBlocks is the shortest catch-up that is bulk loaded, by default.
const defaultBulkLoadMinBlocks = 1000

// defaultBulkLoadBalances bounds the balances a bulk load keeps in memory, by default:
// about 400 MB.
const defaultBulkLoadBalances = 2_000_000

// A bulk load also leaves the tables that every batch rewrote (erc20_balances, key_counts,
// the sender activity) to be written once (db/bulk_derived.go): their upserts, and the reads
// of the balances and counts before them, were what grew with the database. What a batch
// needs of them it finds in bulkMemory, the values the committed batches left; a balance or
// count missing there has not changed since the tables' mark, so the table has it.

// bulkMemory is what a bulk load keeps in memory of the tables it defers.
type bulkMemory struct {
	balances map[[2]starknet.Felt]balance // read or written since the mark
	changed  map[[2]starknet.Felt]bool    // written since the mark
	counts   *db.BulkKeyCounts
}

func newBulkMemory() *bulkMemory {
	return &bulkMemory{balances: map[[2]starknet.Felt]balance{}, changed: map[[2]starknet.Felt]bool{}, counts: db.NewBulkKeyCounts()}
}

// size is how many balances and counts are kept.
func (m *bulkMemory) size() int { return len(m.balances) + m.counts.Len() }

// keep takes in what a batch that committed read and wrote.
func (m *bulkMemory) keep(w *batchWriter) {
	for k, b := range w.balances {
		m.balances[k] = *b
	}
	for k := range w.dirtyBalances {
		m.changed[k] = true
	}
	m.counts.Commit()
}

// written is what the derived tables are brought up to the head with; the memory is empty
// once they are.
func (m *bulkMemory) written() *db.BulkKept {
	kept := &db.BulkKept{Counts: m.counts, Balances: make([]db.TokenBalance, 0, len(m.changed))}
	for k := range m.changed {
		b := m.balances[k]
		kept.Balances = append(kept.Balances, db.TokenBalance{TokenAddress: db.FeltOf(k[0]), OwnerAddress: db.FeltOf(k[1]),
			Balance: b.amount.String(), LastTransferBlock: b.lastBlock, LastTransferTime: b.lastTime})
	}
	clear(m.balances)
	clear(m.changed)
	return kept
}

// bulkLoadEnd says whether writing next..target is a bulk load, and up to which block: the
// last block that cannot be reorganised any more.
func (ix *Indexer) bulkLoadEnd(next, target int64) (end int64, bulk bool) {
	if ix.cfg.BulkLoadMinBlocks < 0 {
		return 0, false
	}
	end = min(target, int64(ix.nodeHeadSeen)-int64(ix.cfg.MaxReorgDepth))
	indexed := max(ix.head-ix.cfg.FromBlock+1, 0)
	length := end - next + 1
	return end, length >= ix.cfg.BulkLoadMinBlocks && length >= indexed
}

// bulkLoad writes next..end with the constraints deferred, then restores them.
func (ix *Indexer) bulkLoad(ctx context.Context, next, end int64, headHash db.Felt, haveHead bool) error {
	n, err := db.DeferConstraints(ctx, ix.db)
	if err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	ix.constraintsDeferred = true
	if ix.bulk == nil {
		// A load resumed by a new process: what its batches kept in memory is gone with the
		// old one, so the tables are derived up to the head from the rows above their mark.
		began := time.Now()
		if err := db.CheckpointDerived(ctx, ix.db, nil); err != nil {
			return fmt.Errorf("bulk load: %w", err)
		}
		ix.log.Info("bulk load: derived tables brought up to the head", "took", time.Since(began).Round(time.Millisecond))
		ix.bulk = newBulkMemory()
	}
	metrics.IndexerBulkLoading.Set(1)
	ix.log.Info("bulk load: secondary indexes and foreign keys dropped until the catch-up ends",
		"from", next, "to", end, "dropped", n)
	if err := ix.catchUp(ctx, next, end, headHash, haveHead); err != nil {
		return err // the next step resumes the bulk load, or restores
	}
	return ix.restoreConstraints(ctx)
}

// restoreConstraints rebuilds what a bulk load deferred, if anything.
func (ix *Indexer) restoreConstraints(ctx context.Context) error {
	if !ix.constraintsDeferred {
		return nil
	}
	began := time.Now()
	var kept *db.BulkKept
	if ix.bulk != nil {
		kept = ix.bulk.written()
	}
	ix.bulk = nil // written, or, if the restore fails, derived from the rows by the next one
	n, err := db.RestoreConstraintsWith(ctx, ix.db, kept)
	if err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	ix.constraintsDeferred = false
	metrics.IndexerBulkLoading.Set(0)
	if n > 0 {
		took := time.Since(began)
		ix.log.Info("bulk load: secondary indexes and foreign keys rebuilt", "rebuilt", n, "took", took.Round(time.Millisecond))
		if ix.cfg.OnCatchUp != nil {
			ix.cfg.OnCatchUp(CatchUpEvent{Rebuilt: took})
		}
	}
	return nil
}

// keepBulk keeps, after a bulk load's batch committed, the balances and counts it read and
// wrote; past BulkLoadBalances, the derived tables are written up to the head and the memory
// is emptied.
func (ix *Indexer) keepBulk(ctx context.Context, w *batchWriter) error {
	if ix.bulk == nil {
		return nil
	}
	ix.bulk.keep(w)
	if ix.bulk.size() <= ix.cfg.BulkLoadBalances {
		return nil
	}
	began, size := time.Now(), ix.bulk.size()
	if err := db.CheckpointDerived(ctx, ix.db, ix.bulk.written()); err != nil {
		ix.bulk = nil // the next step derives them from the rows
		return fmt.Errorf("bulk load: %w", err)
	}
	ix.log.Info("bulk load: memory past --bulk-load-balances; derived tables written up to the head",
		"kept", size, "took", time.Since(began).Round(time.Millisecond))
	return nil
}
