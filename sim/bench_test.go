package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkGenerateEncode measures generating a block and encoding its
// getBlockWithReceipts answer, reported as transactions per second.
func BenchmarkGenerateEncode(b *testing.B) {
	c := New(Config{Seed: 1, Blocks: 1 << 30})
	txs := 0
	buf := make([]byte, 0, 1<<20)
	n := uint64(1000)
	start := time.Now()
	for b.Loop() {
		blk := c.w.generate(n, 0, 0)
		buf = encodeBlock(buf[:0], blk, "ACCEPTED_ON_L2", viewReceipts)
		txs += len(blk.txs)
		n++
	}
	b.ReportMetric(float64(txs)/time.Since(start).Seconds(), "tx/s")
	b.ReportMetric(float64(txs)/float64(b.N), "tx/block")
}

// BenchmarkServeBlocks measures the whole JSON-RPC path (request parsing,
// generation, encoding) without the network, for a batch of 10 blocks.
func BenchmarkServeBlocks(b *testing.B) {
	serveBatches(b, 1000, "starknet_getBlockWithReceipts")
}

// BenchmarkServeIndexing serves what the indexer asks for each block, in order from
// genesis: getBlockWithReceipts and getStateUpdate in batches of 10 blocks (the state
// updates carry the storage diffs, which replay the ledger), reported as transactions per
// second.
func BenchmarkServeIndexing(b *testing.B) {
	serveBatches(b, 0, "starknet_getBlockWithReceipts", "starknet_getStateUpdate")
}

// serveBatches asks the simulated node, in batches of 10 blocks from block first on, each of
// methods for every block, and reports the transactions served a second and a block.
func serveBatches(b *testing.B, first int, methods ...string) {
	c := New(Config{Seed: 1, Blocks: 1 << 30})
	txs, n := 0, first
	start := time.Now()
	for b.Loop() {
		var calls []string
		for i := 0; i < 10; i++ {
			for _, m := range methods {
				calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":[{"block_number":%d}]}`, len(calls), m, n+i))
			}
		}
		out, herr := c.rpc.Handle(context.Background(), []byte("["+strings.Join(calls, ",")+"]"))
		if herr != nil || len(out) == 0 {
			b.Fatal("no answer")
		}
		for i := 0; i < 10; i++ {
			txs += len(c.block(uint64(n + i)).txs)
		}
		n += 10
	}
	b.ReportMetric(float64(txs)/time.Since(start).Seconds(), "tx/s")
	b.ReportMetric(float64(txs)/float64(max(n-first, 1)), "tx/block")
}
