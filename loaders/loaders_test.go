package loaders

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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

// The items of a fan-out that ask for the same key (the block of most transactions of a
// page) each count towards its capacity: the batch runs when every item asked, with each
// key once, instead of waiting out BatchWait (an hour here) for keys that never come.
func TestFanOutCountsRepeatedKeys(t *testing.T) {
	var (
		mu      sync.Mutex
		batches [][]string
	)
	fetch := func(_ context.Context, keys []string) ([]string, error) {
		mu.Lock()
		batches = append(batches, keys)
		mu.Unlock()
		return keys, nil // each key's row is the key itself
	}
	const items = 6
	z := one(dispatch{wait: time.Hour, capacity: items, fanOut: true, caches: &caches{}, next: new(int)},
		fetch, func(row string) string { return row })

	asks := []string{"a", "a", "b", "a", "b", "a"}
	got := make([]string, items)
	var wg sync.WaitGroup
	for i, key := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = z.Load(context.Background(), key)()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the fan-out's batch did not run when its items had all asked")
	}
	if fmt.Sprint(got) != fmt.Sprint(asks) {
		t.Errorf("loads answered %v, want %v", got, asks)
	}
	if len(batches) != 1 || len(batches[0]) != 2 {
		t.Errorf("batches %v, want one with each key once", batches)
	}
	// Later loads of the request find the keys in its cache.
	if v, err := z.Load(context.Background(), "b")(); v != "b" || err != nil || len(batches) != 1 {
		t.Errorf("a load after the fan-out = %q, %v after %d batches; want the cached row", v, err, len(batches))
	}
}

// LoadAll reads the keys the request has not loaded in one batch, each once, on the calling
// goroutine, answers in the order asked (a missing row is the zero value), and leaves them
// cached for the loads that follow.
func TestLoadAllReadsWhatIsMissingOnce(t *testing.T) {
	var batches [][]string
	fetch := func(_ context.Context, keys []string) ([]string, error) {
		batches = append(batches, keys)
		var rows []string
		for _, k := range keys {
			if k != "gone" {
				rows = append(rows, k)
			}
		}
		return rows, nil
	}
	ctx := context.Background()
	z := one(dispatch{wait: time.Hour, capacity: 1, caches: &caches{}, next: new(int)}, fetch, func(row string) string { return row })
	z.Prime(ctx, "primed", "primed")

	got, err := z.LoadAll(ctx, []string{"a", "primed", "b", "a", "gone"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint([]string{"a", "primed", "b", "a", ""}) {
		t.Errorf("LoadAll = %q", got)
	}
	if fmt.Sprint(batches) != "[[a b gone]]" {
		t.Errorf("batches %q, want one with each key the request had not loaded, once", batches)
	}
	// What LoadAll read is the request's: neither a load nor a second LoadAll reads it again.
	if v, err := z.Load(ctx, "b")(); err != nil || v != "b" {
		t.Errorf("Load after LoadAll = %q, %v", v, err)
	}
	if _, err := z.LoadAll(ctx, []string{"a", "b", "gone"}); err != nil || len(batches) != 1 {
		t.Errorf("a second LoadAll of the same keys ran %d batches in all (%v)", len(batches), err)
	}
}
