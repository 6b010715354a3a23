// Package live feeds the GraphQL subscriptions. A Hub LISTENs for the indexer's chain
// notices (db.ChainChannel), reads the rows of each notice once per kind that has
// subscribers, and hands every subscriber the rows it asked for through a bounded buffer.
// A subscriber whose buffer stays full for the hub's patience is too slow: it is ended
// with ErrTooSlow, never allowed to grow the process's memory.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
)

// ErrTooSlow ends a subscription whose client did not take its messages as fast as
// blocks came.
var ErrTooSlow = errors.New("the client read too slowly: its buffer of pending messages is full, so the subscription was ended; subscribe again")

// BlockEvent is one message of newBlocks.
type BlockEvent struct {
	Kind         string        // PRE_CONFIRMED, NEW, STATUS or REORG
	Block        *db.Block     // NEW and STATUS
	Reorg        *Reorg        // REORG
	PreConfirmed *PreConfirmed // PRE_CONFIRMED
}

// PreConfirmed is the block being built, as the node last showed it.
type PreConfirmed struct {
	Number    int64
	Timestamp int64
	TxnCount  int
}

// Reorg tells that the blocks above Ancestor were replaced.
type Reorg struct {
	Ancestor  int64
	Depth     int64
	OldHashes []db.Felt
	NewHashes []db.Felt
}

// Block event kinds.
const (
	KindPreConfirmed = "PRE_CONFIRMED"
	KindNew          = "NEW"
	KindStatus       = "STATUS"
	KindReorg        = "REORG"
)

// Options tune a Hub.
type Options struct {
	// Buffer is how many messages a subscriber may have pending; default 256.
	Buffer int
	// Patience is how long the delivery of one notice waits for room in the buffers of
	// subscribers whose buffer is full, before it ends them; default 200ms. A block's
	// burst of messages may outrun a client that keeps up; one that stays full does not.
	Patience time.Duration
	// ReadTimeout bounds the reads of one notice's rows; default 10s.
	ReadTimeout time.Duration
	// MaxNoticeBlocks bounds the blocks of one notice whose rows are sent (the newest):
	// the first finality notice after an indexer starts can cover the whole chain, and the
	// catch-up after a lost connection the blocks written meanwhile. Default 256.
	MaxNoticeBlocks int64
	Logger          *slog.Logger
}

// Hub serves the subscriptions of one API process.
type Hub struct {
	store *db.Store
	opts  Options

	mu     sync.Mutex
	subs   map[feed]map[subscriber]struct{}
	last   int64 // newest block announced to subscribers; -1 before the first notice
	closed bool
}

// feed is what a subscriber follows; each has its own read of a notice's rows.
type feed int

const (
	feedBlocks feed = iota
	feedTransactions
	feedTransfers
	feedEvents
)

// subscriber is a Subscription of any row type, as the hub holds it.
type subscriber interface {
	// offer hands over a message if the subscriber wants it, waiting until patience for
	// room; false when there was none (the subscriber is then ended) or it has ended.
	offer(m any, patience time.Time) bool
	end(err error)
}

// NewHub returns a hub reading rows from store; Run feeds it.
func NewHub(store *db.Store, opts Options) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = 256
	}
	if opts.Patience <= 0 {
		opts.Patience = 200 * time.Millisecond
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = 10 * time.Second
	}
	if opts.MaxNoticeBlocks <= 0 {
		opts.MaxNoticeBlocks = 256
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Hub{store: store, opts: opts, subs: map[feed]map[subscriber]struct{}{}, last: -1}
}

// Run listens on dsn (the primary: a standby cannot LISTEN) until ctx ends, then ends
// every subscription. A lost connection is re-established; the blocks written meanwhile
// are read from the database, so subscribers miss none.
func (h *Hub) Run(ctx context.Context, dsn string) error {
	listener := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			h.opts.Logger.Warn("live: notice connection", "event", ev, "err", err)
		}
	})
	defer listener.Close()
	defer h.closeAll()
	if err := listener.Listen(db.ChainChannel); err != nil {
		return fmt.Errorf("live: listen: %w", err)
	}
	if err := h.catchUp(ctx); err != nil {
		h.opts.Logger.Warn("live: reading the indexed head", "err", err)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case n := <-listener.Notify:
			if n == nil { // reconnected: notices may have been lost
				if err := h.catchUp(ctx); err != nil {
					h.opts.Logger.Warn("live: catching up after a reconnect", "err", err)
				}
				continue
			}
			var notice db.ChainNotice
			if err := json.Unmarshal([]byte(n.Extra), &notice); err != nil {
				h.opts.Logger.Warn("live: unreadable notice", "payload", n.Extra, "err", err)
				continue
			}
			h.Handle(ctx, notice)
		case <-time.After(time.Minute):
			go listener.Ping() // finds a dead connection sooner than TCP would
		}
	}
}

// catchUp announces the blocks written since the last notice handled (none at start:
// subscribers see blocks from when they subscribe).
func (h *Hub) catchUp(ctx context.Context) error {
	head, _, ok, err := db.IndexedHead(ctx, h.store.DB())
	if err != nil || !ok {
		return err
	}
	h.mu.Lock()
	last := h.last
	if last < 0 || head < last {
		h.last = head
	}
	h.mu.Unlock()
	if last >= 0 && head > last {
		h.Handle(ctx, db.ChainNotice{Written: &db.BlockRange{From: last + 1, To: head}})
	}
	return nil
}

