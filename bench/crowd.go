package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
)

// The crowd is an explorer's traffic: many clients asking the same few questions (the
// home page's latest blocks and transactions, the stats, a popular token, the validators)
// while blocks arrive. Between two blocks the answers cannot change, which is what the
// answer cache (package answercache) keeps; the crowd measures it, the first request after
// each change of the data apart, and checks that no answer is older than the data.

// CrowdWorkload names the crowd for --only.
const CrowdWorkload = "crowd"

// crowdNames are the Workloads the crowd cycles over: the explorer home page's requests,
// a popular token's page (STRK: its holders and transfers) and the validators.
var crowdNames = []string{
	"/beta/blocks page 1",
	"/beta/txns page 1",
	"/beta/stats",
	"/beta/tokens/{STRK}/holders",
	"/beta/staking/validators",
	"GraphQL latest 25 blocks",
	"GraphQL 25 txs with their block",
	"GraphQL token -> 25 holders -> contract -> class",
	"GraphQL 25 transfers of STRK",
}

// showsHead names the crowd's requests whose answer's newest block is the indexed head:
// the freshness check reads them.
var showsHead = map[string]bool{"/beta/blocks page 1": true, "GraphQL latest 25 blocks": true}

// CrowdRequests are the crowd's requests, picked from workloads (Workloads' list).
func CrowdRequests(workloads []Workload) ([]Workload, error) {
	var out []Workload
	for _, name := range crowdNames {
		i := slices.IndexFunc(workloads, func(w Workload) bool { return w.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("bench: the crowd's request %q is not a workload", name)
		}
		out = append(out, workloads[i])
	}
	return out, nil
}

// ColdRequests are requests that do not repeat (issue 56's cold workloads): the transactions
// of a block and a block by number, each at a block drawn at random (ColdVary), so that the
// answer cache only adds its own work: a key, a miss, an answer kept and later evicted.
func ColdRequests() []Workload {
	return []Workload{
		{Name: "cold /beta/txns?block=N", Path: "/beta/txns?block=%d"},
		{Name: "cold GraphQL block(number: N)", Path: "/graphql",
			Body: `{"query":"query B($n: Int!) { block(number: $n) { number hash timestamp transactions(first: 5) { edges { node { hash } } } } }","variables":{"n":%d}}`},
	}
}

// ColdVary is the Vary of ColdRequests: each request at a block drawn from [0, head].
func ColdVary(head int64) func(w Workload, rnd *rand.Rand) Workload {
	return func(w Workload, rnd *rand.Rand) Workload {
		n := rnd.Int64N(head + 1)
		if strings.Contains(w.Path, "%d") {
			w.Path = fmt.Sprintf(w.Path, n)
		}
		if strings.Contains(w.Body, "%d") {
			w.Body = fmt.Sprintf(w.Body, n)
		}
		return w
	}
}

// PostGraphileCrowd are the requests of a crowd that PostGraphile can answer too: each as
// sent to starkgraph and, at the same index, as sent to PostGraphile.
func PostGraphileCrowd(requests []Workload) (ours, theirs []Workload) {
	for _, w := range requests {
		if w.PostGraphile != "" {
			ours = append(ours, w)
			theirs = append(theirs, Workload{Name: w.Name, Path: "/graphql", Body: w.PostGraphile})
		}
	}
	return ours, theirs
}

// Chain is the simulated chain growing under the bench's database: the node serves the
// chain the database was built from (seed 1, TxPerBlock) and appends a block every block
// time (or when Add says), and the real indexer follows it, so the data version moves as in
// production.
type Chain struct {
	// Start is the head indexed when the chain started moving.
	Start int64
	conn  *sqlx.DB
	sim   *sim.Chain
	stop  func() error

	mu      sync.Mutex
	written []chainWrite // the indexer's writes, in order (indexer.Config.OnCatchUp)
}

// chainWrite is a range of blocks the indexer committed: its last block, its transactions,
// and when the commit was reported.
type chainWrite struct {
	last int64
	txs  int
	at   time.Time
}

// FollowChain starts the chain above conn's indexed head: a block every blockTime, indexed
// as it comes. It returns once the first new block is indexed (the node has then built its
// ledger up to the head, which takes a while on a big chain), or fails after wait.
func FollowChain(ctx context.Context, log *slog.Logger, conn *sqlx.DB, blockTime, wait time.Duration) (*Chain, error) {
	// The indexer polls once a block time, as it does by default (2 s) on Starknet. What a
	// poll learns besides blocks (the node's head, L1 acceptance, balances read by calls)
	// waits for the next block's transaction (indexer/sidewrites.go), held up to five polls:
	// one data version a block.
	return startChain(ctx, log, conn, blockTime, blockTime, false, wait)
}

// DriveChain starts the chain above conn's indexed head, growing only when Add says, the
// indexer polling the node every poll. It returns once a first block added is indexed
// (the node has then built its ledger up to the head), or fails after wait.
func DriveChain(ctx context.Context, log *slog.Logger, conn *sqlx.DB, poll, wait time.Duration) (*Chain, error) {
	return startChain(ctx, log, conn, 0, poll, true, wait)
}

func startChain(ctx context.Context, log *slog.Logger, conn *sqlx.DB, blockTime, poll time.Duration, addFirst bool, wait time.Duration) (*Chain, error) {
	head, _, ok, err := db.IndexedHead(ctx, conn)
	if err != nil || !ok {
		return nil, fmt.Errorf("bench: the crowd needs an indexed chain (%v)", err)
	}
	// The same seed and block size as Build: the node's blocks up to the head are the ones
	// indexed, so the indexer resumes without a reorg.
	chain := sim.New(sim.Config{Seed: 1, Blocks: uint64(head) + 1, TxPerBlock: TxPerBlock, BlockTime: blockTime})
	node := httptest.NewServer(chain.Handler())
	runCtx, cancel := context.WithCancel(ctx)
	c := &Chain{Start: head, conn: conn, sim: chain}
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: -1, Logger: log, PollInterval: poll,
		OnCatchUp: func(e indexer.CatchUpEvent) {
			if e.Txs > 0 || e.Last > 0 {
				c.mu.Lock()
				c.written = append(c.written, chainWrite{last: e.Last, txs: e.Txs, at: time.Now()})
				c.mu.Unlock()
			}
		}})
	if err != nil {
		cancel()
		node.Close()
		return nil, err
	}
	ixDone := make(chan error, 1)
	go func() { ixDone <- ix.Run(runCtx) }()
	simDone := make(chan struct{})
	go func() { chain.Run(runCtx); close(simDone) }()
	var once sync.Once
	var stopErr error
	c.stop = func() error {
		once.Do(func() {
			cancel()
			<-simDone
			if err := <-ixDone; err != nil && !errors.Is(err, context.Canceled) {
				stopErr = fmt.Errorf("bench: the crowd's indexer: %w", err)
			}
			node.Close()
		})
		return stopErr
	}
	if addFirst {
		chain.AddBlocks(1)
	}
	deadline := time.Now().Add(wait)
	for {
		now, _, _, err := db.IndexedHead(ctx, conn)
		if err == nil && now > head {
			return c, nil
		}
		select {
		case err := <-ixDone:
			ixDone <- err
			_ = c.stop()
			return nil, fmt.Errorf("bench: the crowd's indexer stopped: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			_ = c.stop()
			return nil, fmt.Errorf("bench: no block indexed above %d within %s", head, wait)
		}
	}
}

