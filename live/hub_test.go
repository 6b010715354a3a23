package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
)

func reorgNotice(ancestor int64) db.ChainNotice {
	return db.ChainNotice{Reorg: &db.ReorgNotice{Ancestor: ancestor, Depth: 1, OldHashes: []string{"0x1"}, NewHashes: []string{"0x2"}}}
}

// A subscriber that does not take its messages is ended once its buffer stays full for
// the hub's patience; it keeps what it had buffered, learns why once, and a subscriber
// beside it that reads keeps receiving.
func TestFullBufferEndsTheSubscriber(t *testing.T) {
	h := NewHub(db.NewStore(nil), Options{Buffer: 2, Patience: 20 * time.Millisecond})
	ctx := Track(context.Background())
	slow, err := h.Blocks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.Blocks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	received := make(chan int64, 10)
	go func() {
		for m := range fast {
			received <- m.Reorg.Ancestor
		}
	}()
	for i := range int64(4) {
		h.Handle(context.Background(), reorgNotice(i))
	}
	var kept []int64
	for m := range slow {
		kept = append(kept, m.Reorg.Ancestor)
	}
	if len(kept) != 2 || kept[0] != 0 || kept[1] != 1 {
		t.Fatalf("the slow subscriber kept %v; want its buffer of 2, then the end", kept)
	}
	if err := TakeEndReason(ctx); !errors.Is(err, ErrTooSlow) {
		t.Fatalf("end reason %v; want ErrTooSlow", err)
	}
	if err := TakeEndReason(ctx); err != nil {
		t.Fatalf("the end reason is told twice: %v", err)
	}
	for want := range int64(4) {
		select {
		case got := <-received:
			if got != want {
				t.Fatalf("the reading subscriber got %d, want %d", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the reading subscriber missed notice %d", want)
		}
	}
	if n := h.Count(); n != 1 {
		t.Fatalf("%d subscriptions open; want the reading one", n)
	}
}

// A subscription ends with its context, without a goroutine of its own.
func TestSubscriptionEndsWithItsContext(t *testing.T) {
	h := NewHub(db.NewStore(nil), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := h.Blocks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("a message after the end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the channel stayed open")
	}
	if h.Count() != 0 {
		t.Fatal("the hub still holds the subscription")
	}
}

// Event keys match by position, felts by value whatever their padding.
func TestEventKeysMatchByPosition(t *testing.T) {
	h := NewHub(db.NewStore(nil), Options{})
	key := db.MustFelt("0x99")
	ch, err := h.Events(context.Background(), db.MustFelt("0x5"), []db.Felt{append(db.Felt{0, 0}, key...)})
	if err != nil {
		t.Fatal(err)
	}
	events := []*db.Event{
		{Index: 0, FromAddress: db.MustFelt("0x5"), Keys: db.FeltArray{key, db.MustFelt("0x1")}},
		{Index: 1, FromAddress: db.MustFelt("0x6"), Keys: db.FeltArray{key}},
		{Index: 2, FromAddress: db.MustFelt("0x5"), Keys: db.FeltArray{db.MustFelt("0x1"), key}},
		{Index: 3, FromAddress: db.MustFelt("0x5"), Keys: nil},
		{Index: 4, FromAddress: db.MustFelt("0x05"), Keys: db.FeltArray{key}},
	}
	h.deliver(feedEvents, nil, messages(events, func(e *db.Event) any { return e }))
	var got []int
	for len(ch) > 0 {
		got = append(got, (<-ch).Index)
	}
	if len(got) != 2 || got[0] != 0 || got[1] != 4 {
		t.Fatalf("matched events %v; want 0 and 4", got)
	}
}

// While the hub waits for room in a subscriber's full buffer (its patience, an hour here),
// others subscribe and count without waiting for it, and the waiting subscriber's own end
// stops the wait.
func TestAWaitForRoomHoldsNoOneElse(t *testing.T) {
	h := NewHub(db.NewStore(nil), Options{Buffer: 1, Patience: time.Hour})
	ctx, cancel := context.WithCancel(Track(context.Background()))
	stuck, err := h.Blocks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	delivered := make(chan struct{})
	go func() {
		h.Handle(context.Background(), reorgNotice(1)) // fills the buffer
		h.Handle(context.Background(), reorgNotice(2)) // waits for room
		close(delivered)
	}()
	within := func(what string, do func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { do(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s waited for the full subscriber", what)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); len(stuck) < 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first notice never reached the subscriber")
		}
	}
	within("subscribing", func() {
		if _, err := h.Blocks(context.Background()); err != nil {
			t.Error(err)
		}
	})
	within("counting", func() { h.Count() })
	cancel() // the stuck subscriber leaves: the hub stops waiting for it
	within("delivering", func() { <-delivered })
	var kept []int64
	for m := range stuck {
		kept = append(kept, m.Reorg.Ancestor)
	}
	if len(kept) != 1 || kept[0] != 1 {
		t.Errorf("the subscriber kept %v; want its buffer of 1", kept)
	}
	if err := TakeEndReason(ctx); err != nil {
		t.Errorf("a subscriber that left is told %v", err)
	}
	if n := h.Count(); n != 1 {
		t.Errorf("%d subscriptions open, want the second one", n)
	}
}
