// Package metrics holds the process's Prometheus collectors and the HTTP
// pieces around them: a middleware that counts requests by route and a
// handler that serves /metrics.
//
// The collectors are package variables so that any part of the program can
// record into them without plumbing (metrics.SQLStatements.Inc()). They live
// in their own Registry rather than the global default one, so tests and
// embedders see exactly what starkgraph exports.
package metrics

import (
	"database/sql"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

// Registry holds every starkgraph collector plus the Go runtime and process
// collectors.
var Registry = prometheus.NewRegistry()

var factory = promauto.With(Registry)

// latencyBuckets are the histograms' bounds, in seconds: 1 ms to 10 s.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// The constructors below register one collector each in Registry.
func counter(name, help string) prometheus.Counter {
	return factory.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return factory.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func gauge(name, help string) prometheus.Gauge {
	return factory.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

// SetGauge is a gauge exported only once something has set it. A process that does not
// do what it measures (an API replica follows no node; a replica without REDIS_URL keeps
// no Redis counters) then exports no series, where a plain gauge would say 0 from the start
// and fire the alerts that watch for 0 (monitoring/alerts.yml).
type SetGauge struct{ *prometheus.GaugeVec }

// Set sets the gauge, exporting it from now on.
func (g SetGauge) Set(v float64) { g.WithLabelValues().Set(v) }

func setGauge(name, help string) SetGauge {
	return SetGauge{factory.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, nil)}
}

func histogramVec(name, help string, buckets []float64, label string) *prometheus.HistogramVec {
	return factory.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, []string{label})
}

var (
	// HTTPRequests counts answered requests by route pattern and status code.
	HTTPRequests = counterVec("http_requests_total", "HTTP requests answered, by route pattern and status code.", "route", "status")

	// HTTPDuration observes how long requests took, by route pattern.
	HTTPDuration = histogramVec("http_request_duration_seconds", "Time to answer an HTTP request, by route pattern.",
		latencyBuckets, "route")

	// GraphQLFieldDuration observes how long each root field of a GraphQL document took
	// (its resolver and everything below it), by field name: the schema bounds the labels.
	GraphQLFieldDuration = histogramVec("graphql_root_field_duration_seconds",
		"Time to resolve a GraphQL root field with its selection, by field.", latencyBuckets, "field")

	// GraphQLOperationDuration observes how long each GraphQL operation took, by the
	// operation name its document gives (see OperationLabel for how the set is bounded).
	GraphQLOperationDuration = histogramVec("graphql_operation_duration_seconds",
		"Time to execute a GraphQL operation, by operation name (anonymous, or other past the first names seen).",
		latencyBuckets, "operation")

	// SQLDuration observes how long each store statement took, by the store method
	// that ran it (a bounded set of names); it starts at 0.5 ms.
	SQLDuration = histogramVec("sql_statement_duration_seconds",
		"Time of a SQL statement of the API's store, by the store method that ran it.",
		append([]float64{.0005}, latencyBuckets...), "statement")

	// CompressedBodies counts REST bodies compressed for the client, by what became of
	// them: "reused" (the bytes of an identical body sent lately), "compressed" (and
	// remembered), "streamed" (too large to remember, or flushed).
	CompressedBodies = counterVec("http_compressed_bodies_total",
		"REST bodies compressed for the client: reused (an identical body's bytes), compressed, or streamed.", "result")

	// AnswerCache counts the requests the answer cache saw, by what it did: "hit" (answered
	// from memory), "wait" (answered by another request's computation of the same answer),
	// "miss" (computed), "uncached" (computed, not kept: an error, a large answer) or
	// "bypass" (not cacheable: a mutation, a stream).
	AnswerCache = counterVec("answer_cache_requests_total",
		"Requests seen by the answer cache: hit, wait, miss, uncached or bypass.", "result")
	// AnswerCacheBytes is what the answer cache holds, in bytes of answers and their keys.
	AnswerCacheBytes = gauge("answer_cache_bytes", "Bytes of answers held by the answer cache.")
	// AnswerCacheEvictions counts answers pushed out of the answer cache by its byte cap.
	AnswerCacheEvictions = counter("answer_cache_evictions_total", "Answers pushed out of the answer cache by its byte cap.")
	// DataVersion is the data version this process serves answers at (db.DataChannel).
	DataVersion = gauge("data_version", "The data version the API answers at: the data changes it heard announced (db.DataChannel).")

	// NamesLookups counts the addresses and classes the API named, by where the name (or
	// its absence) came from: "hit" (the names cache, --names-cache-ttl) or "miss" (SQL).
	NamesLookups = counterVec("names_cache_lookups_total",
		"Addresses and classes named by the API: hit (from the names cache) or miss (read by SQL).", "result")

	// SQLStatements counts SQL statements sent to PostgreSQL.
	SQLStatements = counter("sql_statements_total", "SQL statements sent to PostgreSQL.")

	// RateLimitRejections counts requests answered 429, by the limit that
	// refused them: "rate", "cost" (GraphQL complexity), "daily" or "monthly".
	RateLimitRejections = counterVec("ratelimit_rejections_total", "Requests refused with 429, by the limit that refused them.", "reason")

	// RateLimitRedisUp is 1 while rate-limit counters are kept in Redis, 0
	// while a replica has fallen back to local counters (and absent, i.e.
	// never set, when Redis is not configured).
	RateLimitRedisUp = setGauge("ratelimit_redis_up", "1 while rate-limit counters live in Redis, 0 while falling back to local counters.")

	// IndexerHead is the number of the newest block the indexer has written.
	IndexerHead = gauge("indexer_head_block", "Number of the newest block written by the indexer.")

	// IndexerNodeHead is the newest block number the followed node reports.
	IndexerNodeHead = gauge("indexer_node_head_block", "Newest block number reported by the followed Starknet node.")

	// IndexerLag is how many blocks the indexer is behind the node.
	IndexerLag = gauge("indexer_lag_blocks", "Blocks the indexer is behind the followed node.")

	// IndexerNodeUp is 1 while the followed node answers the indexer, 0 after a call to it
	// failed (the indexer retries with backoff meanwhile); absent from processes that run
	// no indexer.
	IndexerNodeUp = setGauge("indexer_node_up", "1 while the followed Starknet node answers the indexer, 0 after a call to it failed.")

	// IndexerBulkLoading is 1 while a bulk load has the per-block tables' secondary indexes
	// and foreign keys dropped (API reads that need them are slow until it ends), else 0.
	IndexerBulkLoading = gauge("indexer_bulk_loading", "1 while the indexer bulk loads with secondary indexes dropped, else 0.")

	// IndexerBalancesReconciled counts the ERC-20 balances the indexer read from state diffs
	// and compared with the balances the Transfer events give (indexer/reconcile.go).
	IndexerBalancesReconciled = counter("indexer_balances_reconciled_total",
		"ERC-20 balances read from the state diffs' storage and compared with the balances the Transfer events give.")

	// IndexerBalancesCorrected counts those whose events disagreed with the storage: the
	// stored value was kept and the difference recorded in balance_corrections.
	IndexerBalancesCorrected = counter("indexer_balances_corrected_total",
		"ERC-20 balances whose Transfer events disagreed with the chain's storage, corrected to the stored value.")

	// IndexerBalanceCalls counts the balance_of calls the indexer made to read the balances
	// storage cannot show (indexer/callbalances.go), bounded by its calls per second.
	IndexerBalanceCalls = counter("indexer_balance_calls_total",
		"balance_of calls the indexer made to read balances that neither events nor storage show.")
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	// starkgraph_build_info names the build a process runs: always 1, its labels the release,
	// the VCS revision ("unknown" when the build recorded none) and the Go toolchain.
	build := buildinfo.Get()
	factory.NewGaugeVec(prometheus.GaugeOpts{Name: "starkgraph_build_info",
		Help: "The running starkgraph: always 1, labelled with its version, VCS revision and Go version."},
		[]string{"version", "revision", "goversion"}).WithLabelValues(build.Version, buildinfo.Revision(), build.GoVersion).Set(1)
}

var namesHits, namesMisses = NamesLookups.WithLabelValues("hit"), NamesLookups.WithLabelValues("miss")

// CountNames records a names lookup's hits and misses (db.Store.CacheNames).
func CountNames(hits, misses int) {
	namesHits.Add(float64(hits))
	namesMisses.Add(float64(misses))
}

// pools are the gauges RegisterPool made, by pool name.
var pools = struct {
	sync.Mutex
	by map[string][]prometheus.Collector
}{by: map[string][]prometheus.Collector{}}

// RegisterPool exports the gauges of a database/sql pool under a name: open
// connections, those in use, and requests waiting for one (with the total wait). A pool
// registered again under the same name (a server started again in the process, as the
// bench's crowd does) replaces the earlier one.
func RegisterPool(name string, stats func() sql.DBStats) {
	pools.Lock()
	defer pools.Unlock()
	for _, c := range pools.by[name] {
		Registry.Unregister(c)
	}
	pools.by[name] = nil
	labels := prometheus.Labels{"pool": name}
	gauge := func(metric, help string, value func(sql.DBStats) float64) {
		g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: metric, Help: help, ConstLabels: labels},
			func() float64 { return value(stats()) })
		Registry.MustRegister(g)
		pools.by[name] = append(pools.by[name], g)
	}
	gauge("db_pool_open_connections", "Connections the pool holds open.", func(s sql.DBStats) float64 { return float64(s.OpenConnections) })
	gauge("db_pool_in_use_connections", "Connections running a statement.", func(s sql.DBStats) float64 { return float64(s.InUse) })
	gauge("db_pool_wait_count", "Requests that waited for a connection, in all.", func(s sql.DBStats) float64 { return float64(s.WaitCount) })
	gauge("db_pool_wait_seconds", "Time requests waited for a connection, in all.", func(s sql.DBStats) float64 { return s.WaitDuration.Seconds() })
	gauge("db_pool_max_open_connections", "Most connections the pool may open (0: no limit).", func(s sql.DBStats) float64 { return float64(s.MaxOpenConnections) })
}

