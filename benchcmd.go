// `starkgraph bench`: the API measured over HTTP against its own SQL run alone (see
// package bench).

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/bench"
	"github.com/starkgraph/starkgraph/db"
)

// benchConfig is the configuration of `starkgraph bench`.
type benchConfig struct {
	databaseURL  string // DATABASE_URL (empty: a database of the private cluster in dataDir)
	txs          int
	concurrency  int
	duration     time.Duration
	dataDir      string
	out          string
	only         []string
	postgraphile string
	indexTxs     int
	projectTxs   int64
	hotKeys      bool
	lists        bool
	crowd        bool
	hooks        bool // the webhooks workload (--webhook-load)
	hooksSet     bool // --webhook-load was given
	hookCount    int
	hookBlocks   int
	cpuProfile   string
	server       serverFlags
}

// picks reports whether --only keeps the workload named name: any of its texts is in the
// name (every workload without --only).
func (c *benchConfig) picks(name string) bool {
	return len(c.only) == 0 || slices.ContainsFunc(c.only, func(o string) bool { return strings.Contains(name, o) })
}

func (c *benchConfig) register(fs *flag.FlagSet) {
	c.databaseURL = os.Getenv("DATABASE_URL")
	fs.IntVar(&c.txs, "txs", 1_000_000, "transactions in the benchmark database (built once from the simulated chain, then reused)")
	fs.IntVar(&c.concurrency, "concurrency", 20, "clients at once")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "time per workload, for the service and again for its raw SQL")
	fs.StringVar(&c.dataDir, "data-dir", envOr("STARKGRAPH_DATA_DIR", ".starkgraph"), "where the private PostgreSQL cluster lives (its database bench_<txs> is the cache)")
	fs.StringVar(&c.out, "out", "bench/results", "directory for the results (JSON and Markdown)")
	fs.Func("only", "run only the workloads whose name contains this text (e.g. stats); given several times, those whose name contains any", func(s string) error {
		c.only = append(c.only, s)
		return nil
	})
	fs.StringVar(&c.postgraphile, "postgraphile", "", "base URL of a PostGraphile v5 server over the same database (e.g. http://127.0.0.1:5678): its GraphQL equivalents run as a second baseline (docs/performance.md)")
	fs.IntVar(&c.indexTxs, "index-txs", 300_000, "transactions indexed from scratch, once per indexing mode, to time the indexer (0: skip), into a database bench_indexing made beside the bench's")
	fs.Int64Var(&c.projectTxs, "project-txs", 500_000_000, "when the run builds its database, project a first sync of this many transactions from the catch-up's curve")
	fs.BoolVar(&c.hotKeys, "hot-keys", true, "add the hot-key workloads: every list by its key with the most rows, at its first, middle, deep and last page")
	fs.BoolVar(&c.lists, "lists", true, "add the list workloads: page 1 and a deep page of every list route of both APIs, unfiltered and by its hottest key (named \"list ...\")")
	fs.BoolVar(&c.crowd, "crowd", true, "add the crowd (named \"crowd\"): --concurrency clients cycling over the explorer's hot requests while a block arrives every 2 s, with the answer cache on and then off")
	fs.BoolVar(&c.hooks, "webhook-load", false, "add the webhooks workload (named \"webhooks\"; on with --only webhooks unless set false): --webhook-load-count webhooks served by serve's delivery loop while the chain moves, in a database of its own (bench_webhooks, 20,000 transactions to start): delivery latency, and the indexer's rate with them against without; about 2 minutes")
	fs.IntVar(&c.hookCount, "webhook-load-count", 1000, "webhooks of the webhooks workload (a quarter of each kind: blocks, transactions, transfers, events)")
	fs.IntVar(&c.hookBlocks, "webhook-load-blocks", 250, "blocks of each of the webhooks workload's four catch-ups (two without the webhooks, two with)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the process, one file per workload and indexer run (named after it), taken while it runs, to this file name")
	c.server.register(fs)
}

