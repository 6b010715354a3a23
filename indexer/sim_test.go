package indexer

import (
	"context"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

// simNode serves a simulated chain over HTTP.
func simNode(t testing.TB, cfg sim.Config) (*sim.Chain, string) {
	t.Helper()
	chain := sim.New(cfg)
	srv := httptest.NewServer(chain.Handler())
	t.Cleanup(srv.Close)
	return chain, srv.URL
}

func simHead(chain *sim.Chain) int64 {
	n, _ := chain.Head()
	return int64(n)
}

// freshIndex indexes the chain at url from genesis to stopAt into a new database.
func freshIndex(t *testing.T, url string, stopAt int64) *sqlx.DB {
	t.Helper()
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, stopAt, nil)
	return d
}

// checkConsistent asserts that the database stands at a block boundary: blocks are
// contiguous and every counter matches the rows it counts.
func checkConsistent(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var c struct {
		Blocks     int64  `db:"blocks"`
		MaxBlock   *int64 `db:"max_block"`
		Txs        int64  `db:"txs"`
		TxSum      int64  `db:"tx_sum"`
		Events     int64  `db:"events"`
		CountBlock int64  `db:"count_blocks"`
		CountTx    int64  `db:"count_txs"`
		CountEv    int64  `db:"count_events"`
		Head       *int64 `db:"head"`
	}
	err := d.Get(&c, `SELECT (SELECT count(*) FROM blocks) AS blocks, (SELECT max(number) FROM blocks) AS max_block,
		(SELECT count(*) FROM transactions) AS txs, (SELECT coalesce(sum(tx_count), 0) FROM blocks) AS tx_sum,
		(SELECT count(*) FROM events) AS events,
		coalesce((SELECT count FROM list_counts WHERE name = 'blocks'), 0) AS count_blocks,
		coalesce((SELECT count FROM list_counts WHERE name = 'transactions'), 0) AS count_txs,
		coalesce((SELECT count FROM list_counts WHERE name = 'events'), 0) AS count_events,
		(SELECT head_block FROM indexer_state) AS head`)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxBlock != nil && c.Blocks != *c.MaxBlock+1 {
		t.Fatalf("blocks are not contiguous from 0: %d rows, max %d", c.Blocks, *c.MaxBlock)
	}
	if c.Txs != c.TxSum || c.Blocks != c.CountBlock || c.Txs != c.CountTx || c.Events != c.CountEv {
		t.Fatalf("not at a block boundary: %+v", c)
	}
	if c.MaxBlock != nil && (c.Head == nil || *c.Head != *c.MaxBlock) {
		t.Fatalf("indexer_state head %v, newest block %d", c.Head, *c.MaxBlock)
	}
}

func TestCrashSafety(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 7, Blocks: 120, TxPerBlock: 20})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))

	d := dbtest.New(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		cfg := Config{RPCURL: url, DB: d, FromBlock: 0, StopAt: head, Logger: quietLogger(),
			PollInterval: 50 * time.Millisecond, BatchSize: 1 + rng.IntN(10), MaxReorgDepth: 64}
		ix, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Kill the indexer at a random moment: its context ends mid-fetch or mid-transaction.
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+rng.IntN(60))*time.Millisecond)
		_ = ix.Run(ctx)
		cancel()
		checkConsistent(t, d)
	}
	runIndexer(t, d, url, 0, head, nil)
	checkConsistent(t, d)
	if !equalSnapshots(t, want, snapshot(t, d)) {
		t.Fatal("the end state after 20 kills differs from an uninterrupted run")
	}
}

func TestReorgs(t *testing.T) {
	for _, depth := range []uint64{1, 5, 50} {
		t.Run("depth"+itoa(depth), func(t *testing.T) {
			chain, url := simNode(t, sim.Config{Seed: 11 + depth, Blocks: 70, TxPerBlock: 10})
			d := dbtest.New(t)
			runIndexer(t, d, url, 0, simHead(chain), nil)
			chain.Reorg(depth)
			chain.AddBlocks(3)
			head := simHead(chain)
			runIndexer(t, d, url, 0, head, nil)
			checkConsistent(t, d)
			want := snapshot(t, freshIndex(t, url, head))
			if !equalSnapshots(t, want, snapshot(t, d)) {
				t.Fatalf("after a reorg of depth %d the state differs from a fresh index of the winning chain", depth)
			}
		})
	}
}

func TestMalformedAnswers(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 3, Blocks: 40, TxPerBlock: 10, SlowDelay: 100 * time.Millisecond})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))
	for i, kind := range []sim.FaultKind{sim.MalformedJSON, sim.MissingField, sim.WrongParentHash, sim.HTTP500, sim.Slow} {
		chain.InjectFault(sim.Fault{Kind: kind, Block: uint64(5 + 7*i), Times: 2})
	}
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, head, nil)
	checkConsistent(t, d)
	if !equalSnapshots(t, want, snapshot(t, d)) {
		t.Fatal("faulty answers changed what was written")
	}
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}
