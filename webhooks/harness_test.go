package webhooks_test

import (
	"context"
	"log/slog"
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

// harness is a simulated node, the real indexer following it into a PostgreSQL of its
// own, an API key and a receiver on loopback: what the delivery loop's tests share.
type harness struct {
	t       *testing.T
	ctx     context.Context
	conn    *sqlx.DB
	url     string
	store   *db.Store
	chain   *sim.Chain
	keyID   int64
	recv    *webhookstest.Receiver
	recvURL string
}

// newHarness starts the node of cfg, the indexer and a receiver failing one request in
// failOneIn (0: none), and waits until the chain is indexed. Everything stops with t.
func newHarness(t *testing.T, cfg sim.Config, failOneIn int) *harness {
	t.Helper()
	conn, url := dbtest.NewWithURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	h := &harness{t: t, ctx: ctx, conn: conn, url: url, store: db.NewStore(conn), chain: sim.New(cfg)}
	node := httptest.NewServer(h.chain.Handler())
	t.Cleanup(node.Close)
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: -1, Logger: slog.New(slog.DiscardHandler),
		PollInterval: 20 * time.Millisecond, FinalityInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ixCtx, stopIx := context.WithCancel(ctx)
	ixDone := make(chan error, 1)
	go func() { ixDone <- ix.Run(ixCtx) }()
	t.Cleanup(func() { stopIx(); <-ixDone })
	waitIndexed(t, conn, h.chain)

	if _, err := conn.Exec(`INSERT INTO api_keys (key_hash, key_prefix, plan) VALUES (sha256('k'), 'sg_k', 'dev')`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Get(&h.keyID, `SELECT id FROM api_keys`); err != nil {
		t.Fatal(err)
	}
	h.recv = webhookstest.NewReceiver(57, failOneIn)
	if h.recvURL, err = h.recv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.recv.Close)
	return h
}

// hook creates a webhook of kind and filter delivering from block from.
func (h *harness) hook(kind string, f db.WebhookFilter, from int64) *db.Webhook {
	h.t.Helper()
	w := &db.Webhook{KeyID: h.keyID, URL: h.recvURL + "/hook", Kind: kind}
	var err error
	if w.Secret, err = webhooks.NewSecret(); err != nil {
		h.t.Fatal(err)
	}
	if w.Filter, err = webhooks.CheckFilter(kind, f); err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.CreateWebhook(h.ctx, w, &from); err != nil {
		h.t.Fatal(err)
	}
	h.recv.Expect(w.ID, w.Secret)
	return w
}

// dispatch runs a delivery loop until the returned stop is called (or the test ends).
func (h *harness) dispatch() (stop func()) {
	d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: h.store, Logger: slog.New(slog.NewTextHandler(logWriter{h.t}, nil)),
		Poll: 20 * time.Millisecond, Sender: webhooks.NewSender(webhooks.Options{AllowHTTP: true, AllowLoopback: true}),
		Backoff: func(n int) time.Duration { return time.Duration(n) * time.Millisecond }})
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx, h.url) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	h.t.Cleanup(stop)
	return stop
}

// waitHolds waits until webhook w's receiver holds want (in order), and fails if it does not
// within a minute.
func (h *harness) waitHolds(w *db.Webhook, want []string) {
	h.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !slices.Equal(h.recv.Holds(w.ID), want) {
		if time.Now().After(deadline) {
			h.t.Fatalf("webhook %d (%s): the receiver holds\n %v\nwant\n %v", w.ID, w.Kind, h.recv.Holds(w.ID), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitCaughtUp waits until webhook w's position is past block head, every delivery up
// to it recorded.
func (h *harness) waitCaughtUp(w *db.Webhook, head int64) {
	h.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		cur, err := h.store.Webhook(h.ctx, w.ID)
		if err != nil {
			h.t.Fatal(err)
		}
		if cur.PositionBlock == head && cur.PositionTx == db.WholeBlock {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("webhook %d: position %v, not past block %d", w.ID, cur.Position(), head)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// chainMessages are the messages webhook w's receiver must hold from block from to head.
func (h *harness) chainMessages(w *db.Webhook, from, head int64) []string {
	h.t.Helper()
	ids, err := webhookstest.ChainMessages(h.ctx, h.store, w, from, head)
	if err != nil {
		h.t.Fatal(err)
	}
	return ids
}

// heads are the indexed head and the newest ACCEPTED_ON_L1 block.
func (h *harness) heads() (head, l1 int64) {
	h.t.Helper()
	head, _, _, err := db.IndexedHead(h.ctx, h.conn)
	if err == nil {
		l1, _, err = db.L1Head(h.ctx, h.conn)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return head, l1
}

// sentStatuses are the finality statuses the payloads of what webhook w was sent say,
// by message id.
func (h *harness) sentStatuses(w *db.Webhook) map[string]string {
	h.t.Helper()
	var rows []struct {
		ID     string `db:"message_id"`
		Status string `db:"status"`
	}
	if err := h.conn.Select(&rows, `SELECT message_id, payload->'block'->>'finalityStatus' AS status FROM webhook_sent
		WHERE webhook_id = $1`, w.ID); err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.ID] = r.Status
	}
	return out
}