// Add appends n blocks to the node's chain at once and returns the new head.
func (c *Chain) Add(n int) int64 {
	c.sim.AddBlocks(uint64(n))
	head, _ := c.sim.Head()
	return int64(head)
}

// WaitIndexed waits until block target is indexed (at most wait) and returns when the
// indexer reported its commit, and the transactions it reported written after block
// after up to target.
func (c *Chain) WaitIndexed(ctx context.Context, after, target int64, wait time.Duration) (at time.Time, txs int, err error) {
	deadline := time.Now().Add(wait)
	for {
		c.mu.Lock()
		txs = 0
		for _, w := range c.written {
			if w.last > after && w.last <= target {
				txs += w.txs
			}
			if w.last >= target {
				at = w.at
				break
			}
		}
		c.mu.Unlock()
		if !at.IsZero() {
			return at, txs, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return at, txs, fmt.Errorf("bench: block %d not indexed within %s", target, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Head is the indexed head now.
func (c *Chain) Head(ctx context.Context) (int64, error) {
	head, _, _, err := db.IndexedHead(ctx, c.conn)
	return head, err
}

// Stop stops the node and the indexer.
func (c *Chain) Stop() error { return c.stop() }

// Versions follows the data version as the API does (NOTIFY on db.DataChannel) and the
// indexed head seen at each version, with when it was seen.
type Versions struct {
	conn     *sqlx.DB
	listener *pq.Listener
	mu       sync.Mutex
	version  int64
	heads    []seenHead // in the order seen; heads only grow (the crowd's chain has no reorgs)
	done     chan struct{}
}

type seenHead struct {
	head int64
	at   time.Time
}

// FollowVersions listens for data changes on dsn (conn's database) until Close.
func FollowVersions(ctx context.Context, conn *sqlx.DB, dsn string) (*Versions, error) {
	v := &Versions{conn: conn, done: make(chan struct{})}
	v.listener = pq.NewListener(dsn, 100*time.Millisecond, time.Second, nil)
	if err := v.listener.Listen(db.DataChannel); err != nil {
		v.listener.Close()
		return nil, fmt.Errorf("bench: listen for data changes: %w", err)
	}
	v.readHead(ctx)
	go func() {
		defer close(v.done)
		for range v.listener.Notify { // nil after a reconnect: a change may have been missed
			v.mu.Lock()
			v.version++
			v.mu.Unlock()
			v.readHead(ctx)
		}
	}()
	return v, nil
}

func (v *Versions) readHead(ctx context.Context) {
	head, _, ok, err := db.IndexedHead(ctx, v.conn)
	if err != nil || !ok {
		return
	}
	now := time.Now()
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(v.heads); n == 0 || v.heads[n-1].head < head {
		v.heads = append(v.heads, seenHead{head, now})
	}
}

// Version is the count of data changes heard of.
func (v *Versions) Version() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.version
}

// HeadAt is the newest head seen by t (-1: none).
func (v *Versions) HeadAt(t time.Time) int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	i := sort.Search(len(v.heads), func(i int) bool { return v.heads[i].at.After(t) })
	if i == 0 {
		return -1
	}
	return v.heads[i-1].head
}

// Close stops listening.
func (v *Versions) Close() {
	v.listener.Close() // closes Notify
	<-v.done
}

// FreshnessGrace is how long after the indexed head was seen (the API hears of the commit
// at the same moment, by the same notice) an answer may still show the head before it.
const FreshnessGrace = 200 * time.Millisecond

// CrowdOptions say what a crowd run asks, of what, and for how long.
type CrowdOptions struct {
	Name        string // what the run is ("answer cache on", ...)
	Base, Key   string
	Requests    []Workload
	Concurrency int
	Duration    time.Duration
	Versions    *Versions
	Chain       *Chain // to count the blocks indexed during the run; nil: not counted
	// Vary, when set, makes each request from its Workload (ColdVary: distinct variables).
	Vary func(w Workload, rnd *rand.Rand) Workload
}

// CrowdMeasure is what one crowd run saw.
type CrowdMeasure struct {
	Name string `json:"name"`
	Measure
	// FirstAfterChange is the latency of each client's first request after a change of the
	// data version (a block, its L1 acceptance...), which the answer cache cannot have kept.
	FirstAfterChange Measure `json:"firstAfterChange"`
	// AnswerCache counts the answers by their X-Answer-Cache header (hit, miss, wait,
	// uncached, bypass; none without the cache).
	AnswerCache map[string]int `json:"answerCache"`
	// ByAnswerCache are the latencies of the answers by their X-Answer-Cache header: a hit's
	// is the cache's own, a wait's or a miss's the computation's.
	ByAnswerCache map[string]Measure `json:"byAnswerCache,omitempty"`
	Changes       int64              `json:"dataChanges"`   // data versions during the run
	Blocks        int64              `json:"blocksIndexed"` // blocks indexed during the run
	// Checked answers showed the head (the latest blocks); Stale of them showed a newest
	// block older than the head seen FreshnessGrace before the request was sent.
	Checked    int    `json:"freshnessChecked"`
	Stale      int    `json:"stale"`
	FirstStale string `json:"firstStale,omitempty"`
}

// Crowd runs o.Concurrency clients, each cycling over o.Requests from its own place in the
// list, for o.Duration after a warm-up of a tenth of it (at most a second).
func Crowd(ctx context.Context, o CrowdOptions) CrowdMeasure {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Concurrency, MaxConnsPerHost: o.Concurrency,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}}
	defer client.CloseIdleConnections()
	crowdDrive(ctx, client, o, min(o.Duration/10, time.Second)) // the warm-up, forgotten
	return crowdDrive(ctx, client, o, o.Duration)
}

