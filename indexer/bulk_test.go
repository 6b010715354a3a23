package indexer

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/sim"
)

// bulkTweak makes every catch-up of more than 50 blocks a bulk load.
func bulkTweak(c *Config) { c.BulkLoadMinBlocks = 50; c.MaxReorgDepth = 8 }

// TestBulkLoad indexes a chain as a bulk load, across block partitions it makes as it
// goes, and checks that it ends with the schema it started with and the rows a load
// through the indexes (into one partition) writes; then that a bulk load
// stopped half way leaves its constraints recorded, and that the next run finishes the
// load and rebuilds them.
func TestBulkLoad(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 7, Blocks: 160, TxPerBlock: 12})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))

	d := dbtest.New(t)
	dbtest.ShortPartitions(t, d, 16) // ten partitions, made by the indexer as it goes
	schema := dbtest.Schema(t, d)
	runIndexer(t, d, url, 0, head, bulkTweak)
	if got := dbtest.Schema(t, d); !slices.Equal(got, schema) {
		t.Fatalf("the bulk load changed the schema:\n got %q\nwant %q", got, schema)
	}
	if deferred, err := db.ConstraintsDeferred(context.Background(), d); err != nil || deferred {
		t.Fatalf("constraints still deferred after the load: %v %v", deferred, err)
	}
	if !equalSnapshots(t, want, snapshot(t, d)) {
		t.Fatal("the bulk load wrote other rows than a load through the indexes")
	}
	checkConsistent(t, d)
	var parts int
	if err := d.Get(&parts, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass`); err != nil || parts < 10 {
		t.Fatalf("events has %d partitions (%v); 160 blocks need 10", parts, err)
	}

	t.Run("interrupted", func(t *testing.T) {
		d := dbtest.New(t)
		dbtest.ShortPartitions(t, d, 16)
		cfg := Config{RPCURL: url, DB: d, StopAt: head, Logger: quietLogger(), PollInterval: 50 * time.Millisecond, BatchSize: 5}
		bulkTweak(&cfg)
		ix, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ix.writeTxTarget = 50 // several SQL transactions, to stop between
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ix.Run(ctx) }()
		for deadline := time.Now().Add(30 * time.Second); ; {
			if n, _, ok, err := db.IndexedHead(ctx, d); err != nil {
				t.Fatal(err)
			} else if ok && n >= 40 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the indexer did not reach block 40")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		stoppedAt, _, _, _ := db.IndexedHead(context.Background(), d)
		if stoppedAt >= head-8 {
			t.Fatalf("stopped at %d, past the bulk load; the test needs it stopped inside", stoppedAt)
		}
		if deferred, err := db.ConstraintsDeferred(context.Background(), d); err != nil || !deferred {
			t.Fatalf("a stopped bulk load should leave its constraints recorded: %v %v", deferred, err)
		}
		if g := testutil.ToFloat64(metrics.IndexerBulkLoading); g != 1 {
			t.Errorf("indexer_bulk_loading = %v during a stopped bulk load, want 1", g)
		}
		if slices.Equal(dbtest.Schema(t, d), schema) {
			t.Fatal("a stopped bulk load should not have rebuilt the indexes")
		}
		checkConsistent(t, d)

		runIndexer(t, d, url, 0, head, bulkTweak)
		if got := dbtest.Schema(t, d); !slices.Equal(got, schema) {
			t.Fatalf("the resumed load did not restore the schema:\n got %q\nwant %q", got, schema)
		}
		if g := testutil.ToFloat64(metrics.IndexerBulkLoading); g != 0 {
			t.Errorf("indexer_bulk_loading = %v after the load, want 0", g)
		}
		if !equalSnapshots(t, want, snapshot(t, d)) {
			t.Fatal("the resumed bulk load wrote other rows than a load through the indexes")
		}
	})
}

// TestBulkLoadDerivesWhatItDefers: the tables a bulk load derives from its rows at its end
// (db/bulk_derived.go) come out as batch-by-batch writes make them, with many key marks
// (one every 7 rows) and with the balances kept in memory past their bound at every batch,
// so that the load writes the derived tables up to the head again and again and reads its
// balances back from erc20_balances.
func TestBulkLoadDerivesWhatItDefers(t *testing.T) {
	defer func(every int64) { db.MarkEvery = every }(db.MarkEvery)
	db.MarkEvery = 7
	chain, url := simNode(t, sim.Config{Seed: 11, Blocks: 160, TxPerBlock: 12})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))
	for _, bound := range []int{defaultBulkLoadBalances, 40} {
		d := dbtest.New(t)
		var logs bytes.Buffer
		runIndexer(t, d, url, 0, head, func(c *Config) {
			bulkTweak(c)
			c.BulkLoadBalances = bound
			c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		})
		if !equalSnapshots(t, want, snapshot(t, d)) {
			t.Fatalf("balances bound %d: the bulk load derived other rows than batch-by-batch writes", bound)
		}
		checkConsistent(t, d)
		var marks int
		if err := d.Get(&marks, `SELECT count(*) FROM key_marks`); err != nil || marks < 100 {
			t.Fatalf("%d key marks (%v): the test needs many", marks, err)
		}
		checkpoints := strings.Count(logs.String(), "memory past --bulk-load-balances")
		if wantSome := bound < 100; (checkpoints > 0) != wantSome {
			t.Errorf("balances bound %d: %d checkpoints", bound, checkpoints)
		}
	}
}

// TestBulkLoadEnd: a catch-up is a bulk load when it is long and at least doubles the chain,
// and it stops short of the blocks the node may still reorganise.
func TestBulkLoadEnd(t *testing.T) {
	for _, c := range []struct {
		name                string
		head, next, target  int64 // head -1: empty database
		nodeHead, minBlocks int64
		wantEnd             int64
		wantBulk            bool
	}{
		{"first sync", -1, 0, 9999, 9999, 1000, 9999 - 64, true},
		{"first sync, stop below the reorg window", -1, 0, 5000, 9999, 1000, 5000, true},
		{"too short", -1, 0, 900, 900, 1000, 900 - 64, false},
		{"would not double the chain", 49_999, 50_000, 60_000, 60_000, 1000, 60_000 - 64, false},
		{"doubles the chain", 9_999, 10_000, 30_000, 30_000, 1000, 30_000 - 64, true},
		{"turned off", -1, 0, 9999, 9999, -1, 0, false},
		{"caught up", 9_999, 10_000, 9_999, 9_999, 1000, 9_999 - 64, false},
	} {
		ix, err := New(Config{RPCURL: "http://node", DB: &sqlx.DB{}, BulkLoadMinBlocks: c.minBlocks})
		if err != nil {
			t.Fatal(err)
		}
		ix.head, ix.nodeHeadSeen = c.head, uint64(c.nodeHead)
		end, bulk := ix.bulkLoadEnd(c.next, c.target)
		if bulk != c.wantBulk || (bulk && end != c.wantEnd) {
			t.Errorf("%s: bulkLoadEnd = %d, %v; want %d, %v", c.name, end, bulk, c.wantEnd, c.wantBulk)
		}
	}
}