// Handler serves the registry in the Prometheus exposition format. Mount it
// on the admin address only (or behind an admin key): it is not for clients.
func Handler() http.Handler {
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry})
}

// SetIndexerHeads records the indexer's head and the node's head and derives
// the lag from them, so the three gauges never disagree.
func SetIndexerHeads(indexed, node uint64) {
	IndexerHead.Set(float64(indexed))
	IndexerNodeHead.Set(float64(node))
	lag := 0.0
	if node > indexed {
		lag = float64(node - indexed)
	}
	IndexerLag.Set(lag)
}

// maxOperationLabels bounds the operation names /metrics keeps apart. Clients choose the
// names, so without a bound each new name would be a new series, forever.
const maxOperationLabels = 200

var operationLabels = struct {
	sync.Mutex
	seen map[string]struct{}
}{seen: map[string]struct{}{}}

// OperationLabel is the label of a GraphQL operation name: "anonymous" for none, the name
// itself for the first maxOperationLabels names seen (of at most 64 characters), and
// "other" for any later or longer one.
func OperationLabel(name string) string {
	switch {
	case name == "":
		return "anonymous"
	case len(name) > 64:
		return "other"
	}
	operationLabels.Lock()
	defer operationLabels.Unlock()
	if _, ok := operationLabels.seen[name]; ok {
		return name
	}
	if len(operationLabels.seen) >= maxOperationLabels {
		return "other"
	}
	operationLabels.seen[name] = struct{}{}
	return name
}

