// Package bench measures the APIs the way a client sees them, against a baseline measured
// in the same run: each workload (a /beta route or a GraphQL document, with values picked
// from the data) runs at a fixed concurrency for a fixed time over HTTP with an API key,
// and then the SQL that one of its requests executes runs through the driver alone at the
// same concurrency. The ratio of the two is what the service adds to its SQL.
//
// The database comes from the simulated chain through the real indexer (Build); a second
// run over the same database reuses it.
package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/analytics"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
)

// TxPerBlock is the simulated chain's mean of ordinary transactions per block.
const TxPerBlock = 200

// Build indexes the simulated chain (seed 1) until the database holds about txs
// transactions, then computes holders analytics, and reports the catch-up's curve. A
// database that already holds them is left as it is (no curve).
func Build(ctx context.Context, log *slog.Logger, conn *sqlx.DB, txs int) (*CatchUp, error) {
	return BuildFrom(ctx, log, conn, txs, "")
}

// BuildFrom is Build from the simulated node at nodeURL, serving seed 1's chain of
// BlocksFor(txs) blocks at TxPerBlock (the simulated node in this process when empty). A node
// of its own process is what an operator's first sync reads from: in this one, the garbage
// collector marks the node's history of every balance with the indexer's heap, and the
// catch-up slows as that history grows.
func BuildFrom(ctx context.Context, log *slog.Logger, conn *sqlx.DB, txs int, nodeURL string) (*CatchUp, error) {
	blocks := blocksFor(txs)
	if head, _, ok, err := db.IndexedHead(ctx, conn); err != nil {
		return nil, err
	} else if ok && uint64(head)+1 >= blocks {
		log.Info("bench: reusing the indexed chain", "head", head)
		return nil, nil
	}
	log.Info("bench: indexing the simulated chain", "blocks", blocks, "transactions", txs)
	clock := newCatchUpClock()
	var err error
	if nodeURL != "" {
		err = indexFrom(ctx, log, conn, nodeURL, blocks, 0, clock.event)
	} else {
		err = indexChain(ctx, log, conn, blocks, blocks, 0, clock.event)
	}
	if err != nil {
		return nil, err
	}
	curve := clock.result(time.Now())
	if err := finishBuild(ctx, conn); err != nil {
		return nil, err
	}
	return curve, nil
}

// finishBuild leaves the built database as the workloads expect it.
func finishBuild(ctx context.Context, conn *sqlx.DB) error {
	// The tables as autovacuum leaves them once they stop growing: their visibility maps
	// set, so that the lists' index-only scans skip rows without reading the table.
	if _, err := conn.ExecContext(ctx, `VACUUM (ANALYZE)`); err != nil {
		return fmt.Errorf("bench: vacuum: %w", err)
	}
	return analytics.RefreshAll(ctx, conn, time.Now())
}

func blocksFor(txs int) uint64 { return uint64(max(txs/TxPerBlock, 2)) }

// BlocksFor is the length of the simulated chain a database of about txs transactions is
// built from.
func BlocksFor(txs int) uint64 { return blocksFor(txs) }

// indexChain runs the indexer from the simulated chain (seed 1) of chainBlocks blocks,
// served over HTTP, into conn until block blocks-1 is written. bulkLoadMinBlocks is the
// indexer's setting (0: its default).
func indexChain(ctx context.Context, log *slog.Logger, conn *sqlx.DB, blocks, chainBlocks uint64, bulkLoadMinBlocks int64,
	onCatchUp func(indexer.CatchUpEvent)) error {
	chain := sim.New(sim.Config{Seed: 1, Blocks: chainBlocks, TxPerBlock: TxPerBlock})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	return indexFrom(ctx, log, conn, node.URL, blocks, bulkLoadMinBlocks, onCatchUp)
}

// indexFrom runs the indexer from the node at url into conn until block blocks-1 is written.
func indexFrom(ctx context.Context, log *slog.Logger, conn *sqlx.DB, url string, blocks uint64, bulkLoadMinBlocks int64,
	onCatchUp func(indexer.CatchUpEvent)) error {
	ix, err := indexer.New(indexer.Config{RPCURL: url, DB: conn, StopAt: int64(blocks - 1), Logger: log,
		BulkLoadMinBlocks: bulkLoadMinBlocks, OnCatchUp: onCatchUp})
	if err != nil {
		return err
	}
	return ix.Run(ctx)
}

