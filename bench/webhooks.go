package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/webhooks"
	"github.com/starkgraph/starkgraph/webhooks/webhookstest"
)

// The webhooks workload (issue 57): many webhooks served by the delivery loop while the
// chain moves, to a receiver on loopback that verifies every signature and notes when each
// message arrived. It reports the delivery latency, from the moment the indexer's commit of
// a block is announced (its notice on db.ChainChannel, heard by a listener of this process,
// as the delivery loop hears it) to the moment the receiver has read the message's body;
// and the indexer's rate with the webhooks against without, in the same run on the same
// chain: catch-ups of the same number of blocks, the webhooks paused, then served,
// alternately, and the indexer's time from a block's arrival at the node to its commit
// while it follows a block every block time, without and then with them.

// WebhooksWorkload names the workload for --only.
const WebhooksWorkload = "webhooks"

// benchHookDescription marks the bench's webhooks (those left by a run that stopped are
// deleted by the next).
const benchHookDescription = "starkgraph bench"

// WebhooksOptions say what the workload creates and how long it runs.
type WebhooksOptions struct {
	DSN   string // the database's URL, for the chain notices
	KeyID int64  // the API key owning the webhooks
	// Webhooks are created, a quarter of each kind (blocks, transactions by sender, transfers
	// of a wallet or a token, events by emitter and first key), on Hosts receiver hosts.
	Webhooks int
	Hosts    int
	// BlockTime is how often a block comes while following; Follow how long each following
	// run lasts.
	BlockTime time.Duration
	Follow    time.Duration
	// CatchUpBlocks are added at once for each catch-up; CatchUps pairs run (without, with).
	CatchUpBlocks int
	CatchUps      int
	// Wake, when set, wakes the delivery loop after the webhooks were resumed.
	Wake func()
	Log  *slog.Logger
}

// WebhooksResult is the workload's report.
type WebhooksResult struct {
	Webhooks int            `json:"webhooks"`
	Kinds    map[string]int `json:"kinds"`
	Hosts    int            `json:"receiverHosts"`
	// ExpectedPerBlock are the items a block the webhooks' filters matched in the blocks
	// before the run (their rate, summed).
	ExpectedPerBlock float64                `json:"expectedMessagesPerBlock"`
	BlockTime        string                 `json:"blockTime"`
	Following        []WebhooksFollowing    `json:"following"`
	CatchUps         []WebhooksCatchUp      `json:"catchUps"`
	IndexerRatio     float64                `json:"indexerRatio"` // mean catch-up tx/s with the webhooks over without
	Receiver         WebhooksReceiverCounts `json:"receiver"`
}

// WebhooksFollowing is one run following the chain, a block every BlockTime.
type WebhooksFollowing struct {
	Webhooks bool `json:"webhooks"`
	Blocks   int  `json:"blocks"`
	// IndexerLag is the time from a block's arrival at the node to its commit announced.
	IndexerLag Measure `json:"indexerLag"`
	// Latency is each message's, from its block's commit announced to its arrival, over the
	// messages of the run's blocks (first arrivals: a message received again is a duplicate).
	Latency  Measure       `json:"latency"`
	Max      time.Duration `json:"maxNanos"`
	Messages int           `json:"messages"`
	// PerSecond is Messages over the time from the first block's commit to the last arrival.
	PerSecond float64 `json:"messagesPerSecond"`
	// CaughtUp are the webhooks past the run's last block when the run ended (DrainSeconds
	// after its last block's commit at most).
	CaughtUp     int     `json:"caughtUp"`
	DrainSeconds float64 `json:"drainSeconds"`
	// NoCommitTime are the messages whose block's commit notice was not heard (not counted).
	NoCommitTime int `json:"noCommitTime,omitempty"`
	// Checked webhooks (at most 100, evenly spread) had their messages of the run's blocks
	// compared with the chain's matching items (webhookstest.ChainMessages): Missing of
	// those items never arrived, Unexpected messages match none, OutOfOrder arrived out of
	// the chain's order.
	Checked    int `json:"checked"`
	Missing    int `json:"missing"`
	Unexpected int `json:"unexpected"`
	OutOfOrder int `json:"outOfOrder"`
}