// Handle delivers one notice to the subscribers. Run calls it for each notice; tests may
// call it directly.
func (h *Hub) Handle(ctx context.Context, n db.ChainNotice) {
	ctx, cancel := context.WithTimeout(ctx, h.opts.ReadTimeout)
	defer cancel()
	switch {
	case n.Written != nil:
		h.written(ctx, *n.Written)
	case n.AcceptedOnL1 != nil:
		r := *n.AcceptedOnL1
		r.From = max(r.From, r.To-h.opts.MaxNoticeBlocks+1)
		if h.has(feedBlocks) {
			blocks, err := h.readBlocks(ctx, r)
			h.deliver(feedBlocks, err, messages(blocks, func(b *db.Block) any { return &BlockEvent{Kind: KindStatus, Block: b} }))
		}
	case n.PreConfirmed != nil:
		pc := &PreConfirmed{Number: n.PreConfirmed.Number, Timestamp: n.PreConfirmed.Timestamp, TxnCount: n.PreConfirmed.TxCount}
		h.deliver(feedBlocks, nil, []any{&BlockEvent{Kind: KindPreConfirmed, PreConfirmed: pc}})
	case n.Reorg != nil:
		h.mu.Lock()
		h.last = min(h.last, n.Reorg.Ancestor)
		h.mu.Unlock()
		reorg := &Reorg{Ancestor: n.Reorg.Ancestor, Depth: n.Reorg.Depth,
			OldHashes: felts(n.Reorg.OldHashes), NewHashes: felts(n.Reorg.NewHashes)}
		h.deliver(feedBlocks, nil, []any{&BlockEvent{Kind: KindReorg, Reorg: reorg}})
	}
}

func (h *Hub) written(ctx context.Context, r db.BlockRange) {
	h.mu.Lock()
	if r.To > h.last {
		h.last = r.To
	}
	h.mu.Unlock()
	if h.Count() == 0 {
		return
	}
	r.From = max(r.From, r.To-h.opts.MaxNoticeBlocks+1)
	// The blocks first, whoever asks: a block's rows commit with it, so once a read
	// replica shows the blocks it shows the rest.
	blocks, err := h.readBlocks(ctx, r)
	if h.has(feedBlocks) {
		h.deliver(feedBlocks, err, messages(blocks, func(b *db.Block) any { return &BlockEvent{Kind: KindNew, Block: b} }))
	}
	if h.has(feedTransactions) {
		rows, err := h.store.TransactionsInRange(ctx, r.From, r.To)
		h.deliver(feedTransactions, err, messages(rows, func(t *db.Transaction) any { return t }))
	}
	if h.has(feedTransfers) {
		rows, err := h.store.TransfersInRange(ctx, r.From, r.To)
		h.deliver(feedTransfers, err, messages(rows, func(t *db.TokenTransfer) any { return t }))
	}
	if h.has(feedEvents) {
		rows, err := h.store.EventsInRange(ctx, r.From, r.To)
		h.deliver(feedEvents, err, messages(rows, func(e *db.Event) any { return e }))
	}
}

// readBlocks reads the blocks of r, waiting a little for those a read replica has not
// replayed yet (the notice comes from the primary).
func (h *Hub) readBlocks(ctx context.Context, r db.BlockRange) ([]*db.Block, error) {
	for wait := 10 * time.Millisecond; ; wait *= 2 {
		blocks, err := h.store.BlocksInRange(ctx, r.From, r.To)
		if err != nil || int64(len(blocks)) >= r.To-r.From+1 || wait > time.Second {
			return blocks, err
		}
		select {
		case <-ctx.Done():
			return blocks, nil
		case <-time.After(wait):
		}
	}
}

func (h *Hub) has(f feed) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[f]) > 0
}

// messages makes each row into its message.
func messages[T any](rows []T, message func(T) any) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = message(r)
	}
	return out
}

// deliver offers each message to every subscriber of f. A failed read is logged: the
// subscribers miss those rows but stay subscribed. The hub's lock is not held while a
// subscriber's full buffer is waited on (up to the patience), so subscribing and
// unsubscribing go on meanwhile; a subscription that starts during a delivery gets the
// next one.
func (h *Hub) deliver(f feed, err error, msgs []any) {
	if err != nil {
		h.opts.Logger.Warn("live: reading a notice's rows", "err", err)
		return
	}
	h.mu.Lock()
	subs := make([]subscriber, 0, len(h.subs[f]))
	for s := range h.subs[f] {
		subs = append(subs, s)
	}
	h.mu.Unlock()
	patience := time.Now().Add(h.opts.Patience)
	gone := make([]bool, len(subs))
	for _, m := range msgs {
		for i, s := range subs {
			if !gone[i] && !s.offer(m, patience) {
				gone[i] = true
			}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, s := range subs {
		if gone[i] {
			delete(h.subs[f], s)
		}
	}
}

// Count is the number of open subscriptions.
func (h *Hub) Count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, subs := range h.subs {
		n += len(subs)
	}
	return n
}

func (h *Hub) add(f feed, s subscriber) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if h.subs[f] == nil {
		h.subs[f] = map[subscriber]struct{}{}
	}
	h.subs[f][s] = struct{}{}
	return true
}

// remove ends s once its subscriber has gone; the end waits for a send under way, not the
// hub's lock.
func (h *Hub) remove(f feed, s subscriber) {
	h.mu.Lock()
	_, ok := h.subs[f][s]
	delete(h.subs[f], s)
	h.mu.Unlock()
	if ok {
		s.end(nil)
	}
}

func (h *Hub) closeAll() {
	h.mu.Lock()
	h.closed = true
	all := h.subs
	h.subs = map[feed]map[subscriber]struct{}{}
	h.mu.Unlock()
	for _, subs := range all {
		for s := range subs {
			s.end(nil)
		}
	}
}

func felts(hexes []string) []db.Felt {
	out := make([]db.Felt, 0, len(hexes))
	for _, x := range hexes {
		if f, err := db.ParseFelt(x); err == nil {
			out = append(out, f)
		}
	}
	return out
}
