package bench

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/starkgraph/starkgraph/indexer"
)

// The first sync as an operator waits for it: the indexer's rate over each million
// transactions of the catch-up that builds the bench's database, the rebuild that ends its
// bulk load, and a full sync of a larger chain projected from that curve.

// CatchUp is one catch-up from an empty database, timed.
type CatchUp struct {
	Transactions int64 `json:"transactions"`
	// Segments are the rates over each million transactions (the last one may be shorter).
	Segments []CatchUpSegment `json:"segments"`
	// WriteSeconds is the time to the last range written; RebuildSeconds the rebuild that
	// ended the bulk load (within WriteSeconds: the blocks after it were written after it).
	WriteSeconds   float64 `json:"writeSeconds"`
	RebuildSeconds float64 `json:"rebuildSeconds"`
	// TxPerSecond is the whole catch-up's, rebuild included.
	TxPerSecond float64 `json:"txPerSecond"`
	// LastOverFirst is the rate over the last whole million against the first's.
	LastOverFirst float64 `json:"lastOverFirst"`
	// Fit is seconds per million transactions as a line in the millions already indexed
	// (Intercept + Slope × m), by least squares over the whole segments.
	Fit struct {
		Intercept float64 `json:"intercept"`
		Slope     float64 `json:"slope"`
	} `json:"fit"`
}

// CatchUpSegment is the rate over a span of a catch-up's transactions.
type CatchUpSegment struct {
	FromTx      int64   `json:"fromTx"`
	ToTx        int64   `json:"toTx"`
	Seconds     float64 `json:"seconds"`
	TxPerSecond float64 `json:"txPerSecond"`
}

// catchUpClock records an indexer's catch-up events (indexer.Config.OnCatchUp).
type catchUpClock struct {
	mu      sync.Mutex
	began   time.Time
	txs     int64
	marks   []time.Time // when each whole million was passed
	last    time.Time   // the last range written
	rebuilt time.Duration
}

func newCatchUpClock() *catchUpClock { return &catchUpClock{began: time.Now()} }

func (c *catchUpClock) event(e indexer.CatchUpEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.Rebuilt > 0 {
		c.rebuilt += e.Rebuilt
		return
	}
	c.last = time.Now()
	before := c.txs / segmentTxs
	c.txs += int64(e.Txs)
	for m := before; m < c.txs/segmentTxs; m++ {
		c.marks = append(c.marks, c.last.Add(-c.rebuilt)) // a segment's time leaves the rebuild out
	}
}

// segmentTxs is the span of a segment.
const segmentTxs = 1_000_000

// result makes the curve once the catch-up ended at end.
func (c *catchUpClock) result(end time.Time) *CatchUp {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &CatchUp{Transactions: c.txs, WriteSeconds: c.last.Sub(c.began).Seconds(), RebuildSeconds: c.rebuilt.Seconds()}
	if total := end.Sub(c.began).Seconds(); total > 0 {
		r.TxPerSecond = float64(c.txs) / total
	}
	from, at := int64(0), c.began
	for _, mark := range c.marks {
		secs := mark.Sub(at).Seconds()
		r.Segments = append(r.Segments, CatchUpSegment{FromTx: from, ToTx: from + segmentTxs, Seconds: secs, TxPerSecond: segmentTxs / secs})
		from, at = from+segmentTxs, mark
	}
	if rest := c.txs - from; rest > 0 {
		secs := c.last.Add(-c.rebuilt).Sub(at).Seconds()
		r.Segments = append(r.Segments, CatchUpSegment{FromTx: from, ToTx: c.txs, Seconds: secs, TxPerSecond: float64(rest) / secs})
	}
	if n := len(c.marks); n > 0 {
		r.LastOverFirst = r.Segments[n-1].TxPerSecond / r.Segments[0].TxPerSecond
	}
	r.Fit.Intercept, r.Fit.Slope = fitLine(r.Segments)
	return r
}

// fitLine fits seconds per million to the millions already indexed, over the whole
// segments (one segment: a flat line).
func fitLine(segs []CatchUpSegment) (intercept, slope float64) {
	var n, sx, sy, sxx, sxy float64
	for i, s := range segs {
		if s.ToTx-s.FromTx != segmentTxs {
			continue
		}
		x, y := float64(i), s.Seconds
		n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	switch {
	case n == 0:
		return 0, 0
	case n == 1:
		return sy, 0
	}
	slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return (sy - slope*sx) / n, slope
}

// Project is the time a catch-up of txs transactions would take on the measured curve: the
// fitted seconds of each million, and a rebuild grown in proportion to the chain (an index
// build sorts its rows: n log n, taken as linear here, which flatters it a little).
func (c *CatchUp) Project(txs int64) time.Duration {
	if c.Fit.Intercept == 0 && c.Fit.Slope == 0 {
		return 0
	}
	millions := float64(txs) / segmentTxs
	// The sum of Intercept + Slope × m over m in [0, millions), continuously.
	write := c.Fit.Intercept*millions + c.Fit.Slope*millions*millions/2
	rebuild := c.RebuildSeconds * float64(txs) / math.Max(float64(c.Transactions), 1)
	return time.Duration((write + rebuild) * float64(time.Second))
}

// CatchUpMarkdown renders the curve, and a projection to projectTxs transactions.
func CatchUpMarkdown(c *CatchUp, projectTxs int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| catch-up from empty (the simulated node over HTTP, fsync on), transactions | seconds | tx/s |\n|---|---|---|\n")
	for _, s := range c.Segments {
		fmt.Fprintf(&b, "| %s-%s | %.1f | %.0f |\n", millions(s.FromTx), millions(s.ToTx), s.Seconds, s.TxPerSecond)
	}
	fmt.Fprintf(&b, "| rebuild at the end of the bulk load | %.1f | |\n", c.RebuildSeconds)
	fmt.Fprintf(&b, "| the whole catch-up, %d transactions | %.1f | %.0f |\n", c.Transactions, float64(c.Transactions)/math.Max(c.TxPerSecond, 1e-9), c.TxPerSecond)
	if c.LastOverFirst == 0 {
		return b.String() // under a million: no curve to speak of
	}
	fmt.Fprintf(&b, "\nThe last million's rate over the first's: %.2f. Seconds per million fitted as %.1f + %.2f × (millions indexed)",
		c.LastOverFirst, c.Fit.Intercept, c.Fit.Slope)
	if p := c.Project(projectTxs); p > 0 {
		fmt.Fprintf(&b, "; a first sync of %s transactions on that line: %.1f hours (%.0f tx/s)", millions(projectTxs), p.Hours(), float64(projectTxs)/p.Seconds())
	}
	b.WriteString(".\n")
	return b.String()
}

// millions writes a count of transactions as millions (2.5M), or as itself below one.
func millions(n int64) string {
	if n < segmentTxs {
		return fmt.Sprint(n)
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/segmentTxs), "0"), ".") + "M"
}
