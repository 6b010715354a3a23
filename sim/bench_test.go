package sim

import (
	"context"
	"fmt"
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
	c := New(Config{Seed: 1, Blocks: 1 << 30})
	txs := 0
	n := 1000
	start := time.Now()
	for b.Loop() {
		body := "["
		for i := 0; i < 10; i++ {
			if i > 0 {
				body += ","
			}
			body += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"starknet_getBlockWithReceipts","params":[{"block_number":%d}]}`, i, n+i)
		}
		out, herr := c.rpc.Handle(context.Background(), []byte(body+"]"))
		if herr != nil || len(out) == 0 {
			b.Fatal("no answer")
		}
		for i := 0; i < 10; i++ {
			txs += len(c.block(uint64(n + i)).txs)
		}
		n += 10
	}
	b.ReportMetric(float64(txs)/time.Since(start).Seconds(), "tx/s")
}

// BenchmarkServeIndexing serves what the indexer asks for each block, in order from
// genesis: getBlockWithReceipts and getStateUpdate in batches of 10 blocks (the state
// updates carry the storage diffs, which replay the ledger), reported as transactions per
// second.
func BenchmarkServeIndexing(b *testing.B) {
	c := New(Config{Seed: 1, Blocks: 1 << 30})
	txs := 0
	n := 0
	start := time.Now()
	for b.Loop() {
		body := "["
		for i := 0; i < 10; i++ {
			if i > 0 {
				body += ","
			}
			body += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"starknet_getBlockWithReceipts","params":[{"block_number":%d}]},`, 2*i, n+i)
			body += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"starknet_getStateUpdate","params":[{"block_number":%d}]}`, 2*i+1, n+i)
		}
		out, herr := c.rpc.Handle(context.Background(), []byte(body+"]"))
		if herr != nil || len(out) == 0 {
			b.Fatal("no answer")
		}
		for i := 0; i < 10; i++ {
			txs += len(c.block(uint64(n + i)).txs)
		}
		n += 10
	}
	b.ReportMetric(float64(txs)/time.Since(start).Seconds(), "tx/s")
	b.ReportMetric(float64(txs)/float64(n), "tx/block")
}