// WebhooksCatchUp is one catch-up: CatchUpBlocks added at once, indexed.
type WebhooksCatchUp struct {
	Webhooks     bool    `json:"webhooks"`
	Blocks       int     `json:"blocks"`
	Transactions int     `json:"transactions"`
	Seconds      float64 `json:"seconds"`
	TxPerSecond  float64 `json:"txPerSecond"`
	// Messages arrived while the indexer caught up, and their rate.
	Messages  int     `json:"messages"`
	PerSecond float64 `json:"messagesPerSecond"`
}

// WebhooksReceiverCounts are what the receiver saw over the whole workload.
type WebhooksReceiverCounts struct {
	Requests      int `json:"requests"`
	Messages      int `json:"messages"` // distinct message ids
	Duplicates    int `json:"duplicates"`
	Retractions   int `json:"retractions"`
	BadSignatures int `json:"badSignatures"`
	// FirstBad is the first signature refused.
	FirstBad string `json:"firstBad,omitempty"`
}

// hookSpec is a webhook to create.
type hookSpec struct {
	kind   string
	filter db.WebhookFilter
	rate   float64 // matching items a block, in the blocks looked at
}

// pickHookSpecs chooses n webhooks' filters from the rows of the last blocks (up to 50
// before head): a quarter each of blocks (one item a block), transactions by sender,
// transfers to or from a wallet or of a token, and events by emitter and first key, those
// filters matching nearest one item a block (never more than five), several webhooks
// sharing a filter when there are fewer filters than webhooks (popular addresses).
func pickHookSpecs(ctx context.Context, store *db.Store, head int64, n int) ([]hookSpec, error) {
	from := max(head-49, 0)
	blocks := float64(head - from + 1)
	txs, err := store.TransactionsInRange(ctx, from, head)
	if err != nil {
		return nil, err
	}
	transfers, err := store.TransfersInRange(ctx, from, head)
	if err != nil {
		return nil, err
	}
	events, err := store.EventsInRange(ctx, from, head)
	if err != nil {
		return nil, err
	}
	type cand struct {
		filter db.WebhookFilter
		count  int
	}
	count := func(m map[string]*cand, key string, f db.WebhookFilter) {
		if c := m[key]; c != nil {
			c.count++
		} else {
			m[key] = &cand{filter: f, count: 1}
		}
	}
	senders, moves, emitted := map[string]*cand{}, map[string]*cand{}, map[string]*cand{}
	for _, t := range txs {
		if t.SenderAddress != nil {
			count(senders, t.SenderAddress.Hex(), db.WebhookFilter{SenderAddress: t.SenderAddress.Hex()})
		}
	}
	for _, t := range transfers {
		count(moves, "t"+t.TokenAddress.Hex(), db.WebhookFilter{Token: t.TokenAddress.Hex()})
		if t.FromAddress != nil {
			count(moves, "w"+t.FromAddress.Hex(), db.WebhookFilter{Wallet: t.FromAddress.Hex()})
		}
		if t.ToAddress != nil && !t.ToAddress.Equal(t.FromAddress) {
			count(moves, "w"+t.ToAddress.Hex(), db.WebhookFilter{Wallet: t.ToAddress.Hex()})
		}
	}
	for _, e := range events {
		if e.FromAddress != nil && len(e.Keys) > 0 {
			count(emitted, e.FromAddress.Hex()+" "+e.Keys[0].Hex(), db.WebhookFilter{ContractAddress: e.FromAddress.Hex(),
				Keys: []string{e.Keys[0].Hex()}})
		}
	}
	// The filters nearest one item a block, at most five a block.
	best := func(m map[string]*cand) []hookSpec {
		var out []hookSpec
		for _, c := range m {
			if r := float64(c.count) / blocks; r <= 5 {
				out = append(out, hookSpec{filter: c.filter, rate: r})
			}
		}
		sort.Slice(out, func(i, j int) bool {
			di, dj := math.Abs(math.Log(out[i].rate)), math.Abs(math.Log(out[j].rate))
			if di != dj {
				return di < dj
			}
			return fmt.Sprint(out[i].filter) < fmt.Sprint(out[j].filter)
		})
		return out
	}
	kinds := []struct {
		kind  string
		cands []hookSpec
	}{
		{webhooks.KindBlocks, []hookSpec{{rate: 1}}},
		{webhooks.KindTransactions, best(senders)},
		{webhooks.KindTransfers, best(moves)},
		{webhooks.KindEvents, best(emitted)},
	}
	var specs []hookSpec
	for i, k := range kinds {
		want := n / len(kinds)
		if i == 0 {
			want += n % len(kinds)
		}
		if len(k.cands) == 0 {
			return nil, fmt.Errorf("bench: no %s filter matches the last blocks", k.kind)
		}
		// The nearest to one a block first; each used by about as many webhooks.
		use := k.cands[:min(len(k.cands), want)]
		for j := range want {
			s := use[j%len(use)]
			s.kind = k.kind
			specs = append(specs, s)
		}
	}
	return specs, nil
}