// Indexing is one timed run of the indexer from the simulated node (in this process,
// over HTTP) into an empty database, from genesis to the node's head.
type Indexing struct {
	Mode         string  `json:"mode"`
	Transactions int64   `json:"transactions"`
	Events       int64   `json:"events"`
	Seconds      float64 `json:"seconds"`
	TxPerSecond  float64 `json:"txPerSecond"`
	EventsPerSec float64 `json:"eventsPerSecond"`
	// Ratio is TxPerSecond over that of the run through the indexes, the baseline.
	Ratio float64 `json:"ratio"`
}

// IndexingModes are the indexer's two ways of writing a long catch-up: the bulk load (its
// default) and, as the baseline, through every index and foreign key.
var IndexingModes = []struct {
	Name              string
	BulkLoadMinBlocks int64
}{{"bulk load (default)", 0}, {"through the indexes", -1}}

// MeasureIndexing indexes about txs transactions into conn, which must be an empty
// migrated database, and reports the rate. The time is the whole run: fetching, decoding,
// writing, and a bulk load's rebuilding of its indexes at the end. It measures a catch-up
// through history: the node's head is 64 blocks (the indexer's reorg window) beyond the
// last block indexed, as when a new installation syncs a live chain; the blocks inside
// that window are written one per transaction with an undo journal, at the rate of the
// chain, not of a catch-up.
func MeasureIndexing(ctx context.Context, log *slog.Logger, conn *sqlx.DB, txs int, mode string, bulkLoadMinBlocks int64) (Indexing, error) {
	began := time.Now()
	blocks := blocksFor(txs)
	if err := indexChain(ctx, log, conn, blocks, blocks+64, bulkLoadMinBlocks, nil); err != nil {
		return Indexing{}, err
	}
	r := Indexing{Mode: mode, Seconds: time.Since(began).Seconds()}
	if err := conn.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM transactions), (SELECT count(*) FROM events)`).
		Scan(&r.Transactions, &r.Events); err != nil {
		return r, err
	}
	r.TxPerSecond, r.EventsPerSec = float64(r.Transactions)/r.Seconds, float64(r.Events)/r.Seconds
	return r, nil
}

// IndexingMarkdown renders indexing runs as a table, each against the last run (the
// baseline).
func IndexingMarkdown(runs []Indexing) string {
	var b strings.Builder
	b.WriteString("| indexer, simulator -> PostgreSQL (fsync on) | transactions | tx/s | events/s | seconds | ratio |\n|---|---|---|---|---|---|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %s | %d | %.0f | %.0f | %.1f | %.2f |\n", r.Mode, r.Transactions, r.TxPerSecond, r.EventsPerSec, r.Seconds, r.Ratio)
	}
	return b.String()
}

// Workload is one kind of request.
type Workload struct {
	Name string
	Path string // /beta/... or /graphql
	Body string // a GraphQL request (POST); empty for REST (GET)
	// PostGraphile is the same request to PostGraphile v5 (amber preset, no smart tags)
	// over the same database, the second baseline; empty where it has no equivalent (it
	// infers relations from foreign keys only, and holders and classes are not linked so).
	PostGraphile string
	// Offset and Limit are the window a list workload reads (hot-key workloads): its
	// statements should read no more rows than Skip+Limit from any table, where Skip is
	// Offset, or at most db.MarkEvery for a list that seeks to a kept position
	// (db/key_positions.go).
	Offset, Limit, Skip int
	// List, Page and Keyed say which list of the APIs a list workload reads (ListWorkloads):
	// "GET /beta/..." as the route is declared or "GraphQL <field>", PageFirst or PageDeep,
	// and whether by the list's hottest key. Empty for the other workloads.
	List, Page string
	Keyed      bool
}

// strk is the STRK token, whose holders the token workloads read.
const strk = "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"

// Workloads are the benchmark's requests, with a transaction, a block and a contract
// picked from the data.
func Workloads(ctx context.Context, conn *sqlx.DB) ([]Workload, error) {
	var pick struct {
		Tx       db.Felt `db:"tx"`
		Block    int64   `db:"block"`
		Contract db.Felt `db:"contract"`
		MidPage  int64   `db:"mid_page"` // the page of 25 transactions half way down the chain
	}
	if err := conn.GetContext(ctx, &pick, `SELECT
		(SELECT hash FROM transactions ORDER BY block_number DESC, tx_index DESC LIMIT 1 OFFSET 50) AS tx,
		(SELECT max(number) - 5 FROM blocks) AS block,
		(SELECT f.felt FROM transactions t JOIN felt_ids f ON f.id = t.sender_id ORDER BY t.block_number DESC LIMIT 1) AS contract,
		(SELECT count(*) / 50 + 1 FROM transactions) AS mid_page`); err != nil {
		return nil, fmt.Errorf("bench: pick values (is the database indexed?): %w", err)
	}
	gql := func(doc string) string {
		return fmt.Sprintf(`{"query":%q}`, strings.Join(strings.Fields(doc), " "))
	}
	return []Workload{
		{Name: "/beta/blocks page 1", Path: "/beta/blocks?ps=25"},
		{Name: "/beta/txns page 1", Path: "/beta/txns?ps=25"},
		// A page number half way down seeks to its rows (db.Store.Transactions) instead of
		// reading the half million above them.
		{Name: "/beta/txns page half way down", Path: fmt.Sprintf("/beta/txns?ps=25&p=%d", pick.MidPage)},
		{Name: "/beta/txns/{hash}", Path: "/beta/txns/" + pick.Tx.Padded()},
		{Name: "/beta/contracts/{address}", Path: "/beta/contracts/" + pick.Contract.Padded()},
		{Name: "/beta/tokens/{STRK}/holders", Path: "/beta/tokens/" + strk + "/holders"},
		{Name: "/beta/stats", Path: "/beta/stats"},
		{Name: "/beta/staking/validators", Path: "/beta/staking/validators"},
		{Name: "GraphQL latest 25 blocks", Path: "/graphql", Body: gql(`{ blocks(first: 25) { edges { node { number hash timestamp txnCount } } } }`),
			PostGraphile: gql(`{ allBlocks(first: 25, orderBy: NUMBER_DESC) { edges { node { number hash timestamp txCount } } } }`)},
		{Name: "GraphQL blocks with totalCount", Path: "/graphql", Body: gql(`{ blocks(first: 25) { totalCount edges { node { number hash } } } }`),
			PostGraphile: gql(`{ allBlocks(first: 25, orderBy: NUMBER_DESC) { totalCount edges { node { number hash } } } }`)},
		{Name: "GraphQL 25 txs with their block", Path: "/graphql", Body: gql(`{ transactions(first: 25) { edges { node { hash type actualFee block { number timestamp } } } } }`),
			PostGraphile: gql(`{ allTransactions(first: 25, orderBy: PRIMARY_KEY_DESC) { edges { node { hash type actualFee blockByBlockNumber { number timestamp } } } } }`)},
		// As Relay and Apollo clients send it: an id and __typename on every object.
		{Name: "GraphQL 25 txs with their block, as Relay asks", Path: "/graphql", Body: gql(`{ transactions(first: 25) { edges { node { id __typename hash type actualFee block { id __typename number timestamp } } } } }`),
			PostGraphile: gql(`{ allTransactions(first: 25, orderBy: PRIMARY_KEY_DESC) { edges { node { id __typename hash type actualFee blockByBlockNumber { id __typename number timestamp } } } } }`)},
		{Name: "GraphQL token -> 25 holders -> contract -> class", Path: "/graphql", Body: gql(`{ token(address: "` + strk + `") {
			symbol holders(first: 25) { edges { node { balance owner { address classHash class { hash isAccount } } } } } } }`)},
		// A list across every block partition (db/partitions.go): newest first by token.
		{Name: "GraphQL 25 transfers of STRK", Path: "/graphql", Body: gql(`{ tokenTransfers(token: "` + strk + `", first: 25) {
			edges { node { blockNumber transactionHash fromAddress toAddress amount } } } }`)},
		{Name: "GraphQL block -> txs -> transfers", Path: "/graphql", Body: gql(fmt.Sprintf(`{ block(number: %d) {
			transactions(first: 25) { edges { node { hash tokenTransfers { amount usdValue token { symbol } } } } } } }`, pick.Block))},
	}, nil
}

// Statement is one SQL statement a request ran.
type Statement struct {
	Query string
	Args  []any
}

// Captured is one request of a workload: the statements it ran and the response it got.
type Captured struct {
	Statements []Statement
	Header     http.Header
	Body       []byte
}

// Capture runs each workload through handler, which must read through store, and returns
// what it ran (recorded by the store's OnQuery hook, which it sets) and answered. Each
// workload runs twice and the second run is recorded: the first warms the store's caches
// as a running service has them (felts by id, parsed ABIs), whose misses would otherwise
// count as statements of the request.
func Capture(store *db.Store, handler http.Handler, workloads []Workload) ([]Captured, error) {
	var (
		mu  sync.Mutex
		ran []Statement
	)
	store.OnQuery = func(q string, args []any) {
		mu.Lock()
		ran = append(ran, Statement{Query: q, Args: args})
		mu.Unlock()
	}
	defer func() { store.OnQuery = nil }()
	out := make([]Captured, len(workloads))
	for i, w := range workloads {
		var rec *httptest.ResponseRecorder
		for range 2 {
			mu.Lock()
			ran = nil
			mu.Unlock()
			rec = httptest.NewRecorder()
			handler.ServeHTTP(rec, newRequest(context.Background(), "http://bench", w, ""))
			if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"errors"`) {
				return nil, fmt.Errorf("bench: %s answered %d: %.300s", w.Name, rec.Code, rec.Body.String())
			}
		}
		mu.Lock()
		out[i] = Captured{Statements: ran, Header: rec.Header().Clone(), Body: rec.Body.Bytes()}
		mu.Unlock()
	}
	return out, nil
}

