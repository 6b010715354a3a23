// Command starkgraph follows a Starknet JSON-RPC node, indexes the chain into PostgreSQL and
// serves it as GraphQL and as the /beta REST interface of the explorer API.
//
//	starkgraph [dev]        private PostgreSQL, simulated node, indexer and API (the default)
//	starkgraph serve        API only, against DATABASE_URL
//	starkgraph index        indexer only, against DATABASE_URL
//	starkgraph migrate      apply migrations to DATABASE_URL
//	starkgraph keys ...     create, list, revoke API keys and show their usage
//	starkgraph sim          the simulated Starknet node alone
//	starkgraph replay DIR   serve a fixture set as a JSON-RPC node
//	starkgraph verify-worker  class-verification workers alone, against DATABASE_URL
//	starkgraph bench        the APIs measured against their own SQL, on a database built from the simulator
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	neturl "net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"
	"golang.org/x/term"

	"github.com/starkgraph/starkgraph/analytics"
	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/cursor"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/pglocal"
	"github.com/starkgraph/starkgraph/hostile"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/internal/idlegc"
	"github.com/starkgraph/starkgraph/internal/linger"
	"github.com/starkgraph/starkgraph/internal/stackstart"
	"github.com/starkgraph/starkgraph/live"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/replay"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/verify"
)

// command is one subcommand: its name, a line of help, and what it runs.
type command struct {
	name string
	help string
	run  func(ctx context.Context, log *slog.Logger, args []string) error
}

func commands() []command {
	return []command{
		{"dev", "run everything locally: private PostgreSQL, simulated node, indexer, API (default)", runDev},
		{"serve", "serve the APIs from DATABASE_URL", runServe},
		{"index", "index a node into DATABASE_URL: --rpc URL [--from-block N] [--stop-at N]", runIndex},
		{"migrate", "apply database migrations to DATABASE_URL", runMigrate},
		{"keys", "manage API keys: create --plan NAME [--label TEXT] | list | revoke ID | usage KEY", runKeys},
		{"labels", "manage the names of addresses (docs/names.md): import FILE | list [--json] | rm ADDRESS", runLabels},
		{"sim", "serve the simulated Starknet node: --addr ADDR [--seed N] [--blocks N] [--block-time D]", runSim},
		{"replay", "serve a fixture set as a JSON-RPC node: replay DIR --addr ADDR", runReplay},
		{"bench", "measure the APIs against their own SQL: [--txs N] [--concurrency C] [--duration D]", runBench},
		{"hostile", "send hostile requests to a server and report 5xx, leaks, broken connections, hangs, memory: --url URL --key KEY [--requests N] [--concurrency C]", hostile.Command},
		{"audit", "check balances and NFT owners against the node at the indexed head: --rpc URL [--token T] [--holder H] [--sample N]", runAudit},
		{"verify-worker", "run class-verification workers against DATABASE_URL: [--verify-workers N] [--scarb-dir DIR] [--verify-sandbox on|off]", runVerifyWorker},
	}
}

// gcPercent and memoryLimit are the collector's settings unless GOGC or GOMEMLIMIT says
// otherwise. The API keeps little (20-40 MB live) and allocates per request, so with Go's
// default of 100 it collects many times a second under load; letting the heap grow to 5x
// the live set took GraphQL's latest-25-blocks from 3,291 to 4,214 req/s at 1M
// transactions (bench, same run), and the soft limit makes the collector work harder
// rather than let the heap pass 1 GiB.
const (
	gcPercent   = 400
	memoryLimit = 1 << 30
)

