package webhooks

import (
	"context"
	"sync"
)

// Rounds runs a dispatcher's rounds one at a time, for tests that look at one round: its
// recorder runs, its loop does not.
type Rounds struct {
	d    *Dispatcher
	ctx  context.Context
	Stop func()
}

// StartRounds starts d's recorder; Stop ends it and releases d's locks.
func StartRounds(ctx context.Context, d *Dispatcher) *Rounds {
	ctx, cancel := context.WithCancel(ctx)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); d.recorder(ctx, stop) }()
	var once sync.Once
	return &Rounds{d: d, ctx: ctx, Stop: func() {
		once.Do(func() {
			d.wg.Wait()
			close(stop)
			<-done
			cancel()
			d.lock.close()
		})
	}}
}

// Round runs one round and waits for the deliveries it started.
func (r *Rounds) Round() {
	r.d.round(r.ctx)
	r.d.wg.Wait()
}
