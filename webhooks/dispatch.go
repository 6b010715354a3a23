package webhooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
)

// DispatchConfig configures the delivery loop.
type DispatchConfig struct {
	// Store is the primary: positions, the items sent and the log are written there, and
	// the chain's rows read from it (a replica may lag behind a position).
	Store  *db.Store
	Sender *Sender
	// Workers bounds the webhooks served at once (each has one message in flight at most,
	// so that its messages arrive in order); default 16.
	Workers int
	// PerHost bounds the webhooks of one receiver host served at once; default 2.
	PerHost int
	// Poll is how often the loop looks for work without a notice (retries due, webhooks
	// created or resumed, notices lost); default 1 s.
	Poll time.Duration
	// Window is the reorg window, in blocks: what was sent is kept that far below the head
	// to be compared with the chain (at least the indexer's --max-reorg-depth); default 64.
	Window int64
	// Batch is the most blocks read at once for one webhook; default 100.
	Batch int64
	// Budget is the most messages one webhook is sent before the others get their turn;
	// default 200.
	Budget int
	// LogKeep is the newest attempts kept in each webhook's log; LogMaxAge the oldest.
	// Defaults 1000 and 7 days.
	LogKeep   int
	LogMaxAge time.Duration
	Logger    *slog.Logger
	// Backoff is the wait after a message's n-th failed attempt; nil is Backoff (tests
	// shorten it).
	Backoff func(n int) time.Duration
	// Meter, when set, counts each attempt toward its webhook's key's quota before it is
	// made (auth.DeliveryMeter); an attempt it refuses waits until retryAt, not counted
	// as a failure.
	Meter Meter
}

// Meter counts delivery attempts toward their key's quota.
type Meter interface {
	Spend(ctx context.Context, keyID int64, now time.Time) (ok bool, retryAt time.Time, reason string)
}

func (c DispatchConfig) withDefaults() DispatchConfig {
	if c.Workers <= 0 {
		c.Workers = 16
	}
	if c.PerHost <= 0 {
		c.PerHost = 2
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Window <= 0 {
		c.Window = 64
	}
	if c.Batch <= 0 {
		c.Batch = 100
	}
	if c.Budget <= 0 {
		c.Budget = 200
	}
	if c.LogKeep <= 0 {
		c.LogKeep = 1000
	}
	if c.LogMaxAge <= 0 {
		c.LogMaxAge = 7 * 24 * time.Hour
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Backoff == nil {
		c.Backoff = Backoff
	}
	return c
}

// Dispatcher is the delivery loop: it follows the indexed chain for every active webhook
// from its position, and delivers the matching items in order, one message in flight per
// webhook, retrying as Backoff says until GiveUp, when it disables the webhook.
type Dispatcher struct {
	cfg   DispatchConfig
	store *db.Store
	wake  chan struct{}
	lock  *locker
	slots chan struct{} // Workers

	records chan recordReq // to the recorder (record.go)
	more    chan struct{}  // the loop woke itself: webhooks have more to deliver
	cache   *rowCache      // used by the round's goroutine only

	mu      sync.Mutex
	running map[int64]bool
	// unlocking are the webhooks served since their lock was taken, whose locks the next
	// round releases (all at once); they are not served again before.
	unlocking map[int64]bool
	// verified are the webhooks whose every item sent was compared with the chain since this
	// loop started: from then on, a position still on the chain vouches for them.
	verified map[int64]bool
	hosts    map[string]chan struct{} // PerHost, by receiver host
	backlog  map[int64]int64          // the oldest pending item's block timestamp, by webhook
	wg       sync.WaitGroup
	now      func() time.Time
}

// NewDispatcher returns the delivery loop of cfg; Run runs it.
func NewDispatcher(cfg DispatchConfig) *Dispatcher {
	cfg = cfg.withDefaults()
	return &Dispatcher{cfg: cfg, store: cfg.Store, wake: make(chan struct{}, 1), lock: &locker{db: cfg.Store.DB().DB},
		slots: make(chan struct{}, cfg.Workers), records: make(chan recordReq, cfg.Workers), more: make(chan struct{}, 1),
		cache: &rowCache{blocks: map[int64]*cachedBlock{}}, running: map[int64]bool{},
		unlocking: map[int64]bool{}, verified: map[int64]bool{}, hosts: map[string]chan struct{}{}, backlog: map[int64]int64{},
		now: time.Now}
}

// Wake makes the loop look for work now (a webhook created, resumed or replayed).
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends, then waits for the attempts in flight. It is woken by the
// indexer's chain notices on dsn (the primary; "" for none), by Wake and every Poll.
func (d *Dispatcher) Run(ctx context.Context, dsn string) {
	var notices <-chan *pq.Notification
	if dsn != "" {
		listener := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
			if err != nil {
				d.cfg.Logger.Warn("webhooks: chain notice connection", "event", ev, "err", err)
			}
		})
		defer listener.Close()
		if err := listener.Listen(db.ChainChannel); err != nil {
			d.cfg.Logger.Warn("webhooks: no chain notices; polling every "+d.cfg.Poll.String(), "err", err)
		} else {
			notices = listener.Notify
		}
	}
	defer d.lock.close()
	stopRecorder := make(chan struct{})
	recorded := make(chan struct{})
	go func() { defer close(recorded); d.recorder(ctx, stopRecorder) }()
	defer func() { close(stopRecorder); <-recorded }()
	defer d.wg.Wait()
	tick := time.NewTicker(d.cfg.Poll)
	defer tick.Stop()
	var lastPrune time.Time
	for {
		began := d.now()
		d.round(ctx)
		if d.now().Sub(lastPrune) > time.Minute {
			lastPrune = d.now()
			d.prune(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-d.wake:
		case <-notices:
		case <-d.more:
			// Woken by itself (webhooks with more to deliver): at most a round every
			// moreGap, so that the webhooks coming back one by one are served together.
			if gap := moreGap - d.now().Sub(began); gap > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(gap):
				}
			}
		}
		// One round for every notice and wake waiting.
		for drained := false; !drained; {
			select {
			case <-notices:
			case <-d.wake:
			case <-d.more:
			default:
				drained = true
			}
		}
	}
}

