package idlegc

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

var sink [][]byte

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func percent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// held is the heap memory the process holds from the system.
func held() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapSys - m.HeapReleased
}

// After a request that leaves 256 MiB of garbage, the API idle: the collector's
// percentage drops to the idle one and the heap is given back, once; the next request
// puts the busy percentage back; health probes do not count.
func TestReleasesWhenIdle(t *testing.T) {
	before := debug.SetGCPercent(400)
	t.Cleanup(func() { debug.SetGCPercent(before) })

	r := New(100*time.Millisecond, 100, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	h := r.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/alloc" {
			for range 256 {
				sink = append(sink, make([]byte, 1<<20))
			}
			sink = nil
		}
	}))
	get := func(path string) { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil)) }

	// The start counts as use: one release, then none until a request.
	waitFor(t, "no release after the start", func() bool { return r.Releases.Load() == 1 })
	time.Sleep(300 * time.Millisecond)
	if n := r.Releases.Load(); n != 1 {
		t.Fatalf("%d releases without a request", n)
	}
	get("/alloc")
	if p := percent(); p != 400 {
		t.Errorf("after a request: GC percent %d, want 400 back", p)
	}
	heldBusy := held()
	waitFor(t, "no release after the request", func() bool { return r.Releases.Load() == 2 })
	if p := percent(); p != 100 {
		t.Errorf("idle: GC percent %d, want 100", p)
	}
	if h := held(); h > heldBusy/2 || h > 128<<20 {
		t.Errorf("idle: the heap holds %d MiB of the system's memory (%d MiB after the request)", h>>20, heldBusy>>20)
	}
	t.Logf("heap held from the system: %d MiB after the request, %d MiB after the release", heldBusy>>20, held()>>20)

	// Probes neither wake it nor make it release again.
	for range 5 {
		get("/healthz")
		get("/readyz")
		time.Sleep(50 * time.Millisecond)
	}
	if p, n := percent(), r.Releases.Load(); p != 100 || n != 2 {
		t.Errorf("after probes: GC percent %d, %d releases; want 100, 2", p, n)
	}

	get("/")
	if p := percent(); p != 400 {
		t.Errorf("after a request: GC percent %d, want 400 back", p)
	}
	waitFor(t, "no third release", func() bool { return r.Releases.Load() == 3 })

	// At the end of Run the busy percentage is back.
	get("/")
	cancel()
	<-done
	if p := percent(); p != 400 {
		t.Errorf("after Run: GC percent %d, want 400", p)
	}
}

// A request running longer than the idle time is not idleness; nor is an operator's GOGC
// changed (idlePercent -1).
func TestLongRequestIsNotIdle(t *testing.T) {
	before := debug.SetGCPercent(250)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	r := New(50*time.Millisecond, -1, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx)
	waitFor(t, "no release after the start", func() bool { return r.Releases.Load() == 1 })
	release := make(chan struct{})
	started := make(chan struct{})
	h := r.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { close(started); <-release }))
	go h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	<-started
	time.Sleep(300 * time.Millisecond)
	if n := r.Releases.Load(); n != 1 {
		t.Errorf("released while a request ran")
	}
	close(release)
	waitFor(t, "no release after the request", func() bool { return r.Releases.Load() == 2 })
	time.Sleep(200 * time.Millisecond)
	if n := r.Releases.Load(); n != 2 {
		t.Errorf("%d releases after one request, want 2 (the start's and the request's)", n)
	}
	if p := percent(); p != 250 {
		t.Errorf("GC percent %d: the operator's 250 should stay", p)
	}
}
