package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

// A catch-up whose millions take 100, 110 and 120 s fits 100 + 10 m seconds a million, and a
// first sync of 3M on that line takes the sum of the line over the three millions plus the
// rebuild grown with the chain; the report names the ratio of the last million to the first.
func TestCatchUpCurve(t *testing.T) {
	c := &CatchUp{Transactions: 3_000_000, RebuildSeconds: 30}
	for i, secs := range []float64{100, 110, 120} {
		from := int64(i) * segmentTxs
		c.Segments = append(c.Segments, CatchUpSegment{FromTx: from, ToTx: from + segmentTxs, Seconds: secs, TxPerSecond: segmentTxs / secs})
	}
	c.LastOverFirst = c.Segments[2].TxPerSecond / c.Segments[0].TxPerSecond
	c.Fit.Intercept, c.Fit.Slope = fitLine(c.Segments)
	if math.Abs(c.Fit.Intercept-100) > 1e-9 || math.Abs(c.Fit.Slope-10) > 1e-9 {
		t.Fatalf("fit %+v, want 100 + 10 m", c.Fit)
	}
	// 100 × 6 + 10 × 6²/2 = 780 s of writing, and a rebuild twice the measured one.
	if got, want := c.Project(6_000_000), time.Duration(840*float64(time.Second)); got != want {
		t.Errorf("projected 6M: %v, want %v", got, want)
	}
	md := CatchUpMarkdown(c, 6_000_000)
	for _, want := range []string{"| 0-1M | 100.0 | 10000 |", "| 2M-3M | 120.0 | 8333 |", "rate over the first's: 0.83", "6M transactions"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