// tuneGC applies gcPercent and memoryLimit where the environment sets neither variable.
func tuneGC(getenv func(string) string) (percent int, limit int64) {
	percent, limit = -2, -2 // unchanged
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		percent = gcPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
		limit = memoryLimit
	}
	return percent, limit
}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))
	slog.SetDefault(log)
	tuneGC(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	name, args := "dev", os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	for _, c := range commands() {
		if c.name == name {
			if err := c.run(ctx, log, args); err != nil && !errors.Is(err, flag.ErrHelp) {
				log.Error(name+" failed", "err", err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "unknown command %q\n\nusage: starkgraph [command] [flags]\n\n", name)
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", c.name, c.help)
	}
	os.Exit(2)
}

func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// verifyFlags configure the class-verification workers of serve, dev and verify-worker.
type verifyFlags struct {
	workers   int
	scarbDir  string
	timeout   time.Duration
	memoryMiB int
	lease     time.Duration
	sandbox   string
}

func (f *verifyFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "verify-workers", envInt("STARKGRAPH_VERIFY_WORKERS", verify.DefaultWorkers), "class-verification jobs compiled at once (0: none in this process)")
	fs.StringVar(&f.scarbDir, "scarb-dir", envOr("STARKGRAPH_SCARB_DIR", verify.DefaultScarbDir()), "installed scarb versions, as DIR/<version>/bin/scarb (asdf layout); a scarb on PATH counts too")
	fs.DurationVar(&f.timeout, "verify-timeout", verify.DefaultTimeout, "longest scarb build of one job")
	fs.IntVar(&f.memoryMiB, "verify-memory", verify.DefaultMemoryMiB, "address-space cap of one scarb build, in MiB (0: none)")
	fs.DurationVar(&f.lease, "verify-lease", verify.DefaultLease, "how long a worker's claim on a job holds without renewal; a dead worker's job is retried after it")
	fs.StringVar(&f.sandbox, "verify-sandbox", envOr("STARKGRAPH_VERIFY_SANDBOX", "on"), "on: each scarb build runs in a bubblewrap sandbox (docs/verification-sandbox.md); off: builds run unisolated as this user (unsafe)")
}

// checkSandbox refuses to start workers whose builds could not be sandboxed, unless the
// operator turned the sandbox off (verify.Run then says so loudly).
func (f verifyFlags) checkSandbox(ctx context.Context) error {
	if f.sandbox != "on" && f.sandbox != "off" {
		return fmt.Errorf("--verify-sandbox must be on or off, not %q", f.sandbox)
	}
	if f.workers < 1 || f.sandbox == "off" {
		return nil
	}
	return verify.CheckSandbox(ctx)
}

// run runs the workers until ctx ends.
func (f verifyFlags) run(ctx context.Context, log *slog.Logger, conn *sqlx.DB) {
	verify.Run(ctx, verify.Config{
		DB: conn, Workers: f.workers, Lease: f.lease, Logger: log,
		Toolchains: verify.Toolchains{Dir: f.scarbDir, UsePATH: true},
		Limits:     verify.BuildLimits{Timeout: f.timeout, MemoryMiB: f.memoryMiB, NoSandbox: f.sandbox == "off"},
	})
}

func envInt(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return fallback
}

func runVerifyWorker(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("verify-worker", flag.ContinueOnError)
	var vf verifyFlags
	vf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if vf.workers < 1 {
		return errors.New("--verify-workers must be at least 1")
	}
	if err := vf.checkSandbox(ctx); err != nil {
		return err
	}
	conn, err := openDatabaseURL(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	pending, err := db.MigrationsPending(ctx, conn.DB)
	if err != nil {
		return err
	}
	if pending {
		return errors.New("the database lacks migrations: run starkgraph migrate first")
	}
	vf.run(ctx, log, conn)
	return nil
}

// serverFlags are the flags of every command that serves the APIs.
type serverFlags struct {
	addr          string
	adminAddr     string
	introspection bool
	playground    bool
	corsOrigins   string
	maxComplexity int
	maxDepth      int
	maxTokens     int
	maxFields     int
	maxAliases    int
	maxFragments  int
	maxDirectives int
	maxBody       int64
	timeout       time.Duration
	cursorSecret  string
	limiterFail   string
	inFlight      int
	inFlightKey   int
	dbMaxConns    int
	idleRelease   time.Duration
	stackKiB      int
	namesTTL      time.Duration
	// subscriptions
	subscriptionBuffer int
	streamWriteTimeout time.Duration
	// bound holds the listeners bindEarly made, by address, until serveAPI takes them.
	bound map[string]net.Listener
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "addr", envOr("STARKGRAPH_ADDR", ":8080"), "public address: /graphql, /beta, the playground, /healthz, /readyz")
	fs.StringVar(&f.adminAddr, "admin-addr", envOr("STARKGRAPH_ADMIN_ADDR", "127.0.0.1:9090"), "admin address for /metrics (empty: off)")
	fs.BoolVar(&f.introspection, "introspection", envOr("STARKGRAPH_INTROSPECTION", "true") == "true", "allow GraphQL introspection")
	fs.BoolVar(&f.playground, "playground", envOr("STARKGRAPH_PLAYGROUND", "true") == "true", "serve the GraphiQL playground at /")
	fs.StringVar(&f.corsOrigins, "cors-origins", os.Getenv("STARKGRAPH_CORS_ORIGINS"), "comma-separated origins allowed by CORS (empty: any)")
	fs.IntVar(&f.maxComplexity, "max-complexity", api.DefaultGraphQLLimits.MaxComplexity, "highest GraphQL document cost")
	fs.IntVar(&f.maxDepth, "max-depth", api.DefaultGraphQLLimits.MaxDepth, "deepest GraphQL selection nesting")
	d := api.DefaultGraphQLLimits
	fs.IntVar(&f.maxTokens, "max-tokens", d.MaxTokens, "most lexer tokens of a GraphQL document")
	fs.IntVar(&f.maxFields, "max-fields", d.MaxFields, "most fields written in a GraphQL document (fragments not expanded)")
	fs.IntVar(&f.maxAliases, "max-aliases", d.MaxAliases, "most aliases in a GraphQL document")
	fs.IntVar(&f.maxFragments, "max-fragments", d.MaxFragments, "most fragment definitions in a GraphQL document")
	fs.IntVar(&f.maxDirectives, "max-directives", d.MaxDirectives, "most directives in a GraphQL document")
	fs.Int64Var(&f.maxBody, "max-body", d.MaxBody, "largest /graphql request body, in bytes (413 above)")
	fs.DurationVar(&f.timeout, "request-timeout", d.Timeout, "a request (GraphQL or REST) still running after this is cancelled, its SQL too, and answered 503")
	fs.StringVar(&f.cursorSecret, "cursor-secret", envOr("STARKGRAPH_CURSOR_SECRET", os.Getenv("STARKGRAPH_CURSOR_KEY")),
		"secret that signs the APIs' cursors (default: one generated at first start and kept in the database)")
	fs.StringVar(&f.limiterFail, "limiter-fail", envOr("STARKGRAPH_LIMITER_FAIL", string(auth.FailLocal)),
		"while Redis is down: local (per-replica counters), open (admit uncounted) or closed (503)")
	fs.IntVar(&f.inFlight, "max-inflight", 512, "requests running at once in this process; 503 with Retry-After above it (0: no cap)")
	fs.IntVar(&f.dbMaxConns, "db-max-conns", defaultDBConns(), "connections of the API's read pool, all kept open while idle (no reconnect per request); default 4 per core")
	fs.IntVar(&f.subscriptionBuffer, "subscription-buffer", 256, "messages a subscriber may have pending; one too slow to keep up is ended")
	fs.DurationVar(&f.streamWriteTimeout, "stream-write-timeout", api.DefaultStreamWriteTimeout, "longest write to a subscriber's connection; a client that stops reading is disconnected")
	fs.IntVar(&f.inFlightKey, "max-inflight-per-key", 32, "requests of one API key running at once; 503 with Retry-After above it (0: no cap)")
	fs.DurationVar(&f.idleRelease, "idle-release", 5*time.Second, "after this long without an API request, give memory back to the system and collect with GOGC=100 until the next one (internal/idlegc; 0: never)")
	fs.IntVar(&f.stackKiB, "goroutine-stack-kib", 14, "keep new goroutines' stacks starting above this many KiB, the most gqlgen's goroutines use, so that they do not grow while resolving (internal/stackstart; 0: the runtime's choice; at most 64)")
	fs.DurationVar(&f.namesTTL, "names-cache-ttl", db.DefaultNamesTTL, "keep the names of addresses and classes, and their absence, this long in memory (docs/names.md; 0: read them at every request)")
}

// graphQLLimits are the flags' limits.
func (f *serverFlags) graphQLLimits() api.GraphQLLimits {
	return api.GraphQLLimits{
		MaxComplexity: f.maxComplexity, MaxDepth: f.maxDepth, MaxTokens: f.maxTokens,
		MaxFields: f.maxFields, MaxAliases: f.maxAliases, MaxFragments: f.maxFragments, MaxDirectives: f.maxDirectives,
		MaxBody: f.maxBody, Timeout: f.timeout,
	}
}

func envOr(name, fallback string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return fallback
}

// defaultDBConns is the API read pool's size unless --db-max-conns says: 4 connections per
// core of this process, at least 8. More sessions than the cores can serve only queue in
// PostgreSQL's scheduler instead of the pool: on the 2-core bench machine, 20 clients
// through 20 connections answered the busiest sender's transactions at p99 44-48 ms, through
// 8 at 34-45 ms with as many requests a second or more (docs/performance.md, "The read pool").
func defaultDBConns() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// openDB connects to url and checks that the server answers.
func openDB(ctx context.Context, url string) (*sqlx.DB, error) {
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(20)
	conn.SetMaxIdleConns(10)
	conn.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.PingContext(pingCtx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w (is it running, and does the URL name its host, port, user and database?)", err)
	}
	return conn, nil
}

// instrument makes a store report its statements to /metrics: a count, and each
// statement's time by the store method that ran it.
func instrument(store *db.Store) {
	store.OnStatement = metrics.SQLStatements.Inc
	store.OnStatementDone = func(name string, took time.Duration) {
		metrics.SQLDuration.WithLabelValues(name).Observe(took.Seconds())
	}
}

// openReadPool opens the API's pool for chain reads: maxConns connections, all of them
// kept open while idle (a pool that closes idle connections makes PostgreSQL fork a new
// session for a burst of parallel loads, which costs more than the queries), each session
// stopping statements that run past timeout.
//
// Its sessions' settings are db.ReadSessionSettings. They plan each prepared statement once
// (plan_cache_mode = force_generic_plan).
// Left to choose, PostgreSQL planned the statements on partitioned tables again at every
// execution (a plan for the arguments prunes partitions; the generic plan prunes them at
// run time, which the choice does not count), and planning cost more than running them:
// 0.2-0.3 ms of the 0.05 ms a keyed read takes. Every statement the API runs uses its
// indexes in its generic plan too (rest.TestEveryRouteUsesIndexes checks both plans).
//
// They plan without parallel workers (max_parallel_workers_per_gather = 0). A page is a
// few dozen rows read in index order; given workers, the generic plan of a deep page of the
// commonest event key read every entry of the key below the page in parallel and sorted
// them: 650 ms instead of 4 ms on the 1M bench, 3 requests a second. The API's own
// concurrency already keeps the cores busy.
//
// And without JIT compilation (jit = off). A generic plan's LIMIT $1 is estimated at a
// tenth of the table, so at 10M transactions the page of /beta/txns cost 587,000 (over
// jit_above_cost's 100,000) and each execution compiled itself: 85-215 ms of LLVM for a
// 0.1 ms read of 26 rows, 3 requests a second on the 10M bench.
//
// And without Memoize (enable_memoize = off). A generic plan caches the rows of a join's
// inner side (an event's transaction, a folded event's transfer) in a hash table sized by
// its estimate, a tenth of the key's rows: at 10M transactions every execution of the page
// of the commonest event key built and freed a table for 53,000 entries, 6.7 ms of a
// statement whose rows took 0.07 ms (0.12 ms with it off), and the middle and deep pages
// took 160-210 ms at p99. A page joins a few dozen rows; there is little to memoize.
func openReadPool(ctx context.Context, url string, maxConns int, timeout time.Duration) (*sqlx.DB, error) {
	dsn := withBinaryParameters(withStatementTimeout(url, timeout))
	for _, setting := range db.ReadSessionSettings {
		dsn = withParam(dsn, setting.Name, setting.Value)
	}
	conn, err := openDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(maxConns)
	conn.SetMaxIdleConns(maxConns)
	conn.SetConnMaxIdleTime(0)
	conn.SetConnMaxLifetime(time.Hour) // renewed hourly, spread by the pool's use
	return conn, nil
}

// withStatementTimeout adds PostgreSQL's statement_timeout to a connection, so that a
// statement outliving its request is stopped by the server too.
func withStatementTimeout(dsn string, d time.Duration) string {
	if d <= 0 {
		return dsn
	}
	return withParam(dsn, "statement_timeout", strconv.FormatInt(d.Milliseconds(), 10))
}

// withBinaryParameters sets lib/pq's binary_parameters, under which a statement with
// arguments is parsed, bound and executed in one round trip instead of two.
func withBinaryParameters(dsn string) string { return withParam(dsn, "binary_parameters", "yes") }

// withParam adds a parameter to a connection URL or key=value string, unless it names the
// parameter already (lib/pq sends those it does not know as session settings). Only the
// string's keys count: a password or database name that contains a setting's name (a
// user "rajit" and jit) does not stop the setting.
func withParam(dsn, name, value string) string {
	if u, err := neturl.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		if q.Has(name) {
			return dsn
		}
		q.Set(name, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	if slices.Contains(dsnKeys(dsn), name) {
		return dsn
	}
	return dsn + " " + name + "=" + value
}

// dsnKeys are the keys of a key=value connection string, as libpq reads it: spaces
// around "=", values single-quoted or not, a backslash escaping the next character.
func dsnKeys(dsn string) []string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	i, n := 0, len(dsn)
	skip := func(while func(c byte) bool) {
		for i < n && while(dsn[i]) {
			i++
		}
	}
	var keys []string
	for skip(isSpace); i < n; skip(isSpace) {
		start := i
		skip(func(c byte) bool { return c != '=' && !isSpace(c) })
		keys = append(keys, dsn[start:i])
		skip(isSpace)
		if i < n && dsn[i] == '=' {
			i++
		}
		skip(isSpace)
		quoted := i < n && dsn[i] == '\''
		if quoted {
			i++
		}
		for i < n && !(quoted && dsn[i] == '\'' || !quoted && isSpace(dsn[i])) {
			if dsn[i] == '\\' {
				i++ // the escaped character is the value's
			}
			i++
		}
		if quoted && i < n {
			i++ // the closing quote
		}
	}
	return keys
}

// databaseURL is DATABASE_URL, which serve, index, migrate and keys require.
func databaseURL() (string, error) {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return "", errors.New("DATABASE_URL is not set (for example postgres://user:pass@localhost:5432/starkgraph?sslmode=disable)")
	}
	return url, checkDatabaseURL("DATABASE_URL", url)
}

