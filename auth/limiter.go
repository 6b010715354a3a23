package auth

import (
	"context"
	"math"
	"time"
)

// Rate is a token bucket: RatePerSecond units flow in, at most Burst are held.
// A plain request costs one unit; a GraphQL document costs its complexity.
type Rate struct {
	RatePerSecond float64
	Burst         int
}

// Quota caps the requests of a UTC day and of a UTC calendar month. Zero
// means unlimited.
type Quota struct {
	Daily   int64
	Monthly int64
}

// Unlimited reports whether neither window is capped, in which case nothing
// needs counting.
func (q Quota) Unlimited() bool { return q.Daily <= 0 && q.Monthly <= 0 }

// RateResult is the outcome of taking units from a bucket.
type RateResult struct {
	Allowed bool
	// Remaining is how many units could be taken right now after this call.
	Remaining int
	// RetryAfter is how long to wait before the refused units fit (refusals only).
	RetryAfter time.Duration
	// ResetAfter is how long until the bucket is full again.
	ResetAfter time.Duration
}

// QuotaResult is the outcome of counting one request against the quotas.
type QuotaResult struct {
	Allowed bool
	// Exceeded names the refusing window, "daily" or "monthly" (refusals only).
	Exceeded string
	// DailyRemaining and MonthlyRemaining are -1 when that window is unlimited.
	DailyRemaining   int64
	MonthlyRemaining int64
	// DailyReset and MonthlyReset are how long until each window starts over.
	DailyReset   time.Duration
	MonthlyReset time.Duration
}

// Limiter keeps the counters behind rate limits and quotas. Implementations
// are exact under concurrency: of many simultaneous callers, exactly as many
// are allowed as the limits permit. A refused call consumes nothing.
type Limiter interface {
	// AllowRate takes n units from the bucket named key (n is capped at
	// rate.Burst, so that a cost larger than the bucket needs a full one
	// rather than being refused forever).
	AllowRate(ctx context.Context, key string, rate Rate, n int) (RateResult, error)
	// AllowQuota counts one request against the day and month (UTC) that
	// contain now, unless that would exceed either quota.
	AllowQuota(ctx context.Context, key string, quota Quota, now time.Time) (QuotaResult, error)
}

// quotaWindows returns the names of the UTC day and month containing now and
// when each ends.
func quotaWindows(now time.Time) (day string, dayEnd time.Time, month string, monthEnd time.Time) {
	now = now.UTC()
	y, m, d := now.Date()
	dayStart := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	monthStart := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return dayStart.Format("2006-01-02"), dayStart.AddDate(0, 0, 1),
		monthStart.Format("2006-01"), monthStart.AddDate(0, 1, 0)
}

// remainingOf returns limit-used, or -1 for an unlimited window.
func remainingOf(limit, used int64) int64 {
	if limit <= 0 {
		return -1
	}
	return max(limit-used, 0)
}

// capCost keeps n within [0, burst]: see Limiter.AllowRate.
func capCost(n, burst int) int {
	return max(0, min(n, burst))
}

// secondsCeil renders a duration as whole seconds, rounded up, for the
// Retry-After and X-RateLimit-Reset headers.
func secondsCeil(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(math.Ceil(d.Seconds()))
}
