package indexer

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports catching up: a bar with blocks/s, tx/s and the ETA on a terminal, a log
// line every few seconds otherwise. A nil *progress is valid and reports nothing.
type progress struct {
	bar     *progressbar.ProgressBar
	began   time.Time
	lastLog time.Time
	blocks  int64
	txs     int64
	total   int64
}

// logEvery is how often a log line reports progress when there is no bar.
const logEvery = 5 * time.Second

func (p *progress) start(ix *Indexer, from, to int64) *progress {
	total := to - from + 1
	p.finish()
	if total < 2 {
		return nil // following the head: nothing worth a bar
	}
	np := &progress{began: time.Now(), lastLog: time.Now(), total: total}
	if ix.cfg.Progress && term.IsTerminal(int(os.Stderr.Fd())) {
		np.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("blocks"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }),
		)
	}
	ix.log.Info("catching up", "from", from, "to", to, "blocks", total)
	return np
}

func (p *progress) add(ix *Indexer, blocks, txs int) {
	if p == nil {
		return
	}
	p.blocks += int64(blocks)
	p.txs += int64(txs)
	secs := time.Since(p.began).Seconds()
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("indexing (%.0f tx/s, head %d, lag %d)", float64(p.txs)/secs, ix.head, int64(ix.nodeHeadSeen)-ix.head))
		_ = p.bar.Add(blocks)
		return
	}
	if time.Since(p.lastLog) >= logEvery || p.blocks == p.total {
		p.lastLog = time.Now()
		bps := float64(p.blocks) / secs
		lag := int64(ix.nodeHeadSeen) - ix.head
		ix.log.Info("progress", "head", ix.head, "node_head", ix.nodeHeadSeen, "lag", lag,
			"blocks_per_s", fmt.Sprintf("%.1f", bps), "tx_per_s", fmt.Sprintf("%.0f", float64(p.txs)/secs),
			"eta", eta(p.total-p.blocks, lag, bps))
	}
}

func (p *progress) finish() {
	if p != nil && p.bar != nil {
		_ = p.bar.Finish()
	}
}

// eta is the time left to write the remaining blocks at bps blocks/s, rounded to the second.
// It is 0, never negative, once nothing remains or the indexer has caught up with the node
// (the range may be overrun when blocks arrive while catching up).
func eta(remaining, lag int64, bps float64) time.Duration {
	if remaining <= 0 || lag <= 0 || bps <= 0 {
		return 0
	}
	return time.Duration(float64(remaining) / bps * float64(time.Second)).Round(time.Second)
}
