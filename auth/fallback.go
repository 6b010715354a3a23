package auth

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/starkgraph/starkgraph/metrics"
)

// FallbackLimiter uses a shared (Redis) limiter while it answers and a local
// one while it does not, so that an outage of Redis degrades limits to
// per-replica instead of failing requests. It logs each switch once and,
// while on local counters, probes the shared one periodically to return to it.
type FallbackLimiter struct {
	primary    Limiter
	ping       func(context.Context) error
	local      Limiter
	log        *slog.Logger
	probeEvery time.Duration

	mu      sync.Mutex
	down    bool          // true while serving from local
	probing bool          // a probe goroutine is running
	closed  chan struct{} // closed by Close: stops the probe
	once    sync.Once
}

// NewFallbackLimiter wraps primary; ping tells whether primary is reachable
// again. probeEvery <= 0 means every 2 seconds.
func NewFallbackLimiter(primary Limiter, ping func(context.Context) error, local Limiter, log *slog.Logger, probeEvery time.Duration) *FallbackLimiter {
	if probeEvery <= 0 {
		probeEvery = 2 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	metrics.RateLimitRedisUp.Set(1)
	return &FallbackLimiter{primary: primary, ping: ping, local: local, log: log,
		probeEvery: probeEvery, closed: make(chan struct{})}
}

// UsingPrimary reports whether counters currently go to the shared limiter.
func (f *FallbackLimiter) UsingPrimary() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.down
}

// AllowRate implements Limiter.
func (f *FallbackLimiter) AllowRate(ctx context.Context, key string, r Rate, n int) (RateResult, error) {
	if f.UsingPrimary() {
		res, err := f.primary.AllowRate(ctx, key, r, n)
		if err == nil || !f.failed(ctx, err) {
			return res, err
		}
	}
	return f.local.AllowRate(ctx, key, r, n)
}

// AllowQuota implements Limiter.
func (f *FallbackLimiter) AllowQuota(ctx context.Context, key string, q Quota, now time.Time) (QuotaResult, error) {
	if f.UsingPrimary() {
		res, err := f.primary.AllowQuota(ctx, key, q, now)
		if err == nil || !f.failed(ctx, err) {
			return res, err
		}
	}
	return f.local.AllowQuota(ctx, key, q, now)
}

// Close stops probing.
func (f *FallbackLimiter) Close() {
	f.once.Do(func() { close(f.closed) })
}

// failed handles an error of the primary. An error caused by the caller
// giving up (its context ended) says nothing about Redis and is returned as
// is (false); any other switches to local counters (true).
func (f *FallbackLimiter) failed(ctx context.Context, err error) bool {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.down {
		f.down = true
		metrics.RateLimitRedisUp.Set(0)
		f.log.Warn("rate limiter: Redis unreachable, using local (per-replica) limits until it is back", "err", err)
	}
	if !f.probing {
		f.probing = true
		go f.probe()
	}
	return true
}

// probe pings the primary until it answers, then switches back to it.
func (f *FallbackLimiter) probe() {
	t := time.NewTicker(f.probeEvery)
	defer t.Stop()
	for {
		select {
		case <-f.closed:
			f.mu.Lock()
			f.probing = false
			f.mu.Unlock()
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := f.ping(ctx)
		cancel()
		if err != nil {
			continue
		}
		f.mu.Lock()
		f.down, f.probing = false, false
		f.mu.Unlock()
		metrics.RateLimitRedisUp.Set(1)
		f.log.Info("rate limiter: Redis reachable again, limits are shared again")
		return
	}
}

// NewLimiter returns the limiter the server should use: in memory when
// redisURL is empty, otherwise Redis with a fallback. The returned
// function releases what it holds (the Redis client and the probe).
// While Redis does not answer, mode decides: local counters, admit all, or refuse all.
func NewLimiter(redisURL string, mode FailMode, log *slog.Logger) (Limiter, func(), error) {
	if redisURL == "" {
		return NewMemoryLimiter(), func() {}, nil
	}
	rdb, err := NewRedisClient(redisURL)
	if err != nil {
		return nil, nil, err
	}
	rl := NewRedisLimiter(rdb)
	fb := NewFallbackLimiter(rl, rl.Ping, fallbackFor(mode), log, 0)
	return fb, func() { fb.Close(); rdb.Close() }, nil
}
