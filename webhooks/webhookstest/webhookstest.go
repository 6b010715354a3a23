// Package webhookstest is for tests only: a receiver of webhook messages on loopback that
// verifies each signature, fails a share of the requests at random, can be slow, answer
// 503 or be down (connection refused), and applies the messages it acknowledges as a
// receiver that deduplicates on webhook-id and applies in order would; and the messages a
// webhook's receiver must hold, read from the indexed chain. The delivery loop's test
// (webhooks) and the chaos test of the real processes (package main) share them; the
// bench's webhooks workload checks a sample of its webhooks with ChainMessages.
package webhookstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/webhooks"
)

// Applied is what a receiver that applies messages in order holds for one webhook: the
// items in the order they came, each once (deduplicated on webhook-id), retractions taking
// their item back.
type Applied struct {
	Items []Item
	Seen  map[string]bool // webhook-ids applied (items and retractions)
	// Acked are the webhook-ids of every message acknowledged, in order, duplicates
	// included (a replay's messages come again with their ids).
	Acked       []string
	Duplicates  int // messages received again after a 2xx
	Retractions int
	// Violations: an item older than the last applied, or a retraction of an item that
	// is not the last applied (retractions come newest first).
	Violations []string
}

// Item is an applied item: its message id and place in the chain.
type Item struct {
	ID  string
	Pos db.Position
}

// PositionOf is the place a payload gives its item.
func PositionOf(p webhooks.Payload) db.Position {
	pos := db.Position{Block: p.Position.BlockNumber, Tx: -1, Event: -1}
	if p.Position.TransactionIndex != nil {
		pos.Tx = *p.Position.TransactionIndex
	}
	if p.Position.EventIndex != nil {
		pos.Event = *p.Position.EventIndex
	}
	if p.Position.SubIndex != nil {
		pos.Sub = *p.Position.SubIndex
	}
	return pos
}

// Apply applies the message id with payload p.
func (a *Applied) Apply(id string, p webhooks.Payload) {
	if a.Seen == nil {
		a.Seen = map[string]bool{}
	}
	a.Acked = append(a.Acked, id)
	if a.Seen[id] {
		a.Duplicates++
		return
	}
	a.Seen[id] = true
	if p.Removed {
		a.Retractions++
		if n := len(a.Items); n == 0 || a.Items[n-1].ID != p.ItemID {
			a.Violations = append(a.Violations, fmt.Sprintf("retraction of %s, which is not the last item applied", p.ItemID))
			a.Items = slices.DeleteFunc(a.Items, func(it Item) bool { return it.ID == p.ItemID })
			return
		}
		a.Items = a.Items[:len(a.Items)-1]
		return
	}
	pos := PositionOf(p)
	if n := len(a.Items); n > 0 && !a.Items[n-1].Pos.Less(pos) {
		a.Violations = append(a.Violations, fmt.Sprintf("%s at %v after %s at %v", id, pos, a.Items[n-1].ID, a.Items[n-1].Pos))
	}
	a.Items = append(a.Items, Item{id, pos})
}