// HTTPAlone measures the HTTP exchange of a workload without the service: net/http
// answering c's response from memory (Replay), loaded by the same client as HTTPLoad. With
// the raw SQL it bounds the ratio a service can reach on cores it shares with its load
// generator (Ceiling).
func HTTPAlone(ctx context.Context, c Captured, w Workload, concurrency int, d time.Duration) Measure {
	srv := httptest.NewServer(Replay(c))
	defer srv.Close()
	return HTTPLoad(ctx, srv.URL, "", w, concurrency, d)
}

// Replay answers every request with c's response: its headers (but its length, which
// net/http sets) and its body.
func Replay(c Captured) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		for k, v := range c.Header {
			if k != "Content-Length" {
				rw.Header()[k] = v
			}
		}
		_, _ = rw.Write(c.Body)
	})
}

// Ceiling is the ratio to the raw SQL of a service that did nothing but run the SQL and
// the HTTP exchange, on saturated cores: each request then costs the machine the time of
// one of each, 1/rawSQL + 1/httpAlone, so it reaches httpAlone / (httpAlone + rawSQL).
func Ceiling(rawSQL, httpAlone float64) float64 {
	if rawSQL <= 0 || httpAlone <= 0 {
		return 0
	}
	return httpAlone / (httpAlone + rawSQL)
}

