package indexer

import (
	"context"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
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

// freshIndex indexes the chain at url from genesis to stopAt into a new database. It
// writes in multi-block transactions without an undo journal (a reorg window of one
// block), so comparing with it also checks that both write paths derive the same rows.
func freshIndex(t *testing.T, url string, stopAt int64) *sqlx.DB {
	t.Helper()
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, stopAt, func(c *Config) { c.MaxReorgDepth = 1 })
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
	checkSenderActivity(t, d)
	checkNFTHolders(t, d)
	checkStakingFigures(t, d)
	checkStakingHistory(t, d)
	wrong := dbtest.RankSpansWrong(t, d)
	// A stopped bulk load counts the spans of the ERC-20 holders (list 1) only once it ends
	// (db/bulk.go): until then they may lag.
	if deferred, err := db.ConstraintsDeferred(context.Background(), d); err != nil {
		t.Fatal(err)
	} else if deferred {
		wrong = slices.DeleteFunc(wrong, func(w string) bool { return strings.HasPrefix(w, "list 1 ") })
	}
	if len(wrong) > 0 {
		t.Fatalf("the spans of holders and contracts do not count their rows:\n%v", wrong)
	}
	if wrong := dbtest.NftSaleStatsWrong(t, d); len(wrong) > 0 {
		t.Fatalf("the NFT sale statistics are not their sales':\n%v", wrong)
	}
}

// checkStakingHistory asserts that the staking history ends where the staking state is:
// each validator's newest day, and the network's, hold its current stake and delegators;
// liveness counts the distinct epochs attested; the log's totals count its rows.
func checkStakingHistory(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var wrong []string
	err := d.Select(&wrong, `WITH now AS (
			SELECT staker_address, self_stake + delegated_stake_strk AS strk, delegated_stake_btc AS btc, total_delegators AS delegators
			FROM validators
			UNION ALL
			SELECT '\x'::bytea, coalesce(sum(self_stake + delegated_stake_strk), 0), coalesce(sum(delegated_stake_btc), 0),
				coalesce(sum(total_delegators), 0) FROM validators HAVING count(*) > 0),
		newest AS (SELECT DISTINCT ON (staker_address) staker_address, stake_strk, stake_btc, delegators
			FROM validator_days ORDER BY staker_address, day DESC)
		SELECT 'day of ' || encode(n.staker_address, 'hex') || ': ' || coalesce(h::text, 'none') || ', state ' || n::text
		FROM now n LEFT JOIN newest h USING (staker_address)
		WHERE (h.stake_strk, h.stake_btc, h.delegators) IS DISTINCT FROM (n.strk, n.btc, n.delegators)
		UNION ALL
		SELECT 'liveness of ' || encode(v.staker_address, 'hex') || ': ' || v.liveness_attested_epochs || ' vs ' || count(DISTINCT a.epoch)
		FROM validators v LEFT JOIN attestations a USING (staker_address)
		GROUP BY v.staker_address, v.liveness_attested_epochs HAVING v.liveness_attested_epochs <> count(DISTINCT a.epoch)
		UNION ALL
		SELECT c.name || ' counted ' || c.count || ', rows ' || x.n FROM list_counts c
		JOIN (SELECT 'staking_activity' AS name, count(*) AS n FROM staking_activity
			UNION ALL SELECT 'attestations', count(*) FROM attestations) x USING (name)
		WHERE c.count <> x.n`)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Fatalf("the staking history disagrees with the state:\n%s", strings.Join(wrong, "\n"))
	}
}

// checkStakingFigures asserts that the staking figures kept for reads are what the views
// that define them compute from the current rows.
func checkStakingFigures(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var differ int
	err := d.Get(&differ, `SELECT (SELECT count(*) FROM (
			(SELECT staker_address, rank, apr, pool_apr_strk FROM validator_economics
			 EXCEPT SELECT staker_address, rank, apr, pool_apr_strk FROM validator_figures)
			UNION ALL
			(SELECT staker_address, rank, apr, pool_apr_strk FROM validator_figures
			 EXCEPT SELECT staker_address, rank, apr, pool_apr_strk FROM validator_economics)) x)
		+ (SELECT count(*) FROM staking_economy e FULL JOIN staking_figures f ON true
			WHERE (e.total_stake_strk, e.total_stake_btc, e.yearly_mint, e.btc_share, e.base_apr_strk)
				IS DISTINCT FROM (f.total_stake_strk, f.total_stake_btc, f.yearly_mint, f.btc_share, f.base_apr_strk))`)
	if err != nil {
		t.Fatal(err)
	}
	if differ > 0 {
		t.Fatalf("%d staking figures differ from the views that define them", differ)
	}
}