// newestBlock finds the block numbers in an answer showing blocks (PostGraphile writes them
// as strings).
var newestBlock = regexp.MustCompile(`"(?:blockNumber|number)":"?(\d+)`)

func crowdDrive(ctx context.Context, client *http.Client, o CrowdOptions, d time.Duration) CrowdMeasure {
	m := CrowdMeasure{Name: o.Name, AnswerCache: map[string]int{}, ByAnswerCache: map[string]Measure{}}
	var (
		mu          sync.Mutex
		all, first  []time.Duration
		byAnswer    = map[string][]time.Duration{}
		errs, five  atomic.Int64
		firstErr    atomic.Value
		wg          sync.WaitGroup
		started     = time.Now()
		version0    = o.Versions.Version()
		startHead   int64
		checked     atomic.Int64
		stale       atomic.Int64
		firstStale  atomic.Value
		cacheCounts sync.Map
	)
	if o.Chain != nil {
		startHead, _ = o.Chain.Head(ctx)
	}
	for c := 0; c < o.Concurrency; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine, mineFirst []time.Duration
			mineBy := map[string][]time.Duration{}
			seen := o.Versions.Version()
			rnd := rand.New(rand.NewPCG(uint64(c), uint64(started.UnixNano())))
			for i := c; ctx.Err() == nil && time.Since(started) < d; i++ {
				w := o.Requests[i%len(o.Requests)]
				if o.Vary != nil {
					w = o.Vary(w, rnd)
				}
				t0 := time.Now()
				v := o.Versions.Version()
				isFirst := v != seen
				seen = v
				need := int64(-1)
				if showsHead[w.Name] {
					need = o.Versions.HeadAt(t0.Add(-FreshnessGrace))
				}
				resp, err := client.Do(newRequest(ctx, o.Base, w, o.Key))
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = statusError{code: resp.StatusCode, body: string(body[:min(len(body), 300)])}
					}
				}
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					errs.Add(1)
					if se := (statusError{}); errors.As(err, &se) && se.code >= 500 {
						five.Add(1)
					}
					firstErr.CompareAndSwap(nil, w.Name+": "+err.Error())
					continue
				}
				took := time.Since(t0)
				mine = append(mine, took)
				if isFirst {
					mineFirst = append(mineFirst, took)
				}
				result := resp.Header.Get(answercache.Header)
				if result != "" {
					mineBy[result] = append(mineBy[result], took)
				}
				n, _ := cacheCounts.LoadOrStore(result, new(atomic.Int64))
				n.(*atomic.Int64).Add(1)
				if need >= 0 {
					checked.Add(1)
					if newest, ok := newestIn(resp.Header, body); !ok || newest < need {
						stale.Add(1)
						firstStale.CompareAndSwap(nil, fmt.Sprintf("%s sent at head %d (seen %s before) answered newest block %d (%s)",
							w.Name, o.Versions.HeadAt(t0), FreshnessGrace, newest, resp.Header.Get(answercache.Header)))
					}
				}
			}
			mu.Lock()
			all = append(all, mine...)
			first = append(first, mineFirst...)
			for k, v := range mineBy {
				byAnswer[k] = append(byAnswer[k], v...)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(started)
	m.Measure = summarize(all, elapsed)
	m.Errors, m.ServerErrors = int(errs.Load()), int(five.Load())
	if e, ok := firstErr.Load().(string); ok {
		m.FirstError = e
	}
	m.FirstAfterChange = summarize(first, elapsed)
	for k, v := range byAnswer {
		m.ByAnswerCache[k] = summarize(v, elapsed)
	}
	cacheCounts.Range(func(k, v any) bool {
		if name := k.(string); name != "" {
			m.AnswerCache[name] = int(v.(*atomic.Int64).Load())
		}
		return true
	})
	m.Changes = o.Versions.Version() - version0
	if o.Chain != nil {
		if end, err := o.Chain.Head(ctx); err == nil {
			m.Blocks = end - startHead
		}
	}
	m.Checked, m.Stale = int(checked.Load()), int(stale.Load())
	if s, ok := firstStale.Load().(string); ok {
		m.FirstStale = s
	}
	return m
}

