package webhooks_test

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
	"github.com/starkgraph/starkgraph/webhooks/webhookstest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestDeliveriesFollowTheChain: the indexer follows the simulated node while it grows and
// reorganizes; the delivery loop serves four webhooks (blocks, a busy sender's transactions,
// a token's transfers, a contract's events) to a receiver on loopback that fails a third of
// its requests at random. At the end every webhook's receiver holds exactly the items of the
// chain that match its filter, each applied in order, and the items of replaced blocks were
// retracted.
func TestDeliveriesFollowTheChain(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a live simulated chain")
	}
	conn, url := dbtest.NewWithURL(t)
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	chain := sim.New(sim.Config{Seed: 11, Blocks: 12, TxPerBlock: 8})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: -1, Logger: quiet,
		PollInterval: 20 * time.Millisecond, FinalityInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ixCtx, stopIx := context.WithCancel(ctx)
	ixDone := make(chan error, 1)
	go func() { ixDone <- ix.Run(ixCtx) }()
	waitIndexed(t, conn, chain)

	store := db.NewStore(conn)
	// Filters that match: the busiest sender, the token with most transfers, its Transfer events.
	txs, err := store.TransactionsInRange(ctx, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	transfers, err := store.TransfersInRange(ctx, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	sender, token := busiest(txs, func(t *db.Transaction) db.Felt { return t.SenderAddress }),
		busiest(transfers, func(t *db.TokenTransfer) db.Felt { return t.TokenAddress })
	events, err := store.EventsInRange(ctx, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	// The events: of the emitter and first key with a few a block.
	perKind := map[string]int{}
	for _, e := range events {
		if len(e.Keys) > 0 {
			perKind[e.FromAddress.Hex()+" "+e.Keys[0].Hex()]++
		}
	}
	var emitter, eventKey db.Felt
	for _, e := range events {
		if n := perKind[e.FromAddress.Hex()+" "+e.Keys[0].Hex()]; e.BlockNumber > 6 && len(e.Keys) > 0 && n <= 40 &&
			(emitter == nil || n > perKind[emitter.Hex()+" "+eventKey.Hex()]) {
			emitter, eventKey = e.FromAddress, e.Keys[0]
		}
	}

	if _, err := conn.Exec(`INSERT INTO api_keys (key_hash, key_prefix, plan) VALUES (sha256('k'), 'sg_k', 'dev')`); err != nil {
		t.Fatal(err)
	}
	var keyID int64
	if err := conn.Get(&keyID, `SELECT id FROM api_keys`); err != nil {
		t.Fatal(err)
	}
	recv := webhookstest.NewReceiver(57, 3)
	recvURL, err := recv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	from := int64(3)
	hooks := []*db.Webhook{
		{Kind: webhooks.KindBlocks},
		{Kind: webhooks.KindTransactions, Filter: db.WebhookFilter{SenderAddress: sender.Padded()}},
		{Kind: webhooks.KindTransfers, Filter: db.WebhookFilter{Token: token.Padded(), Wallet: sender.Padded()}},
		{Kind: webhooks.KindEvents, Filter: db.WebhookFilter{ContractAddress: emitter.Padded(), Keys: []string{eventKey.Hex()}}},
	}
	for _, w := range hooks {
		w.KeyID, w.URL = keyID, recvURL+"/hook"
		if w.Secret, err = webhooks.NewSecret(); err != nil {
			t.Fatal(err)
		}
		if w.Filter, err = webhooks.CheckFilter(w.Kind, w.Filter); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateWebhook(ctx, w, &from); err != nil {
			t.Fatal(err)
		}
		recv.Expect(w.ID, w.Secret)
	}

	d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: store, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil)), Poll: 20 * time.Millisecond,
		Sender:  webhooks.NewSender(webhooks.Options{AllowHTTP: true, AllowLoopback: true}),
		Backoff: func(n int) time.Duration { return time.Duration(rand.IntN(10*n+1)) * time.Millisecond }})
	dCtx, stopD := context.WithCancel(ctx)
	dDone := make(chan struct{})
	go func() { defer close(dDone); d.Run(dCtx, url) }()

	// The chain grows and reorganizes under the deliveries; before each reorg the blocks
	// webhook has been told of the head, so that the reorg undoes what it was told.
	told := func(block uint64) bool {
		st := recv.State(hooks[0].ID)
		return st != nil && len(st.Items) > 0 && st.Items[len(st.Items)-1].Pos.Block >= int64(block)
	}
	for i := range 24 {
		time.Sleep(120 * time.Millisecond)
		chain.AddBlocks(1)
		if i%4 == 3 {
			head, _ := chain.Head()
			for wait := time.Now().Add(20 * time.Second); !told(head) && time.Now().Before(wait); {
				time.Sleep(20 * time.Millisecond)
			}
			chain.Reorg(2)
		}
	}
	chain.AddBlocks(1) // the indexer sees a reorg once a block follows it
	waitIndexed(t, conn, chain)
	head, _, _, err := db.IndexedHead(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	stopIx()
	<-ixDone

	// What each webhook's receiver must hold: the chain's matching items, by message id.
	want := map[int64][]string{}
	for _, w := range hooks {
		if want[w.ID], err = webhookstest.ChainMessages(ctx, store, w, from, head); err != nil {
			t.Fatal(err)
		}
	}

	deadline := time.Now().Add(90 * time.Second)
	for _, w := range hooks {
		for !slices.Equal(recv.Holds(w.ID), want[w.ID]) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		// and the last delivery recorded (a 2xx is logged once its position has moved)
		for time.Now().Before(deadline) {
			cur, err := store.Webhook(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			if cur.PositionBlock == head && cur.PositionTx == db.WholeBlock {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	stopD()
	<-dDone

	retractions := 0
	for _, w := range hooks {
		st := recv.State(w.ID)
		if st == nil {
			t.Errorf("webhook %d (%s): nothing applied", w.ID, w.Kind)
			continue
		}
		got := st.IDs()
		if !slices.Equal(got, want[w.ID]) {
			t.Errorf("webhook %d (%s): the receiver holds %d items, the chain %d:\n got  %v\n want %v", w.ID, w.Kind, len(got), len(want[w.ID]), got, want[w.ID])
		}
		for _, v := range st.Violations {
			t.Errorf("webhook %d (%s): out of order: %s", w.ID, w.Kind, v)
		}
		if len(want[w.ID]) == 0 {
			t.Errorf("webhook %d (%s): its filter matches nothing; the test shows nothing", w.ID, w.Kind)
		}
		retractions += st.Retractions
		t.Logf("webhook %d (%s): %d items, %d retractions, %d duplicates", w.ID, w.Kind, len(got), st.Retractions, st.Duplicates)
	}
	if st := recv.State(hooks[0].ID); st == nil || st.Retractions < 6 {
		t.Error("the blocks webhook was not sent a retraction for each reorg")
	}
	if retractions == 0 {
		t.Error("no retraction was delivered: the reorgs undid nothing delivered")
	}
	received, failed, _, bad := recv.Counts()
	if failed == 0 {
		t.Error("the receiver never failed")
	}
	for _, b := range bad {
		t.Errorf("a signature did not verify: %s", b)
	}
	t.Logf("%d requests, %d answered 500", received, failed)

	// The delivery log recorded the attempts, failures included.
	var logged, failures int
	if err := conn.Get(&logged, `SELECT count(*) FROM webhook_deliveries`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Get(&failures, `SELECT count(*) FROM webhook_deliveries WHERE status = 500 AND outcome = 'retry'`); err != nil {
		t.Fatal(err)
	}
	if logged != received || failures != failed {
		t.Errorf("the log has %d attempts (%d failed), the receiver saw %d requests (%d failed)", logged, failures, received, failed)
	}
}

func busiest[T any](rows []T, key func(T) db.Felt) db.Felt {
	n := map[string]int{}
	var best db.Felt
	for _, r := range rows {
		k := key(r)
		if k == nil {
			continue
		}
		n[k.Hex()]++
		if best == nil || n[k.Hex()] > n[best.Hex()] {
			best = k
		}
	}
	return best
}

// waitIndexed waits until the indexer has written the chain's head block (its hash).
func waitIndexed(t *testing.T, conn *sqlx.DB, chain *sim.Chain) {
	t.Helper()
	_, hash := chain.Head()
	for range 1200 {
		_, h, ok, err := db.IndexedHead(context.Background(), conn)
		if err == nil && ok && h.Hex() == db.MustFelt(hash).Hex() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the indexer did not reach the chain's head %s", hash)
}

// logWriter writes the delivery loop's log into the test's.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