// openDatabaseURL connects to DATABASE_URL.
func openDatabaseURL(ctx context.Context) (*sqlx.DB, error) {
	url, err := databaseURL()
	if err != nil {
		return nil, err
	}
	return openDB(ctx, url)
}

// openDatabaseURLMigrated connects to DATABASE_URL and applies the migrations.
func openDatabaseURLMigrated(ctx context.Context) (*sqlx.DB, error) {
	url, err := databaseURL()
	if err != nil {
		return nil, err
	}
	return openMigrated(ctx, url)
}

// openMigrated connects to url and applies the migrations.
func openMigrated(ctx context.Context, url string) (*sqlx.DB, error) {
	conn, err := openDB(ctx, url)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, conn.DB); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func runMigrate(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	conn, err := openDatabaseURLMigrated(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	log.Info("migrations applied")
	return nil
}

func runKeys(ctx context.Context, _ *slog.Logger, args []string) error {
	conn, err := openDatabaseURL(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return auth.RunKeysCommand(ctx, conn, args, os.Stdout)
}

func runServe(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var sf serverFlags
	sf.register(fs)
	var vf verifyFlags
	vf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := vf.checkSandbox(ctx); err != nil {
		return err
	}
	if _, err := databaseURL(); err != nil {
		return err
	}
	if err := checkServerSettings(&sf); err != nil {
		return err
	}
	if err := sf.bindEarly(); err != nil {
		return err
	}
	defer sf.closeBound()
	conn, err := openDatabaseURL(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stopWorkers := startVerifyWorkers(ctx, log, conn, vf)
	defer stopWorkers()
	return serveAPI(ctx, log, conn, os.Getenv("DATABASE_URL"), sf, "")
}

// startVerifyWorkers runs the in-process verification workers (none with
// --verify-workers 0) and returns a function that stops them and waits until they have
// (a job in progress is given back to the queue).
func startVerifyWorkers(ctx context.Context, log *slog.Logger, conn *sqlx.DB, vf verifyFlags) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		vf.run(ctx, log, conn)
	}()
	return func() {
		cancel()
		<-done
	}
}

// serveAPI runs the public and admin servers until ctx ends. devKey, when set, is shown
// pre-filled in the playground.
func serveAPI(ctx context.Context, log *slog.Logger, conn *sqlx.DB, primaryURL string, sf serverFlags, devKey string) error {
	// The APIs only read chain data: DATABASE_READ_URL may point them at a replica, while
	// keys and usage stay on the primary. Their reads have a pool of their own, whose
	// sessions stop any statement running past the request timeout.
	readURL, what := os.Getenv("DATABASE_READ_URL"), "DATABASE_READ_URL"
	if readURL == "" {
		readURL, what = primaryURL, "database"
	}
	readConn, err := openReadPool(ctx, readURL, sf.dbMaxConns, sf.timeout)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer readConn.Close()
	defer stackstart.Hold(sf.stackKiB)()
	store := db.NewStore(readConn)
	instrument(store)
	store.CacheNames(sf.namesTTL, metrics.CountNames)
	metrics.RegisterPool("api_reads", readConn.Stats)
	metrics.RegisterPool("primary", conn.Stats)
	metrics.SetReplicaLag(func(ctx context.Context) (float64, error) { return db.ReplicaLagSeconds(ctx, readConn) })
	metrics.SetVerifyQueueAge(func(ctx context.Context) (float64, error) { return db.VerifyQueueAgeSeconds(ctx, conn) })

	// Every replica signs cursors with the same secret: the flag's, or the database's.
	secret := []byte(sf.cursorSecret)
	if len(secret) == 0 {
		var err error
		if secret, err = cursor.LoadOrCreateSecret(ctx, conn); err != nil {
			return fmt.Errorf("cursor secret: %w", err)
		}
	}
	cursor.SetDefault(cursor.New(secret))

	keys := auth.NewStore(conn)
	failMode, err := auth.ParseFailMode(sf.limiterFail)
	if err != nil {
		return err
	}
	limiter, closeLimiter, err := auth.NewLimiter(os.Getenv("REDIS_URL"), failMode, log)
	if err != nil {
		return fmt.Errorf("rate limiter: %w", err)
	}
	defer closeLimiter()
	usage := auth.NewUsageRecorder(keys, 5*time.Second, log)
	defer usage.Close(context.WithoutCancel(ctx))

	// Subscriptions: notices come from the primary (a standby cannot LISTEN), rows from
	// the read pool.
	hub := live.NewHub(store, live.Options{Buffer: sf.subscriptionBuffer, Logger: log})
	metrics.SetSubscriptionCount(hub.Count)
	// The hub outlives the signal: were it to stop first, it would end every subscription
	// with a complete, which tells graphql-ws and graphql-sse not to come back. The server's
	// streams go away first (api.Config.Stopping), and the hub stops when serving returns.
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	hubDone := make(chan struct{})
	go func() {
		defer close(hubDone)
		if err := hub.Run(hubCtx, primaryURL); err != nil {
			log.Error("subscriptions are not fed", "err", err)
		}
	}()
	defer func() { stopHub(); <-hubDone }()

	limits := sf.graphQLLimits()
	var origins []string
	if sf.corsOrigins != "" {
		origins = strings.Split(sf.corsOrigins, ",")
	}
	writes := db.NewStore(conn) // the primary: verification jobs and metadata refreshes
	instrument(writes)
	handler := api.NewHandler(api.Config{
		Store:  store,
		Writes: writes,
		Auth: auth.New(auth.Options{Keys: keys, Limiter: limiter, Usage: usage, Logger: log, Operation: operationName,
			MaxInFlightPerKey: sf.inFlightKey}),
		MaxInFlight:        sf.inFlight,
		REST:               restHandler(store, writes),
		Limits:             limits,
		Introspection:      sf.introspection,
		Playground:         sf.playground,
		PlaygroundKey:      devKey,
		CORSOrigins:        origins,
		Ready:              api.ReadyCheck(store),
		Live:               hub,
		StreamWriteTimeout: sf.streamWriteTimeout,
		Stopping:           ctx,
		Logger:             log,
	})

	handler = withLogos(handler)
	if sf.idleRelease > 0 { // memory back to the system when the API is idle
		idlePercent := 100
		if os.Getenv("GOGC") != "" {
			idlePercent = -1 // the operator's
		}
		release := idlegc.New(sf.idleRelease, idlePercent, log)
		handler = release.Handler(handler)
		go release.Run(ctx)
	}

	// Slow clients cannot hold a connection: headers within 10 s, the whole request within
	// 30 s, the answer written within the request timeout plus 10 s, idle connections
	// closed after 2 minutes; headers are capped at 64 KiB.
	servers := []*http.Server{{Addr: sf.addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: sf.timeout + 10*time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10}}
	if sf.adminAddr != "" {
		servers = append(servers, adminServer(sf.adminAddr))
	}
	errs := make(chan error, len(servers))
	for _, srv := range servers {
		ln, err := sf.listen(srv.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", srv.Addr, err)
		}
		// Connections close with lingering, so that the answers Go's server writes just
		// before it hangs up (400, 431, 413) reach a client still sending (internal/linger).
		go func() { errs <- srv.Serve(linger.Listen(ln)) }()
	}
	log.Info("serving", "graphql", urlOf(sf.addr, "/graphql"), "playground", urlOf(sf.addr, "/"),
		"rest", urlOf(sf.addr, "/beta/"), "metrics", urlOf(sf.adminAddr, "/metrics"))

	select {
	case <-ctx.Done():
	case err := <-errs:
		return err
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, srv := range servers {
		_ = srv.Shutdown(shutdownCtx)
	}
	return nil
}

// operationName names a request for a plan's allowed_operations: "graphql", or the REST
// method and path ("GET /beta/tokens/0x49d3.../holders", matched by prefix with "GET /beta/*").
func operationName(r *http.Request) string {
	if r.URL.Path == "/graphql" {
		return "graphql"
	}
	return r.Method + " " + r.URL.Path
}

// adminServer serves /metrics; it belongs on an address only operators reach.
func adminServer(addr string) *http.Server {
	admin := http.NewServeMux()
	admin.Handle("GET /metrics", metrics.Handler())
	// Profiles (CPU, heap, allocations, goroutines) for finding where a request's time
	// goes: go tool pprof http://ADMIN/debug/pprof/profile?seconds=30
	admin.HandleFunc("GET /debug/pprof/", pprof.Index)
	admin.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	admin.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	admin.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	admin.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return &http.Server{Addr: addr, Handler: admin, ReadHeaderTimeout: 10 * time.Second}
}

// urlOf is the URL of path on a server listening on addr, for the log; "off" for a server
// that is not started (an empty address).
func urlOf(addr, path string) string {
	if addr == "" {
		return "off"
	}
	return "http://" + displayAddr(addr) + path
}

// displayAddr is addr as a client would name it: a bare port is on localhost.
func displayAddr(addr string) string {
	if strings.HasPrefix(addr, ":") {
		return "localhost" + addr
	}
	return addr
}

func runReplay(ctx context.Context, log *slog.Logger, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New("usage: starkgraph replay DIR --addr ADDR")
	}
	dir := args[0]
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:9545", "address to serve JSON-RPC on")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("replay %s: no such directory; give a fixture set such as ../shared/fixtures/starknet/sepolia-56377", dir)
	}
	if err := checkPortFree("--addr", *addr); err != nil {
		return err
	}
	return replay.Serve(ctx, dir, *addr, log)
}

