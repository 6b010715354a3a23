package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/rs/cors"

	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/api/playground"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/live"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/reqid"
	"github.com/starkgraph/starkgraph/resolvers"
)

// Config assembles the public HTTP handler.
type Config struct {
	Store *db.Store
	// Writes is the primary when Store reads a replica (see resolvers.Resolver).
	Writes *db.Store
	// Auth guards /graphql and /beta; nil serves them without keys (tests of other parts).
	Auth *auth.Auth
	// REST is the /beta handler, when built.
	REST http.Handler
	// Limits of GraphQL documents.
	Limits GraphQLLimits
	// Introspection and Playground switch the schema introspection and the GraphiQL page.
	Introspection bool
	Playground    bool
	// PlaygroundKey, when set, is pre-filled as the x-api-key header of the playground
	// (the development key of `dev`).
	PlaygroundKey string
	// CORSOrigins lists the origins browsers may call from; empty allows any origin.
	CORSOrigins []string
	// Live feeds GraphQL subscriptions; nil serves none.
	Live *live.Hub
	// Webhooks are the operator's settings of webhooks (URLs allowed; the delivery loop to wake).
	Webhooks resolvers.WebhookSettings
	// StreamWriteTimeout bounds each write to a subscriber's connection (default
	// DefaultStreamWriteTimeout): a client that stops reading is disconnected after it.
	StreamWriteTimeout time.Duration
	// Stopping is done when the server begins to shut down: its streams are then told to
	// come back (WebSockets closed as 1012 Service Restart). Optional.
	Stopping context.Context
	// Ready reports whether the database is reachable and migrated (for /readyz).
	Ready func(context.Context) error
	// Answers keeps GraphQL answers between two data versions (the REST handler takes it
	// through rest.Options.Answers); nil keeps none.
	Answers *answercache.Cache
	// MaxInFlight caps the requests running at once in this process (503 with
	// Retry-After above it; health checks are not counted); 0 means no cap.
	MaxInFlight int
	Logger      *slog.Logger
}

// NewHandler returns the handler of the public address.
func NewHandler(cfg Config) http.Handler {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	res := &resolvers.Resolver{Store: cfg.Store, Writes: cfg.Writes, Live: cfg.Live, Webhooks: cfg.Webhooks}
	var streams []graphql.Transport
	if cfg.Live != nil {
		streams = streamTransports(cfg.Auth, cfg.CORSOrigins, log)
	}
	keyed := func(h http.Handler) http.Handler {
		if cfg.Auth != nil {
			h = cfg.Auth.Middleware(h)
		}
		return h
	}
	// GraphQL's WebSockets may bring their key in connection_init instead, when the server
	// serves subscriptions (whose transport then checks it).
	keyedGraphQL := keyed
	if cfg.Auth != nil && cfg.Live != nil {
		keyedGraphQL = cfg.Auth.MiddlewareWithStreams
	}

	mux := http.NewServeMux()
	// The REST handler installs the request's loaders itself; GraphQL per operation (NewGraphQL).
	// One deadline per request, outside the key check, so that the key lookup is bounded too.
	gql := NewGraphQL(res, cfg.Limits, cfg.Introspection, log, streams...)
	if cfg.Answers != nil { // after the key check and its rate limit: every request counts
		gql = cfg.Answers.Handler(gql)
	}
	mux.Handle("/graphql", streamRequests(cfg.StreamWriteTimeout, cfg.Stopping, withDeadline(cfg.Limits.Timeout, keyedGraphQL(gql))))
	if cfg.REST != nil {
		mux.Handle("/beta/", withDeadline(cfg.Limits.Timeout, keyed(cfg.REST)))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if cfg.Ready != nil {
			if err := cfg.Ready(ctx); err != nil {
				reason := "the database does not answer"
				if errors.Is(err, errPending) {
					reason = err.Error()
				}
				w.Header().Set("Retry-After", "5")
				writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": reason})
				return
			}
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	if cfg.Playground {
		pg := playground.Config{Title: "starkgraph", Endpoint: "/graphql", Tabs: playgroundTabs,
			Headers: map[string]string{"x-api-key": "<your API key>"}}
		if cfg.PlaygroundKey != "" {
			pg.Headers = map[string]string{"x-api-key": cfg.PlaygroundKey}
			pg.FetcherHeaders = pg.Headers
		}
		mux.Handle("GET /{$}", playground.Page(pg))
		mux.Handle("GET "+playground.AssetsPath, playground.Assets())
	}

	c := cors.New(cors.Options{
		AllowedOrigins: cfg.CORSOrigins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodOptions},
		AllowedHeaders: []string{"Content-Type", "X-Api-Key", "Authorization"},
		ExposedHeaders: []string{auth.HeaderLimit, auth.HeaderRemaining, auth.HeaderReset, auth.HeaderRetryAfter, "ETag"},
		MaxAge:         600,
	})
	return metrics.Middleware(metrics.MuxRoute(mux), reqid.Middleware(drainBodies(capInFlight(cfg.MaxInFlight, c.Handler(mux)))))
}

// withDeadline cancels a request, and the SQL it runs, after d (--request-timeout); the
// APIs answer 503 when their statements were cut short.
func withDeadline(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		d = DefaultGraphQLLimits.Timeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth.IsStream(r) { // lives as long as its subscriptions; each read has its own
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// capInFlight refuses requests beyond max running at once (0: no cap) with 503 and
// Retry-After, so a flood queues nothing; the health checks always pass. A request it lets
// in while no more run than there are cores is marked loaders.WithSpareCores.
func capInFlight(max int, next http.Handler) http.Handler {
	var running atomic.Int64
	cores := int64(runtime.GOMAXPROCS(0))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || auth.IsStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		n := running.Add(1)
		if max > 0 && n > int64(max) {
			running.Add(-1) // a refused request holds no slot while its 503 is written
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the server is busy; retry in a second"})
			return
		}
		defer running.Add(-1)
		if n <= cores {
			r = r.WithContext(loaders.WithSpareCores(r.Context()))
		}
		next.ServeHTTP(w, r)
	})
}

// ReadyCheck is the /readyz probe: the database answers and no migration is pending.
func ReadyCheck(store *db.Store) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := store.DB().PingContext(ctx); err != nil {
			return err
		}
		pending, err := db.MigrationsPending(ctx, store.DB().DB)
		if err != nil {
			return err
		}
		if pending {
			return errPending
		}
		return nil
	}
}

var errPending = errors.New("migrations are pending: run `starkgraph migrate`")

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