// hookReceiver receives the messages of many webhooks on several loopback hosts (a
// listener each), verifies each signature, and notes each message's first arrival.
type hookReceiver struct {
	mu       sync.Mutex
	secrets  map[string][]string // by webhook id
	seen     map[string]bool     // message ids
	arrivals []hookArrival
	counts   WebhooksReceiverCounts
	servers  []*http.Server
	urls     []string
}

// hookArrival is a message's first arrival.
type hookArrival struct {
	webhook, id string
	block       int64
	at          time.Time
	removed     bool
}

func startHookReceiver(hosts int) (*hookReceiver, error) {
	r := &hookReceiver{secrets: map[string][]string{}, seen: map[string]bool{}}
	for range hosts {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			r.close()
			return nil, err
		}
		srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		r.servers = append(r.servers, srv)
		r.urls = append(r.urls, "http://"+ln.Addr().String())
	}
	return r, nil
}

func (r *hookReceiver) expect(id int64, secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets[strconv.FormatInt(id, 10)] = []string{secret}
}

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	at := time.Now()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var p struct {
		Webhook string `json:"webhook"`
		Removed bool   `json:"removed"`
		Block   struct {
			Number int64 `json:"number"`
		} `json:"block"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	secrets := r.secrets[p.Webhook]
	r.mu.Unlock()
	verr := webhooks.Verify(secrets, req.Header, body, at)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts.Requests++
	if verr != nil {
		r.counts.BadSignatures++
		if r.counts.FirstBad == "" {
			r.counts.FirstBad = verr.Error()
		}
		http.Error(w, verr.Error(), http.StatusUnauthorized)
		return
	}
	id := req.Header.Get(webhooks.HeaderID)
	if r.seen[id] {
		r.counts.Duplicates++
	} else {
		r.seen[id] = true
		r.counts.Messages++
		if p.Removed {
			r.counts.Retractions++
		}
		r.arrivals = append(r.arrivals, hookArrival{webhook: p.Webhook, id: id, block: p.Block.Number, at: at, removed: p.Removed})
	}
	w.WriteHeader(http.StatusNoContent)
}

// since are the arrivals from the i-th on, and how many there are in all.
func (r *hookReceiver) since(i int) ([]hookArrival, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.arrivals[min(i, len(r.arrivals)):]), len(r.arrivals)
}

// quiet waits until no request arrived for d (at most wait).
func (r *hookReceiver) quiet(ctx context.Context, d, wait time.Duration) {
	deadline := time.Now().Add(wait)
	r.mu.Lock()
	last := r.counts.Requests
	r.mu.Unlock()
	for still := time.Now(); time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(d / 5)
		r.mu.Lock()
		n := r.counts.Requests
		r.mu.Unlock()
		if n != last {
			last, still = n, time.Now()
		} else if time.Since(still) >= d {
			return
		}
	}
}

func (r *hookReceiver) close() {
	for _, s := range r.servers {
		_ = s.Close()
	}
}

// commitTimes hears the indexer's chain notices and notes when each block's commit was
// announced.
type commitTimes struct {
	listener *pq.Listener
	mu       sync.Mutex
	at       map[int64]time.Time
	done     chan struct{}
}

func listenCommits(dsn string) (*commitTimes, error) {
	c := &commitTimes{at: map[int64]time.Time{}, done: make(chan struct{})}
	c.listener = pq.NewListener(dsn, 100*time.Millisecond, time.Second, nil)
	if err := c.listener.Listen(db.ChainChannel); err != nil {
		c.listener.Close()
		return nil, fmt.Errorf("bench: listen for chain notices: %w", err)
	}
	go func() {
		defer close(c.done)
		for n := range c.listener.Notify {
			at := time.Now()
			if n == nil {
				continue
			}
			var notice db.ChainNotice
			if json.Unmarshal([]byte(n.Extra), &notice) != nil || notice.Written == nil {
				continue
			}
			c.mu.Lock()
			for b := notice.Written.From; b <= notice.Written.To; b++ {
				if _, ok := c.at[b]; !ok {
					c.at[b] = at
				}
			}
			c.mu.Unlock()
		}
	}()
	return c, nil
}

func (c *commitTimes) of(block int64) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.at[block]
	return t, ok
}

func (c *commitTimes) close() {
	c.listener.Close()
	<-c.done
}

// RunWebhooks runs the webhooks workload on chain (DriveChain's) with the delivery loop
// running on conn's database (serve's): it creates the webhooks, follows the chain without
// them (paused) and with them, then times catch-ups without and with them, alternately,
// and deletes them.
func RunWebhooks(ctx context.Context, conn *sqlx.DB, chain *Chain, o WebhooksOptions) (WebhooksResult, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o.Webhooks, o.Hosts, o.CatchUpBlocks, o.CatchUps = max(o.Webhooks, 4), max(o.Hosts, 1), max(o.CatchUpBlocks, 1), max(o.CatchUps, 0)
	if o.BlockTime <= 0 {
		o.BlockTime = 2 * time.Second
	}
	res := WebhooksResult{Webhooks: o.Webhooks, Kinds: map[string]int{}, Hosts: o.Hosts, BlockTime: o.BlockTime.String()}
	store := db.NewStore(conn)
	cleanup := func() error {
		_, err := conn.ExecContext(context.WithoutCancel(ctx), `DELETE FROM webhooks WHERE description = $1`, benchHookDescription)
		return err
	}
	if err := cleanup(); err != nil {
		return res, err
	}
	defer func() { _ = cleanup() }()
	if _, err := conn.ExecContext(ctx, `UPDATE plans SET max_webhooks = greatest(max_webhooks, $1)
		WHERE name = (SELECT plan FROM api_keys WHERE id = $2)`, o.Webhooks, o.KeyID); err != nil {
		return res, err
	}
	recv, err := startHookReceiver(o.Hosts)
	if err != nil {
		return res, err
	}
	defer recv.close()
	commits, err := listenCommits(o.DSN)
	if err != nil {
		return res, err
	}
	defer commits.close()

	head, _, _, err := db.IndexedHead(ctx, conn)
	if err != nil {
		return res, err
	}
	specs, err := pickHookSpecs(ctx, store, head, o.Webhooks)
	if err != nil {
		return res, err
	}
	ids := make(pq.Int64Array, 0, len(specs))
	var created []*db.Webhook
	for i, s := range specs {
		w := &db.Webhook{KeyID: o.KeyID, URL: fmt.Sprintf("%s/hooks/%d", recv.urls[i%len(recv.urls)], i), Kind: s.kind,
			Description: benchHookDescription}
		if w.Secret, err = webhooks.NewSecret(); err != nil {
			return res, err
		}
		if w.Filter, err = webhooks.CheckFilter(s.kind, s.filter); err != nil {
			return res, fmt.Errorf("bench: the filter picked for a %s webhook: %w", s.kind, err)
		}
		if err := store.CreateWebhook(ctx, w, nil); err != nil {
			return res, err
		}
		recv.expect(w.ID, w.Secret)
		ids = append(ids, w.ID)
		created = append(created, w)
		res.Kinds[s.kind]++
		res.ExpectedPerBlock += s.rate
	}
	log.Info("bench: webhooks created", "webhooks", len(ids), "kinds", res.Kinds, "expected_per_block", int(res.ExpectedPerBlock))

	pause := func() error {
		_, err := conn.ExecContext(ctx, `UPDATE webhooks SET status = 'paused', status_reason = 'the bench, measuring without'
			WHERE id = ANY($1)`, ids)
		recv.quiet(ctx, 300*time.Millisecond, 30*time.Second) // the messages in flight arrive
		return err
	}
	// resume makes them active again at the head: what came while they were paused is not
	// delivered.
	resume := func() error {
		_, err := conn.ExecContext(ctx, `UPDATE webhooks w SET status = 'active', status_reason = '', position_block = h.number,
			position_tx = $2, position_event = $2, position_sub = 0, position_hash = h.hash, attempts = 0, failing_since = NULL,
			next_attempt_at = NULL, replay = NULL
			FROM (SELECT number, hash FROM blocks ORDER BY number DESC LIMIT 1) h WHERE w.id = ANY($1)`, ids, db.WholeBlock)
		if err == nil && o.Wake != nil {
			o.Wake()
		}
		return err
	}
	caughtUp := func(block int64) (int, error) {
		var n int
		err := conn.GetContext(ctx, &n, `SELECT count(*) FROM webhooks WHERE id = ANY($1) AND status = 'active'
			AND (position_block > $2 OR position_block = $2 AND position_tx = $3)`, ids, block, db.WholeBlock)
		return n, err
	}
	// follow adds a block every block time for o.Follow, then waits for the webhooks (when
	// on) to be past the last, at most drain.
	follow := func(on bool) (WebhooksFollowing, error) {
		f := WebhooksFollowing{Webhooks: on}
		start, _, _, err := db.IndexedHead(ctx, conn)
		if err != nil {
			return f, err
		}
		_, first := recv.since(math.MaxInt)
		added := map[int64]time.Time{}
		tick := time.NewTicker(o.BlockTime)
		end := time.Now().Add(o.Follow)
		last := start
		for time.Now().Before(end) && ctx.Err() == nil {
			<-tick.C
			last = chain.Add(1)
			added[last] = time.Now()
		}
		tick.Stop()
		if _, _, err := chain.WaitIndexed(ctx, start, last, time.Minute); err != nil {
			return f, err
		}
		f.Blocks = int(last - start)
		var lags []time.Duration
		for b, at := range added {
			if c, ok := commits.of(b); ok {
				lags = append(lags, c.Sub(at))
			}
		}
		f.IndexerLag = summarize(lags, time.Second)
		if !on {
			return f, nil
		}
		lastCommit, _ := commits.of(last)
		drain := max(30*time.Second, o.Follow)
		for deadline := time.Now().Add(drain); ctx.Err() == nil; time.Sleep(50 * time.Millisecond) {
			if f.CaughtUp, err = caughtUp(last); err != nil {
				return f, err
			}
			if f.CaughtUp == len(ids) || time.Now().After(deadline) {
				break
			}
		}
		arrivals, _ := recv.since(first)
		var lat []time.Duration
		var firstCommit, lastArrival time.Time
		for _, a := range arrivals {
			if a.removed || a.block <= start || a.block > last {
				continue
			}
			c, ok := commits.of(a.block)
			if !ok {
				f.NoCommitTime++
				continue
			}
			lat = append(lat, a.at.Sub(c))
			if firstCommit.IsZero() || c.Before(firstCommit) {
				firstCommit = c
			}
			if a.at.After(lastArrival) {
				lastArrival = a.at
			}
		}
		// Every message that should have come came, once, in order: for a sample.
		got := map[string][]string{}
		for _, a := range arrivals {
			if !a.removed && a.block > start && a.block <= last {
				got[a.webhook] = append(got[a.webhook], a.id)
			}
		}
		step := max(1, len(created)/100)
		for i := 0; i < len(created); i += step {
			w := created[i]
			want, err := webhookstest.ChainMessages(ctx, store, w, start+1, last)
			if err != nil {
				return f, err
			}
			f.Checked++
			mine := got[strconv.FormatInt(w.ID, 10)]
			wanted := map[string]bool{}
			for _, id := range want {
				wanted[id] = true
			}
			var inOrder []string
			for _, id := range mine {
				if wanted[id] {
					inOrder = append(inOrder, id)
				} else {
					f.Unexpected++
				}
			}
			f.Missing += len(want) - len(inOrder)
			if len(inOrder) == len(want) && !slices.Equal(inOrder, want) {
				f.OutOfOrder++
			}
		}
		f.Latency = summarize(lat, max(lastArrival.Sub(firstCommit), time.Millisecond))
		f.Messages = f.Latency.Requests
		f.PerSecond = f.Latency.PerSecond
		if len(lat) > 0 {
			f.Max = lat[len(lat)-1] // summarize sorted them
		}
		if !lastCommit.IsZero() {
			f.DrainSeconds = max(lastArrival.Sub(lastCommit), 0).Seconds()
		}
		return f, nil
	}
	catchUp := func(on bool) (WebhooksCatchUp, error) {
		c := WebhooksCatchUp{Webhooks: on, Blocks: o.CatchUpBlocks}
		start, _, _, err := db.IndexedHead(ctx, conn)
		if err != nil {
			return c, err
		}
		_, first := recv.since(math.MaxInt)
		began := time.Now()
		target := chain.Add(o.CatchUpBlocks)
		at, txs, err := chain.WaitIndexed(ctx, start, target, 10*time.Minute)
		if err != nil {
			return c, err
		}
		took := at.Sub(began)
		c.Transactions, c.Seconds = txs, took.Seconds()
		c.TxPerSecond = float64(txs) / took.Seconds()
		arrivals, _ := recv.since(first)
		for _, a := range arrivals {
			if !a.at.After(at) {
				c.Messages++
			}
		}
		c.PerSecond = float64(c.Messages) / took.Seconds()
		return c, nil
	}

	// Warm up: two blocks with the webhooks on, delivered.
	for range 2 {
		time.Sleep(o.BlockTime)
		chain.Add(1)
	}
	if _, _, err := chain.WaitIndexed(ctx, head, head+2, time.Minute); err != nil {
		return res, err
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if n, err := caughtUp(head + 2); err != nil || n == len(ids) {
			break
		}
	}

	if err := pause(); err != nil {
		return res, err
	}
	without, err := follow(false)
	if err != nil {
		return res, err
	}
	if err := resume(); err != nil {
		return res, err
	}
	with, err := follow(true)
	if err != nil {
		return res, err
	}
	res.Following = []WebhooksFollowing{without, with}
	log.Info("bench: webhooks while following", "messages", with.Messages, "latency_p50", with.Latency.P50, "latency_p99", with.Latency.P99,
		"caught_up", with.CaughtUp)

	var sumWith, sumWithout float64
	for range o.CatchUps {
		for _, on := range []bool{false, true} {
			var err error
			if on {
				err = resume()
			} else {
				err = pause()
			}
			if err != nil {
				return res, err
			}
			c, err := catchUp(on)
			if err != nil {
				return res, err
			}
			log.Info("bench: a catch-up", "webhooks", on, "tx_per_s", int(c.TxPerSecond), "messages", c.Messages)
			res.CatchUps = append(res.CatchUps, c)
			if on {
				sumWith += c.TxPerSecond
			} else {
				sumWithout += c.TxPerSecond
			}
		}
	}
	if err := pause(); err != nil {
		return res, err
	}
	if sumWithout > 0 {
		res.IndexerRatio = sumWith / sumWithout
	}
	recv.mu.Lock()
	res.Receiver = recv.counts
	recv.mu.Unlock()
	if res.Receiver.BadSignatures > 0 {
		return res, fmt.Errorf("bench: %d webhook signatures did not verify: %s", res.Receiver.BadSignatures, res.Receiver.FirstBad)
	}
	return res, nil
}

// WebhooksMarkdown renders the workload's report as tables.
func WebhooksMarkdown(r WebhooksResult) string {
	var b strings.Builder
	var kinds []string
	for _, k := range webhooks.Kinds {
		if n := r.Kinds[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
	}
	fmt.Fprintf(&b, "Webhooks: %d (%s) to a receiver on %d loopback hosts that verifies every signature; "+
		"their filters matched %.0f items a block before the run. Latency: from the block's commit announced to the message read.\n\n",
		r.Webhooks, strings.Join(kinds, ", "), r.Hosts, r.ExpectedPerBlock)
	b.WriteString("| following, a block every " + r.BlockTime + " | blocks | indexer: block to commit p50 | p99 | messages | messages/s | latency p50 | p99 | max | caught up | last block drained in |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, f := range r.Following {
		if !f.Webhooks {
			fmt.Fprintf(&b, "| without webhooks | %d | %s | %s | - | - | - | - | - | - | - |\n", f.Blocks, ms(f.IndexerLag.P50), ms(f.IndexerLag.P99))
			continue
		}
		fmt.Fprintf(&b, "| with %d webhooks | %d | %s | %s | %d | %.0f | %s | %s | %s | %d | %.1f s |\n", r.Webhooks, f.Blocks,
			ms(f.IndexerLag.P50), ms(f.IndexerLag.P99), f.Messages, f.PerSecond, ms(f.Latency.P50), ms(f.Latency.P99), ms(f.Max),
			f.CaughtUp, f.DrainSeconds)
	}
	if len(r.CatchUps) > 0 {
		fmt.Fprintf(&b, "\n| catch-up of %d blocks | transactions | seconds | tx/s | messages meanwhile | messages/s |\n|---|---|---|---|---|---|\n",
			r.CatchUps[0].Blocks)
		for _, c := range r.CatchUps {
			name := "without webhooks"
			if c.Webhooks {
				name = fmt.Sprintf("with %d webhooks", r.Webhooks)
			}
			fmt.Fprintf(&b, "| %s | %d | %.1f | %.0f | %d | %.0f |\n", name, c.Transactions, c.Seconds, c.TxPerSecond, c.Messages, c.PerSecond)
		}
		fmt.Fprintf(&b, "\nThe indexer's catch-up rate with the webhooks over without: %.2f.\n", r.IndexerRatio)
	}
	for _, f := range r.Following {
		if f.Webhooks {
			fmt.Fprintf(&b, "\nChecked against the chain: %d webhooks' messages of those blocks, %d missing, %d unexpected, %d out of order.\n",
				f.Checked, f.Missing, f.Unexpected, f.OutOfOrder)
		}
	}
	fmt.Fprintf(&b, "Receiver: %d requests, %d messages, %d duplicates, %d retractions, %d bad signatures.\n", r.Receiver.Requests,
		r.Receiver.Messages, r.Receiver.Duplicates, r.Receiver.Retractions, r.Receiver.BadSignatures)
	return b.String()
}
