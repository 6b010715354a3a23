package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// The delivery loop's statements for many webhooks: WebhooksToServe says which can be
// trusted without comparing their items sent with the chain, MoveWebhooks moves many
// positions (with the deliveries they record) in one transaction, each only if its webhook
// is still active where the loop read it, and WebhooksStillAt says which still are.
func TestWebhookBatches(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	store := db.NewStore(conn)
	dbtest.Exec(t, conn, `INSERT INTO blocks (number, hash, parent_hash, timestamp, status)
		SELECT n, '\xff'::bytea || int8send(n), '\xff'::bytea || int8send(n - 1), 1700000000 + n, 'ACCEPTED_ON_L2'
		FROM generate_series(0, 10) AS n`) // hashes without leading zeros, as felts are stored
	dbtest.Exec(t, conn, `INSERT INTO api_keys (key_hash, key_prefix, plan) VALUES (sha256('k'), 'sg_k', 'dev')`)
	var key int64
	if err := conn.Get(&key, `SELECT id FROM api_keys`); err != nil {
		t.Fatal(err)
	}
	hash := func(n int64) db.Felt {
		var h db.Felt
		if err := conn.Get(&h, `SELECT hash FROM blocks WHERE number = $1`, n); err != nil {
			t.Fatal(err)
		}
		return h
	}
	create := func(from int64) int64 {
		w := &db.Webhook{KeyID: key, URL: "https://example.com/hook", Kind: "blocks", Secret: "whsec_x"}
		if err := store.CreateWebhook(ctx, w, &from); err != nil {
			t.Fatal(err)
		}
		return w.ID
	}
	sent := func(id, block int64, h db.Felt) {
		dbtest.Exec(t, conn, `INSERT INTO webhook_sent (webhook_id, block_number, tx_index, event_index, block_hash, message_id, payload)
			VALUES ($1, $2, -1, -1, $3, 'm', '{}')`, id, block, h)
	}
	clean := create(6)          // at block 5, nothing sent
	sentAfter := create(6)      // something sent after its position (a replay moved it back)
	sent(sentAfter, 7, hash(7)) //
	moved := create(6)          // its block was replaced
	dbtest.Exec(t, conn, `UPDATE webhooks SET position_hash = '\xdead' WHERE id = $1`, moved)
	stale := create(6)                  // an item sent before its position, of a block replaced since
	sent(stale, 3, db.Felt{0xbe, 0xef}) //
	good := create(6)                   // items sent before its position, all on the chain
	sent(good, 4, hash(4))
	sent(good, 5, hash(5))
	none := create(0) // at block -1: no hash
	noneSent := create(0)
	sent(noneSent, 0, hash(0))
	replaying := create(6)
	dbtest.Exec(t, conn, `UPDATE webhooks SET replay = '{"from": 2, "end": {"block": 3}}' WHERE id = $1`, replaying)
	paused := create(6)
	dbtest.Exec(t, conn, `UPDATE webhooks SET status = 'paused' WHERE id = $1`, paused)

	all := []int64{clean, sentAfter, moved, stale, good, none, noneSent, replaying, paused}
	serve := func(full []int64) map[int64]bool {
		t.Helper()
		ws, err := store.WebhooksToServe(ctx, all, full)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]bool{}
		for _, w := range ws {
			out[w.ID] = w.Clean
		}
		return out
	}
	want := map[int64]bool{clean: true, sentAfter: false, moved: false, stale: true, good: true, none: true, noneSent: false,
		replaying: false}
	got := serve(nil)
	for id, c := range want {
		if v, ok := got[id]; !ok || v != c {
			t.Errorf("webhook %d: clean %v (read: %v), want %v", id, v, ok, c)
		}
	}
	if _, ok := got[paused]; ok || len(got) != len(want) {
		t.Errorf("read %v: a paused webhook is not served", got)
	}
	// Checked in full, the item of a replaced block is seen.
	got = serve([]int64{stale, good})
	if got[stale] || !got[good] {
		t.Errorf("checked in full: stale clean %v, good clean %v; want false, true", got[stale], got[good])
	}

	// Moves: a delivery, an idle webhook moved on, one whose position moved under the loop,
	// a paused one, and one to a block without a hash.
	at5 := db.Position{Block: 5, Tx: db.WholeBlock, Event: db.WholeBlock}
	to9 := db.Position{Block: 9, Tx: db.WholeBlock, Event: db.WholeBlock}
	started := time.Date(2026, 11, 29, 12, 0, 0, 123456000, time.UTC)
	dbtest.Exec(t, conn, `UPDATE webhooks SET attempts = 3, failing_since = now(), last_error = 'boom' WHERE id = $1`, clean)
	dbtest.Exec(t, conn, `UPDATE webhooks SET attempts = 2 WHERE id = $1`, good)
	moves := []db.WebhookMove{
		{ID: clean, From: at5, To: to9, Hash: hash(9),
			Delivery: &db.WebhookDelivery{WebhookID: clean, MessageID: "wh1_7", BlockNumber: 7, Attempt: 4, StartedAt: started,
				LatencyMs: 12, Outcome: "delivered", Status: 204, Response: "it's \"fine\"", Error: ""},
			Sent: &db.SentItem{WebhookID: clean, BlockNumber: 7, TxIndex: -1, EventIndex: -1, BlockHash: hash(7), MessageID: "wh1_7",
				Payload: db.JSON(`{"a": "b"}`)}},
		{ID: good, From: at5, To: to9, Hash: hash(9)},
		{ID: stale, From: db.Position{Block: 4, Tx: db.WholeBlock, Event: db.WholeBlock}, To: to9, Hash: hash(9),
			Delivery: &db.WebhookDelivery{WebhookID: stale, MessageID: "x", StartedAt: started, Outcome: "delivered"},
			Sent:     &db.SentItem{WebhookID: stale, BlockNumber: 6, BlockHash: hash(6), MessageID: "x", Payload: db.JSON(`{}`)}},
		{ID: paused, From: at5, To: to9, Hash: hash(9)},
		{ID: none, From: db.Position{Block: -1, Tx: db.WholeBlock, Event: db.WholeBlock}, To: db.Position{Block: 20, Tx: db.WholeBlock, Event: db.WholeBlock}},
	}
	ok, err := store.MoveWebhooks(ctx, moves)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, false, true}; !equalBools(ok, want) {
		t.Fatalf("moved %v, want %v", ok, want)
	}
	read := func(id int64) *db.Webhook {
		w, err := store.Webhook(ctx, id)
		if err != nil || w == nil {
			t.Fatal(w, err)
		}
		return w
	}
	if w := read(clean); w.Position() != to9 || !w.PositionHash.Equal(hash(9)) || w.Attempts != 0 || w.FailingSince != nil ||
		w.LastError != "" || w.DeliveredAt == nil {
		t.Errorf("delivered: %+v", w)
	}
	if w := read(good); w.Position() != to9 || w.Attempts != 2 || w.DeliveredAt != nil {
		t.Errorf("moved on without a delivery: position %v, attempts %d, delivered at %v", w.Position(), w.Attempts, w.DeliveredAt)
	}
	if w := read(stale); w.Position() != at5 {
		t.Errorf("not where the loop read it: moved to %v", w.Position())
	}
	if w := read(none); w.Position().Block != 20 || w.PositionHash != nil {
		t.Errorf("to a block without a hash: %v %v", w.Position(), w.PositionHash)
	}
	var log []db.WebhookDelivery
	if err := conn.Select(&log, `SELECT id, webhook_id, message_id, block_number, attempt, started_at, latency_ms, outcome, status,
		response, error FROM webhook_deliveries`); err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].WebhookID != clean || log[0].Attempt != 4 || !log[0].StartedAt.Equal(started) ||
		log[0].Response != `it's "fine"` || log[0].Status != 204 || log[0].LatencyMs != 12 {
		t.Errorf("log: %+v", log)
	}
	items, err := store.WebhookSent(ctx, clean)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].BlockNumber != 7 || !items[0].BlockHash.Equal(hash(7)) {
		t.Errorf("sent: %+v", items)
	}
	if items, _ := store.WebhookSent(ctx, stale); len(items) != 1 {
		t.Errorf("a move not made recorded its item: %+v", items)
	}
	// Still where the loop holds them: active at that position.
	still, err := store.WebhooksStillAt(ctx, []db.WebhookAt{{ID: clean, Pos: to9}, {ID: stale, Pos: at5}, {ID: paused, Pos: at5},
		{ID: good, Pos: at5}, {ID: 1 << 40, Pos: at5}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, false, false}; !equalBools(still, want) {
		t.Errorf("still at: %v, want %v", still, want)
	}
	// The same webhook twice in a batch is refused, and nothing moves.
	if _, err := store.MoveWebhooks(ctx, []db.WebhookMove{{ID: good, From: to9, To: to9}, {ID: good, From: to9, To: to9}}); err == nil {
		t.Error("a webhook moved twice in one batch")
	}
	if ok, err := store.MoveWebhooks(ctx, nil); err != nil || len(ok) != 0 {
		t.Error(ok, err)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