// moreGap is the least time between the rounds the loop wakes itself for.
const moreGap = 50 * time.Millisecond

// again wakes the loop for webhooks with more to deliver (a round at most every moreGap).
func (d *Dispatcher) again() {
	select {
	case d.more <- struct{}{}:
	default:
	}
}

// round serves the active webhooks due and not being served, with a number of statements
// that does not grow with them: one lists them; the webhooks already at the indexed head
// are left; the others are locked, and read again under their locks, at once; those whose
// position can be trusted (db.ServedWebhook.Clean) are served together (serveShared): the
// rows of their blocks read once, the positions of those with nothing to deliver moved in
// one statement, and deliveries recorded in batches (record.go). The others (a reorg to
// retract, a replay under way) are served one by one (serve).
func (d *Dispatcher) round(ctx context.Context) {
	d.releaseLocks(ctx)
	defer d.releaseLocks(ctx) // those that had nothing to deliver, at once
	head, headHash, haveHead, err := db.IndexedHead(ctx, d.store.DB())
	var hooks []db.WebhookState
	if err == nil {
		hooks, err = d.store.ActiveWebhookStates(ctx, head, headHash)
	}
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("webhooks: listing the active webhooks", "err", err)
		}
		return
	}
	metrics.WebhooksActive.Set(float64(len(hooks)))
	now := d.now()
	active := make(map[int64]bool, len(hooks))
	var due []int64
	minFrom := int64(math.MaxInt64) // the oldest block a webhook still needs
	d.mu.Lock()
	for _, w := range hooks {
		active[w.ID] = true
		minFrom = min(minFrom, w.From)
		if w.NextAttemptAt != nil && w.NextAttemptAt.After(now) {
			continue
		}
		if d.running[w.ID] || d.unlocking[w.ID] {
			continue
		}
		// At the head, and the head is the block it was at: nothing to do.
		if d.verified[w.ID] && w.AtHead {
			delete(d.backlog, w.ID)
			continue
		}
		d.running[w.ID] = true
		due = append(due, w.ID)
	}
	var oldest int64
	for id, ts := range d.backlog {
		if !active[id] {
			delete(d.backlog, id)
		} else if oldest == 0 || ts < oldest {
			oldest = ts
		}
	}
	for id := range d.verified {
		if !active[id] {
			delete(d.verified, id)
		}
	}
	d.mu.Unlock()
	age := 0.0
	if oldest > 0 {
		age = max(0, now.Sub(time.Unix(oldest, 0)).Seconds())
	}
	metrics.WebhookBacklogAge.Set(age)
	if len(due) > 0 {
		d.serveDue(ctx, due, head, haveHead, minFrom)
	} else {
		d.cache.evict(minFrom, minFrom, int(d.cfg.Batch))
	}
}

