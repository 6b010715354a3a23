package indexer

import (
	"context"
	"math/big"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// indexAndCall indexes the chain to its head and then reads balances by calls as the
// indexer does between polls once caught up, with no bound on the calls.
func indexAndCall(t *testing.T, d *sqlx.DB, url string, head int64) {
	t.Helper()
	ix, err := New(Config{RPCURL: url, DB: d, StopAt: head, Logger: quietLogger(), BalanceCallsPerSecond: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if ix.head != head {
		t.Fatalf("indexed to %d, want %d", ix.head, head)
	}
	if err := ix.readCallBalances(ctx); err != nil {
		t.Fatal(err)
	}
	// The reads wait for a block's transaction; not following (StopAt), they commit at once.
	if err := ix.flushSide(ctx); err != nil {
		t.Fatal(err)
	}
}

// checkCallBalances: the interest-bearing token, and it alone, is known by calls, and each
// of its holders has a call-read balance equal to balance_of at the block it was read at,
// which is head.
func checkCallBalances(t *testing.T, d *sqlx.DB, url string, head int64, interest string) {
	t.Helper()
	var calls []db.Felt
	if err := d.Select(&calls, `SELECT address FROM tokens WHERE balances_source = 'calls'`); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].Starknet().Hex() != interest {
		t.Fatalf("tokens known by calls: %v, want the interest-bearing %s alone", calls, interest)
	}
	var rows []db.CallBalance
	if err := d.Select(&rows, `SELECT token_address, owner_address, balance::text AS balance, read_block FROM call_balances ORDER BY 2`); err != nil {
		t.Fatal(err)
	}
	var holders int
	if err := d.Get(&holders, `SELECT count(*) FROM erc20_balances WHERE token_address = $1 AND balance > 0`, calls[0]); err != nil {
		t.Fatal(err)
	}
	if len(rows) != holders || holders < 50 {
		t.Fatalf("%d call-read balances for %d holders", len(rows), holders)
	}
	node := rpc.NewClient(url)
	var b rpc.MixedBatch
	results := make([]*rpc.CallCall, len(rows))
	for i, r := range rows {
		if r.ReadBlock != head {
			t.Fatalf("balance of %s read at %d, head %d", r.OwnerAddress.Starknet().Hex(), r.ReadBlock, head)
		}
		results[i] = b.Call(uint64(r.ReadBlock), r.TokenAddress.Starknet(), starknet.Selector("balance_of"), []starknet.Felt{r.OwnerAddress.Starknet()})
	}
	if err := node.Send(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		out, err := results[i].Result()
		if err != nil {
			t.Fatal(err)
		}
		if want := new(big.Int).Add(out[0].Big(), new(big.Int).Lsh(out[1].Big(), 128)).String(); want != r.Balance {
			t.Errorf("call-read balance of %s: %s, balance_of at %d says %s", r.OwnerAddress.Starknet().Hex(), r.Balance, r.ReadBlock, want)
		}
	}
}

// TestCallBalances: once caught up the indexer finds the token whose balance_of no event or
// storage write tells, reads its holders' balances by calls with the block of each read, reads
// them again at a newer head, and a reorg takes back the reads above its fork point.
func TestCallBalances(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 31, Blocks: 80, TxPerBlock: 6})
	interest := chain.OddTokens().Interest
	d := dbtest.New(t)
	indexAndCall(t, d, url, simHead(chain))
	checkCallBalances(t, d, url, simHead(chain), interest)

	chain.AddBlocks(4)
	indexAndCall(t, d, url, simHead(chain))
	checkCallBalances(t, d, url, simHead(chain), interest)

	fork := simHead(chain) - 3 // the newest block the reorg keeps
	chain.Reorg(3)
	chain.AddBlocks(1)
	head := simHead(chain)
	runIndexer(t, d, url, 0, head, nil)
	var above int
	if err := d.Get(&above, `SELECT count(*) FROM call_balances WHERE read_block > $1`, fork); err != nil || above != 0 {
		t.Fatalf("%d call-read balances above the fork point (%v)", above, err)
	}
	indexAndCall(t, d, url, head)
	checkCallBalances(t, d, url, head, interest)
}
