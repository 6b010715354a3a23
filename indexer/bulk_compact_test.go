package indexer

import (
	"testing"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

// TestBulkLoadLeavesIndexesCompact: after a bulk load, the indexes whose rows land in the
// middle of a key's range (an emitter's events, a selector's, a token's transfers, a type's
// transactions, the unique index keyed by token and owner, the transactions by hash, by address) are
// about as small as the same index built again at once. Kept up row by row through the
// load, page splits left them 1.6-1.8 times that size (docs/performance.md "Storage").
func TestBulkLoadLeavesIndexesCompact(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 3, Blocks: 120, TxPerBlock: 60})
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, simHead(chain), bulkTweak)
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM transactions`); err != nil || n < 5000 {
		t.Fatalf("%d transactions (%v): the test needs enough rows to split pages", n, err)
	}
	// The size of an index (its partitions' together) now and once rebuilt.
	const size = `SELECT coalesce(sum(pg_relation_size(c.oid)), 0) FROM pg_class c
		WHERE c.oid = $1::regclass AND c.relkind = 'i'
		   OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = $1::regclass)`
	for _, name := range []string{"events_from", "events_key0", "token_transfers_token", "transactions_type",
		"erc20_balance_changes_pkey", "transactions_hash", "token_transfers_from", "transactions_sender"} {
		var loaded, rebuilt int64
		if err := d.Get(&loaded, size, name); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Exec(`REINDEX INDEX ` + name); err != nil { // partitioned: each partition's, outside a transaction
			t.Fatal(err)
		}
		if err := d.Get(&rebuilt, size, name); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes after the bulk load, %d rebuilt", name, loaded, rebuilt)
		if float64(loaded) > 1.2*float64(rebuilt) {
			t.Errorf("%s takes %d bytes after a bulk load, %.2f times the %d of the same index rebuilt", name, loaded, float64(loaded)/float64(rebuilt), rebuilt)
		}
	}
}
