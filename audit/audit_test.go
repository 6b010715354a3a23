package audit

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// indexed indexes a simulated chain of blocks blocks into a new database.
func indexed(t *testing.T, blocks uint64) (*sim.Chain, *sqlx.DB, *rpc.Client) {
	t.Helper()
	chain := sim.New(sim.Config{Seed: 17, Blocks: blocks, TxPerBlock: 8})
	srv := httptest.NewServer(chain.Handler())
	t.Cleanup(srv.Close)
	d := dbtest.New(t)
	head, _ := chain.Head()
	ix, err := indexer.New(indexer.Config{RPCURL: srv.URL, DB: d, StopAt: int64(head), Logger: slog.New(slog.DiscardHandler),
		PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := ix.Run(ctx); err != nil || ctx.Err() != nil {
		t.Fatalf("index: %v %v", err, ctx.Err())
	}
	return chain, d, rpc.NewClient(srv.URL)
}

// TestAudit: on a clean database every balance and NFT owner matches the node (the
// interest-bearing token left out); that token's balances, which grow with no event or
// storage write, differ; a planted wrong balance and a planted wrong owner are found and
// named.
func TestAudit(t *testing.T) {
	ctx := context.Background()
	chain, d, node := indexed(t, 120)
	interest := starknet.MustFelt(chain.OddTokens().Interest)
	clean, err := Run(ctx, d, node, Options{Skip: []starknet.Felt{interest}, NFTSample: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(clean.Differences) != 0 || clean.Balances < 500 || clean.Owners < 20 {
		t.Fatalf("clean database: %d balances, %d owners checked at block %d, differences %v", clean.Balances, clean.Owners, clean.Block, clean.Differences)
	}
	t.Logf("clean: %d balances and %d owners at block %d", clean.Balances, clean.Owners, clean.Block)

	grows, err := Run(ctx, d, node, Options{Token: &interest})
	if err != nil {
		t.Fatal(err)
	}
	if len(grows.Differences) == 0 || len(grows.Differences) != grows.Balances {
		t.Errorf("interest-bearing token: %d of %d balances differ", len(grows.Differences), grows.Balances)
	}

	var planted struct {
		Token []byte `db:"token_address"`
		Owner []byte `db:"owner_address"`
	}
	if err := d.Get(&planted, `UPDATE erc20_balances SET balance = balance + 7 WHERE (token_address, owner_address) =
		(SELECT token_address, owner_address FROM erc20_balances WHERE balance > 0 AND token_address <> $1 ORDER BY 1, 2 LIMIT 1)
		RETURNING token_address, owner_address`, interest[:]); err != nil {
		t.Fatal(err)
	}
	var item struct {
		Contract []byte `db:"contract_address"`
		ID       string `db:"token_id"`
	}
	if err := d.Get(&item, `UPDATE nft_items SET owner_address = '\x0123'::bytea WHERE (contract_address, token_id) =
		(SELECT contract_address, token_id FROM nft_items WHERE contract_type = 721 AND owner_address IS NOT NULL ORDER BY 1, 2 LIMIT 1)
		RETURNING contract_address, token_id::text AS token_id`); err != nil {
		t.Fatal(err)
	}
	bad, err := Run(ctx, d, node, Options{Skip: []starknet.Felt{interest}, NFTSample: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad.Differences) != 2 {
		t.Fatalf("planted a wrong balance and a wrong owner, found %v", bad.Differences)
	}
	for _, df := range bad.Differences {
		t.Log(df)
		if df.TokenID == "" && (df.Holder != mustFelt(t, planted.Owner) || df.Token != mustFelt(t, planted.Token)) ||
			df.TokenID != "" && (df.TokenID != item.ID || df.Token != mustFelt(t, item.Contract)) {
			t.Errorf("unexpected difference %v", df)
		}
	}
	// Asked about the planted holder alone, the audit names it too.
	h := mustFelt(t, planted.Owner)
	one, err := Run(ctx, d, node, Options{Holder: &h, Skip: []starknet.Felt{interest}})
	if err != nil || len(one.Differences) != 1 {
		t.Fatalf("holder audit: %v %v", one, err)
	}
}

func mustFelt(t *testing.T, b []byte) starknet.Felt {
	t.Helper()
	f, err := starknet.FeltFromBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAuditCallBalances: a following indexer reads the interest-bearing token's balances by
// calls once caught up; the audit then compares them at the blocks they were read at and finds
// no difference with no token left out (every balance and every ERC-721 owner), and finds a
// planted wrong call-read balance.
func TestAuditCallBalances(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 19, Blocks: 60, TxPerBlock: 6})
	srv := httptest.NewServer(chain.Handler())
	t.Cleanup(srv.Close)
	d := dbtest.New(t)
	ix, err := indexer.New(indexer.Config{RPCURL: srv.URL, DB: d, StopAt: -1, Logger: slog.New(slog.DiscardHandler),
		PollInterval: 20 * time.Millisecond, BalanceCallsPerSecond: 1e4})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	interest := starknet.MustFelt(chain.OddTokens().Interest)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var missing int
		err := d.Get(&missing, `SELECT count(*) FROM erc20_balances b LEFT JOIN call_balances c USING (token_address, owner_address)
			WHERE b.token_address = $1 AND b.balance > 0 AND c.balance IS NULL`, interest[:])
		var read int
		d.Get(&read, `SELECT count(*) FROM call_balances`)
		if err == nil && missing == 0 && read > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the following indexer read no call balances in time (%d holders missing, %v)", missing, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), d, rpc.NewClient(srv.URL), Options{NFTSample: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) != 0 || rep.NotRead != 0 || rep.Balances < 100 || rep.Owners < 20 {
		t.Fatalf("%d balances checked (%d not read) at block %d: %v", rep.Balances, rep.NotRead, rep.Block, rep.Differences)
	}
	if _, err := d.Exec(`UPDATE call_balances SET balance = balance + 1 WHERE (token_address, owner_address) =
		(SELECT token_address, owner_address FROM call_balances ORDER BY 1, 2 LIMIT 1)`); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(context.Background(), d, rpc.NewClient(srv.URL), Options{Token: &interest, Sample: 0})
	if err != nil || len(rep.Differences) != 1 {
		t.Fatalf("planted a wrong call-read balance: %v %v", rep, err)
	}
	t.Log(rep.Differences[0])
}