// serveDue locks the webhooks due (another process may serve some), reads them again under
// their locks, and serves them.
func (d *Dispatcher) serveDue(ctx context.Context, due []int64, head int64, haveHead bool, minFrom int64) {
	locked := d.lock.tryMany(ctx, due)
	isLocked := make(map[int64]bool, len(locked))
	var full []int64
	d.mu.Lock()
	for _, id := range locked {
		isLocked[id] = true
		if !d.verified[id] {
			full = append(full, id)
		}
	}
	d.mu.Unlock()
	for _, id := range due {
		if !isLocked[id] { // another process serves it
			d.done(id)
		}
	}
	if len(locked) == 0 {
		return
	}
	served, err := d.store.WebhooksToServe(ctx, locked, full)
	if err != nil {
		if ctx.Err() == nil {
			d.cfg.Logger.Warn("webhooks: reading the webhooks to serve", "err", err)
		}
		for _, id := range locked {
			d.finish(id)
		}
		return
	}
	read := make(map[int64]bool, len(served))
	var shared []*db.Webhook
	for _, w := range served {
		read[w.ID] = true
		if !w.Clean {
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				defer d.finish(w.ID)
				d.serve(ctx, &w.Webhook)
			}()
			continue
		}
		d.mu.Lock()
		d.verified[w.ID] = true
		d.mu.Unlock()
		shared = append(shared, &w.Webhook)
	}
	for _, id := range locked {
		if !read[id] { // no longer active
			d.finish(id)
		}
	}
	d.serveShared(ctx, shared, head, haveHead, minFrom)
}

// done forgets that webhook id is being served (its lock was not taken).
func (d *Dispatcher) done(id int64) {
	d.mu.Lock()
	delete(d.running, id)
	d.mu.Unlock()
}

// finish ends the serving of webhook id: its lock is released by the next round.
func (d *Dispatcher) finish(id int64) {
	d.mu.Lock()
	delete(d.running, id)
	d.unlocking[id] = true
	d.mu.Unlock()
}

// releaseLocks releases the locks of the webhooks finished, in one statement.
func (d *Dispatcher) releaseLocks(ctx context.Context) {
	d.mu.Lock()
	ids := make([]int64, 0, len(d.unlocking))
	for id := range d.unlocking {
		ids = append(ids, id)
	}
	clear(d.unlocking)
	d.mu.Unlock()
	d.lock.unlockMany(ctx, ids)
}

func (d *Dispatcher) setBacklog(id int64, blockTime int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if blockTime == 0 {
		delete(d.backlog, id)
	} else {
		d.backlog[id] = blockTime
	}
}

// hostSlots is the semaphore of the receiver host of rawURL.
func (d *Dispatcher) hostSlots(rawURL string) chan struct{} {
	host := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		host = strings.ToLower(u.Host)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.hosts[host]
	if !ok {
		s = make(chan struct{}, d.cfg.PerHost)
		d.hosts[host] = s
	}
	return s
}