// IDs are the message ids of the items held, in order.
func (a *Applied) IDs() []string {
	ids := make([]string, 0, len(a.Items))
	for _, it := range a.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// Receiver receives the messages of several webhooks. Each request's signature is
// verified (401 when it does not), then, by the receiver's mood: answered 503 while
// Unavailable, held Slow before answering, failed with 500 one time in FailOneIn at random
// (not applied), and otherwise applied and answered 204.
type Receiver struct {
	mu          sync.Mutex
	secrets     map[string][]string // by webhook id
	state       map[string]*Applied // by webhook id
	rng         *rand.Rand
	failOneIn   int
	slow        time.Duration
	unavailable bool
	// counts
	received, failed, refused503 int
	bad                          []string

	srv  *http.Server
	addr string
	ln   net.Listener
}

// NewReceiver is a receiver failing one request in failOneIn (0: none), its randomness
// seeded with seed.
func NewReceiver(seed uint64, failOneIn int) *Receiver {
	return &Receiver{secrets: map[string][]string{}, state: map[string]*Applied{}, rng: rand.New(rand.NewPCG(seed, 57)),
		failOneIn: failOneIn}
}

// Expect makes the receiver accept the messages of webhook id signed with secret.
func (r *Receiver) Expect(id int64, secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets[strconv.FormatInt(id, 10)] = []string{secret}
}

// SetSlow holds every answer d (0: answer at once).
func (r *Receiver) SetSlow(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.slow = d
}

// SetUnavailable answers 503 (without Retry-After) to everything while on.
func (r *Receiver) SetUnavailable(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unavailable = on
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var p webhooks.Payload
	if err := json.Unmarshal(body, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	slow := r.slow
	r.mu.Unlock()
	if slow > 0 {
		select {
		case <-time.After(slow):
		case <-req.Context().Done():
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.received++
	if err := webhooks.Verify(r.secrets[p.Webhook], req.Header, body, time.Now()); err != nil {
		r.bad = append(r.bad, err.Error())
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if r.unavailable {
		r.refused503++
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	if r.failOneIn > 0 && r.rng.IntN(r.failOneIn) == 0 {
		r.failed++
		http.Error(w, "flaky", http.StatusInternalServerError)
		return
	}
	st := r.state[p.Webhook]
	if st == nil {
		st = &Applied{Seen: map[string]bool{}}
		r.state[p.Webhook] = st
	}
	st.Apply(req.Header.Get(webhooks.HeaderID), p)
	w.WriteHeader(http.StatusNoContent)
}

// Holds are the ids of the items webhook id's receiver holds, in order.
func (r *Receiver) Holds(id int64) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.state[strconv.FormatInt(id, 10)]; st != nil {
		return st.IDs()
	}
	return nil
}

// State is a copy of what webhook id's receiver applied (nil: nothing yet).
func (r *Receiver) State(id int64) *Applied {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.state[strconv.FormatInt(id, 10)]
	if st == nil {
		return nil
	}
	c := *st
	c.Items = slices.Clone(st.Items)
	c.Violations = slices.Clone(st.Violations)
	c.Acked = slices.Clone(st.Acked)
	return &c
}

// Counts are the requests received (with a valid signature or not), those failed with
// 500 at random and those answered 503, and the signatures that did not verify.
func (r *Receiver) Counts() (received, failed, unavailable int, bad []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.received, r.failed, r.refused503, slices.Clone(r.bad)
}

// Start serves the receiver on a loopback port and returns its URL. Close stops it.
func (r *Receiver) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	return "http://" + r.addr, nil
}

func (r *Receiver) serve(ln net.Listener) {
	r.ln = ln
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
}

// Down stops listening and closes every connection: until Up, connecting is refused.
func (r *Receiver) Down() {
	if r.srv != nil {
		_ = r.srv.Close()
		r.srv = nil
	}
}

// Up listens again on the same address.
func (r *Receiver) Up() error {
	var ln net.Listener
	var err error
	for range 50 { // the port was ours a moment ago
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			r.serve(ln)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// Close stops the receiver.
func (r *Receiver) Close() { r.Down() }

// ChainMessages are the ids of the messages webhook w's receiver must hold once it has
// caught up with the chain stored in store from block from to head: the matching items,
// in chain order. The filter is applied here independently of the delivery loop's
// (blocks; transactions by sender; transfers by token and wallet; events by emitter and
// leading keys; NFT transfers by collection and wallet); other filter fields are an error.
func ChainMessages(ctx context.Context, store *db.Store, w *db.Webhook, from, head int64) ([]string, error) {
	f := w.Filter
	felt := func(s string) db.Felt {
		if s == "" {
			return nil
		}
		return db.MustFelt(s)
	}
	blocks, err := store.BlocksInRange(ctx, from, head)
	if err != nil {
		return nil, err
	}
	hash := map[int64]db.Felt{}
	for _, b := range blocks {
		hash[b.Number] = b.Hash
	}
	var ids []string
	add := func(p db.Position) { ids = append(ids, webhooks.MessageID(w.ID, hash[p.Block], p)) }
	switch w.Kind {
	case webhooks.KindBlocks:
		for _, b := range blocks {
			add(db.Position{Block: b.Number, Tx: -1, Event: -1})
		}
	case webhooks.KindTransactions:
		if f.ContractAddress != "" || f.Type != "" {
			return nil, errors.New("webhookstest: transactions are matched by sender only")
		}
		sender := felt(f.SenderAddress)
		txs, err := store.TransactionsInRange(ctx, from, head)
		if err != nil {
			return nil, err
		}
		for _, x := range txs {
			if sender == nil || x.SenderAddress.Equal(sender) {
				add(db.Position{Block: x.BlockNumber, Tx: x.Index, Event: -1})
			}
		}
	case webhooks.KindTransfers:
		token, wallet := felt(f.Token), felt(f.Wallet)
		ts, err := store.TransfersInRange(ctx, from, head)
		if err != nil {
			return nil, err
		}
		for _, x := range ts {
			if (token == nil || x.TokenAddress.Equal(token)) && (wallet == nil || x.FromAddress.Equal(wallet) || x.ToAddress.Equal(wallet)) {
				add(db.Position{Block: x.BlockNumber, Tx: x.TxIndex, Event: x.EventIndex})
			}
		}
	case webhooks.KindEvents:
		emitter := felt(f.ContractAddress)
		es, err := store.EventsInRange(ctx, from, head)
		if err != nil {
			return nil, err
		}
	events:
		for _, e := range es {
			if emitter != nil && !e.FromAddress.Equal(emitter) || len(f.Keys) > len(e.Keys) {
				continue
			}
			for i, k := range f.Keys {
				if !e.Keys[i].Equal(db.MustFelt(k)) {
					continue events
				}
			}
			add(db.Position{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.Index})
		}
	case webhooks.KindNftTransfers:
		collection, wallet := felt(f.Collection), felt(f.Wallet)
		var es []struct {
			Block    int64   `db:"block_number"`
			Tx       int     `db:"tx_index"`
			Event    int     `db:"event_index"`
			Sub      int     `db:"sub_index"`
			Contract db.Felt `db:"contract_address"`
			From     db.Felt `db:"from_address"`
			To       db.Felt `db:"to_address"`
		}
		// Read here with a query of its own, not the delivery loop's reader.
		if err := store.DB().SelectContext(ctx, &es, `SELECT block_number, tx_index, event_index, sub_index, contract_address,
			from_address, to_address FROM nft_events WHERE block_number BETWEEN $1 AND $2
			ORDER BY block_number, tx_index, event_index, sub_index`, from, head); err != nil {
			return nil, err
		}
		for _, x := range es {
			if (collection == nil || x.Contract.Equal(collection)) && (wallet == nil || x.From.Equal(wallet) || x.To.Equal(wallet)) {
				add(db.Position{Block: x.Block, Tx: x.Tx, Event: x.Event, Sub: x.Sub})
			}
		}
	default:
		return nil, fmt.Errorf("webhookstest: kind %q", w.Kind)
	}
	return ids, nil
}
