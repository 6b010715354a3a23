package webhooks

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/starkgraph/starkgraph/db"
)

// Serving many webhooks at once. A round's clean webhooks (db.ServedWebhook.Clean: no
// retraction due, no replay) share one read of the chain: each wants the blocks after its
// position, at most Batch of them; they are read once, in one window of Batch blocks from
// the lowest position (the webhooks beyond it wait for the next round, which comes at once),
// the rows of each kind wanted read once over it, and the hashes of its blocks and of the
// webhooks' positions read after them, in one statement, so that a webhook is served only
// rows of blocks that lead on from its position. Each webhook's filter then picks its items
// in memory. Those with none move past the blocks read, all in one statement; the others
// are delivered to by a worker each, their deliveries recorded in batches (record.go). A
// round's statements are thus a handful, whatever the number of webhooks: at the head, with
// a new block, the list, the head, the locks taken, the webhooks read again, the block, a
// statement per kind of row wanted, the hashes, the idle positions moved, the locks released.

// sharedJob is a webhook served with the others: its blocks from..to.
type sharedJob struct {
	w        *db.Webhook
	f        filter
	from, to int64
	top      int64 // the newest block it may be told of (the head, or the newest final block)
}

// serveShared serves the clean webhooks hooks, locked and marked running, from the rows of
// their blocks read once.
func (d *Dispatcher) serveShared(ctx context.Context, hooks []*db.Webhook, head int64, haveHead bool, minFrom int64) {
	if len(hooks) == 0 {
		return
	}
	var l1 int64
	var haveL1, readL1 bool
	var jobs []*sharedJob
	for _, w := range hooks {
		f, err := parseFilter(w.Filter)
		if err != nil {
			d.cfg.Logger.Warn("webhooks: a stored filter does not parse", "webhook", w.ID, "err", err)
			d.finish(w.ID)
			continue
		}
		top, ok := head, haveHead
		if f.l1Only {
			// Only final blocks: the items of the others wait until the indexer marks them
			// ACCEPTED_ON_L1 (its notice wakes the loop).
			if !readL1 {
				readL1 = true
				if l1, haveL1, err = db.L1Head(ctx, d.store.DB()); err != nil {
					d.logErr(w, "reading the newest final block", err)
				}
			}
			top, ok = l1, haveL1
		}
		from := w.PositionBlock
		if w.PositionTx == db.WholeBlock {
			from++
		}
		from = max(from, 0)
		if !ok || from > top {
			if ok {
				d.setBacklog(w.ID, 0)
			}
			d.finish(w.ID)
			continue
		}
		jobs = append(jobs, &sharedJob{w: w, f: f, from: from, to: min(top, from+d.cfg.Batch-1), top: top})
	}
	if len(jobs) == 0 {
		return
	}
	// One window of Batch blocks, from the lowest position.
	slices.SortFunc(jobs, func(a, b *sharedJob) int { return cmp.Compare(a.from, b.from) })
	lo := jobs[0].from
	hi := lo + d.cfg.Batch - 1
	more := false
	kept := jobs[:0]
	for _, j := range jobs {
		if j.from > hi {
			d.finish(j.w.ID)
			more = true
			continue
		}
		j.to = min(j.to, hi)
		kept = append(kept, j)
	}
	jobs = kept
	rows, now, err := d.readShared(ctx, jobs)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("webhooks: reading the chain's rows", "err", err)
		}
		for _, j := range jobs {
			d.finish(j.w.ID)
		}
		return
	}
	var idle []db.WebhookMove
	var idleJobs []*sharedJob
	for _, j := range jobs {
		w := j.w
		pos := w.Position()
		// The rows lead on from the position only if its block is still the one it was.
		if !rows.current(now, j.from, j.to) || (w.PositionHash != nil && !now[w.PositionBlock].Equal(w.PositionHash)) {
			d.finish(w.ID) // a reorg: the next round retracts (its notice wakes the loop)
			continue
		}
		items, err := rows.items(w.Kind, &j.f, j.from, j.to)
		if err != nil {
			d.logErr(w, "reading items", err)
			d.finish(w.ID)
			continue
		}
		items = slices.DeleteFunc(items, func(it item) bool { return !pos.Less(it.pos) })
		if j.to < j.top {
			more = true
		}
		if len(items) == 0 {
			idle = append(idle, db.WebhookMove{ID: w.ID, From: pos, To: db.Position{Block: j.to, Tx: db.WholeBlock, Event: db.WholeBlock},
				Hash: rows.blocks[j.to].Hash})
			idleJobs = append(idleJobs, j)
			continue
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer d.finish(w.ID)
			d.deliverShared(ctx, w, items, rows.blocks, j.to, j.top)
		}()
	}
	// The webhooks with nothing in the blocks read move past them, all at once.
	if len(idle) > 0 {
		moved, err := d.store.MoveWebhooks(ctx, idle)
		if err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("webhooks: moving the positions of webhooks with nothing to deliver", "webhooks", len(idle), "err", err)
		}
		for i, j := range idleJobs {
			if err == nil && moved[i] && j.to == j.top {
				d.setBacklog(j.w.ID, 0)
			}
			d.finish(j.w.ID)
		}
	}
	d.cache.evict(minFrom, lo, int(d.cfg.Batch))
	if more {
		d.again()
	}
}