func acquire(ctx context.Context, s chan struct{}) bool {
	select {
	case s <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// takeSlots waits for a worker slot and one of rawURL's host slots, and returns what gives
// both back; false when ctx ended first.
func (d *Dispatcher) takeSlots(ctx context.Context, rawURL string) (release func(), ok bool) {
	if !acquire(ctx, d.slots) {
		return nil, false
	}
	host := d.hostSlots(rawURL)
	if !acquire(ctx, host) {
		<-d.slots
		return nil, false
	}
	return func() { <-host; <-d.slots }, true
}

// sendItem makes the message of it to w (of block b) and attempts it. On a 2xx it returns the
// attempt's log row and the item sent, for the caller to record with the position it
// moves; otherwise attempt has recorded the failure and it returns false.
func (d *Dispatcher) sendItem(ctx context.Context, w *db.Webhook, it item, b *db.Block) (*db.WebhookDelivery, *db.SentItem, bool) {
	id, body, err := payload(w.ID, b, it)
	if err != nil {
		d.logErr(w, "payload", err)
		return nil, nil, false
	}
	rec, ok := d.attempt(ctx, w, Message{ID: id, Body: body}, b.Number)
	if !ok {
		d.setBacklog(w.ID, b.Timestamp)
		return nil, nil, false
	}
	sent := &db.SentItem{WebhookID: w.ID, BlockNumber: it.pos.Block, TxIndex: it.pos.Tx, EventIndex: it.pos.Event,
		SubIndex: it.pos.Sub, BlockHash: b.Hash, MessageID: id, Payload: body}
	return rec, sent, true
}

// delivered notes in w that a message of block b was delivered and its position is now to.
func (d *Dispatcher) delivered(w *db.Webhook, b *db.Block, to db.Position, hash db.Felt) {
	metrics.WebhookDeliveryLatency.Observe(max(0, d.now().Sub(time.Unix(b.Timestamp, 0)).Seconds()))
	w.SetPosition(to, hash)
	w.Attempts, w.FailingSince = 0, nil
}

// serve delivers what is due to webhook w (as listed), within the budget.
func (d *Dispatcher) serve(ctx context.Context, listed *db.Webhook) {
	release, ok := d.takeSlots(ctx, listed.URL)
	if !ok {
		return
	}
	defer release()
	// Read again under the lock: another process may have moved it since the list.
	w, err := d.store.Webhook(ctx, listed.ID)
	if err != nil || w == nil || w.Status != "active" || (w.NextAttemptAt != nil && w.NextAttemptAt.After(d.now())) {
		return
	}
	f, err := parseFilter(w.Filter)
	if err != nil {
		d.cfg.Logger.Warn("webhooks: a stored filter does not parse", "webhook", w.ID, "err", err)
		return
	}
	deadline := d.now().Add(30 * time.Second)
	budget := d.cfg.Budget
	for budget > 0 && d.now().Before(deadline) && ctx.Err() == nil {
		ok, err := d.checkReorg(ctx, w)
		if err != nil || !ok {
			d.logErr(w, "reorg check", err)
			return
		}
		if w.Replay != nil && !w.Position().Less(w.Replay.End) {
			if err := d.endReplay(ctx, w); err != nil {
				d.logErr(w, "ending a replay", err)
				return
			}
			continue
		}
		items, blocks, upTo, err := d.next(ctx, w, &f)
		if err != nil {
			d.logErr(w, "reading items", err)
			return
		}
		for _, it := range items {
			if budget == 0 || ctx.Err() != nil {
				d.setBacklog(w.ID, blocks[it.pos.Block].Timestamp)
				return
			}
			budget--
			b := blocks[it.pos.Block]
			rec, sent, ok := d.sendItem(ctx, w, it, b)
			if !ok {
				return
			}
			move := db.WebhookMove{ID: w.ID, From: w.Position(), To: it.pos, Hash: b.Hash, Delivery: rec, Sent: sent}
			if err := moveResult(d.store.MoveWebhooks(ctx, []db.WebhookMove{move})); err != nil {
				d.logErr(w, "recording a delivery", err)
				return
			}
			d.delivered(w, b, it.pos, b.Hash)
		}
		// Everything up to upTo is delivered. A replay that reached its end ends: the
		// position stays on the last item delivered (the rest of its end block is read
		// again, not skipped) or moves on to where the replay resumes.
		if w.Replay != nil && upTo >= w.Replay.End.Block {
			if err := d.endReplay(ctx, w); err != nil {
				d.logErr(w, "ending a replay", err)
				return
			}
			continue
		}
		// The position moves past the blocks that had nothing for it, so that they are not
		// read again.
		if upTo < 0 || (upTo == w.PositionBlock && w.PositionTx == db.WholeBlock) {
			d.setBacklog(w.ID, 0)
			return
		}
		to := db.Position{Block: upTo, Tx: db.WholeBlock, Event: db.WholeBlock}
		hash := blocks[upTo].Hash
		if err := d.store.RewindWebhook(ctx, w.ID, w.Position(), to, hash); err != nil {
			d.logErr(w, "moving the position", err)
			return
		}
		w.SetPosition(to, hash)
	}
}

// endReplay ends w's replay: everything up to its end was delivered again, and the
// position moves on to where deliveries stood before it, when that is further.
func (d *Dispatcher) endReplay(ctx context.Context, w *db.Webhook) error {
	to, hash := w.Position(), w.PositionHash
	if resume, h := w.Replay.ResumeAt(); to.Less(resume) {
		to, hash = resume, h
	}
	if err := d.store.EndWebhookReplay(ctx, w.ID, w.Position(), w.Replay, to, hash); err != nil {
		return err
	}
	d.cfg.Logger.Info("webhooks: replay done", "webhook", w.ID, "from", w.Replay.From, "to", w.Replay.End.Block,
		"message", w.Replay.Message, "resume", to.Block)
	w.SetPosition(to, hash)
	w.Replay = nil
	return nil
}

func (d *Dispatcher) logErr(w *db.Webhook, what string, err error) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, db.ErrPositionMoved) || errors.Is(err, errRaced) {
		return
	}
	d.cfg.Logger.Warn("webhooks: "+what, "webhook", w.ID, "err", err)
}