// summarize is the rate and percentiles of latencies measured over elapsed.
func summarize(lat []time.Duration, elapsed time.Duration) Measure {
	slices.Sort(lat)
	m := Measure{Requests: len(lat), PerSecond: float64(len(lat)) / elapsed.Seconds()}
	if len(lat) > 0 {
		m.P50, m.P99 = lat[len(lat)*50/100], lat[min(len(lat)*99/100, len(lat)-1)]
	}
	return m
}

// newestIn is the greatest block number an answer names, gzip-compressed or not.
func newestIn(h http.Header, body []byte) (int64, bool) {
	if h.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return 0, false
		}
		if body, err = io.ReadAll(zr); err != nil {
			return 0, false
		}
	}
	newest, found := int64(-1), false
	for _, m := range newestBlock.FindAllSubmatch(body, -1) {
		if n, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
			newest, found = max(newest, n), true
		}
	}
	return newest, found
}

// CrowdResult is the crowd's report: the runs with the answer cache on and off and, with a
// PostGraphile server, the GraphQL documents it can answer, on both.
type CrowdResult struct {
	Clients      int            `json:"clients"`
	Requests     []string       `json:"requests"`
	BlockTime    string         `json:"blockTime"`
	Runs         []CrowdMeasure `json:"runs"`
	PostGraphile *CrowdMeasure  `json:"postgraphile,omitempty"`
	// PostGraphileRatio is the req/s of the run on PostGraphile's documents with the cache
	// on over PostGraphile's.
	PostGraphileRatio float64 `json:"postgraphileRatio,omitempty"`
	// ColdRequests name the requests of the cold runs (ColdRequests), and ColdRatio is the
	// req/s of the cold run with the cache on over the one with it off.
	ColdRequests []string `json:"coldRequests,omitempty"`
	ColdRatio    float64  `json:"coldRatio,omitempty"`
}

