package live

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
)

// subscription is one subscriber's stream: the channel gqlgen reads, of the rows that
// match. The hub is its only sender. Its own lock orders the sends and the close of ch, so
// the hub delivers without holding its lock while a subscriber's buffer is full.
type subscription[T any] struct {
	ch    chan T
	match func(T) bool
	// prepare, when set, makes the subscriber's own copy of a matching row (the hub's rows
	// are shared by all its subscribers).
	prepare func(T) T
	quit    chan struct{} // closed when the subscription ends: a send waiting for room stops
	quits   sync.Once
	mu      sync.Mutex // held while sending, and to end
	ended   bool       // guarded by mu
	err     error      // why it ended; guarded by mu
}

func (s *subscription[T]) offer(m any, patience time.Time) bool {
	v, ok := m.(T)
	if !ok || (s.match != nil && !s.match(v)) {
		return true
	}
	if s.prepare != nil {
		v = s.prepare(v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	select {
	case s.ch <- v:
		return true
	default:
	}
	wait := time.NewTimer(time.Until(patience))
	defer wait.Stop()
	select {
	case s.ch <- v:
		return true
	case <-s.quit:
		return false
	case <-wait.C:
		metrics.SlowSubscribers.Inc()
		s.endLocked(ErrTooSlow)
		return false
	}
}

// end closes the stream; a send waiting for room gives up first.
func (s *subscription[T]) end(err error) {
	s.quits.Do(func() { close(s.quit) })
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLocked(err)
}

func (s *subscription[T]) endLocked(err error) {
	if !s.ended {
		s.ended, s.err = true, err
		close(s.ch)
	}
}

// ErrClosed refuses a subscription while the server shuts down.
var ErrClosed = errors.New("the server is shutting down; subscribe again")

// ErrNotServed refuses a subscription in a process without a hub (a nil *Hub).
var ErrNotServed = errors.New("subscriptions are not served here")

func subscribe[T any](ctx context.Context, h *Hub, f feed, match func(T) bool) (<-chan T, error) {
	return subscribeWith(ctx, h, f, match, nil)
}

// subscribeWith is subscribe with each matching row made the subscriber's own by prepare
// (nil: the shared row).
func subscribeWith[T any](ctx context.Context, h *Hub, f feed, match func(T) bool, prepare func(T) T) (<-chan T, error) {
	if h == nil {
		return nil, ErrNotServed
	}
	s := &subscription[T]{ch: make(chan T, h.opts.Buffer), match: match, prepare: prepare, quit: make(chan struct{})}
	if !h.add(f, s) {
		return nil, ErrClosed
	}
	if t, ok := ctx.Value(trackerKey{}).(*tracker); ok {
		t.set(func() error { // the hub may still be ending s when the context ends
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.err
		})
	}
	// No goroutine waits for the end: 10,000 idle subscriptions cost their buffers only.
	context.AfterFunc(ctx, func() { h.remove(f, s) })
	return s.ch, nil
}

// The subscribing methods may be called on a nil *Hub: they return ErrNotServed.

// Blocks subscribes to newBlocks until ctx ends.
func (h *Hub) Blocks(ctx context.Context) (<-chan *BlockEvent, error) {
	return subscribe[*BlockEvent](ctx, h, feedBlocks, nil)
}

// TxMatch selects transactions; nil fields match any.
type TxMatch struct {
	Sender, Contract db.Felt
	Type             db.TxType
}

// Transactions subscribes to the transactions that m selects, as their blocks are written.
func (h *Hub) Transactions(ctx context.Context, m TxMatch) (<-chan *db.Transaction, error) {
	return subscribe(ctx, h, feedTransactions, func(t *db.Transaction) bool {
		return (m.Sender == nil || m.Sender.Equal(t.SenderAddress)) &&
			(m.Contract == nil || m.Contract.Equal(t.ContractAddress)) &&
			(m.Type == "" || m.Type == t.Type)
	})
}

// Transfers subscribes to the token transfers of token (nil: any) to or from wallet (nil:
// anyone).
// prepare, when not nil, makes each matching transfer the subscriber's own copy (it runs
// on the hub's delivery, so it must not wait on anything).
func (h *Hub) Transfers(ctx context.Context, token, wallet db.Felt, prepare func(*db.TokenTransfer) *db.TokenTransfer) (<-chan *db.TokenTransfer, error) {
	return subscribeWith(ctx, h, feedTransfers, func(t *db.TokenTransfer) bool {
		return (token == nil || token.Equal(t.TokenAddress)) &&
			(wallet == nil || wallet.Equal(t.FromAddress) || wallet.Equal(t.ToAddress))
	}, prepare)
}

// Events subscribes to the events emitted by contract (nil: any) whose keys begin with
// keys (each given key equals the event's key at the same position).
func (h *Hub) Events(ctx context.Context, contract db.Felt, keys []db.Felt) (<-chan *db.Event, error) {
	return subscribe(ctx, h, feedEvents, func(e *db.Event) bool {
		if contract != nil && !contract.Equal(e.FromAddress) {
			return false
		}
		if len(keys) > len(e.Keys) {
			return false
		}
		for i, k := range keys {
			if !k.Equal(e.Keys[i]) {
				return false
			}
		}
		return true
	})
}

// tracker remembers the subscription of one operation, so that the transport's last
// message can say why it ended.
type tracker struct {
	mu       sync.Mutex
	err      func() error
	reported bool
}

type trackerKey struct{}

func (t *tracker) set(err func() error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.err = err
}

// Track returns ctx with room for the subscription an operation opens; TakeEndReason
// reads it.
func Track(ctx context.Context) context.Context {
	return context.WithValue(ctx, trackerKey{}, &tracker{})
}

// TakeEndReason says, once, why the subscription opened under ctx (see Track) ended when
// the server ended it (ErrTooSlow); nil when it ended normally, or was already told. Call
// it once its channel is closed.
func TakeEndReason(ctx context.Context) error {
	t, ok := ctx.Value(trackerKey{}).(*tracker)
	if !ok {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil || t.reported {
		return nil
	}
	t.reported = true
	return t.err()
}
