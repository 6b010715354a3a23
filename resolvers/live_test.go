package resolvers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/live"
)

// Subscription arguments are checked before anything is subscribed, and a process without
// a hub says it serves no subscriptions.
func TestSubscriptionArguments(t *testing.T) {
	ctx := context.Background()
	hub := live.NewHub(db.NewStore(nil), live.Options{})
	r := &Resolver{Live: hub}
	keys := make([]db.Felt, maxEventKeys+1)
	for i := range keys {
		keys[i] = db.MustFelt("0x1")
	}
	_, err := r.Subscription().Events(ctx, nil, keys)
	if err == nil || !strings.Contains(err.Error(), "keys") {
		t.Fatalf("%d keys: %v; want the argument refused", len(keys), err)
	}
	if n := hub.Count(); n != 0 {
		t.Fatalf("a refused subscription is open: %d", n)
	}
	if _, err := (&Resolver{}).Subscription().NewBlocks(ctx); !errors.Is(err, live.ErrNotServed) {
		t.Fatalf("without a hub: %v", err)
	}
}
