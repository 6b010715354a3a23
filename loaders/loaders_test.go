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
	// Loaders are made on first use, in any order: a cache the fan-out made first is
	// the request's too.
	pool := &db.Pool{Address: db.MustFelt("0x900")}
	req.FanOut(2).Pool.Prime(ctx, string(pool.Address), pool)
	if got, err := req.Pool.Load(ctx, string(pool.Address))(); err != nil || got != pool {
		t.Fatalf("request load of a key its fan-out primed = %v, %v; want the primed pool", got, err)
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