// errRaced: a reorg changed the blocks while their items were read; read again.
var errRaced = errors.New("webhooks: the blocks changed while their items were read")

// next reads the items of w after its position, in chain order, from the blocks after it
// up to upTo (at most Batch blocks, and not past a replay's end; -1 when there is nothing
// new), with those blocks.
func (d *Dispatcher) next(ctx context.Context, w *db.Webhook, f *filter) (items []item, blocks map[int64]*db.Block, upTo int64, err error) {
	head, _, ok, err := db.IndexedHead(ctx, d.store.DB())
	if f.l1Only && err == nil && ok {
		// Only final blocks: the items of the others wait until the indexer marks them
		// ACCEPTED_ON_L1 (its notice wakes the loop).
		head, ok, err = db.L1Head(ctx, d.store.DB())
	}
	if err != nil || !ok {
		return nil, nil, -1, err
	}
	pos := w.Position()
	from := pos.Block
	if pos.Tx == db.WholeBlock {
		from++
	}
	from = max(from, 0)
	if from > head {
		return nil, nil, -1, nil
	}
	to := min(head, from+d.cfg.Batch-1)
	if w.Replay != nil {
		to = min(to, w.Replay.End.Block)
	}
	if to < from {
		return nil, nil, -1, nil
	}
	items, blocks, err = readItems(ctx, d.store, w.Kind, f, from, to, pos, w.PositionHash)
	if err != nil {
		return nil, nil, -1, err
	}
	items = slices.DeleteFunc(items, func(it item) bool {
		return !pos.Less(it.pos) || (w.Replay != nil && w.Replay.End.Less(it.pos))
	})
	return items, blocks, to, nil
}

