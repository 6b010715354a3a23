package indexer

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

// One data version a block (issue 56, the crowd): while the indexer follows the head, every
// commit that writes a table the answers read announces on db.DataChannel, and each notice
// makes every cached answer stale. Polling the node many times a block, accepting blocks on
// L1 (the simulated chain accepts one a block) and reading balances by calls (its
// interest-bearing token changes every block) must not each cost a version: they join the
// next block's transaction, or write nothing when nothing changed.
//
// The bound is one notice a block plus 2: the blocks' batches are one a block; the
// allowance covers a probe that finds a token whose balances come from calls (a one-time
// change, committed on its own) and a block that the indexer took in two polls' batches.
// Before the fix (16 polls a block here) the run heard 206 notices for 8 blocks: the node
// head recorded on every poll, balances read by calls committed on their own, L1 acceptance
// on its own, and the felt ids a batch assigns before it (felt_ids announced).
func TestOneDataVersionPerBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a simulated chain for a few seconds")
	}
	d, url := dbtest.NewWithURL(t)
	chain, node := simNode(t, sim.Config{Seed: 11, Blocks: 30, L1Lag: 3, TxPerBlock: 10})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ix, err := New(Config{RPCURL: node, DB: d, StopAt: -1, Logger: quietLogger(),
		PollInterval: 25 * time.Millisecond, FinalityInterval: 100 * time.Millisecond, BalanceCallsPerSecond: 500})
	if err != nil {
		t.Fatal(err)
	}
	ix.sideHold = 2 * time.Second
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("indexer: %v", err)
		}
	}()

	// Caught up, and the probes have gone round the tokens once (finding the call tokens).
	waitHead(t, d, simHead(chain))
	time.Sleep(time.Second)
	var calls int
	if err := d.Get(&calls, `SELECT count(*) FROM tokens WHERE balances_source = 'calls'`); err != nil || calls == 0 {
		t.Fatalf("no token's balances come from calls (%v): the run does not read balances by calls", err)
	}

	listener := pq.NewListener(url, 10*time.Millisecond, time.Second, nil)
	defer listener.Close()
	if err := listener.Listen(db.DataChannel); err != nil {
		t.Fatal(err)
	}
	var notices atomic.Int64
	go func() {
		for range listener.Notify {
			notices.Add(1)
		}
	}()
	time.Sleep(100 * time.Millisecond)
	quiet := notices.Load() // what the indexer announced with no new block: nothing, ideally
	const blocks = 8
	var readBefore int64
	_ = d.Get(&readBefore, `SELECT coalesce(max(read_block), -1) FROM call_balances`)
	for range blocks {
		chain.AddBlocks(1)
		time.Sleep(400 * time.Millisecond) // 16 polls a block
	}
	waitHead(t, d, simHead(chain))
	time.Sleep(300 * time.Millisecond)
	got := notices.Load()
	var callsAfter int
	_ = d.Get(&callsAfter, `SELECT count(*) FROM tokens WHERE balances_source = 'calls'`)
	var l2 int64
	var readAfter int64
	_ = d.Get(&l2, `SELECT min(number) FROM blocks WHERE status = 'ACCEPTED_ON_L2'`)
	_ = d.Get(&readAfter, `SELECT coalesce(max(read_block), -1) FROM call_balances`)
	t.Logf("%d notices for %d blocks (%.2f a block; %d with no new block); oldest L2 block %d of head %d; balances read by calls at block %d, then %d; %d tokens' balances from calls, then %d",
		got, blocks, float64(got)/blocks, quiet, l2, simHead(chain), readBefore, readAfter, calls, callsAfter)
	if got > blocks+2 {
		t.Errorf("%d data versions for %d new blocks: want at most one a block (plus 2)", got, blocks)
	}
	// What the versions must still carry: L1 acceptance and balances read by calls follow.
	if l2 < simHead(chain)-5 {
		t.Errorf("oldest block on L2 %d, head %d: L1 acceptance did not follow", l2, simHead(chain))
	}
	if readAfter <= readBefore {
		t.Errorf("balances read by calls at block %d before the blocks and %d after: they did not follow", readBefore, readAfter)
	}
	// With no block coming, what was held is written on its own after sideHold.
	time.Sleep(ix.sideHold + 500*time.Millisecond)
	_ = d.Get(&readAfter, `SELECT coalesce(max(read_block), -1) FROM call_balances`)
	if readAfter != simHead(chain) {
		t.Errorf("balances read by calls at block %d, %v after the last block %d: held for good", readAfter, ix.sideHold, simHead(chain))
	}
}

func waitHead(t *testing.T, d *sqlx.DB, head int64) {
	t.Helper()
	for range 600 {
		h, _, ok, err := db.IndexedHead(context.Background(), d)
		if err == nil && ok && h >= head {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the indexer did not reach block %d", head)
}
