package webhooks

import (
	"math"
	"testing"
	"time"
)

func TestBackoffCeilings(t *testing.T) {
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480}
	for i, w := range want {
		if got := BackoffCeiling(i + 1); got != w*time.Second {
			t.Errorf("ceiling(%d) = %v, want %v", i+1, got, w*time.Second)
		}
	}
	for n := len(want) + 1; n <= 1000; n++ {
		if got := BackoffCeiling(n); got != BackoffCap {
			t.Fatalf("ceiling(%d) = %v, want the cap %v", n, got, BackoffCap)
		}
	}
	if BackoffCeiling(0) != BackoffBase || BackoffCeiling(-3) != BackoffBase {
		t.Error("ceilings below attempt 1")
	}
}

// Full jitter: every delay within [0, ceiling], spread over it (not constant, not bunched).
func TestBackoffJitter(t *testing.T) {
	for _, n := range []int{1, 5, 13, 20, 35} {
		c := BackoffCeiling(n)
		var lo, hi int
		seen := map[time.Duration]bool{}
		for range 2000 {
			d := Backoff(n)
			if d < 0 || d > c {
				t.Fatalf("Backoff(%d) = %v outside [0, %v]", n, d, c)
			}
			if d < c/4 {
				lo++
			}
			if d > 3*c/4 {
				hi++
			}
			seen[d] = true
		}
		// Each quarter holds 500 of 2000 on average; 350 is over 7 standard deviations off.
		if lo < 350 || hi < 350 || len(seen) < 1000 {
			t.Errorf("Backoff(%d): %d in the lowest quarter, %d in the highest, %d distinct", n, lo, hi, len(seen))
		}
	}
}

// The schedule spans about three days: the 35 retries' delays average 71.7 h, and a
// simulated message failing every attempt has its last attempt about three days after its
// first, never later.
func TestBackoffTotalsAboutThreeDays(t *testing.T) {
	var expected time.Duration
	for n := 1; n < MaxAttempts; n++ {
		expected += BackoffCeiling(n) / 2
	}
	if h := expected.Hours(); h < 70 || h > 74 {
		t.Fatalf("the retries' delays average %.1f h, want about 72", h)
	}

	const trials = 2000
	var sum, sumSq float64
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range trials {
		now, attempts := first, 1 // the first attempt failed at first
		for {
			next := now.Add(Backoff(attempts))
			if GiveUp(attempts, first, next) {
				break
			}
			now = next
			attempts++
		}
		if now.Sub(first) > GiveUpAfter || attempts > MaxAttempts {
			t.Fatalf("the last of %d attempts %v after the first", attempts, now.Sub(first))
		}
		h := now.Sub(first).Hours()
		sum += h
		sumSq += h * h
	}
	mean := sum / trials
	sd := math.Sqrt(sumSq/trials - mean*mean)
	t.Logf("the last attempt %.1f h after the first on average (sd %.1f h)", mean, sd)
	if mean < 60 || mean > 72 {
		t.Fatalf("the last attempt %.1f h after the first on average, want about three days", mean)
	}
	if !GiveUp(MaxAttempts, first, first.Add(time.Hour)) || !GiveUp(3, first, first.Add(GiveUpAfter+time.Second)) ||
		GiveUp(3, first, first.Add(GiveUpAfter)) || GiveUp(MaxAttempts-1, first, first.Add(time.Hour)) {
		t.Fatal("GiveUp's bounds")
	}
}
