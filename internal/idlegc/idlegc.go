// Package idlegc gives a server's memory back to the system when its API stops being
// used, without costing the API anything while it is.
//
// The server runs its collector with GOGC=400 (gc.go, tuneGC): under load the heap
// may grow to five times what is live before a collection, which buys throughput (fewer
// collections). When the load stops, that heap stays: with nothing allocating there is
// no collection to shrink it, and the runtime's scavenger only returns memory above
// about 110 % of the last heap goal, five times the live heap. In `dev`, whose indexer
// allocates all the time in the same process, the heap keeps growing to that goal.
//
// A Releaser watches the API's requests. Once none has run for After, it lowers the
// collector's percentage to IdlePercent (100, Go's default: the heap grows to twice the
// live heap) and calls debug.FreeOSMemory (a collection, then every free page back to the
// system) once; the next request puts the busy percentage back before it runs. Health
// probes do not count as use. The start counts as use: a process idle from its start
// releases what its start-up took (in `dev`, the catch-up of the simulated chain).
package idlegc

import (
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Releaser is the idle watch of one server. Make it with New.
type Releaser struct {
	after       time.Duration
	idlePercent int // -1: leave the percentage alone
	log         *slog.Logger

	inFlight atomic.Int64
	last     atomic.Int64 // time.Now().UnixNano() of the last request's start or end
	used     atomic.Bool  // a request ran since the last release
	idle     atomic.Bool  // released, with the idle percentage set

	mu          sync.Mutex // transitions
	busyPercent int        // the percentage to put back

	// Releases counts the releases, for tests and the log.
	Releases atomic.Int64
}

// New watches for after without a request. idlePercent is the collector's percentage
// while idle; -1 leaves it alone (the operator set GOGC). log may be nil.
func New(after time.Duration, idlePercent int, log *slog.Logger) *Releaser {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Releaser{after: after, idlePercent: idlePercent, log: log}
	r.last.Store(time.Now().UnixNano())
	r.used.Store(true) // what the process did before it served (migrations, a catch-up) counts too
	return r
}

// Handler counts next's requests as use, health probes (/healthz, /readyz), WebSocket
// connections and SSE streams aside: a probe every few seconds would otherwise keep the server busy, and a
// subscription holds its request for as long as it lasts (its start counts).
func (r *Releaser) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/healthz" || req.URL.Path == "/readyz" {
			next.ServeHTTP(w, req)
			return
		}
		r.busy()
		if req.Header.Get("Upgrade") != "" || strings.Contains(req.Header.Get("Accept"), "text/event-stream") {
			next.ServeHTTP(w, req)
			return
		}
		r.inFlight.Add(1)
		defer func() {
			r.last.Store(time.Now().UnixNano())
			r.inFlight.Add(-1)
		}()
		next.ServeHTTP(w, req)
	})
}

// busy marks a request's start, and puts the busy percentage back after a release.
func (r *Releaser) busy() {
	r.last.Store(time.Now().UnixNano())
	if !r.used.Load() {
		r.used.Store(true)
	}
	if r.idle.Load() {
		r.mu.Lock()
		if r.idle.Load() {
			if r.idlePercent >= 0 {
				debug.SetGCPercent(r.busyPercent)
			}
			r.idle.Store(false)
		}
		r.mu.Unlock()
	}
}

// Run watches until ctx ends; at its end the busy percentage is back.
func (r *Releaser) Run(ctx context.Context) {
	tick := time.NewTicker(max(r.after/4, 10*time.Millisecond))
	defer tick.Stop()
	defer func() {
		r.mu.Lock()
		if r.idle.Load() && r.idlePercent >= 0 {
			debug.SetGCPercent(r.busyPercent)
		}
		r.idle.Store(false)
		r.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.check()
		}
	}
}

// check releases when the API has been idle for after since a request ran.
func (r *Releaser) check() {
	if r.idle.Load() || !r.used.Load() || r.inFlight.Load() > 0 ||
		time.Since(time.Unix(0, r.last.Load())) < r.after {
		return
	}
	r.mu.Lock()
	if r.idle.Load() || r.inFlight.Load() > 0 || time.Since(time.Unix(0, r.last.Load())) < r.after {
		r.mu.Unlock()
		return
	}
	if r.idlePercent >= 0 {
		r.busyPercent = debug.SetGCPercent(r.idlePercent)
	}
	r.used.Store(false)
	r.idle.Store(true)
	r.mu.Unlock()

	start := time.Now()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	debug.FreeOSMemory()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	r.Releases.Add(1)
	r.log.Debug("API idle: memory given back", "idle_for", r.after, "took", time.Since(start).Round(time.Millisecond),
		"heap_in_use_mib", after.HeapInuse>>20, "held_before_mib", (before.HeapSys-before.HeapReleased)>>20,
		"held_after_mib", (after.HeapSys-after.HeapReleased)>>20)
}
