// Package stackstart makes new goroutines start with stacks big enough for the work gqlgen
// gives them, so that they do not grow (and copy) their stacks while resolving.
//
// Go starts a goroutine's stack at the average size of the stacks its last collection
// found in use (the runtime's adaptivestackstart, on by default since Go 1.19; the metric
// /gc/stack/starting-size:bytes). A server's goroutines are mostly idle connections with
// small stacks, so new ones start at 2 to 8 KiB, while each goroutine gqlgen starts for an
// element of a list (graphql.MarshalSliceConcurrently, one per element, with no setting to
// avoid it) reaches 10 to 16 KiB resolving the element's fields and grows its stack once or
// twice on the way: runtime.newstack, which copies the stack, took 15% of the CPU of
// GraphQL's 25 transactions with their block served in process.
//
// Hold parks goroutines whose stacks are in use to about a given size, so that the
// runtime's average stays near it and new goroutines start with the next power of two.
// They cost their stacks (256 goroutines of 16 KiB: 4 MiB) and nothing else: they block
// until stopped. Other goroutines with small stacks dilute the average back towards the
// runtime's own choice, which is what it would be without Hold: 250 idle connections
// halved the start (8 KiB), 1,000 took it to 4 KiB.
package stackstart

import "sync"

// goroutines is how many goroutines Hold parks: enough to outweigh the few hundred
// goroutines a loaded server has at once in the runtime's average.
const goroutines = 256

// MaxKiB is the most Hold accepts: beyond it the parked stacks cost more than any growth
// they would save (256 goroutines of 128 KiB: 32 MiB).
const MaxKiB = 64

// frameBytes is about what one call of fill takes of the stack: its buffer and its frame.
// Few large frames rather than many small ones: a collection walks every frame of every
// parked goroutine (BenchmarkCollection: 0.19 ms more a collection with 4 KiB frames, 0.29
// with 1 KiB frames).
const frameBytes = 4096

// Hold parks its goroutines with about usedKiB KiB (at most MaxKiB) of stack in use each,
// until stop is called. New goroutines then start with the power of two above usedKiB plus
// the runtime's guard (usedKiB 14: 16 KiB), from the collection after Hold on.
func Hold(usedKiB int) (stop func()) {
	if usedKiB <= 0 {
		return func() {}
	}
	usedKiB = min(usedKiB, MaxKiB)
	release := make(chan struct{})
	var deep, parked sync.WaitGroup
	for range goroutines {
		deep.Add(1)
		parked.Add(1)
		go func() {
			defer parked.Done()
			fill(usedKiB*1024/frameBytes, deep.Done, release)
		}()
	}
	deep.Wait() // every stack in use to its size before the next collection counts it
	var once sync.Once
	return func() {
		once.Do(func() {
			close(release)
			parked.Wait()
		})
	}
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