func runBench(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var c benchConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.txs < 1000 || c.concurrency < 1 || c.duration <= 0 || c.indexTxs < 0 || c.projectTxs < 0 || c.hookCount < 4 || c.hookCount > 100_000 || c.hookBlocks < 1 {
		return fmt.Errorf("--txs must be at least 1000, --concurrency and --duration positive, --index-txs and --project-txs not negative, --webhook-load-count 4 to 100000, --webhook-load-blocks positive")
	}
	fs.Visit(func(f *flag.Flag) { c.hooksSet = c.hooksSet || f.Name == "webhook-load" })
	var listenFlag error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "addr" || f.Name == "admin-addr" {
			listenFlag = fmt.Errorf("--%s: bench serves on a free local port of its own", f.Name)
		}
	})
	if listenFlag != nil {
		return listenFlag
	}
	// The service and its raw SQL are measured with the same collector setting: no idle
	// release between them unless asked for.
	idleRelease, answerCache := false, false
	fs.Visit(func(f *flag.Flag) {
		idleRelease = idleRelease || f.Name == "idle-release"
		answerCache = answerCache || f.Name == "answer-cache-mb"
	})
	if !idleRelease {
		c.server.idleRelease = 0
	}
	// The bench's chain stands still, so with the answer cache every request after the first
	// would be a hit: the service is measured computing its answers, against its raw SQL,
	// unless --answer-cache-mb is given.
	// The crowd's chain moves: it runs with the cache on (--answer-cache-mb, its default when
	// not given or 0) and again with it off.
	crowdCacheMB := c.server.answerCacheMB
	if crowdCacheMB <= 0 {
		crowdCacheMB = 256
	}
	if !answerCache {
		c.server.answerCacheMB = 0
	}

	if err := checkDataDir(c.dataDir, c.databaseURL); err != nil {
		return err
	}
	dbURL := c.databaseURL
	if dbURL == "" {
		cluster, _, err := startLocalPostgres(ctx, log, filepath.Join(c.dataDir, "pgdata"))
		if err != nil {
			return err
		}
		defer func() { _ = cluster.Stop(context.WithoutCancel(ctx)) }()
		name := fmt.Sprintf("bench_%d", c.txs)
		if err := cluster.CreateDatabase(ctx, name); err != nil {
			return err
		}
		dbURL = cluster.URL(name)
	}
	conn, err := openMigrated(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	nodeURL, stopNode, err := startBenchNode(ctx, conn, c.txs)
	if err != nil {
		return err
	}
	curve, err := bench.BuildFrom(ctx, log, conn, c.txs, nodeURL)
	stopNode()
	if err != nil {
		return err
	}
	if curve != nil { // shown at once: the workloads that follow may take long, or be none
		fmt.Fprint(os.Stderr, bench.CatchUpMarkdown(curve, c.projectTxs))
	}
	workloads, err := bench.Workloads(ctx, conn)
	if err != nil {
		return err
	}
	if c.hotKeys {
		hot, err := bench.HotKeyWorkloads(ctx, conn)
		if err != nil {
			return err
		}
		workloads = append(workloads, hot...)
	}
	if c.lists {
		lists, err := bench.ListWorkloads(ctx, conn)
		if err != nil {
			return err
		}
		workloads = append(workloads, lists...)
	}
	runCrowd := c.crowd && c.picks(bench.CrowdWorkload)
	var crowdRequests []bench.Workload
	if runCrowd {
		if crowdRequests, err = bench.CrowdRequests(workloads); err != nil {
			return err
		}
	}
	workloads = slices.DeleteFunc(workloads, func(w bench.Workload) bool { return !c.picks(w.Name) })
	timeIndexer := c.indexTxs > 0 && c.picks(indexerWorkload)
	// The webhooks workload is off in a full run (it takes minutes), on when --only names it.
	runHooks := c.picks(bench.WebhooksWorkload) && (c.hooks || !c.hooksSet && len(c.only) > 0)
	if len(workloads) == 0 && !timeIndexer && !runCrowd && !runHooks {
		return fmt.Errorf("--only %q: no workload's name contains it", c.only)
	}

	// The SQL of one request of each workload, captured through the same handler without keys.
	store := db.NewStore(conn)
	captured, err := bench.Capture(store, api.NewHandler(api.Config{Store: store, Limits: c.server.graphQLLimits(), REST: restHandler(store, nil, nil)}), workloads)
	if err != nil {
		return err
	}

	// Keys are checked and usage counted as for any client; the plan only never says no
	// (GraphQL requests are charged their cost, which would exhaust even dev's bucket).
	keys := auth.NewStore(conn)
	if err := keys.UpsertPlan(ctx, auth.Plan{Name: "bench", RatePerSecond: 1e9, Burst: 1e9}); err != nil {
		return err
	}
	key, _, err := keys.CreateKey(ctx, "bench", "bench")
	if err != nil {
		return err
	}
	// The service as it runs in production: serveAPI with its flags' defaults, keys and all.
	base, stopServe, err := startBenchServer(ctx, conn, dbURL, c.server)
	if err != nil {
		return err
	}
	defer stopServe()
	raw, err := openReadPool(ctx, dbURL, c.concurrency, c.server.timeout)
	if err != nil {
		return err
	}
	defer raw.Close()

	var results []bench.Result
	for i, w := range workloads {
		stopProfile, err := startCPUProfile(c.cpuProfile, w.Name)
		if err != nil {
			return err
		}
		service := bench.HTTPLoad(ctx, base, key, w, c.concurrency, c.duration)
		stopProfile()
		baseline := bench.SQLLoad(ctx, raw.DB, captured[i].Statements, c.concurrency, c.duration)
		alone := bench.HTTPAlone(ctx, captured[i], w, c.concurrency, c.duration)
		r := bench.Result{Workload: w.Name, Service: service, Statements: len(captured[i].Statements), Baseline: baseline,
			HTTPAlone: &alone, Ceiling: bench.Ceiling(baseline.PerSecond, alone.PerSecond)}
		if baseline.PerSecond > 0 {
			r.Ratio = service.PerSecond / baseline.PerSecond
		}
		if c.postgraphile != "" && w.PostGraphile != "" {
			pg := bench.HTTPLoad(ctx, strings.TrimSuffix(c.postgraphile, "/"), "", bench.Workload{Path: "/graphql", Body: w.PostGraphile}, c.concurrency, c.duration)
			r.PostGraphile = &pg
			if pg.PerSecond > 0 {
				r.PostGraphileRatio = service.PerSecond / pg.PerSecond
			}
			if pg.Errors > 0 {
				log.Warn("bench: PostGraphile requests failed", "workload", w.Name, "errors", pg.Errors, "first", pg.FirstError)
			}
		}
		if service.Errors > 0 || baseline.Errors > 0 || alone.Errors > 0 {
			log.Warn("bench: requests failed", "workload", w.Name, "service_errors", service.Errors, "sql_errors", baseline.Errors,
				"http_alone_errors", alone.Errors, "first", service.FirstError+baseline.FirstError+alone.FirstError)
		}
		log.Info("bench", "workload", w.Name, "req_per_s", int(service.PerSecond), "p99", service.P99, "raw_sql_per_s", int(baseline.PerSecond),
			"http_alone_per_s", int(alone.PerSecond))
		results = append(results, r)
	}
	var table string
	if len(results) > 0 {
		table = bench.Markdown(results)
	}
	report := map[string]any{"txs": c.txs, "concurrency": c.concurrency, "duration": c.duration.String(),
		"at": time.Now().UTC().Format(time.RFC3339), "results": results}
	if runCrowd {
		stopServe() // the crowd's servers are its own
		crowd, err := runCrowdBench(ctx, log, conn, dbURL, c, crowdCacheMB, key, crowdRequests)
		if err != nil {
			return err
		}
		if table != "" {
			table += "\n"
		}
		table += bench.CrowdMarkdown(crowd)
		report["crowd"] = crowd
	}
	if runHooks {
		stopServe() // the workload's server is its own
		hooks, err := runWebhooksBench(ctx, log, conn, dbURL, c)
		if err != nil {
			return err
		}
		if table != "" {
			table += "\n"
		}
		table += bench.WebhooksMarkdown(hooks)
		report["webhooks"] = hooks
	}
	storage, err := bench.MeasureStorage(ctx, conn)
	if err != nil {
		return fmt.Errorf("bench: storage: %w", err)
	}
	if curve != nil {
		if table != "" {
			table += "\n"
		}
		table += bench.CatchUpMarkdown(curve, c.projectTxs)
		report["catchUp"] = curve
	}
	if t := bench.StorageMarkdown(storage); t != "" {
		if table != "" {
			table += "\n"
		}
		table += t
		report["storage"] = storage
	}
	if timeIndexer {
		stopServe() // the indexer gets the machine to itself
		runs, err := timeIndexing(ctx, log, conn, dbURL, c.indexTxs, c.cpuProfile)
		if err != nil {
			return err
		}
		if len(runs) > 0 {
			if table != "" {
				table += "\n"
			}
			table += bench.IndexingMarkdown(runs)
			report["indexing"] = runs
		}
	}
	fmt.Print(table)
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	stamp := time.Now().UTC().Format("20060102-150405")
	reportJSON, _ := json.MarshalIndent(report, "", "  ")
	if err := os.WriteFile(filepath.Join(c.out, stamp+".json"), reportJSON, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.out, stamp+".md"), []byte(table), 0o644)
}

