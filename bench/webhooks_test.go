package bench_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/bench"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/webhooks"
)

// The webhooks workload at a tiny scale: 20 webhooks, a block every 300 ms, catch-ups of 6
// blocks. Every webhook is past the last block at the end of the run with them, every
// message of a sample of them arrived once, in order, its latency measured from its block's
// commit; the indexer's block-to-commit times were heard for every block of both runs; the
// catch-ups indexed their blocks' transactions; and the tables show it all. The webhooks are
// gone at the end.
func TestWebhooksWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a growing simulated chain")
	}
	conn, dsn := dbtest.NewWithURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	if _, err := bench.Build(ctx, log, conn, 2000); err != nil {
		t.Fatal(err)
	}
	chain, err := bench.DriveChain(ctx, log, conn, 50*time.Millisecond, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Stop()
	store := db.NewStore(conn)
	d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: store, Logger: log, Poll: 100 * time.Millisecond,
		Sender: webhooks.NewSender(webhooks.Options{AllowHTTP: true, AllowLoopback: true})})
	dCtx, stopD := context.WithCancel(ctx)
	dDone := make(chan struct{})
	go func() { defer close(dDone); d.Run(dCtx, dsn) }()
	defer func() { stopD(); <-dDone }()
	var key int64
	if err := conn.Get(&key, `INSERT INTO api_keys (key_hash, key_prefix, plan) VALUES (sha256('b'), 'sg_b', 'free') RETURNING id`); err != nil {
		t.Fatal(err)
	}

	res, err := bench.RunWebhooks(ctx, conn, chain, bench.WebhooksOptions{DSN: dsn, KeyID: key, Webhooks: 20, Hosts: 3,
		BlockTime: 300 * time.Millisecond, Follow: 1500 * time.Millisecond, CatchUpBlocks: 6, CatchUps: 1, Wake: d.Wake})
	if err != nil {
		t.Fatal(err)
	}
	table := bench.WebhooksMarkdown(res)
	t.Log("\n" + table)
	for _, k := range []string{webhooks.KindBlocks, webhooks.KindTransactions, webhooks.KindTransfers, webhooks.KindEvents} {
		if res.Kinds[k] != 5 {
			t.Errorf("%d %s webhooks, want 5 of each kind: %v", res.Kinds[k], k, res.Kinds)
		}
	}
	if res.ExpectedPerBlock < 5 { // the blocks webhooks alone: 5 a block
		t.Errorf("expected %.1f messages a block", res.ExpectedPerBlock)
	}
	if len(res.Following) != 2 || res.Following[0].Webhooks || !res.Following[1].Webhooks {
		t.Fatalf("following runs: %+v", res.Following)
	}
	for _, f := range res.Following {
		if f.Blocks < 3 || f.IndexerLag.Requests != f.Blocks || f.IndexerLag.P50 <= 0 || f.IndexerLag.P99 < f.IndexerLag.P50 {
			t.Errorf("following (webhooks %v): %d blocks, block to commit heard for %d (p50 %v, p99 %v)", f.Webhooks, f.Blocks,
				f.IndexerLag.Requests, f.IndexerLag.P50, f.IndexerLag.P99)
		}
	}
	with := res.Following[1]
	if with.CaughtUp != 20 || with.Checked != 20 || with.Missing > 0 || with.Unexpected > 0 || with.OutOfOrder > 0 || with.NoCommitTime > 0 {
		t.Errorf("with webhooks: %d caught up, %d checked: %d missing, %d unexpected, %d out of order, %d without a commit time",
			with.CaughtUp, with.Checked, with.Missing, with.Unexpected, with.OutOfOrder, with.NoCommitTime)
	}
	// The blocks webhooks alone are told of every block.
	if with.Messages < 5*with.Blocks || with.PerSecond <= 0 || with.Latency.P50 <= 0 || with.Latency.P99 < with.Latency.P50 ||
		with.Max < with.Latency.P99 || with.Max > time.Minute {
		t.Errorf("with webhooks: %d messages over %d blocks, %.0f/s, latency p50 %v p99 %v max %v", with.Messages, with.Blocks,
			with.PerSecond, with.Latency.P50, with.Latency.P99, with.Max)
	}
	if len(res.CatchUps) != 2 || res.CatchUps[0].Webhooks || !res.CatchUps[1].Webhooks {
		t.Fatalf("catch-ups: %+v", res.CatchUps)
	}
	for _, c := range res.CatchUps {
		// 6 blocks of about 200 transactions each
		if c.Blocks != 6 || c.Transactions < 600 || c.Seconds <= 0 || c.TxPerSecond <= 0 {
			t.Errorf("catch-up (webhooks %v): %+v", c.Webhooks, c)
		}
	}
	if res.CatchUps[0].Messages > 5 { // paused: at most a message in flight for a few
		t.Errorf("%d messages during the catch-up without webhooks", res.CatchUps[0].Messages)
	}
	if res.IndexerRatio <= 0 || res.Receiver.BadSignatures > 0 || res.Receiver.Messages < with.Messages {
		t.Errorf("ratio %.2f, receiver %+v", res.IndexerRatio, res.Receiver)
	}
	for _, want := range []string{"| without webhooks |", "| with 20 webhooks |", "catch-up of 6 blocks", "over without:"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table has no %q", want)
		}
	}
	var left int
	if err := conn.Get(&left, `SELECT count(*) FROM webhooks`); err != nil || left != 0 {
		t.Errorf("%d webhooks left (%v)", left, err)
	}
}
