package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// applied is what a receiver that applies messages in order holds for one webhook: the
// items, in the order they came, each once (deduplicated on webhook-id), with retractions
// taking their item back.
type applied struct {
	items       []appliedItem
	seen        map[string]bool // webhook-ids applied (items and retractions)
	duplicates  int
	retractions int
	violations  []string
}

type appliedItem struct {
	id  string
	pos db.Position
}

func position(p webhooks.Payload) db.Position {
	pos := db.Position{Block: p.Position.BlockNumber, Tx: -1, Event: -1}
	if p.Position.TransactionIndex != nil {
		pos.Tx = *p.Position.TransactionIndex
	}
	if p.Position.EventIndex != nil {
		pos.Event = *p.Position.EventIndex
	}
	return pos
}

func (a *applied) apply(id string, p webhooks.Payload) {
	if a.seen[id] {
		a.duplicates++
		return
	}
	a.seen[id] = true
	if p.Removed {
		a.retractions++
		// Retractions come newest first: the item taken back is the last one applied.
		if n := len(a.items); n == 0 || a.items[n-1].id != p.ItemID {
			a.violations = append(a.violations, fmt.Sprintf("retraction of %s, which is not the last item applied", p.ItemID))
			a.items = slices.DeleteFunc(a.items, func(it appliedItem) bool { return it.id == p.ItemID })
			return
		}
		a.items = a.items[:len(a.items)-1]
		return
	}
	pos := position(p)
	if n := len(a.items); n > 0 && !a.items[n-1].pos.Less(pos) {
		a.violations = append(a.violations, fmt.Sprintf("%s at %v after %s at %v", id, pos, a.items[n-1].id, a.items[n-1].pos))
	}
	a.items = append(a.items, appliedItem{id, pos})
}

// flakyReceiver verifies each message's signature, answers 500 to a third of them at random
// (without applying them), and applies the others.
type flakyReceiver struct {
	mu       sync.Mutex
	secrets  map[string][]string // by webhook id
	state    map[string]*applied // by webhook id
	rng      *rand.Rand
	failed   int
	received int
	bad      []string
}