// startLocalPostgres starts (or reuses) the private cluster of `dev` and returns the URL
// of its starkgraph database.
func startLocalPostgres(ctx context.Context, log *slog.Logger, dataDir string) (*pglocal.Cluster, string, error) {
	if _, err := pglocal.Find(); err != nil {
		return nil, "", err
	}
	cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dataDir, Logger: log})
	if err != nil {
		return nil, "", err
	}
	if err := cluster.CreateDatabase(ctx, "starkgraph"); err != nil {
		_ = cluster.Stop(context.WithoutCancel(ctx))
		return nil, "", err
	}
	return cluster, cluster.URL("starkgraph"), nil
}

func runDev(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	var sf serverFlags
	sf.register(fs)
	dataDir := fs.String("data-dir", envOr("STARKGRAPH_DATA_DIR", ".starkgraph"), "where the private PostgreSQL cluster lives")
	devKey := fs.String("dev-key", os.Getenv("STARKGRAPH_DEV_KEY"), "value of the development API key (default: a new random key)")
	var chain chainFlags
	chain.register(fs)
	chain.labels.register(fs)
	var vf verifyFlags
	vf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := vf.checkSandbox(ctx); err != nil {
		return err
	}
	// Everything that can be checked is, before PostgreSQL starts.
	if err := checkServerSettings(&sf); err != nil {
		return err
	}
	if err := chain.check(ctx); err != nil {
		return err
	}
	if *devKey != "" {
		if err := auth.ValidateKeyText(*devKey); err != nil {
			return fmt.Errorf("--dev-key (or STARKGRAPH_DEV_KEY): %v; choose another value", err)
		}
	}
	if os.Getenv("DATABASE_URL") == "" {
		if err := checkDataDir(*dataDir); err != nil {
			return err
		}
		if _, err := pglocal.Find(); err != nil {
			return err
		}
	}
	if err := sf.bindEarly(); err != nil {
		return err
	}
	defer sf.closeBound()
	// The labels load beside the indexer, the one writer; API replicas only read them.
	if chain.rpc == "" {
		chain.labels.extra = simLabels(chain.sim, sf.addr)
	}

	url, banner := os.Getenv("DATABASE_URL"), ""
	if url == "" {
		cluster, localURL, err := startLocalPostgres(ctx, log, filepath.Join(*dataDir, "pgdata"))
		if err != nil {
			return err
		}
		// Stop the cluster however dev ends; a later start reuses its data.
		defer func() {
			if err := cluster.Stop(context.WithoutCancel(ctx)); err != nil {
				log.Warn("stopping PostgreSQL", "err", err)
			}
		}()
		url = localURL
		// The private cluster trusts local connections: its URL holds no secret to hide.
		banner = fmt.Sprintf("  database:   DATABASE_URL='%s' (for serve, keys, index)\n", url)
	}
	conn, err := openMigrated(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close()
	key, err := auth.DevKey(ctx, auth.NewStore(conn), *devKey)
	if err != nil {
		return fmt.Errorf("development key: %w", err)
	}
	fmt.Fprintf(os.Stderr, "\n  starkgraph dev\n  playground: http://%s/\n  GraphQL:    http://%s/graphql\n  REST:       http://%s/beta/\n  API key:    %s\n%s\n",
		displayAddr(sf.addr), displayAddr(sf.addr), displayAddr(sf.addr), key, banner)

	followErr := make(chan error, 1)
	go func() { followErr <- followChain(ctx, log, conn, chain) }()
	stopWorkers := startVerifyWorkers(ctx, log, conn, vf)
	defer stopWorkers()
	serveErr := serveAPI(ctx, log, conn, url, sf, key)
	if serveErr != nil {
		return serveErr
	}
	select {
	case err := <-followErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	case <-time.After(5 * time.Second):
	}
	return nil
}

func runIndex(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	rpcURL := fs.String("rpc", os.Getenv("STARKNET_RPC_URL"), "JSON-RPC URL of the node, e.g. http://localhost:9545/rpc/v0_8")
	from := fs.Int64("from-block", 0, "first block to index into an empty database")
	stopAt := fs.Int64("stop-at", -1, "exit 0 once this block is written (-1: follow forever)")
	maxReorg := fs.Int("max-reorg-depth", 64, "deepest reorg to follow")
	concurrency := fs.Int("concurrency", 4, "block ranges fetched at once")
	batch := fs.Int("batch-size", 20, "blocks per JSON-RPC batch and per SQL transaction while catching up")
	bulkFrom := fs.Int64("bulk-load-min-blocks", 1000, "catch up at least this many blocks (and at least as many as are indexed) as a bulk load: secondary indexes and foreign keys rebuilt once at the end (-1: never)")
	adminAddr := fs.String("admin-addr", envOr("STARKGRAPH_INDEX_ADMIN_ADDR", "127.0.0.1:9091"), "admin address for the indexer's /metrics (empty: off)")
	var l1f l1Flags
	l1f.register(fs)
	var figures indexer.FiguresConfig
	registerFigureFlags(fs, &figures)
	var nftMeta nftMetaFlags
	nftMeta.register(fs)
	var lf labelFlags
	lf.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rpcURL == "" {
		return errors.New("--rpc URL is required (or STARKNET_RPC_URL)")
	}
	if _, err := databaseURL(); err != nil {
		return err
	}
	if err := l1f.check(); err != nil {
		return err
	}
	// The node may start after the indexer: Run waits for it (retrying with backoff, each
	// failure logged and indexer_node_up at 0 on /metrics), so only the URL's form is checked.
	if err := checkHTTPURL("--rpc", *rpcURL); err != nil {
		return err
	}
	var adminLn net.Listener
	if *adminAddr != "" {
		ln, err := listenChecked("--admin-addr", "STARKGRAPH_INDEX_ADMIN_ADDR", *adminAddr)
		if err != nil {
			return err
		}
		adminLn = ln
		defer adminLn.Close()
	}
	conn, err := openDatabaseURLMigrated(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	ix, err := indexer.New(indexer.Config{
		RPCURL: *rpcURL, DB: conn, FromBlock: *from, StopAt: *stopAt, MaxReorgDepth: *maxReorg,
		Concurrency: *concurrency, BatchSize: *batch, BulkLoadMinBlocks: *bulkFrom, Logger: log, Figures: figures,
		Progress: term.IsTerminal(int(os.Stderr.Fd())),
	})
	if err != nil {
		return err
	}
	if err := l1f.start(ctx, log, conn); err != nil {
		return err
	}
	if *stopAt < 0 {
		lf.start(ctx, log, conn)
		go analytics.Run(ctx, conn, analyticsInterval, log)
		nftMeta.start(ctx, log, conn, *rpcURL)
	}
	if adminLn != nil {
		admin := adminServer(*adminAddr)
		go func() { _ = admin.Serve(adminLn) }()
		defer admin.Close()
	}
	if err := ix.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func runSim(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:9545", "address to serve JSON-RPC on")
	cfg := sim.Config{Seed: 1}
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkPortFree("--addr", *addr); err != nil {
		return err
	}
	return sim.Serve(ctx, cfg, *addr, log)
}

// restHandler builds the /beta interface over the same resolvers as GraphQL.