func newRequest(ctx context.Context, base string, w Workload, key string) *http.Request {
	var r *http.Request
	if w.Body == "" {
		r, _ = http.NewRequestWithContext(ctx, http.MethodGet, base+w.Path, nil)
	} else {
		r, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+w.Path, strings.NewReader(w.Body))
		r.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		r.Header.Set("x-api-key", key)
	}
	r.Header.Set("Accept-Encoding", "gzip") // as browsers and most clients ask
	return r
}

// Measure is what one load run saw.
type Measure struct {
	Requests int `json:"requests"`
	Errors   int `json:"errors"`
	// ServerErrors are the failed requests the server answered with a 5xx (of Errors).
	ServerErrors int           `json:"serverErrors"`
	PerSecond    float64       `json:"reqPerSecond"`
	P50          time.Duration `json:"p50Nanos"`
	P99          time.Duration `json:"p99Nanos"`
	// FirstError is the first failure's text, when there were failures.
	FirstError string `json:"firstError,omitempty"`
}

// Load calls do from concurrency goroutines, each starting its next call when the last
// one ends, until d has passed; calls under way then are waited for and counted, so every
// goroutine completes at least one. A warm-up of a tenth of d (at most a second, at least
// a call per goroutine) runs first at the same concurrency and is not counted: it opens
// the pools' connections and prepares each statement on each of them, which otherwise
// fell in the first workload's p99 (106-122 ms where the same list's middle page had
// 37-47 ms later in the run).
func Load(ctx context.Context, concurrency int, d time.Duration, do func(context.Context) error) Measure {
	drive(ctx, concurrency, min(d/10, time.Second), do) // the warm-up, forgotten
	return drive(ctx, concurrency, d, do)
}

