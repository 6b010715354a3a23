// Package stackstart makes new goroutines start with stacks big enough for the work gqlgen
// gives them, so that they do not grow (and copy) their stacks while resolving.
//
// Go starts a goroutine's stack at the average size of the stacks its last collection
// found in use, plus a guard, rounded up to a power of two (the runtime's
// adaptivestackstart, on by default since Go 1.19; the metric
// /gc/stack/starting-size:bytes). A server's goroutines are mostly idle connections with
// stacks of under 1 KiB in use, so new ones start at 2 to 8 KiB, while each goroutine
// gqlgen starts for an element of a list (graphql.MarshalSliceConcurrently, one per
// element, with no setting to avoid it) reaches 10 to 16 KiB resolving the element's fields
// and grows its stack once or twice on the way: runtime.newstack, which copies the stack,
// took 15% of the CPU of GraphQL's 25 transactions with their block served in process.
//
// Hold parks goroutines with deep stacks so that the runtime's average stays high enough
// for new goroutines to start at the size asked for. Idle goroutines pull the average down
// (250 idle connections halved a fixed 256 parked goroutines' effect), so after each
// collection Hold reads what the collection scanned and parks more goroutines, or lets some
// go, to keep the average where it must be: about 14 KiB of parked stack for each idle
// goroutine (16 KiB starts), at most 64 MiB in all, and never so much that new goroutines
// start bigger than asked. Parked goroutines cost their stacks and the collector's
// walk of their frames, nothing else: they block until released.
package stackstart

import (
	"math/bits"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// MaxKiB is the most Hold accepts: beyond it the parked stacks cost more than any growth
// they would save.
const MaxKiB = 64

// maxParkedBytes bounds the stacks Hold parks: past it, idle goroutines dilute the average
// again (at 16 KiB starts, past about 5,000 of them).
const maxParkedBytes = 64 << 20

// frameBytes is about what one call of fill takes of the stack: its buffer and its frame.
// Few large frames rather than many small ones: a collection unwinds every frame of every
// parked goroutine (BenchmarkCollection, among 3,000 idle goroutines: 2.4 ms a collection
// without Hold, 3.7 with about 40 MiB parked).
const frameBytes = 8192

// checkEvery is how often Hold looks for a new collection to adjust to.
var checkEvery = time.Second

// Hold makes new goroutines start with the power of two above usedKiB KiB plus the
// runtime's guard (usedKiB 14: 16 KiB), until stop is called. It runs one collection to
// see the stacks in use, and follows the later ones. usedKiB is clamped to MaxKiB; 0 or
// less holds nothing.
func Hold(usedKiB int) (stop func()) {
	h := hold(usedKiB)
	if h == nil {
		return func() {}
	}
	return h.stop
}

// holder keeps the runtime's average stack in use between low and high.
type holder struct {
	low, high uint64        // the band of averages, in bytes, that make starts the size asked
	frames    int           // fill's depth in each parked goroutine
	used      uint64        // bytes of stack each parked goroutine has in use, about
	max       int           // the most goroutines parked (maxParkedBytes)
	release   chan struct{} // a value lets one parked goroutine go; closing lets all go
	done      chan struct{} // closed by stop: the adjusting loop ends
	parkedWG  sync.WaitGroup
	loopWG    sync.WaitGroup
	stopOnce  sync.Once
	seen      uint64 // the last collection adjusted to

	mu     sync.Mutex
	parked int // goroutines parked now (the adjusting loop's, read by tests)
}

func hold(usedKiB int) *holder {
	usedKiB = min(usedKiB, MaxKiB)
	// The start asked for: the power of two above usedKiB plus the guard (928 bytes).
	start := uint64(1) << bits.Len64(uint64(usedKiB)<<10+1024-1)
	if usedKiB <= 0 || start <= 2<<10 { // 2 KiB: the runtime's least, nothing to hold
		return nil
	}
	// The runtime starts at round2(average + guard): an average over half the start less
	// the guard and under the start less the guard rounds to the start. The band keeps
	// a KiB or more from either end.
	h := &holder{
		low:     start/2 + 1<<10,
		high:    start - 2<<10,
		release: make(chan struct{}),
		done:    make(chan struct{}),
	}
	// Each parked goroutine fills most of a stack four times the start: the deeper the
	// parked stacks, the fewer bytes lift the average (each idle goroutine needs about 14
	// KiB of parked stacks four times the start, twice that of stacks as big as the
	// start), and the fewer goroutines a collection walks.
	h.frames = int((4*start - 8<<10) / frameBytes)
	h.used = uint64(h.frames) * frameBytes
	h.max = maxParkedBytes / int(4*start)
	runtime.GC()
	h.adjust()
	h.loopWG.Add(1)
	go h.adjustLoop()
	return h
}

func (h *holder) stop() {
	h.stopOnce.Do(func() {
		close(h.done)
		h.loopWG.Wait()
		close(h.release)
		h.parkedWG.Wait()
		h.mu.Lock()
		h.parked = 0
		h.mu.Unlock()
	})
}

// adjustLoop adjusts to each new collection.
func (h *holder) adjustLoop() {
	defer h.loopWG.Done()
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-tick.C:
			h.adjust()
		}
	}
}

