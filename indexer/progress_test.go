package indexer

import (
	"testing"
	"time"
)

func TestETA(t *testing.T) {
	cases := []struct {
		remaining, lag int64
		bps            float64
		want           time.Duration
	}{
		{100, 100, 10, 10 * time.Second},
		{15, 40, 10, 2 * time.Second}, // 1.5 s rounds to 2 s
		{0, 0, 10, 0},
		{-90, 0, 10, 0}, // caught up past the planned range: never negative
		{-90, 5, 10, 0},
		{50, 0, 10, 0}, // caught up with the node
		{50, -3, 10, 0},
		{50, 50, 0, 0}, // nothing written yet
	}
	for _, c := range cases {
		if got := eta(c.remaining, c.lag, c.bps); got != c.want {
			t.Errorf("eta(%d, %d, %v) = %v, want %v", c.remaining, c.lag, c.bps, got, c.want)
		}
	}
}
