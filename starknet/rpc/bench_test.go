package rpc

import (
	"context"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/internal/fixtures"
)

// BenchmarkDecodeBlock measures JSON decoding and normalisation of a 45-transaction block
// with 200+ events; ns/op divided by 45 is the per-transaction cost.
func BenchmarkDecodeBlock(b *testing.B) {
	data := fixtures.Read(b, "sepolia-56377/blocks/56377.json")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var w *wireBlock
		if err := json.Unmarshal(data, &w); err != nil {
			b.Fatal(err)
		}
		if _, err := w.normalise(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBatchOverHTTP fetches the three blocks of sepolia-56377 (136 transactions) in
// one batch from a local server.
func BenchmarkBatchOverHTTP(b *testing.B) {
	srv := fixtures.NewServer(b, "sepolia-56377")
	c := NewClient(srv.URL)
	b.ReportAllocs()
	for b.Loop() {
		blocks, err := c.BlocksWithReceipts(context.Background(), 56377, 56379)
		if err != nil || len(blocks) != 3 {
			b.Fatal(err)
		}
	}
}