// checkReorg compares what w was sent within the window, and its position, with the
// blocks' hashes now. Items of blocks replaced are retracted, newest first; then the
// position moves back to the newest item still on the chain (or Window blocks back when
// none is known). It returns false when a retraction failed (retried later).
func (d *Dispatcher) checkReorg(ctx context.Context, w *db.Webhook) (bool, error) {
	sent, err := d.store.WebhookSent(ctx, w.ID)
	if err != nil {
		return false, err
	}
	var numbers []int64
	for _, s := range sent {
		if len(numbers) == 0 || numbers[len(numbers)-1] != s.BlockNumber {
			numbers = append(numbers, s.BlockNumber)
		}
	}
	if w.PositionHash != nil {
		numbers = append(numbers, w.PositionBlock)
	}
	if len(numbers) == 0 {
		return true, nil
	}
	hashes, err := d.store.BlockHashesOf(ctx, numbers)
	if err != nil {
		return false, err
	}
	var bad []*db.SentItem
	var good *db.SentItem // the newest still on the chain, before the position
	lowest := w.PositionBlock
	for _, s := range sent {
		if h, ok := hashes[s.BlockNumber]; ok && h.Equal(s.BlockHash) {
			if s.Position().Less(w.Position()) || s.Position() == w.Position() {
				good = s
			}
		} else {
			bad = append(bad, s)
			lowest = min(lowest, s.BlockNumber)
		}
	}
	moved := w.PositionHash != nil && !hashes[w.PositionBlock].Equal(w.PositionHash)
	if len(bad) == 0 && !moved {
		return true, nil
	}
	for i := len(bad) - 1; i >= 0; i-- {
		msg, err := retraction(bad[i])
		if err != nil {
			return false, err
		}
		rec, ok := d.attempt(ctx, w, msg, bad[i].BlockNumber)
		if !ok {
			return false, nil
		}
		if err := d.store.WebhookRetracted(ctx, rec, w.Position(), bad[i]); err != nil {
			return false, err
		}
		metrics.WebhookRetractions.Inc()
		w.Attempts, w.FailingSince = 0, nil
	}
	if !moved {
		return true, nil
	}
	// Not knowing where the branches part, back the window, but never before its start:
	// what came before was never asked for.
	to, hash := db.Position{Block: max(lowest-d.cfg.Window, w.StartBlock, -1), Tx: db.WholeBlock, Event: db.WholeBlock}, db.Felt(nil)
	if good != nil {
		to, hash = good.Position(), good.BlockHash
	} else if to.Block >= 0 {
		hs, err := d.store.BlockHashesOf(ctx, []int64{to.Block})
		if err != nil {
			return false, err
		}
		hash = hs[to.Block]
	}
	d.cfg.Logger.Info("webhooks: reorg; position moved back", "webhook", w.ID, "from", w.PositionBlock, "to", to.Block,
		"retracted", len(bad))
	if err := d.store.RewindWebhook(ctx, w.ID, w.Position(), to, hash); err != nil {
		return false, err
	}
	w.SetPosition(to, hash)
	return true, nil
}

// attempt makes one attempt to deliver msg to w. On a 2xx it returns the log row for the
// caller to record with what the delivery moves; otherwise it records the failure itself
// (the next attempt's time, or the webhook disabled) and returns false.
func (d *Dispatcher) attempt(ctx context.Context, w *db.Webhook, msg Message, block int64) (*db.WebhookDelivery, bool) {
	if d.cfg.Meter != nil {
		if ok, retryAt, reason := d.cfg.Meter.Spend(ctx, w.KeyID, d.now()); !ok {
			metrics.WebhookDeliveries.WithLabelValues("over-quota").Inc()
			if err := d.store.WebhookDeferred(ctx, w.ID, w.Position(), retryAt, reason); err != nil {
				d.logErr(w, "deferring a delivery over quota", err)
			}
			w.NextAttemptAt = &retryAt
			return nil, false
		}
	}
	a := d.cfg.Sender.Deliver(ctx, Endpoint{URL: w.URL, Secrets: w.Secrets(d.now())}, msg)
	if ctx.Err() != nil { // shutting down: not the receiver's failure
		return nil, false
	}
	metrics.WebhookDeliveries.WithLabelValues(a.Outcome.String()).Inc()
	rec := &db.WebhookDelivery{WebhookID: w.ID, MessageID: msg.ID, BlockNumber: block, Attempt: w.Attempts + 1,
		StartedAt: a.Start, LatencyMs: int(a.Latency.Milliseconds()), Outcome: a.Outcome.String(), Status: a.Status,
		Response: cleanText(string(a.Body))}
	if a.Err != nil {
		rec.Error = cleanText(a.Err.Error())
	}
	if a.Outcome == Delivered {
		return rec, true
	}
	attempts := w.Attempts + 1
	first := a.Start
	if w.FailingSince != nil {
		first = *w.FailingSince
	}
	now := d.now()
	next := now.Add(d.cfg.Backoff(attempts))
	disable, reason := false, ""
	switch a.Outcome {
	case Disable:
		disable, reason = true, "the receiver answered 410 Gone"
		metrics.WebhookDisabled.WithLabelValues("gone").Inc()
	case SlowDown:
		next = now.Add(a.RetryAfter)
	}
	if !disable && GiveUp(attempts, first, next) {
		disable = true
		reason = fmt.Sprintf("failing since %s (%d attempts); the last: %s", first.UTC().Format(time.RFC3339), attempts, rec.Error)
		metrics.WebhookDisabled.WithLabelValues("failing").Inc()
	}
	if err := d.store.WebhookFailed(ctx, rec, w.Position(), next, disable, reason); err != nil {
		d.logErr(w, "recording a failed attempt", err)
		return nil, false
	}
	if disable {
		d.cfg.Logger.Warn("webhooks: webhook disabled", "webhook", w.ID, "reason", reason)
	}
	w.Attempts, w.FailingSince, w.NextAttemptAt = attempts, &first, &next
	if wait := next.Sub(now); !disable && wait < d.cfg.Poll {
		time.AfterFunc(wait, d.Wake) // due before the next round: not a round late
	}
	return nil, false
}

