package auth

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// FailMode is what the rate limiter does while Redis does not answer.
type FailMode string

const (
	// FailLocal counts on each replica's own memory: limits hold per replica (the default).
	FailLocal FailMode = "local"
	// FailOpen admits every request uncounted: no client is refused because of Redis.
	FailOpen FailMode = "open"
	// FailClosed refuses every request with 503 and Retry-After: no request goes uncounted.
	FailClosed FailMode = "closed"
)

// ParseFailMode reads --limiter-fail.
func ParseFailMode(s string) (FailMode, error) {
	switch m := FailMode(s); m {
	case FailLocal, FailOpen, FailClosed:
		return m, nil
	}
	return "", fmt.Errorf("--limiter-fail %q: want local, open or closed", s)
}

// ErrLimiterUnavailable is the answer of a closed-failing limiter while Redis is down: the
// middleware refuses the request with 503 and Retry-After.
var ErrLimiterUnavailable = errors.New("rate limiter unavailable")

// fallbackFor is the limiter that stands in for Redis in a mode.
func fallbackFor(mode FailMode) Limiter {
	switch mode {
	case FailOpen:
		return openLimiter{}
	case FailClosed:
		return closedLimiter{}
	}
	return NewMemoryLimiter()
}

// openLimiter admits everything.
type openLimiter struct{}

func (openLimiter) AllowRate(_ context.Context, _ string, r Rate, _ int) (RateResult, error) {
	return RateResult{Allowed: true, Remaining: r.Burst}, nil
}

func (openLimiter) AllowQuota(context.Context, string, Quota, time.Time) (QuotaResult, error) {
	return QuotaResult{Allowed: true, DailyRemaining: -1, MonthlyRemaining: -1}, nil
}

// closedLimiter refuses everything.
type closedLimiter struct{}

func (closedLimiter) AllowRate(context.Context, string, Rate, int) (RateResult, error) {
	return RateResult{}, ErrLimiterUnavailable
}

func (closedLimiter) AllowQuota(context.Context, string, Quota, time.Time) (QuotaResult, error) {
	return QuotaResult{}, ErrLimiterUnavailable
}
