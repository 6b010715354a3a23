package loaders

import (
	"context"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// A fan-out shares its request's caches: what the request primed or loaded is answered
// from memory. The store here has no connection, so any statement would fail.
func TestFanOutSharesTheRequestsCaches(t *testing.T) {
	ctx := context.Background()
	req := Sequential(db.NewStore(nil))
	v := &db.Validator{StakerAddress: db.MustFelt("0x5a")}
	req.Validator.Prime(ctx, string(v.StakerAddress), v)

	for _, fan := range []*Loaders{req.FanOut(3), req.FanOut(3).FanOut(2)} {
		got, err := fan.Validator.Load(ctx, string(v.StakerAddress))()
		if err != nil || got != v {
			t.Fatalf("fan-out load of a primed key = %v, %v; want the primed validator", got, err)
		}
	}
	if len(req.caches.list) == 0 || len(req.caches.list) != req.FanOut(1).caches.next {
		t.Errorf("a fan-out made %d caches, the request has %d: they must be the same ones", req.FanOut(1).caches.next, len(req.caches.list))
	}
}

// BenchmarkNew is what every request pays for its loaders before it loads anything.
func BenchmarkNew(b *testing.B) {
	store := db.NewStore(nil)
	b.ReportAllocs()
	for b.Loop() {
		New(store)
	}
}