// adjust parks or lets go as many goroutines as put the average in the band, if there
// has been a collection since the last time.
func (h *holder) adjust() {
	samples := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/scan/stack:bytes"}}
	metrics.Read(samples)
	if samples[0].Value.Kind() != metrics.KindUint64 || samples[1].Value.Kind() != metrics.KindUint64 {
		return // a runtime that does not say
	}
	cycles := samples[0].Value.Uint64()
	if cycles == h.seen {
		return
	}
	h.seen = cycles
	parked := h.count()
	want, ok := h.needed(parked, samples[1].Value.Uint64(), runtime.NumGoroutine())
	switch {
	case ok:
	case want > parked:
		h.park(want - parked)
	default:
		h.let(parked - want)
	}
}

// needed says how many goroutines to park, given how many are parked now, the stack bytes
// the last collection scanned and the goroutines alive, and whether those parked now do.
// The others' stacks are what is not parked; with n parked the average is
// (others' bytes + n x used) / (others + n), which must be in the band.
func (h *holder) needed(parked int, scanned uint64, goroutines int) (want int, ok bool) {
	// Not the adjusting loop; but the runtime's own goroutines (a mark worker a processor,
	// the sweeper, scavenger, finalizer...), which the collection scans and NumGoroutine
	// leaves out.
	others := int64(max(goroutines-parked-1, 0) + runtime.GOMAXPROCS(0) + 4)
	othersBytes := int64(0)
	if p := uint64(parked) * h.used; scanned > p {
		othersBytes = int64(scanned - p)
	}
	used := int64(h.used)
	fewest := ceilDiv(int64(h.low)*others-othersBytes, used-int64(h.low))
	most := (int64(h.high)*others - othersBytes) / (used - int64(h.high))
	if int64(parked) >= fewest && int64(parked) <= most {
		return parked, true
	}
	// Aim a quarter into the band: the least memory with some margin for the goroutines
	// that come and go between collections. Where the band holds no whole number (few
	// goroutines), too few rather than too many: an average under the band is what the
	// runtime would choose alone, over it every new goroutine gets twice the stack.
	want64 := min(fewest+(most-fewest)/4, most)
	return int(min(max(want64, 0), int64(h.max))), false
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// park parks n more goroutines and returns when their stacks are in use to their depth,
// so that the next collection counts them whole.
func (h *holder) park(n int) {
	var deep sync.WaitGroup
	deep.Add(n)
	h.parkedWG.Add(n)
	for range n {
		go func() {
			defer h.parkedWG.Done()
			fill(h.frames, deep.Done, h.release)
		}()
	}
	deep.Wait()
	h.mu.Lock()
	h.parked += n
	h.mu.Unlock()
}

// let lets n parked goroutines go.
func (h *holder) let(n int) {
	for range n {
		h.release <- struct{}{}
	}
	h.mu.Lock()
	h.parked -= n
	h.mu.Unlock()
}

func (h *holder) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.parked
}

// fill calls itself depth times, each call keeping a buffer on the stack, and at the
// bottom says so (reached) and waits for release.
//
//go:noinline
func fill(depth int, reached func(), release <-chan struct{}) byte {
	var buf [frameBytes - 64]byte // less the frame's own words
	buf[depth%len(buf)] = byte(depth)
	if depth <= 1 {
		reached()
		<-release
		return buf[0]
	}
	return fill(depth-1, reached, release) + buf[len(buf)-1]
}
