package loaders

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
)

// BenchmarkNew is what every request pays for its loaders before it loads anything.
func BenchmarkNew(b *testing.B) {
	store := db.NewStore(nil)
	b.ReportAllocs()
	for b.Loop() {
		New(store)
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
	z := one(dispatch{wait: time.Hour, sequential: true}, fetch, func(row string) string { return row })
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

// Every loader of a request is its own (a fresh copy of its store's template, with its
// own cache), has a batch function, and takes the request's dispatch; making them costs
// one allocation per loader and one for the set, not the ~130 of building them anew.
func TestNewCopiesEveryLoader(t *testing.T) {
	store := db.NewStore(nil)
	a, b := New(store), Sequential(store)
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		name := va.Type().Field(i).Name
		fa, fb := va.Field(i), vb.Field(i)
		if fa.IsNil() || fb.IsNil() || fa.Pointer() == fb.Pointer() {
			t.Fatalf("%s: the two requests' loaders are %v and %v", name, fa, fb)
		}
		if fa.Elem().FieldByName("batch").IsNil() {
			t.Errorf("%s has no batch function", name)
		}
		if fa.Elem().FieldByName("d").FieldByName("sequential").Bool() || !fb.Elem().FieldByName("d").FieldByName("sequential").Bool() {
			t.Errorf("%s does not take its request's dispatch", name)
		}
	}
	fields := float64(va.NumField())
	if got := testing.AllocsPerRun(100, func() { _ = New(store) }); got > fields+1 {
		t.Errorf("New costs %.0f allocations, want at most %.0f (a loader each and the set)", got, fields+1)
	}
}
