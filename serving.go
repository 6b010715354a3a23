// Serving the APIs: the public server (GraphQL, /beta, the playground, health) and the
// admin server (/metrics, profiles) of serve, dev and bench.

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/cursor"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/internal/buildinfo"
	"github.com/starkgraph/starkgraph/internal/idlegc"
	"github.com/starkgraph/starkgraph/internal/linger"
	"github.com/starkgraph/starkgraph/internal/stackstart"
	"github.com/starkgraph/starkgraph/live"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/webhooks"
)

// serveAPI runs the public and admin servers until ctx ends. devKey, when set, is shown
// pre-filled in the playground.
func serveAPI(ctx context.Context, log *slog.Logger, conn *sqlx.DB, primaryURL string, sf serverFlags, devKey string) error {
	// The APIs only read chain data: DATABASE_READ_URL may point them at a replica, while
	// keys and usage stay on the primary. Their reads have a pool of their own, whose
	// sessions stop any statement running past the request timeout.
	readURL, what := sf.readURL, "DATABASE_READ_URL"
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
	limiter, closeLimiter, err := auth.NewLimiter(sf.redisURL, failMode, log)
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

	// Answers kept until the data changes: the version follows the primary's notices, and
	// moves once the database the API reads has the change.
	var answers *answercache.Cache
	if sf.answerCacheMB > 0 {
		follower := answercache.NewFollower(conn, readConn, log)
		// A name another process wrote (a label reload, the indexer's .stark names) is read
		// again with the new version, not kept from the names cache for its TTL.
		follower.OnAdvance = db.ForgetNames
		answers = answercache.New(follower.Current, answercache.Options{MaxBytes: int64(sf.answerCacheMB) << 20})
		go func() {
			follower.Run(ctx, primaryURL)
		}()
	}
	// Webhooks: the delivery loop follows the primary's chain notices and writes there.
	hookSettings := resolvers.WebhookSettings{URLs: sf.webhookURLs()}
	hooksDone := make(chan struct{})
	if sf.webhooks {
		d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: writes, Sender: webhooks.NewSender(sf.webhookURLs()),
			Workers: sf.webhookWorkers, PerHost: sf.webhookPerHost, Logger: log, Meter: auth.NewDeliveryMeter(keys, limiter, usage, log),
			Backoff: func(n int) time.Duration { return webhooks.BackoffUpTo(n, sf.webhookRetryMax) }})
		hookSettings.Wake = d.Wake
		go func() { defer close(hooksDone); d.Run(ctx, primaryURL) }()
	} else {
		close(hooksDone)
	}
	defer func() { <-hooksDone }() // attempts in flight end (AttemptTimeout at most)
	handler := api.NewHandler(api.Config{
		Store:  store,
		Writes: writes,
		Auth: auth.New(auth.Options{Keys: keys, Limiter: limiter, Usage: usage, Logger: log, Operation: operationName,
			MaxInFlightPerKey: sf.inFlightKey}),
		MaxInFlight:        sf.inFlight,
		REST:               restHandler(store, writes, answers),
		Answers:            answers,
		Limits:             limits,
		Introspection:      sf.introspection,
		Playground:         sf.playground,
		PlaygroundKey:      devKey,
		CORSOrigins:        origins,
		Ready:              api.ReadyCheck(store),
		Live:               hub,
		Webhooks:           hookSettings,
		StreamWriteTimeout: sf.streamWriteTimeout,
		Stopping:           ctx,
		Logger:             log,
	})

	handler = withVersion(withLogos(handler))
	if sf.idleRelease > 0 { // memory back to the system when the API is idle
		idlePercent := 100
		if sf.operatorGOGC {
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
	return &http.Server{Addr: addr, Handler: withVersion(admin), ReadHeaderTimeout: 10 * time.Second}
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

// versionHeader names the release that answered, on every response of both servers. It is a
// header rather than a field of /beta/api-status, whose shape the reference keeps
// (../shared/spec/voyager-beta.md: {apis, timestamp}).
const versionHeader = "x-starkgraph-version"

// withVersion sets versionHeader on every response.
func withVersion(next http.Handler) http.Handler {
	v := buildinfo.Version()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(versionHeader, v)
		next.ServeHTTP(w, r)
	})
}