func (r *flakyReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var p webhooks.Payload
	if err := json.Unmarshal(body, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.received++
	if err := webhooks.Verify(r.secrets[p.Webhook], req.Header, body, time.Now()); err != nil {
		r.bad = append(r.bad, err.Error())
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if r.rng.IntN(3) == 0 {
		r.failed++
		http.Error(w, "flaky", http.StatusInternalServerError)
		return
	}
	st := r.state[p.Webhook]
	if st == nil {
		st = &applied{seen: map[string]bool{}}
		r.state[p.Webhook] = st
	}
	st.apply(req.Header.Get(webhooks.HeaderID), p)
	w.WriteHeader(http.StatusNoContent)
}

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
	url := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
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
	recv := &flakyReceiver{secrets: map[string][]string{}, state: map[string]*applied{}, rng: rand.New(rand.NewPCG(57, 1))}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	from := int64(3)
	hooks := []*db.Webhook{
		{Kind: webhooks.KindBlocks},
		{Kind: webhooks.KindTransactions, Filter: db.WebhookFilter{SenderAddress: sender.Padded()}},
		{Kind: webhooks.KindTransfers, Filter: db.WebhookFilter{Token: token.Padded(), Wallet: sender.Padded()}},
		{Kind: webhooks.KindEvents, Filter: db.WebhookFilter{ContractAddress: emitter.Padded(), Keys: []string{eventKey.Hex()}}},
	}
	for _, w := range hooks {
		w.KeyID, w.URL = keyID, srv.URL+"/hook"
		if w.Secret, err = webhooks.NewSecret(); err != nil {
			t.Fatal(err)
		}
		if w.Filter, err = webhooks.CheckFilter(w.Kind, w.Filter); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateWebhook(ctx, w, &from); err != nil {
			t.Fatal(err)
		}
		recv.mu.Lock()
		recv.secrets[fmt.Sprint(w.ID)] = []string{w.Secret}
		recv.mu.Unlock()
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
		recv.mu.Lock()
		defer recv.mu.Unlock()
		st := recv.state[fmt.Sprint(hooks[0].ID)]
		return st != nil && len(st.items) > 0 && st.items[len(st.items)-1].pos.Block >= int64(block)
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
	blocks, _ := store.BlocksInRange(ctx, from, head)
	hash := map[int64]db.Felt{}
	for _, b := range blocks {
		hash[b.Number] = b.Hash
		want[hooks[0].ID] = append(want[hooks[0].ID], webhooks.MessageID(hooks[0].ID, b.Hash, db.Position{Block: b.Number, Tx: -1, Event: -1}))
	}
	txs, _ = store.TransactionsInRange(ctx, from, head)
	for _, x := range txs {
		if x.SenderAddress.Equal(sender) {
			want[hooks[1].ID] = append(want[hooks[1].ID], webhooks.MessageID(hooks[1].ID, hash[x.BlockNumber], db.Position{Block: x.BlockNumber, Tx: x.Index, Event: -1}))
		}
	}
	transfers, _ = store.TransfersInRange(ctx, from, head)
	for _, x := range transfers {
		if x.TokenAddress.Equal(token) && (x.FromAddress.Equal(sender) || x.ToAddress.Equal(sender)) {
			want[hooks[2].ID] = append(want[hooks[2].ID], webhooks.MessageID(hooks[2].ID, hash[x.BlockNumber], db.Position{Block: x.BlockNumber, Tx: x.TxIndex, Event: x.EventIndex}))
		}
	}
	events, _ = store.EventsInRange(ctx, from, head)
	for _, e := range events {
		if e.FromAddress.Equal(emitter) && len(e.Keys) > 0 && e.Keys[0].Equal(eventKey) {
			want[hooks[3].ID] = append(want[hooks[3].ID], webhooks.MessageID(hooks[3].ID, hash[e.BlockNumber], db.Position{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.Index}))
		}
	}

	holds := func(id int64) []string {
		recv.mu.Lock()
		defer recv.mu.Unlock()
		st := recv.state[fmt.Sprint(id)]
		if st == nil {
			return nil
		}
		var ids []string
		for _, it := range st.items {
			ids = append(ids, it.id)
		}
		return ids
	}
	deadline := time.Now().Add(90 * time.Second)
	for _, w := range hooks {
		for !slices.Equal(holds(w.ID), want[w.ID]) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	stopD()
	<-dDone

	recv.mu.Lock()
	defer recv.mu.Unlock()
	retractions := 0
	for _, w := range hooks {
		st := recv.state[fmt.Sprint(w.ID)]
		if st == nil {
			t.Errorf("webhook %d (%s): nothing applied", w.ID, w.Kind)
			continue
		}
		got := holds2(st)
		if !slices.Equal(got, want[w.ID]) {
			t.Errorf("webhook %d (%s): the receiver holds %d items, the chain %d:\n got  %v\n want %v", w.ID, w.Kind, len(got), len(want[w.ID]), got, want[w.ID])
		}
		for _, v := range st.violations {
			t.Errorf("webhook %d (%s): out of order: %s", w.ID, w.Kind, v)
		}
		if len(want[w.ID]) == 0 {
			t.Errorf("webhook %d (%s): its filter matches nothing; the test shows nothing", w.ID, w.Kind)
		}
		retractions += st.retractions
		t.Logf("webhook %d (%s): %d items, %d retractions, %d duplicates", w.ID, w.Kind, len(got), st.retractions, st.duplicates)
	}
	if st := recv.state[fmt.Sprint(hooks[0].ID)]; st == nil || st.retractions < 6 {
		t.Error("the blocks webhook was not sent a retraction for each reorg")
	}
	if retractions == 0 {
		t.Error("no retraction was delivered: the reorgs undid nothing delivered")
	}
	if recv.failed == 0 {
		t.Error("the receiver never failed")
	}
	for _, b := range recv.bad {
		t.Errorf("a signature did not verify: %s", b)
	}
	t.Logf("%d requests, %d answered 500", recv.received, recv.failed)

	// The delivery log recorded the attempts, failures included.
	var logged, failures int
	if err := conn.Get(&logged, `SELECT count(*) FROM webhook_deliveries`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Get(&failures, `SELECT count(*) FROM webhook_deliveries WHERE status = 500 AND outcome = 'retry'`); err != nil {
		t.Fatal(err)
	}
	if logged != recv.received || failures != recv.failed {
		t.Errorf("the log has %d attempts (%d failed), the receiver saw %d requests (%d failed)", logged, failures, recv.received, recv.failed)
	}
}

func holds2(st *applied) []string {
	var ids []string
	for _, it := range st.items {
		ids = append(ids, it.id)
	}
	return ids
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
