package auth

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hammer calls allow from clients goroutines, each perClient times, all
// starting together, and returns how many calls were allowed.
func hammer(t *testing.T, clients, perClient int, allow func(client int) (bool, error)) int {
	t.Helper()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range perClient {
				ok, err := allow(c)
				if err != nil {
					errs <- err
					return
				}
				if ok {
					allowed.Add(1)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return int(allowed.Load())
}

// A rate slow enough that nothing refills while a test runs: what is allowed
// is exactly the burst.
var slowRate = Rate{RatePerSecond: 0.001, Burst: 37}

// limiterContract is what every Limiter must do; run against each backend.
func limiterContract(t *testing.T, newLimiter func() Limiter) {
	ctx := context.Background()

	t.Run("rate is exact under concurrency", func(t *testing.T) {
		l := newLimiter()
		got := hammer(t, 64, 3, func(int) (bool, error) {
			r, err := l.AllowRate(ctx, "hammered", slowRate, 1)
			return r.Allowed, err
		})
		if got != slowRate.Burst {
			t.Fatalf("allowed %d of 192 calls, want exactly the burst %d", got, slowRate.Burst)
		}
		r, err := l.AllowRate(ctx, "hammered", slowRate, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed || r.Remaining != 0 {
			t.Fatalf("after the burst: %+v, want refused with 0 remaining", r)
		}
		// One unit comes back after 1/rate = 1000 s.
		if r.RetryAfter < 990*time.Second || r.RetryAfter > 1000*time.Second {
			t.Fatalf("RetryAfter = %v, want about 1000s", r.RetryAfter)
		}
		// Keys do not share buckets.
		if r, _ := l.AllowRate(ctx, "other", slowRate, 1); !r.Allowed || r.Remaining != slowRate.Burst-1 {
			t.Fatalf("another key: %+v, want allowed with %d remaining", r, slowRate.Burst-1)
		}
	})

	t.Run("cost takes several units and is capped at the burst", func(t *testing.T) {
		l := newLimiter()
		r, err := l.AllowRate(ctx, "costly", slowRate, 30)
		if err != nil || !r.Allowed || r.Remaining != slowRate.Burst-30 {
			t.Fatalf("cost 30 on a full bucket of 37: %+v %v, want allowed, 7 remaining", r, err)
		}
		if r, _ := l.AllowRate(ctx, "costly", slowRate, 8); r.Allowed {
			t.Fatalf("cost 8 with 7 remaining: allowed, want refused")
		}
		if r, _ := l.AllowRate(ctx, "costly", slowRate, 7); !r.Allowed || r.Remaining != 0 {
			t.Fatalf("cost 7 with 7 remaining: %+v, want allowed, 0 remaining", r)
		}
		if r, _ := l.AllowRate(ctx, "huge", slowRate, 1000); !r.Allowed || r.Remaining != 0 {
			t.Fatalf("cost 1000 on a full bucket: %+v, want charged as the whole burst", r)
		}
	})

	t.Run("quota is exact under concurrency", func(t *testing.T) {
		l := newLimiter()
		now := time.Date(2026, 3, 31, 23, 59, 0, 0, time.UTC)
		q := Quota{Daily: 25, Monthly: 1000}
		got := hammer(t, 64, 2, func(int) (bool, error) {
			r, err := l.AllowQuota(ctx, "quota", q, now)
			return r.Allowed, err
		})
		if got != 25 {
			t.Fatalf("allowed %d, want exactly the daily quota 25", got)
		}
		r, err := l.AllowQuota(ctx, "quota", q, now)
		if err != nil || r.Allowed || r.Exceeded != "daily" || r.DailyRemaining != 0 || r.MonthlyRemaining != 975 {
			t.Fatalf("over the daily quota: %+v %v", r, err)
		}
		if r.DailyReset != time.Minute {
			t.Fatalf("DailyReset = %v, want 1m (midnight UTC)", r.DailyReset)
		}
		// A new day (and month) starts over.
		r, err = l.AllowQuota(ctx, "quota", q, now.Add(2*time.Minute))
		if err != nil || !r.Allowed || r.DailyRemaining != 24 || r.MonthlyRemaining != 999 {
			t.Fatalf("next day: %+v %v", r, err)
		}
	})

	t.Run("monthly quota", func(t *testing.T) {
		l := newLimiter()
		q := Quota{Monthly: 3}
		day := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
		for i := range 3 {
			if r, err := l.AllowQuota(ctx, "m", q, day.AddDate(0, 0, i)); err != nil || !r.Allowed || r.DailyRemaining != -1 {
				t.Fatalf("request %d: %+v %v", i, r, err)
			}
		}
		r, err := l.AllowQuota(ctx, "m", q, day.AddDate(0, 0, 5))
		if err != nil || r.Allowed || r.Exceeded != "monthly" {
			t.Fatalf("4th request in the month: %+v %v, want refused (monthly)", r, err)
		}
		if want := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).Sub(day.AddDate(0, 0, 5)); r.MonthlyReset != want {
			t.Fatalf("MonthlyReset = %v, want %v", r.MonthlyReset, want)
		}
		if r, _ := l.AllowQuota(ctx, "m", q, time.Date(2026, 6, 1, 0, 0, 1, 0, time.UTC)); !r.Allowed {
			t.Fatal("first request of the next month refused")
		}
	})
}

func TestMemoryLimiter(t *testing.T) {
	limiterContract(t, func() Limiter { return NewMemoryLimiter() })
}

func TestMemoryLimiterRefillsAtTheRate(t *testing.T) {
	l := NewMemoryLimiter()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	r2 := Rate{RatePerSecond: 2, Burst: 4}
	ctx := context.Background()
	for i := range 4 {
		if r, _ := l.AllowRate(ctx, "k", r2, 1); !r.Allowed || r.Remaining != 3-i {
			t.Fatalf("request %d: %+v", i, r)
		}
	}
	r, _ := l.AllowRate(ctx, "k", r2, 1)
	if r.Allowed || r.RetryAfter != 500*time.Millisecond || r.ResetAfter != 2*time.Second {
		t.Fatalf("empty bucket: %+v, want refused, retry in 500ms, full in 2s", r)
	}
	clock = clock.Add(500 * time.Millisecond)
	if r, _ := l.AllowRate(ctx, "k", r2, 1); !r.Allowed {
		t.Fatalf("after 500ms: %+v, want allowed", r)
	}
	// A plan change applies to the existing bucket: the tokens earned so far
	// stay (capped by the old burst), and it fills up to the new burst.
	clock = clock.Add(10 * time.Second)
	bigger := Rate{RatePerSecond: 2, Burst: 10}
	if r, _ := l.AllowRate(ctx, "k", bigger, 1); !r.Allowed || r.Remaining != 3 {
		t.Fatalf("after raising the burst: %+v, want 3 remaining", r)
	}
	clock = clock.Add(10 * time.Second)
	if r, _ := l.AllowRate(ctx, "k", bigger, 1); !r.Allowed || r.Remaining != 9 {
		t.Fatalf("10s after raising the burst: %+v, want 9 remaining", r)
	}
}
