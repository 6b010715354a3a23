package webhooks_test

import (
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
)

// TestAcceptedOnL1Only: webhooks created with AcceptedOnL1Only (blocks, and a sender's
// transactions) are told of the items of ACCEPTED_ON_L1 blocks only, in order, each
// payload saying ACCEPTED_ON_L1; the items of the newer blocks wait, and come once the
// indexer marks their blocks final, while a webhook without the option has them at once
// and has those a reorg undid retracted, which the final-only webhooks never need.
func TestAcceptedOnL1Only(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a live simulated chain")
	}
	const lag = 4
	h := newHarness(t, sim.Config{Seed: 5, Blocks: 14, TxPerBlock: 6, L1Lag: lag}, 3)
	waitFinal := func() (head, l1 int64) {
		t.Helper()
		for range 400 {
			if head, l1 = h.heads(); l1 == head-lag {
				return head, l1
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatalf("the indexer did not mark the blocks up to %d final (it has %d)", head-lag, l1)
		return
	}
	head, l1 := waitFinal()
	txs, err := h.store.TransactionsInRange(h.ctx, 0, head)
	if err != nil {
		t.Fatal(err)
	}
	sender := busiest(txs, func(t *db.Transaction) db.Felt { return t.SenderAddress })
	const from = 2
	final := []*db.Webhook{
		h.hook(webhooks.KindBlocks, db.WebhookFilter{AcceptedOnL1Only: true}, from),
		h.hook(webhooks.KindTransactions, db.WebhookFilter{SenderAddress: sender.Padded(), AcceptedOnL1Only: true}, from),
	}
	if !final[1].Filter.AcceptedOnL1Only || !final[1].AcceptedOnL1Only() {
		t.Fatalf("the option was not kept: %+v", final[1].Filter)
	}
	all := h.hook(webhooks.KindBlocks, db.WebhookFilter{}, from)
	h.dispatch()

	check := func(head, l1 int64) {
		t.Helper()
		h.waitHolds(all, h.chainMessages(all, from, head))
		for _, w := range final {
			want := h.chainMessages(w, from, l1)
			if len(want) == 0 {
				t.Fatalf("webhook %d (%s): nothing final matches; the test shows nothing", w.ID, w.Kind)
			}
			h.waitHolds(w, want)
		}
		// Held back: a while later they still hold nothing of the blocks not final.
		time.Sleep(300 * time.Millisecond)
		for _, w := range final {
			st := h.recv.State(w.ID)
			for _, it := range st.Items {
				if it.Pos.Block > l1 {
					t.Errorf("webhook %d (%s): told of block %d, not ACCEPTED_ON_L1 (the final blocks end at %d)", w.ID, w.Kind, it.Pos.Block, l1)
				}
			}
			if got := len(st.Items); got != len(h.chainMessages(w, from, l1)) {
				t.Errorf("webhook %d (%s): holds %d items, the final blocks have %d", w.ID, w.Kind, got, len(h.chainMessages(w, from, l1)))
			}
			for _, v := range st.Violations {
				t.Errorf("webhook %d (%s): out of order: %s", w.ID, w.Kind, v)
			}
			if st.Retractions != 0 {
				t.Errorf("webhook %d (%s): %d retractions of final items", w.ID, w.Kind, st.Retractions)
			}
			for id, status := range h.sentStatuses(w) {
				if status != "ACCEPTED_ON_L1" {
					t.Errorf("webhook %d (%s): message %s says %q", w.ID, w.Kind, id, status)
				}
			}
		}
	}
	check(head, l1)
	l2 := 0
	for _, s := range h.sentStatuses(all) {
		if s == "ACCEPTED_ON_L2" {
			l2++
		}
	}
	if l2 == 0 {
		t.Error("the webhook without the option was told of no block ACCEPTED_ON_L2: the test shows nothing")
	}

	// A reorg of blocks not final, and new blocks: the final-only webhooks wait for them to
	// become final; the other is told of them at once, after retracting what was undone.
	h.chain.Reorg(2)
	h.chain.AddBlocks(3)
	waitIndexed(t, h.conn, h.chain)
	head, l1 = waitFinal()
	check(head, l1)
	if st := h.recv.State(all.ID); st.Retractions == 0 {
		t.Error("the webhook without the option had nothing retracted: the reorg undid nothing it was told")
	}
	t.Logf("head %d, final up to %d; the blocks webhook holds %d blocks, the final-only %d", head, l1,
		len(h.recv.Holds(all.ID)), len(h.recv.Holds(final[0].ID)))
}