// startBenchServer serves the API as serve does, with flags sf, on a free local port, and
// returns its base URL once it is ready; stop ends it (more calls do nothing).
func startBenchServer(ctx context.Context, conn *sqlx.DB, dbURL string, sf serverFlags) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	sf.addr, sf.adminAddr = ln.Addr().String(), ""
	ln.Close()
	serveCtx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- serveAPI(serveCtx, slog.New(slog.DiscardHandler), conn, dbURL, sf, "") }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-served }) }
	base = "http://" + sf.addr
	if err := waitReady(ctx, base); err != nil {
		stop()
		return "", nil, err
	}
	return base, stop, nil
}

// crowdBlockTime is how often a block arrives under the crowd: Starknet's pace.
const crowdBlockTime = 2 * time.Second

// runCrowdBench runs the crowd while the chain grows: with the answer cache on (cacheMB),
// then off, a server started for each; with --postgraphile, the GraphQL documents it can
// answer on ours (cache on) and on it.
func runCrowdBench(ctx context.Context, log *slog.Logger, conn *sqlx.DB, dbURL string, c benchConfig, cacheMB int, key string,
	requests []bench.Workload) (bench.CrowdResult, error) {
	res := bench.CrowdResult{Clients: c.concurrency, BlockTime: crowdBlockTime.String()}
	for _, w := range requests {
		res.Requests = append(res.Requests, w.Name)
	}
	log.Info("bench: the crowd's chain starts moving (the node builds its ledger first)")
	chain, err := bench.FollowChain(ctx, slog.New(slog.DiscardHandler), conn, crowdBlockTime, 10*time.Minute)
	if err != nil {
		return res, err
	}
	defer chain.Stop()
	versions, err := bench.FollowVersions(ctx, conn, dbURL)
	if err != nil {
		return res, err
	}
	defer versions.Close()
	crowd := func(name string, mb int, base, key string, requests []bench.Workload, vary func(bench.Workload, *rand.Rand) bench.Workload) (bench.CrowdMeasure, error) {
		sf := c.server
		sf.answerCacheMB = mb
		if base == "" {
			var stop func()
			var err error
			if base, stop, err = startBenchServer(ctx, conn, dbURL, sf); err != nil {
				return bench.CrowdMeasure{}, err
			}
			defer stop()
		}
		stopProfile, err := startCPUProfile(c.cpuProfile, bench.CrowdWorkload+" "+name)
		if err != nil {
			return bench.CrowdMeasure{}, err
		}
		m := bench.Crowd(ctx, bench.CrowdOptions{Name: name, Base: base, Key: key, Requests: requests, Concurrency: c.concurrency,
			Duration: c.duration, Versions: versions, Chain: chain, Vary: vary})
		stopProfile()
		if m.Errors > 0 || m.Stale > 0 {
			log.Warn("bench: crowd answers failed or were stale", "run", name, "errors", m.Errors, "first", m.FirstError,
				"stale", m.Stale, "first_stale", m.FirstStale)
		}
		log.Info("bench", "crowd", name, "req_per_s", int(m.PerSecond), "p99", m.P99, "first_after_change_p99", m.FirstAfterChange.P99,
			"hits", m.AnswerCache["hit"], "blocks", m.Blocks)
		return m, nil
	}
	for _, run := range []struct {
		name string
		mb   int
	}{{"answer cache on", cacheMB}, {"answer cache off", 0}} {
		m, err := crowd(run.name, run.mb, "", key, requests, nil)
		if err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, m)
	}
	if ours, theirs := bench.PostGraphileCrowd(requests); c.postgraphile != "" && len(ours) > 0 {
		m, err := crowd("PostGraphile's documents, answer cache on", cacheMB, "", key, ours, nil)
		if err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, m)
		pg, err := crowd("PostGraphile", 0, strings.TrimSuffix(c.postgraphile, "/"), "", theirs, nil)
		if err != nil {
			return res, err
		}
		res.PostGraphile = &pg
		if pg.PerSecond > 0 {
			res.PostGraphileRatio = m.PerSecond / pg.PerSecond
		}
	}
	// Cold: requests that never repeat, with the cache on and off; the cache should cost
	// them nothing measurable (issue 56).
	head, err := chain.Head(ctx)
	if err != nil {
		return res, err
	}
	cold := bench.ColdRequests()
	var coldRuns [2]bench.CrowdMeasure
	for i, run := range []struct {
		name string
		mb   int
	}{{"cold, answer cache on", cacheMB}, {"cold, answer cache off", 0}} {
		if coldRuns[i], err = crowd(run.name, run.mb, "", key, cold, bench.ColdVary(head)); err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, coldRuns[i])
	}
	for _, w := range cold {
		res.ColdRequests = append(res.ColdRequests, w.Name)
	}
	if coldRuns[1].PerSecond > 0 {
		res.ColdRatio = coldRuns[0].PerSecond / coldRuns[1].PerSecond
	}
	return res, chain.Stop()
}

