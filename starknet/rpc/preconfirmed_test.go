package rpc_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// The block being built, from a 0.8 node (the simulator): no number, its parent is the
// head, and its transactions so far are the first ones of the block that is accepted next.
func TestPreConfirmedBlock(t *testing.T) {
	ctx := context.Background()
	chain := sim.New(sim.Config{Seed: 21, Blocks: 8, TxPerBlock: 10})
	srv := httptest.NewServer(chain.Handler())
	defer srv.Close()
	c := rpc.NewClient(srv.URL)
	pc, err := c.PreConfirmed(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.BlockTxHashes(ctx, rpc.Latest())
	if err != nil {
		t.Fatal(err)
	}
	if pc.Number != nil || pc.ParentHash == nil || *pc.ParentHash != head.Hash || len(pc.TransactionHashes) == 0 {
		t.Fatalf("block being built: number %v, parent %v (head %s), %d transactions", pc.Number, pc.ParentHash, head.Hash, len(pc.TransactionHashes))
	}
	chain.AddBlocks(1)
	next, err := c.BlockTxHashes(ctx, rpc.AtNumber(head.Number+1))
	if err != nil {
		t.Fatal(err)
	}
	if next.Timestamp != pc.Timestamp || len(pc.TransactionHashes) >= len(next.TransactionHashes) ||
		!slices.Equal(next.TransactionHashes[:len(pc.TransactionHashes)], pc.TransactionHashes) {
		t.Fatalf("the accepted block does not begin with the block being built: %d of %d transactions", len(pc.TransactionHashes), len(next.TransactionHashes))
	}
}