// CrowdMarkdown renders the crowd's runs as a table.
func CrowdMarkdown(r CrowdResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Crowd: %d clients, each cycling over %s; a block every %s.\n\n", r.Clients, strings.Join(r.Requests, ", "), r.BlockTime)
	b.WriteString("| crowd | req/s | p50 | p99 | first after a change: p50 | p99 | requests | errors | hit | hit p99 | wait | wait p99 | miss | data changes | blocks | stale / checked |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	runs := r.Runs
	if r.PostGraphile != nil {
		runs = append(slices.Clone(runs), *r.PostGraphile)
	}
	for _, m := range runs {
		p99 := func(result string) string {
			if r, ok := m.ByAnswerCache[result]; ok {
				return ms(r.P99)
			}
			return "-"
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %s | %s | %d | %d | %d | %s | %d | %s | %d | %d | %d | %d / %d |\n", m.Name, m.PerSecond,
			ms(m.P50), ms(m.P99), ms(m.FirstAfterChange.P50), ms(m.FirstAfterChange.P99), m.Requests, m.Errors,
			m.AnswerCache["hit"], p99("hit"), m.AnswerCache["wait"], p99("wait"), m.AnswerCache["miss"], m.Changes, m.Blocks, m.Stale, m.Checked)
	}
	if r.PostGraphileRatio > 0 {
		fmt.Fprintf(&b, "\nRatio to PostGraphile on the same documents, answer cache on: %.1fx.\n", r.PostGraphileRatio)
	}
	if r.ColdRatio > 0 {
		fmt.Fprintf(&b, "\nCold requests (%s, at blocks drawn at random), answer cache on over off: %.2f.", strings.Join(r.ColdRequests, ", "), r.ColdRatio)
		for _, m := range r.Runs {
			if miss, ok := m.ByAnswerCache["miss"]; ok && strings.HasPrefix(m.Name, "cold") {
				fmt.Fprintf(&b, " Its misses alone (%d of %d requests; a block drawn twice is a hit): p50 %s, p99 %s.", m.AnswerCache["miss"], m.Requests, ms(miss.P50), ms(miss.P99))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
