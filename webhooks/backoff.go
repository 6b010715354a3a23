package webhooks

import (
	"math/rand/v2"
	"time"
)

// The retry schedule. After the n-th failed attempt of a message (n = 1, 2, ...), the
// next waits Backoff(n): a uniformly random delay in [0, ceiling(n)] ("full jitter", so
// that the retries of many webhooks failing at once spread out), where
//
//	ceiling(n) = min(BackoffCap, BackoffBase × 2^(n-1))
//	           = 5s, 10s, 20s, 40s, 80s, 160s, 320s, 640s, 1280s, 2560s, 5120s, 10240s, 20480s,
//	             then 6h for every later attempt.
//
// A message is given up after MaxAttempts attempts (the first and 35 retries), or when its
// next attempt would come more than GiveUpAfter after its first (GiveUp), whichever comes
// first. The 13 growing delays add up to 11.4 h at most, 5.7 h on average; the 22 capped
// ones 3 h each on average: the 35 retries would span 71.7 h on average (a standard
// deviation of about 8 h), and GiveUpAfter cuts the long tail, so that the last attempt is
// made about 2.8 days after the first on average (measured by
// TestBackoffTotalsAboutThreeDays) and never later than three days. A SlowDown's
// Retry-After replaces the backoff of that attempt, and counts as one.
const (
	BackoffBase = 5 * time.Second
	BackoffCap  = 6 * time.Hour
	MaxAttempts = 36
	GiveUpAfter = 72 * time.Hour
)

// BackoffCeiling is the longest Backoff(attempt) may wait.
func BackoffCeiling(attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := BackoffBase
	for i := 1; i < attempt && d < BackoffCap; i++ {
		d *= 2
	}
	return min(d, BackoffCap)
}

// Backoff returns how long to wait after the attempt-th failed attempt (1-based) before
// the next: uniformly random in [0, BackoffCeiling(attempt)].
func Backoff(attempt int) time.Duration {
	return time.Duration(rand.Int64N(int64(BackoffCeiling(attempt)) + 1))
}

// BackoffUpTo is Backoff with its ceiling lowered to most (an operator's
// --webhook-retry-max; tests make it seconds): uniformly random in
// [0, min(BackoffCeiling(attempt), most)]. most <= 0 is Backoff.
func BackoffUpTo(attempt int, most time.Duration) time.Duration {
	if most <= 0 {
		return Backoff(attempt)
	}
	return time.Duration(rand.Int64N(int64(min(BackoffCeiling(attempt), most)) + 1))
}

// GiveUp says whether a message that has failed attempts times, the first at first, is
// given up rather than tried again at next (the delivery loop then records it failed; an
// endpoint whose messages keep being given up is disabled, its owner told why).
func GiveUp(attempts int, first, next time.Time) bool {
	return attempts >= MaxAttempts || next.Sub(first) > GiveUpAfter
}