// cleanText is s as PostgreSQL text takes it: valid UTF-8 without NUL.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// prune forgets what fell out of the reorg window and the old log.
func (d *Dispatcher) prune(ctx context.Context) {
	head, _, _, err := db.IndexedHead(ctx, d.store.DB())
	if err == nil {
		err = d.store.PruneWebhooks(ctx, head-d.cfg.Window, d.now().Add(-d.cfg.LogMaxAge), d.cfg.LogKeep)
	}
	if err != nil && ctx.Err() == nil {
		d.cfg.Logger.Warn("webhooks: pruning", "err", err)
	}
}

// locker holds a session advisory lock per webhook served, so that of several processes
// running the loop one serves each webhook; a process that dies lets go with its session.
type locker struct {
	mu   sync.Mutex
	db   *sql.DB
	conn *sql.Conn
}

// lockKey is a webhook's advisory lock: 57 (the issue) in the high bits.
func lockKey(id int64) int64 { return 57<<48 | id }

// tryMany takes the locks of ids that no other session holds, in one statement, and
// returns those it took.
func (l *locker) tryMany(ctx context.Context, ids []int64) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		c, err := l.db.Conn(ctx)
		if err != nil {
			return nil
		}
		l.conn = c
	}
	keys := make(pq.Int64Array, len(ids))
	idOf := make(map[int64]int64, len(ids))
	for i, id := range ids {
		keys[i] = lockKey(id)
		idOf[keys[i]] = id
	}
	var took pq.Int64Array
	if err := l.conn.QueryRowContext(ctx, `SELECT coalesce(array_agg(k), '{}') FROM unnest($1::bigint[]) AS k
		WHERE pg_try_advisory_lock(k)`, keys).Scan(&took); err != nil {
		// The session is gone, and its locks with it: start again with a new one.
		_ = l.conn.Close()
		l.conn = nil
		return nil
	}
	out := make([]int64, len(took))
	for i, k := range took {
		out[i] = idOf[k]
	}
	return out
}

// unlockMany releases the locks of ids, in one statement.
func (l *locker) unlockMany(ctx context.Context, ids []int64) {
	if len(ids) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return // the session, and its locks, are gone
	}
	keys := make(pq.Int64Array, len(ids))
	for i, id := range ids {
		keys[i] = lockKey(id)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := l.conn.ExecContext(ctx, `SELECT pg_advisory_unlock(k) FROM unnest($1::bigint[]) AS k`, keys); err != nil {
		_ = l.conn.Close()
		l.conn = nil
	}
}

func (l *locker) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		_ = l.conn.Close()
		l.conn = nil
	}
}
