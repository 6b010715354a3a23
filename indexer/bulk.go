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

// A bulk load also leaves the tables derived from the rows it appends (erc20_balances, the
// key positions, the sender activity) to be written once from those rows
// (db/bulk_derived.go): they are rewritten by every batch, and their upserts, and the reads
// of the balances before them, were what grew with the database. The balances a batch
// starts from come from bulkBalances, the values the committed batches left, instead; a
// balance missing there has not changed since the derived tables' mark, so erc20_balances
// has it.

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
	if ix.bulkBalances == nil {
		// A load resumed by a new process: the balances its batches kept are gone with the
		// old one, so the derived tables are brought up to the head, where a miss reads them.
		began := time.Now()
		if err := db.CheckpointDerived(ctx, ix.db); err != nil {
			return fmt.Errorf("bulk load: %w", err)
		}
		ix.log.Info("bulk load: derived tables brought up to the head", "took", time.Since(began).Round(time.Millisecond))
		ix.bulkBalances = map[[2]starknet.Felt]balance{}
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
	n, err := db.RestoreConstraints(ctx, ix.db)
	if err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	ix.constraintsDeferred = false
	ix.bulkBalances = nil
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

// keepBulkBalances keeps, after a bulk load's batch committed, the balances it read and
// wrote; past BulkLoadBalances, the derived tables are written up to the head and the memory
// is emptied.
func (ix *Indexer) keepBulkBalances(ctx context.Context, w *batchWriter) error {
	if ix.bulkBalances == nil {
		return nil
	}
	for k, b := range w.balances {
		ix.bulkBalances[k] = *b
	}
	if len(ix.bulkBalances) <= ix.cfg.BulkLoadBalances {
		return nil
	}
	began := time.Now()
	if err := db.CheckpointDerived(ctx, ix.db); err != nil {
		ix.bulkBalances = nil // the next step brings them up again
		return fmt.Errorf("bulk load: %w", err)
	}
	ix.log.Info("bulk load: balances in memory past --bulk-load-balances; derived tables written up to the head",
		"balances", len(ix.bulkBalances), "took", time.Since(began).Round(time.Millisecond))
	clear(ix.bulkBalances)
	return nil
}