// webhooksTxs are the transactions the webhooks workload's database starts with: enough
// blocks (100) for its filters to be picked from the last 50.
const webhooksTxs = 20_000

// runWebhooksBench runs the webhooks workload in a database of its own beside the bench's
// (bench_webhooks, dropped at the end), so that the blocks its catch-ups add do not grow the
// bench's: a chain of webhooksTxs transactions indexed from the simulated node, then the
// chain driven on (DriveChain), the API served as serve does with its delivery loop, loopback
// and http allowed for the receiver.
func runWebhooksBench(ctx context.Context, log *slog.Logger, admin *sqlx.DB, benchURL string, c benchConfig) (bench.WebhooksResult, error) {
	const name = "bench_webhooks"
	var res bench.WebhooksResult
	u, err := url.Parse(benchURL)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return res, fmt.Errorf("bench: the webhooks workload needs a postgres:// DATABASE_URL")
	}
	u.Path = "/" + name
	drop := func() error {
		_, err := admin.ExecContext(context.WithoutCancel(ctx), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		return err
	}
	if err := drop(); err != nil {
		return res, err
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		return res, fmt.Errorf("bench: create the webhooks' database: %w", err)
	}
	defer func() { _ = drop() }()
	dsn := u.String()
	conn, err := openMigrated(ctx, dsn)
	if err != nil {
		return res, err
	}
	defer conn.Close()
	quiet := slog.New(slog.DiscardHandler)
	log.Info("bench: the webhooks workload indexes its chain", "transactions", webhooksTxs)
	if _, err := bench.Build(ctx, quiet, conn, webhooksTxs); err != nil {
		return res, err
	}
	keys := auth.NewStore(conn)
	if err := keys.UpsertPlan(ctx, auth.Plan{Name: "bench", RatePerSecond: 1e9, Burst: 1e9}); err != nil {
		return res, err
	}
	_, key, err := keys.CreateKey(ctx, "bench", "bench webhooks")
	if err != nil {
		return res, err
	}
	chain, err := bench.DriveChain(ctx, quiet, conn, 100*time.Millisecond, 5*time.Minute)
	if err != nil {
		return res, err
	}
	defer chain.Stop()
	sf := c.server
	sf.webhooks, sf.webhookAllowHTTP, sf.webhookAllowLoopback = true, true, true
	_, stop, err := startBenchServer(ctx, conn, dsn, sf)
	if err != nil {
		return res, err
	}
	defer stop()
	stopProfile, err := startCPUProfile(c.cpuProfile, bench.WebhooksWorkload)
	if err != nil {
		return res, err
	}
	log.Info("bench: webhooks", "webhooks", c.hookCount, "follow", 3*c.duration)
	res, err = bench.RunWebhooks(ctx, conn, chain, bench.WebhooksOptions{DSN: dsn, KeyID: key.ID, Webhooks: c.hookCount, Hosts: 100,
		BlockTime: crowdBlockTime, Follow: 3 * c.duration, CatchUpBlocks: c.hookBlocks, CatchUps: 2, Log: log})
	stopProfile()
	if err != nil {
		return res, err
	}
	stop()
	return res, chain.Stop()
}

