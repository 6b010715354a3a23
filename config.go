// Configuration: every flag of a command and the environment variable that sets its default
// sit together in one register method, beside the variables read without a flag. Each command
// has one configuration struct (serveConfig, devConfig, indexConfig, ...), made of the parts
// below that several commands share. docs/configuration.md lists them all;
// TestConfigurationPageMatchesTheCode holds it to the code, finding the variables through
// the helpers here (and os.Getenv): read the environment only through them.

package main

import (
	"flag"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/webhooks"
)

// envOr is the variable's value when it is set (even empty), else fallback.
func envOr(name, fallback string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return fallback
}

// envInt is the variable's value when it is an integer, else fallback.
func envInt(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return fallback
}

// envTrue is true when the variable is "true", or when it is unset and fallback is.
func envTrue(name string, fallback bool) bool {
	return envOr(name, strconv.FormatBool(fallback)) == "true"
}

// serverFlags are the settings of every command that serves the APIs (dev, serve, bench).
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
	answerCacheMB int
	// webhooks
	webhooks             bool
	webhookAllowHTTP     bool
	webhookAllowLoopback bool
	webhookWorkers       int
	webhookPerHost       int
	webhookRetryMax      time.Duration
	// subscriptions
	subscriptionBuffer int
	streamWriteTimeout time.Duration
	// environment only
	readURL      string // DATABASE_READ_URL: a replica for the API's chain reads (empty: the primary)
	redisURL     string // REDIS_URL: shared rate-limit counters (empty: in memory)
	operatorGOGC bool   // GOGC is set: the idle release leaves the collector's percent alone
	// bound holds the listeners bindEarly made, by address, until serveAPI takes them.
	bound map[string]net.Listener
}

func (f *serverFlags) register(fs *flag.FlagSet) {
	f.readURL = os.Getenv("DATABASE_READ_URL")
	f.redisURL = os.Getenv("REDIS_URL")
	f.operatorGOGC = os.Getenv("GOGC") != ""
	fs.StringVar(&f.addr, "addr", envOr("STARKGRAPH_ADDR", ":8080"), "public address: /graphql, /beta, the playground, /healthz, /readyz")
	fs.StringVar(&f.adminAddr, "admin-addr", envOr("STARKGRAPH_ADMIN_ADDR", "127.0.0.1:9090"), "admin address for /metrics (empty: off)")
	fs.BoolVar(&f.introspection, "introspection", envTrue("STARKGRAPH_INTROSPECTION", true), "allow GraphQL introspection")
	fs.BoolVar(&f.playground, "playground", envTrue("STARKGRAPH_PLAYGROUND", true), "serve the GraphiQL playground at /")
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
	fs.IntVar(&f.answerCacheMB, "answer-cache-mb", envInt("STARKGRAPH_ANSWER_CACHE_MB", 256), "keep the APIs' answers in memory until the data they show changes, within this many MiB (answercache; 0: off)")
	fs.BoolVar(&f.webhooks, "webhooks", envTrue("STARKGRAPH_WEBHOOKS", true), "run the webhooks' delivery loop in this process (docs/webhooks.md; the API's webhook mutations work either way)")
	fs.BoolVar(&f.webhookAllowHTTP, "webhook-allow-http", envTrue("STARKGRAPH_WEBHOOK_ALLOW_HTTP", false), "accept http:// webhook URLs (development only: messages travel in clear)")
	fs.BoolVar(&f.webhookAllowLoopback, "webhook-allow-loopback", envTrue("STARKGRAPH_WEBHOOK_ALLOW_LOOPBACK", false), "let webhooks reach 127.0.0.0/8 and ::1 (development and tests only; private and link-local addresses stay refused)")
	fs.IntVar(&f.webhookWorkers, "webhook-workers", 16, "webhooks delivered to at once by this process (each has one message in flight, in order)")
	fs.IntVar(&f.webhookPerHost, "webhook-per-host", 2, "webhooks of one receiver host delivered to at once, so that a slow receiver holds back only its own")
	fs.DurationVar(&f.webhookRetryMax, "webhook-retry-max", webhooks.BackoffCap, "longest wait between two attempts of a webhook message (the schedule's ceiling; lower it to retry sooner, at the cost of reaching the 36 attempts that disable a webhook sooner)")
	fs.DurationVar(&f.namesTTL, "names-cache-ttl", db.DefaultNamesTTL, "keep the names of addresses and classes, and their absence, this long in memory (docs/names.md; 0: read them at every request)")
}

// webhookURLs are the URLs the flags let webhooks have.
func (f *serverFlags) webhookURLs() webhooks.Options {
	return webhooks.Options{AllowHTTP: f.webhookAllowHTTP, AllowLoopback: f.webhookAllowLoopback}
}

// graphQLLimits are the flags' limits.
func (f *serverFlags) graphQLLimits() api.GraphQLLimits {
	return api.GraphQLLimits{
		MaxComplexity: f.maxComplexity, MaxDepth: f.maxDepth, MaxTokens: f.maxTokens,
		MaxFields: f.maxFields, MaxAliases: f.maxAliases, MaxFragments: f.maxFragments, MaxDirectives: f.maxDirectives,
		MaxBody: f.maxBody, Timeout: f.timeout,
	}
}

// defaultDBConns is the API read pool's size unless --db-max-conns says: 4 connections per
// core of this process, at least 8. More sessions than the cores can serve only queue in
// PostgreSQL's scheduler instead of the pool: on the 2-core bench machine, 20 clients
// through 20 connections answered the busiest sender's transactions at p99 44-48 ms, through
// 8 at 34-45 ms with as many requests a second or more (docs/performance.md, "The read pool").
func defaultDBConns() int { return max(8, 4*runtime.GOMAXPROCS(0)) }
