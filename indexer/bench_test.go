package indexer

import (
	"context"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

// BenchmarkIndex measures indexing end to end: the simulated node over HTTP JSON-RPC,
// decoding, derivation and the writes into PostgreSQL. It reports blocks/s and tx/s for
// a bulk load (COPY with the secondary indexes and foreign keys rebuilt at the end, the
// indexer's way far behind the node), COPY through the indexes (its way near the head) and
// single-row INSERTs (the baseline), in the same run.
//
//	go test ./indexer -run '^$' -bench Index -benchtime 1x
func BenchmarkIndex(b *testing.B) {
	const blocks = 400
	chain, url := simNode(b, sim.Config{Seed: 42, Blocks: blocks + 64, TxPerBlock: 40})
	// The newest 64 blocks are not indexed: near the head blocks are written one per
	// transaction with an undo journal, which a catch-up does not need.
	stopAt := int64(blocks - 1)
	_ = chain
	var bulkTPS float64
	for _, mode := range []struct {
		name     string
		bulk     bool
		oneByOne bool
	}{{"bulk", true, false}, {"copy", false, false}, {"single-row", false, true}} {
		b.Run(mode.name, func(b *testing.B) {
			var txs, events, elapsed float64
			for i := 0; i < b.N; i++ {
				d := dbtest.New(b)
				bulkFrom := int64(-1) // never
				if mode.bulk {
					bulkFrom = 100
				}
				ix, err := New(Config{RPCURL: url, DB: d, StopAt: stopAt, Logger: quietLogger(), Concurrency: 4, BatchSize: 20,
					BulkLoadMinBlocks: bulkFrom})
				if err != nil {
					b.Fatal(err)
				}
				ix.oneByOne = mode.oneByOne
				began := time.Now()
				if err := ix.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(began).Seconds()
				var n struct {
					Txs    int64 `db:"txs"`
					Events int64 `db:"events"`
				}
				if err := d.Get(&n, `SELECT (SELECT count(*) FROM transactions) AS txs, (SELECT count(*) FROM events) AS events`); err != nil {
					b.Fatal(err)
				}
				txs += float64(n.Txs)
				events += float64(n.Events)
			}
			bps := float64(blocks*b.N) / elapsed
			tps := txs / elapsed
			b.ReportMetric(bps, "blocks/s")
			b.ReportMetric(tps, "tx/s")
			b.ReportMetric(events/elapsed, "events/s")
			if mode.bulk {
				bulkTPS = tps
			} else {
				b.ReportMetric(bulkTPS/tps, "bulk-speedup")
			}
		})
	}
}