// checkNFTHolders asserts that nft_holders holds, for every (collection, owner) pair with
// positive balances, their sum, smallest token and latest transfer time, and nothing else.
func checkNFTHolders(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var wrong []string
	err := d.Select(&wrong, `WITH want AS (SELECT contract_address, owner_address, min(token_id) AS token_id,
			sum(balance) AS held, max(last_transfer_time) AS last_transfer_time
			FROM nft_balances WHERE balance > 0 GROUP BY 1, 2)
		SELECT coalesce(w::text, '-') || ' kept as ' || coalesce(h::text, '-')
		FROM want w FULL JOIN nft_holders h USING (contract_address, owner_address)
		WHERE (w.token_id, w.held, w.last_transfer_time) IS DISTINCT FROM (h.token_id, h.held, h.last_transfer_time) LIMIT 5`)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Fatalf("nft_holders differs from nft_balances: %v", wrong)
	}
}

// checkSenderActivity asserts that the sender activity tables hold, for every sender, its
// newest block, and for every block the number of senders whose newest block it is, as
// recomputed from the transactions: those up to where a stopped bulk load left the tables it
// derives (indexer_state.derived_through), all of them otherwise.
func checkSenderActivity(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var derivedThrough *int64
	if err := d.Get(&derivedThrough, `SELECT derived_through FROM indexer_state`); err != nil {
		t.Fatal(err)
	}
	var wrong []string
	err := d.Select(&wrong, `WITH want AS (SELECT sender_address, max(block_number) AS block_number
			FROM transactions_named WHERE sender_address IS NOT NULL AND ($1::bigint IS NULL OR block_number <= $1) GROUP BY 1),
		want_counts AS (SELECT block_number, count(*)::int AS senders FROM want GROUP BY 1)
		(SELECT 'sender ' || coalesce(encode(w.sender_address, 'hex'), encode(s.sender_address, 'hex'))
			FROM want w FULL JOIN sender_last_blocks s USING (sender_address)
			WHERE w.block_number IS DISTINCT FROM s.block_number LIMIT 5)
		UNION ALL
		(SELECT 'block ' || coalesce(w.block_number, a.block_number) || ': ' || coalesce(a.senders, 0) || ' senders, want ' || coalesce(w.senders, 0)
			FROM want_counts w FULL JOIN active_sender_blocks a USING (block_number)
			WHERE w.senders IS DISTINCT FROM a.senders LIMIT 5)`, derivedThrough)
	if err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Fatalf("sender activity differs from the transactions: %v", wrong)
	}
	if derivedThrough != nil {
		return // chain_stats counts them again once the load ends
	}
	// The figure kept in chain_stats is the distinct senders of the last day of block time.
	var kept, want int64
	err = d.QueryRow(`SELECT active_accounts, (SELECT count(DISTINCT sender_id) FROM transactions
		WHERE block_number >= (SELECT min(number) FROM blocks WHERE timestamp > (SELECT max(timestamp) FROM blocks) - 86400))
		FROM chain_stats`).Scan(&kept, &want)
	if err != nil {
		t.Fatal(err)
	}
	if kept != want {
		t.Fatalf("chain_stats.active_accounts %d, distinct senders of the last day %d", kept, want)
	}
}

