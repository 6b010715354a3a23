package webhooks_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
)

// A webhook read by a round, then paused while its worker waits for a free slot, is not
// sent its message: the worker asks whether it is still active where the round read it
// before its first attempt. (A message already in flight when the pause comes is delivered,
// as before.) Two blocks webhooks, one worker, a receiver that answers after 400 ms, both
// paused 150 ms into the round: at most the first is delivered.
func TestPausedWhileWaitingIsNotSent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the indexer against the simulated node")
	}
	h := newHarness(t, sim.Config{Seed: 32, Blocks: 5, TxPerBlock: 4}, 0)
	d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: h.store, Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil)),
		Sender: webhooks.NewSender(webhooks.Options{AllowHTTP: true, AllowLoopback: true}), Workers: 1, PerHost: 1})
	rounds := webhooks.StartRounds(h.ctx, d)
	t.Cleanup(rounds.Stop)
	head, _ := h.heads()
	hooks := []*db.Webhook{h.hook(webhooks.KindBlocks, db.WebhookFilter{}, head+1), h.hook(webhooks.KindBlocks, db.WebhookFilter{}, head+1)}
	rounds.Round() // nothing to deliver yet
	h.recv.SetSlow(400 * time.Millisecond)
	h.chain.AddBlocks(1)
	waitIndexed(t, h.conn, h.chain)
	paused := make(chan struct{})
	go func() {
		defer close(paused)
		time.Sleep(150 * time.Millisecond)
		for _, w := range hooks {
			if _, err := h.store.PauseWebhook(h.ctx, h.keyID, w.ID); err != nil {
				t.Error(err)
			}
		}
	}()
	rounds.Round()
	<-paused
	if received, _, _, _ := h.recv.Counts(); received > 1 {
		t.Errorf("%d messages sent to two webhooks paused while the first was in flight: the second was not asked about", received)
	}
	for _, w := range hooks {
		cur, err := h.store.Webhook(h.ctx, w.ID)
		if err != nil || cur.Status != "paused" || cur.PositionBlock != head {
			t.Errorf("webhook %d: %+v (%v), want paused at block %d", w.ID, cur, err, head)
		}
	}
}
