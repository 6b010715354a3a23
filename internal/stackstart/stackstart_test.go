package stackstart

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
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

// TestHoldFollowsIdleGoroutines opens thousands of idle goroutines, as idle connections
// and subscriptions are, which pull the runtime's average down (shown first without
// Hold); Hold parks more until new goroutines start at 16 KiB again, and lets them go,
// without starting new goroutines bigger than asked, when the idle ones end.
func TestHoldFollowsIdleGoroutines(t *testing.T) {
	defer func(d time.Duration) { checkEvery = d }(checkEvery)
	checkEvery = 5 * time.Millisecond
	idle := startIdle(3000)
	runtime.GC()
	alone := startingSize()
	if alone == 0 {
		t.Skip("this runtime does not report /gc/stack/starting-size:bytes")
	}
	if alone >= 16<<10 {
		t.Fatalf("with 3,000 idle goroutines and no Hold new goroutines start at %d bytes: the test could not tell Hold's effect", alone)
	}

	h := hold(14)
	defer h.stop()
	if got := settle(t, h); got != 16<<10 {
		t.Errorf("3,000 idle goroutines, %d parked: new goroutines start at %d bytes, want %d", h.count(), got, 16<<10)
	}
	many := h.count()
	if bytes := many * 64 << 10; bytes > maxParkedBytes {
		t.Errorf("%d parked goroutines of 64 KiB: more than the %d bytes allowed", many, maxParkedBytes)
	}

	close(idle)
	if got := settle(t, h); got != 16<<10 {
		t.Errorf("idle goroutines gone, %d parked: new goroutines start at %d bytes, want %d", h.count(), got, 16<<10)
	}
	if few := h.count(); few >= many/2 {
		t.Errorf("idle goroutines gone: %d goroutines still parked of %d", few, many)
	}
	t.Logf("parked for 3,000 idle goroutines: %d (%d MiB of stacks)", many, many*64>>10)
}

// startIdle starts n goroutines that wait, with little stack, until the channel is closed.
func startIdle(n int) chan struct{} {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(n)
	for range n {
		go func() {
			started.Done()
			<-release
		}()
	}
	started.Wait()
	return release
}

// settle runs collections until the holder has nothing more to change, and returns the
// starting size then.
func settle(t *testing.T, h *holder) uint64 {
	t.Helper()
	last, still := -1, 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && still < 5; {
		runtime.GC()
		time.Sleep(4 * checkEvery)
		if n := h.count(); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}
	runtime.GC()
	return startingSize()
}

// BenchmarkCollection is what holding costs: a whole collection, which scans the parked
// goroutines' stacks, without and with Hold(14) in the same run, among 3,000 idle
// goroutines (for which Hold parks about 40 MiB).
//
//	go test ./internal/stackstart -run '^$' -bench Collection -count 3
func BenchmarkCollection(b *testing.B) {
	defer close(startIdle(3000))
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