// startBenchNode runs the simulated node the bench's database is built from in a process of
// its own (this binary's sim), as an operator's node is, when the database is still to be
// built; its URL, and how to stop it. A database already built needs none ("", a no-op).
func startBenchNode(ctx context.Context, conn *sqlx.DB, txs int) (string, func(), error) {
	blocks := bench.BlocksFor(txs)
	if head, _, ok, err := db.IndexedHead(ctx, conn); err != nil {
		return "", nil, err
	} else if ok && uint64(head)+1 >= blocks {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(exe, "sim", "--seed", "1", "--blocks", strconv.FormatUint(blocks, 10),
		"--tx-per-block", strconv.Itoa(bench.TxPerBlock), "--addr", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("bench: start the simulated node: %w", err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stop()
			return "", nil, fmt.Errorf("bench: the simulated node did not listen on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// indexerWorkload names the indexer's measurement for --only.
const indexerWorkload = "indexer"

// timeIndexing indexes txs transactions into a new database beside the bench's (on the
// same server, named bench_indexing, dropped at the end) once per indexing mode, and
// reports each run with its ratio to the last (the baseline).
func timeIndexing(ctx context.Context, log *slog.Logger, admin *sqlx.DB, benchURL string, txs int, cpuProfile string) ([]bench.Indexing, error) {
	const name = "bench_indexing"
	u, err := url.Parse(benchURL)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		log.Warn("bench: the indexer is timed only with a postgres:// DATABASE_URL; skipped")
		return nil, nil
	}
	u.Path = "/" + name
	drop := func() error {
		_, err := admin.ExecContext(context.WithoutCancel(ctx), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		return err
	}
	var runs []bench.Indexing
	for _, mode := range bench.IndexingModes {
		if err := drop(); err != nil {
			return nil, err
		}
		if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
			return nil, fmt.Errorf("bench: create the indexer's database: %w", err)
		}
		conn, err := openMigrated(ctx, u.String())
		if err != nil {
			return nil, err
		}
		// The earlier phase's dirty pages (the API's usage counters, the last run's rows) are
		// written now, not by a checkpoint inside the timed run.
		if _, err := admin.ExecContext(ctx, `CHECKPOINT`); err != nil {
			log.Warn("bench: no checkpoint before timing the indexer", "err", err)
		}
		log.Info("bench: timing the indexer", "mode", mode.Name, "transactions", txs)
		stopProfile, err := startCPUProfile(cpuProfile, indexerWorkload+" "+mode.Name)
		if err != nil {
			return nil, err
		}
		r, err := bench.MeasureIndexing(ctx, slog.New(slog.DiscardHandler), conn, txs, mode.Name, mode.BulkLoadMinBlocks)
		stopProfile()
		conn.Close()
		if err != nil {
			return nil, err
		}
		log.Info("bench", "indexer", mode.Name, "tx_per_s", int(r.TxPerSecond), "seconds", r.Seconds)
		runs = append(runs, r)
	}
	for i := range runs {
		runs[i].Ratio = runs[i].TxPerSecond / runs[len(runs)-1].TxPerSecond
	}
	return runs, drop()
}

// waitReady polls /readyz until the server answers 200.
func waitReady(ctx context.Context, base string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("bench: the server at %s did not become ready", base)
}

// startCPUProfile profiles the process (the service and the load generator) while one
// workload runs, into file with the workload's name added; no file: nothing.
func startCPUProfile(file, workload string) (stop func(), err error) {
	if file == "" {
		return func() {}, nil
	}
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '-'
	}, workload)
	f, err := os.Create(strings.TrimSuffix(file, filepath.Ext(file)) + "-" + name + filepath.Ext(file))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
