package stackstart

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// TestHoldRaisesTheStartingStack checks the runtime's starting size before, during and
// after Hold, each after a collection (when the runtime takes its average).
func TestHoldRaisesTheStartingStack(t *testing.T) {
	runtime.GC()
	before := startingSize()
	if before == 0 {
		t.Skip("this runtime does not report /gc/stack/starting-size:bytes")
	}
	if before >= 16<<10 {
		t.Fatalf("new goroutines start at %d bytes already: the test could not tell Hold's effect", before)
	}

	stop := Hold(14)
	runtime.GC()
	if got := startingSize(); got != 16<<10 {
		t.Errorf("holding 14 KiB: new goroutines start at %d bytes, want %d", got, 16<<10)
	}

	stop()
	stop() // a second stop is harmless
	runtime.GC()
	if got := startingSize(); got != before {
		t.Errorf("after stop: new goroutines start at %d bytes, want %d as before", got, before)
	}
}

func TestHoldZeroParksNothing(t *testing.T) {
	n := runtime.NumGoroutine()
	stop := Hold(0)
	defer stop()
	if got := runtime.NumGoroutine(); got != n {
		t.Errorf("Hold(0) started %d goroutines", got-n)
	}
}

// BenchmarkCollection is what holding costs: a whole collection, which scans the parked
// goroutines' stacks, without and with Hold(14) in the same run.
//
//	go test ./internal/stackstart -run '^$' -bench Collection -count 3
func BenchmarkCollection(b *testing.B) {
	for _, c := range []struct {
		name string
		kib  int
	}{{"without-hold", 0}, {"hold-14KiB", 14}} {
		b.Run(c.name, func(b *testing.B) {
			defer Hold(c.kib)()
			for b.Loop() {
				runtime.GC()
			}
		})
	}
}

// startingSize is the stack size, in bytes, that the runtime gives new goroutines now (0:
// the runtime does not say).
func startingSize() uint64 {
	s := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