// drive calls do from concurrency goroutines, each starting its next call when the last
// one ends, until d has passed and each has completed a call (or failed one after d).
func drive(ctx context.Context, concurrency int, d time.Duration, do func(context.Context) error) Measure {
	var (
		mu      sync.Mutex
		lat     []time.Duration
		errs    atomic.Int64
		fivexx  atomic.Int64
		first   atomic.Value
		wg      sync.WaitGroup
		started = time.Now()
	)
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for ctx.Err() == nil && (len(mine) == 0 || time.Since(started) < d) {
				t0 := time.Now()
				if err := do(ctx); err != nil {
					errs.Add(1)
					if se := (statusError{}); errors.As(err, &se) && se.code >= 500 {
						fivexx.Add(1)
					}
					first.CompareAndSwap(nil, err.Error())
					if time.Since(started) >= d {
						break
					}
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(started)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	m := Measure{Requests: len(lat), Errors: int(errs.Load()), ServerErrors: int(fivexx.Load()), PerSecond: float64(len(lat)) / elapsed.Seconds()}
	if e, ok := first.Load().(string); ok {
		m.FirstError = e
	}
	if len(lat) > 0 {
		m.P50, m.P99 = lat[len(lat)*50/100], lat[min(len(lat)*99/100, len(lat)-1)]
	}
	return m
}

// HTTPLoad measures a workload against a running server.
func HTTPLoad(ctx context.Context, base, key string, w Workload, concurrency int, d time.Duration) Measure {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}}
	defer client.CloseIdleConnections()
	return Load(ctx, concurrency, d, func(ctx context.Context) error {
		resp, err := client.Do(newRequest(ctx, base, w, key))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			return statusError{code: resp.StatusCode, body: string(body)}
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		return nil
	})
}

// statusError is an answer other than 200.
type statusError struct {
	code int
	body string
}

func (e statusError) Error() string { return fmt.Sprintf("status %d: %s", e.code, e.body) }

// SQLLoad measures the raw-SQL baseline: the statements of one request, one after the
// other, every row read, through pool, prepared as the store prepares them.
func SQLLoad(ctx context.Context, pool *sql.DB, stmts []Statement, concurrency int, d time.Duration) Measure {
	prepared := make([]*sql.Stmt, len(stmts))
	for i, s := range stmts {
		st, err := pool.PrepareContext(ctx, s.Query)
		if err != nil {
			return Measure{Errors: 1, FirstError: fmt.Sprintf("prepare %q: %v", s.Query, err)}
		}
		defer st.Close()
		prepared[i] = st
	}
	return Load(ctx, concurrency, d, func(ctx context.Context) error {
		for i, s := range stmts {
			rows, err := prepared[i].QueryContext(ctx, s.Args...)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
}

// Result is one workload's line of the report.
type Result struct {
	Workload   string  `json:"workload"`
	Service    Measure `json:"service"`
	Statements int     `json:"sqlStatementsPerRequest"`
	Baseline   Measure `json:"rawSQL"`
	Ratio      float64 `json:"ratio"` // service req/s over raw-SQL req/s
	// HTTPAlone is the workload's HTTP exchange without the service (see HTTPAlone), and
	// Ceiling the ratio a service could reach with it (see Ceiling).
	HTTPAlone *Measure `json:"httpAlone,omitempty"`
	Ceiling   float64  `json:"ceiling,omitempty"`
	// PostGraphile is the same request to PostGraphile, when the run had one and the
	// workload an equivalent; PostGraphileRatio is the service's req/s over its.
	PostGraphile      *Measure `json:"postgraphile,omitempty"`
	PostGraphileRatio float64  `json:"postgraphileRatio,omitempty"`
}

// Markdown renders results as the README's table, with the HTTP exchange's and
// PostGraphile's columns when a result has them.
func Markdown(results []Result) string {
	withAlone := slices.ContainsFunc(results, func(r Result) bool { return r.HTTPAlone != nil })
	withPG := slices.ContainsFunc(results, func(r Result) bool { return r.PostGraphile != nil })
	var b strings.Builder
	b.WriteString("| workload | req/s | p50 | p99 | 5xx | SQL statements | raw SQL req/s | ratio |")
	if withAlone {
		b.WriteString(" HTTP alone req/s | ceiling |")
	}
	if withPG {
		b.WriteString(" PostGraphile req/s | PostGraphile p99 | ratio to PostGraphile |")
	}
	b.WriteString("\n|---|---|---|---|---|---|---|---|")
	if withAlone {
		b.WriteString("---|---|")
	}
	if withPG {
		b.WriteString("---|---|---|")
	}
	b.WriteString("\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %d | %d | %.0f | %.2f |", r.Workload, r.Service.PerSecond,
			ms(r.Service.P50), ms(r.Service.P99), r.Service.ServerErrors, r.Statements, r.Baseline.PerSecond, r.Ratio)
		switch {
		case r.HTTPAlone != nil:
			fmt.Fprintf(&b, " %.0f | %.2f |", r.HTTPAlone.PerSecond, r.Ceiling)
		case withAlone:
			b.WriteString(" - | - |")
		}
		switch {
		case r.PostGraphile != nil:
			fmt.Fprintf(&b, " %.0f | %s | %.2f |", r.PostGraphile.PerSecond, ms(r.PostGraphile.P99), r.PostGraphileRatio)
		case withPG:
			b.WriteString(" - | - | - |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