// readShared reads the blocks of the jobs' window, and the rows the jobs need that the cache
// lacks (of each kind, over the blocks of the jobs of that kind); then the hashes of those
// blocks and of the jobs' positions (now), which say what a reorg replaced since it was
// read. It returns the window's rows still on the chain.
func (d *Dispatcher) readShared(ctx context.Context, jobs []*sharedJob) (*chainRows, map[int64]db.Felt, error) {
	lo, hi := jobs[0].from, jobs[0].to
	spans := map[string][2]int64{} // by kind: the lowest and highest block wanted
	for _, j := range jobs {
		lo, hi = min(lo, j.from), max(hi, j.to)
		if s, ok := spans[j.w.Kind]; ok {
			spans[j.w.Kind] = [2]int64{min(s[0], j.from), max(s[1], j.to)}
		} else {
			spans[j.w.Kind] = [2]int64{j.from, j.to}
		}
	}
	blocks, err := d.cache.fill(ctx, d.store, lo, hi, spans)
	if err != nil {
		return nil, nil, err
	}
	numbers := make([]int64, 0, hi-lo+1)
	for n := lo; n <= hi; n++ {
		numbers = append(numbers, n)
	}
	for _, j := range jobs {
		if p := j.w.PositionBlock; j.w.PositionHash != nil && p < lo {
			numbers = append(numbers, p)
		}
	}
	slices.Sort(numbers)
	numbers = slices.Compact(numbers)
	now, err := d.store.BlockHashesOf(ctx, numbers)
	if err != nil {
		return nil, nil, err
	}
	return d.cache.view(lo, hi, blocks, now), now, nil
}

// deliverShared delivers items (read from blocks, up to block upTo) to w, in order, one
// message in flight, within the budget; then, when every item was delivered, the position
// lies past block upTo. top is the newest block w may be told of: when upTo is short of
// it, the loop is woken for the rest.
func (d *Dispatcher) deliverShared(ctx context.Context, w *db.Webhook, items []item, blocks map[int64]*db.Block, upTo, top int64) {
	release, ok := d.takeSlots(ctx, w.URL)
	if !ok {
		return
	}
	defer release()
	// The round read it a while ago, perhaps: paused, deleted or replayed since, it waits
	// for the next round.
	if err := d.stillAt(ctx, w.ID, w.Position()); err != nil {
		d.logErr(w, "reading the webhook again", err)
		return
	}
	deadline := d.now().Add(30 * time.Second)
	for i, it := range items {
		b := blocks[it.pos.Block]
		if i == d.cfg.Budget || ctx.Err() != nil || d.now().After(deadline) {
			d.setBacklog(w.ID, b.Timestamp)
			d.again() // the others' turn, then its again
			return
		}
		rec, sent, ok := d.sendItem(ctx, w, it, b)
		if !ok {
			return
		}
		// The last item moves the position past the blocks read: nothing after it in them
		// was for w.
		to, hash := it.pos, b.Hash
		if i == len(items)-1 {
			to, hash = db.Position{Block: upTo, Tx: db.WholeBlock, Event: db.WholeBlock}, blocks[upTo].Hash
		}
		if err := d.record(ctx, db.WebhookMove{ID: w.ID, From: w.Position(), To: to, Hash: hash, Delivery: rec, Sent: sent}); err != nil {
			d.logErr(w, "recording a delivery", err)
			return
		}
		d.delivered(w, b, to, hash)
	}
	if upTo < top {
		d.again()
	} else {
		d.setBacklog(w.ID, 0)
	}
}
