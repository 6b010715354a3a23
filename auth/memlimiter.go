package auth

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// MemoryLimiter keeps counters in this process. It is exact under
// concurrency (one mutex guards every decision) but not shared between
// replicas: use it for a single server, or as the fallback of Redis.
type MemoryLimiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	quotas  map[string]*quotaCount
	now     func() time.Time
}

// quotaCount is the count of one key's current day and month.
type quotaCount struct {
	day, month           string
	dayCount, monthCount int64
}

// NewMemoryLimiter returns an empty in-process limiter.
func NewMemoryLimiter() *MemoryLimiter {
	return &MemoryLimiter{
		buckets: make(map[string]*rate.Limiter),
		quotas:  make(map[string]*quotaCount),
		now:     time.Now,
	}
}

// AllowRate implements Limiter with golang.org/x/time/rate token buckets.
func (l *MemoryLimiter) AllowRate(_ context.Context, key string, r Rate, n int) (RateResult, error) {
	n = capCost(n, r.Burst)
	every := rate.Limit(r.RatePerSecond)

	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(every, r.Burst)
		l.buckets[key] = b
	} else if b.Limit() != every || b.Burst() != r.Burst {
		// The plan changed; keep the tokens already earned.
		b.SetLimitAt(now, every)
		b.SetBurstAt(now, r.Burst)
	}

	tokens := b.TokensAt(now)
	if tokens < float64(n) {
		return RateResult{
			Allowed:    false,
			Remaining:  max(0, int(math.Floor(tokens))),
			RetryAfter: unitsDuration(float64(n)-tokens, r.RatePerSecond),
			ResetAfter: unitsDuration(float64(r.Burst)-tokens, r.RatePerSecond),
		}, nil
	}
	b.AllowN(now, n) // cannot fail: the tokens are there and the mutex is held
	left := tokens - float64(n)
	return RateResult{
		Allowed:    true,
		Remaining:  int(math.Floor(left)),
		ResetAfter: unitsDuration(float64(r.Burst)-left, r.RatePerSecond),
	}, nil
}

// AllowQuota implements Limiter.
func (l *MemoryLimiter) AllowQuota(_ context.Context, key string, q Quota, now time.Time) (QuotaResult, error) {
	day, dayEnd, month, monthEnd := quotaWindows(now)

	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.quotas[key]
	if !ok {
		c = &quotaCount{}
		l.quotas[key] = c
	}
	if c.day != day {
		c.day, c.dayCount = day, 0
	}
	if c.month != month {
		c.month, c.monthCount = month, 0
	}

	res := QuotaResult{Allowed: true, DailyReset: dayEnd.Sub(now), MonthlyReset: monthEnd.Sub(now)}
	switch {
	case q.Daily > 0 && c.dayCount+1 > q.Daily:
		res.Allowed, res.Exceeded = false, "daily"
	case q.Monthly > 0 && c.monthCount+1 > q.Monthly:
		res.Allowed, res.Exceeded = false, "monthly"
	default:
		c.dayCount++
		c.monthCount++
	}
	res.DailyRemaining = remainingOf(q.Daily, c.dayCount)
	res.MonthlyRemaining = remainingOf(q.Monthly, c.monthCount)
	return res, nil
}

// unitsDuration is how long a bucket filling at perSecond takes to gain units.
func unitsDuration(units, perSecond float64) time.Duration {
	if units <= 0 || perSecond <= 0 {
		return 0
	}
	return time.Duration(units / perSecond * float64(time.Second))
}