func TestCrashSafety(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 7, Blocks: 100, TxPerBlock: 15})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))
	// A reorg window of 16 blocks: kills land both in multi-block catch-up transactions
	// and in the journaled one-block transactions near the head. Partitions of 8 blocks:
	// kills land while partitions are made too.
	d := dbtest.New(t)
	dbtest.ShortPartitions(t, d, 8)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		cfg := Config{RPCURL: url, DB: d, FromBlock: 0, StopAt: head, Logger: quietLogger(),
			PollInterval: 50 * time.Millisecond, BatchSize: 1 + rng.IntN(10), MaxReorgDepth: 16}
		ix, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Kill the indexer at a random moment: its context ends mid-fetch or mid-transaction.
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(5+rng.IntN(80))*time.Millisecond)
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
			chain, url := simNode(t, sim.Config{Seed: 11 + depth, Blocks: depth + 12, TxPerBlock: 5})
			d := dbtest.NewWithSpanRows(t, 3) // holders and contracts in several spans each
			dbtest.ShortPartitions(t, d, 4)   // a reorg deep enough undoes several partitions' rows
			runIndexer(t, d, url, 0, simHead(chain), nil)
			chain.Reorg(depth)
			chain.AddBlocks(3)
			head := simHead(chain)
			runIndexer(t, d, url, 0, head, nil)
			checkConsistent(t, d)
			var cut int
			if err := d.Get(&cut, `SELECT count(DISTINCT (list, key)) FROM rank_spans WHERE s1 <> 'Infinity'`); err != nil || cut == 0 {
				t.Fatalf("no list was cut in spans (%v): the check of their counts checked one span a key", err)
			}
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

// TestFollowAndFinality runs the indexer in follow mode while the chain grows: it catches
// up, follows new blocks, and moves blocks and their transactions to ACCEPTED_ON_L1 as the
// node reports them.
func TestFollowAndFinality(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 9, Blocks: 20, TxPerBlock: 5, L1Lag: 5})
	d := dbtest.New(t)
	ix, err := New(Config{RPCURL: url, DB: d, StopAt: -1, Logger: quietLogger(), PollInterval: 20 * time.Millisecond,
		FinalityInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				cancel()
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	headIs := func(n int64) func() bool {
		return func() bool {
			var h *int64
			_ = d.Get(&h, `SELECT head_block FROM indexer_state`)
			return h != nil && *h == n
		}
	}
	waitFor("catch-up", headIs(19))
	var l2 int
	if err := d.Get(&l2, `SELECT count(*) FROM blocks WHERE status = 'ACCEPTED_ON_L2'`); err != nil {
		t.Fatal(err)
	}
	if l2 == 0 {
		t.Fatal("no block is ACCEPTED_ON_L2 near the head")
	}
	chain.AddBlocks(10)
	waitFor("following", headIs(29))
	// Everything at least L1Lag below the head is on L1 now, transactions included.
	waitFor("finality", func() bool {
		var stale int
		_ = d.Get(&stale, `SELECT (SELECT count(*) FROM blocks WHERE number <= 24 AND status <> 'ACCEPTED_ON_L1')
			+ (SELECT count(*) FROM transactions WHERE block_number <= 24 AND finality_status <> 'ACCEPTED_ON_L1')`)
		return stale == 0
	})
	var nodeHead *int64
	if err := d.Get(&nodeHead, `SELECT node_head FROM indexer_state`); err != nil || nodeHead == nil || *nodeHead != 29 {
		t.Fatalf("indexer_state.node_head = %v (%v), want 29", nodeHead, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, d)
}

// TestOneWriter starts two indexers on one database: one takes the lock and writes, the
// other waits, and the end state is that of a single run.
func TestOneWriter(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 4, Blocks: 30, TxPerBlock: 5})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))
	d := dbtest.New(t)
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			ix, err := New(Config{RPCURL: url, DB: d, StopAt: head, Logger: quietLogger(), PollInterval: 20 * time.Millisecond})
			if err != nil {
				errs <- err
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			errs <- ix.Run(ctx)
		}()
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	checkConsistent(t, d)
	if !equalSnapshots(t, want, snapshot(t, d)) {
		t.Fatal("two indexers on one database wrote something a single one would not")
	}
}

// An indexer that stops releases its writer lock: the next one on the same pool takes it
// whichever connection it gets (the lock was held by the pooled session, idle, for good).
func TestStoppedIndexerReleasesItsLock(t *testing.T) {
	_, url := simNode(t, sim.Config{Seed: 31, Blocks: 10, TxPerBlock: 3})
	d := dbtest.New(t)
	d.SetMaxIdleConns(10) // the pool keeps the lock's connection, as a server's pool does
	runIndexer(t, d, url, 0, 5, nil)
	// Keep the connection the first indexer's lock was on (the last one returned) busy,
	// so that the second gets another one.
	held, err := d.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ix, err := New(Config{RPCURL: url, DB: d, StopAt: 8, Logger: quietLogger(), PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := ix.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("the second indexer did not run: %v, %v", err, ctx.Err())
	}
}
