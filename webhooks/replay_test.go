package webhooks_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
)

// TestReplayRangeAndMessage: a replay of blocks 5 to 8, started while no delivery loop
// runs (the job is on the webhook's row), delivers again exactly the items of those blocks,
// in chain order, with the ids they had; then deliveries continue after where they stood,
// without delivering the blocks after the range again, and new blocks come. A replay of one
// message delivers that message alone. Bad input is refused with an InputError naming the
// argument.
func TestReplayRangeAndMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a simulated chain")
	}
	h := newHarness(t, sim.Config{Seed: 7, Blocks: 16, TxPerBlock: 6}, 4)
	head, _ := h.heads()
	txs, err := h.store.TransactionsInRange(h.ctx, 0, head)
	if err != nil {
		t.Fatal(err)
	}
	sender := busiest(txs, func(t *db.Transaction) db.Felt { return t.SenderAddress })
	const from = 2
	hooks := []*db.Webhook{
		h.hook(webhooks.KindBlocks, db.WebhookFilter{}, from),
		h.hook(webhooks.KindTransactions, db.WebhookFilter{SenderAddress: sender.Padded()}, from),
	}
	stop := h.dispatch()
	for _, w := range hooks {
		h.waitHolds(w, h.chainMessages(w, from, head))
		h.waitCaughtUp(w, head)
	}
	// Stopped once every 2xx is recorded: a loop stopped between a receiver's 2xx and its
	// commit sends that message again (at least once), which this test would count.
	stop()

	// acked waits until webhook w's receiver acknowledged n messages after the first
	// skip, lets a few rounds pass, and returns them all.
	acked := func(w *db.Webhook, skip, n int) []string {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); len(h.recv.State(w.ID).Acked) < skip+n; {
			if time.Now().After(deadline) {
				t.Fatalf("webhook %d: %d messages acknowledged after the first %d, want %d", w.ID,
					len(h.recv.State(w.ID).Acked)-skip, skip, n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // nothing more comes
		return h.recv.State(w.ID).Acked[skip:]
	}
	before := map[int64]int{}
	at := map[int64]db.Position{}
	for _, w := range hooks {
		before[w.ID] = len(h.recv.State(w.ID).Acked)
		cur, err := h.store.Webhook(h.ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		at[w.ID] = cur.Position()
		r, err := webhooks.ReplayRange(h.ctx, h.store, h.keyID, w.ID, 5, 8)
		if err != nil || r == nil {
			t.Fatalf("ReplayRange: %v %v", r, err)
		}
		if r.Replay == nil || r.PositionBlock != 4 || r.Replay.End.Block != 8 || r.Replay.Resume != at[w.ID] {
			t.Fatalf("webhook %d after ReplayRange: position %v, replay %+v (it was at %v)", w.ID, r.Position(), r.Replay, at[w.ID])
		}
	}
	// The job is on the row: a delivery loop started now does it.
	h.dispatch()
	for _, w := range hooks {
		want := h.chainMessages(w, 5, 8)
		if len(want) == 0 {
			t.Fatalf("webhook %d (%s): blocks 5 to 8 hold nothing of it", w.ID, w.Kind)
		}
		if got := acked(w, before[w.ID], len(want)); !slices.Equal(got, want) {
			t.Errorf("webhook %d (%s): the replay of blocks 5 to 8 delivered\n %v\nwant\n %v", w.ID, w.Kind, got, want)
		}
		cur, err := h.store.Webhook(h.ctx, w.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Replay != nil || cur.Position() != at[w.ID] {
			t.Errorf("webhook %d after the replay: position %v, replay %+v; want back at %v", w.ID, cur.Position(), cur.Replay, at[w.ID])
		}
		before[w.ID] += len(want)
	}

	// Deliveries continue after where they stood: new blocks' items, and nothing else.
	h.chain.AddBlocks(2)
	waitIndexed(t, h.conn, h.chain)
	newHead, _ := h.heads()
	for _, w := range hooks {
		want := h.chainMessages(w, head+1, newHead)
		if got := acked(w, before[w.ID], len(want)); !slices.Equal(got, want) {
			t.Errorf("webhook %d (%s): after the replay, delivered\n %v\nwant the new blocks' only\n %v", w.ID, w.Kind, got, want)
		}
		before[w.ID] += len(want)
		h.waitHolds(w, h.chainMessages(w, from, newHead))
		if st := h.recv.State(w.ID); len(st.Violations) > 0 {
			t.Errorf("webhook %d: out of order: %v", w.ID, st.Violations)
		}
	}

	// One message: a transaction in the middle, with others of its block around it when
	// there are.
	w := hooks[1]
	all := h.chainMessages(w, from, newHead)
	msg := all[len(all)/2]
	r, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID, msg)
	if err != nil || r == nil || r.Replay == nil || r.Replay.Message != msg {
		t.Fatalf("ReplayMessage(%s): %+v %v", msg, r, err)
	}
	if got := acked(w, before[w.ID], 1); !slices.Equal(got, []string{msg}) {
		t.Errorf("the replay of %s delivered %v", msg, got)
	}
	if cur, _ := h.store.Webhook(h.ctx, w.ID); cur == nil || cur.Replay != nil || cur.PositionBlock != newHead {
		t.Errorf("after the message's replay: %+v", cur)
	}
	// The blocks webhook's message of block 3 too (its items are whole blocks).
	b := hooks[0]
	bmsg := h.chainMessages(b, 3, 3)[0]
	if _, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, b.ID, bmsg); err != nil {
		t.Fatal(err)
	}
	if got := acked(b, before[b.ID], 1); !slices.Equal(got, []string{bmsg}) {
		t.Errorf("the replay of %s delivered %v", bmsg, got)
	}

	// Refused, each naming its argument.
	_, hash, pos, _, err := webhooks.ParseMessageID(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, arg, says string
		do              func() error
	}{
		{"toBlock before fromBlock", "toBlock", "at least fromBlock", func() error {
			_, err := webhooks.ReplayRange(h.ctx, h.store, h.keyID, w.ID, 8, 5)
			return err
		}},
		{"toBlock not indexed", "toBlock", "not indexed yet", func() error {
			_, err := webhooks.ReplayRange(h.ctx, h.store, h.keyID, w.ID, 5, newHead+1)
			return err
		}},
		{"fromBlock after the position", "fromBlock", "after the webhook's position", func() error {
			_, err := webhooks.ReplayRange(h.ctx, h.store, h.keyID, w.ID, newHead+2, newHead+2)
			return err
		}},
		{"not a message id", "messageId", "is not a message id", func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID, "msg_2Lp9...")
			return err
		}},
		{"a hostile id", "messageId", "is not a message id", func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID, strings.Repeat("wh1_", 10000))
			return err
		}},
		{"another webhook's", "messageId", fmt.Sprintf("of webhook %d, not of webhook %d", b.ID, w.ID), func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID, bmsg)
			return err
		}},
		{"a retraction", "messageId", "retraction", func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID, webhooks.RetractionID(msg))
			return err
		}},
		{"a block no longer on the chain", "messageId", "no longer on the chain", func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID, webhooks.MessageID(w.ID, db.MustFelt("0x57"), pos))
			return err
		}},
		{"not delivered yet", "messageId", "not been delivered yet", func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID,
				webhooks.MessageID(w.ID, hash, db.Position{Block: newHead + 1, Tx: 0, Event: -1}))
			return err
		}},
		{"no item there", "messageId", "names no item", func() error {
			_, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, w.ID,
				webhooks.MessageID(w.ID, hash, db.Position{Block: pos.Block, Tx: 999, Event: -1}))
			return err
		}},
	} {
		var in *webhooks.InputError
		if err := c.do(); !errors.As(err, &in) || in.Arg != c.arg || !strings.Contains(in.Msg, c.says) {
			t.Errorf("%s: got %v, want an InputError of %s saying %q", c.name, err, c.arg, c.says)
		}
	}
	// Another key's webhook is none of this key's.
	if r, err := webhooks.ReplayRange(h.ctx, h.store, h.keyID+1, w.ID, 5, 8); r != nil || err != nil {
		t.Errorf("another key replayed it: %+v %v", r, err)
	}
}