// openSubscriptions reports the GraphQL subscriptions open in this process (set by
// SetSubscriptionCount; 0 until then).
var openSubscriptions atomic.Pointer[func() int]

// SetSubscriptionCount makes count the source of the graphql_subscriptions_open gauge.
func SetSubscriptionCount(count func() int) { openSubscriptions.Store(&count) }

// SlowSubscribers counts subscriptions ended because their client read too slowly.
var SlowSubscribers = prometheus.NewCounter(prometheus.CounterOpts{
	Name: "graphql_subscriptions_slow_ended_total",
	Help: "Subscriptions ended because their client did not keep up (a full buffer).",
})

func init() {
	Registry.MustRegister(SlowSubscribers, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "graphql_subscriptions_open", Help: "GraphQL subscriptions open in this process.",
	}, func() float64 {
		if f := openSubscriptions.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	}))
}

// Webhooks (webhooks/dispatch.go).
var (
	// WebhookDeliveries counts delivery attempts by outcome: delivered, retry, slow-down,
	// disable (the webhooks.Outcome names), for items and retractions alike, and over-quota
	// (not attempted: the key's quota is used up).
	WebhookDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webhook_deliveries_total",
		Help: "Webhook delivery attempts by outcome (delivered, retry, slow-down, disable).",
	}, []string{"outcome"})
	// WebhookRetractions counts retractions delivered after reorgs.
	WebhookRetractions = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "webhook_retractions_total",
		Help: "Webhook messages delivered with removed: true, retracting items a reorg undid.",
	})
	// WebhookDisabled counts webhooks the delivery loop disabled, by why.
	WebhookDisabled = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webhook_disabled_total",
		Help: "Webhooks disabled by the delivery loop: gone (the receiver answered 410) or failing (retries given up).",
	}, []string{"reason"})
	// WebhookDeliveryLatency is the time from an item's block (its timestamp) to its 2xx.
	WebhookDeliveryLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "webhook_delivery_latency_seconds",
		Help:    "From an item's block timestamp to its receiver's 2xx.",
		Buckets: []float64{0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400},
	})
	// WebhookBacklogAge is the age of the oldest item not yet delivered to an active webhook.
	WebhookBacklogAge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "webhook_backlog_age_seconds",
		Help: "Age of the oldest matching item not yet delivered to an active webhook (0: none waits).",
	})
	// WebhooksActive is the active webhooks the delivery loop serves.
	WebhooksActive = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "webhooks_active", Help: "Active webhooks the delivery loop of this process serves.",
	})
)

func init() {
	Registry.MustRegister(WebhookDeliveries, WebhookRetractions, WebhookDisabled, WebhookDeliveryLatency,
		WebhookBacklogAge, WebhooksActive)
	// Every reason exported from the start, at 0: the alert's increase() needs a series
	// before the first webhook is disabled.
	for _, reason := range []string{"gone", "failing"} {
		WebhookDisabled.WithLabelValues(reason)
	}
	// And every outcome, so that the dashboard's deliveries by outcome and retries have a
	// series (at 0) where no webhook delivers yet.
	for _, outcome := range []string{"delivered", "retry", "slow-down", "disable", "over-quota"} {
		WebhookDeliveries.WithLabelValues(outcome)
	}
}
