// Package rest serves the `/beta` REST interface of the public explorer API over the same
// resolvers as GraphQL: each operation parses and validates its parameters, calls resolver
// methods, and maps the models they return to the exact JSON shapes of the reference
// (../shared/spec/voyager-beta.md), so that existing clients only change their base URL.
//
// The route table (routes.go) is the single description of the interface: the handler is
// built from it and so is the OpenAPI document served at /beta/openapi.json (openapi.go,
// from the same parameter declarations and the Go types of the responses).
//
// Paging: page p of size ps is the resolver connection `first=ps` after
// resolvers.OffsetCursor((p-1)*ps), and lastPage comes from its totalCount. Cursor-style
// lists hand out signed cursors (cursor.go) that carry the connection's own cursor for
// `next` and an offset for `prev`. Finalized data (L1-accepted blocks and their
// transactions) is served with a long Cache-Control; every 200 has an ETag.
package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"

	"github.com/starkgraph/starkgraph/compressmemo"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/reqid"
	"github.com/starkgraph/starkgraph/resolvers"
)

// Options configure the handler.
type Options struct {
	// Logger receives server faults (never client mistakes); slog.Default when nil.
	Logger *slog.Logger
	// Answers, when set, wraps the operations inside the compression: the answer cache
	// (answercache.Cache.Handler), which then keeps plain answers that are compressed
	// on the way out (a kept body's compressed bytes are remembered too, compressmemo).
	Answers func(http.Handler) http.Handler
}

// server holds what every operation needs.
type server struct {
	res    *resolvers.Resolver
	cursor cursorCodec
	log    *slog.Logger
}

// handlerFunc is an operation: it gets its validated arguments and returns the response
// body (wrapped in final when it is about finalized data) or an error (apiError for 4xx).
type handlerFunc func(ctx context.Context, s *server, a *args, r *http.Request) (any, error)

// NewHandler serves every operation under /beta/. Authentication (x-api-key) and the
// per-request dataloaders are middleware the caller wraps around it.
func NewHandler(res *resolvers.Resolver, opts Options) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &server{res: res, cursor: cursorCodec{}, log: log}

	mux := http.NewServeMux()
	doc := openAPIDocument()
	for _, rt := range routeTable() {
		if err := checkRoute(rt); err != nil {
			panic("rest: " + err.Error()) // a declaration the tests would have caught
		}
		mux.Handle(rt.method+" "+rt.path, s.serve(rt))
	}
	mux.HandleFunc("GET /beta/openapi.json", func(w http.ResponseWriter, r *http.Request) {
		metrics.SetRoute(r.Context(), "GET /beta/openapi.json")
		writeJSON(w, r, http.StatusOK, doc)
	})
	fallback := func(w http.ResponseWriter, r *http.Request) { s.noRoute(mux, w, r) }
	mux.HandleFunc("/beta/", fallback)
	mux.HandleFunc("/beta", fallback)

	// A body sent again (the same page between two blocks) reuses its compressed bytes.
	memo := compressmemo.New(func(r compressmemo.Result) { metrics.CompressedBodies.WithLabelValues(r.String()).Inc() })
	gz, err := gzhttp.NewWrapper(gzhttp.MinSize(512), gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.Implementation(memo.Gzip()), gzhttp.ZstdImplementation(memo.Zstd()))
	if err != nil {
		panic(err) // only on invalid constant options
	}
	var h http.Handler = recoverFaults(log, mux)
	if opts.Answers != nil {
		h = opts.Answers(h)
	}
	return gz(h)
}

// serve adapts an operation to http.Handler: parse, run, answer.
func (s *server) serve(rt route) http.Handler {
	pattern := rt.method + " " + rt.path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		metrics.SetRoute(r.Context(), pattern)
		// Fresh dataloaders per request. A handler loads one key at a time, so they run each
		// load at once; a list reads its page's links with the resolvers' Load* functions.
		r = r.WithContext(loaders.WithSequential(r.Context(), s.res.Store))
		a, err := parseArgs(r, rt.params)
		if err == nil {
			var body any
			body, err = rt.handle(r.Context(), s, a, r)
			if err == nil {
				writeJSON(w, r, http.StatusOK, body)
				return
			}
		}
		status, msg := statusOf(err)
		if status >= 500 {
			if errors.Is(err, context.Canceled) {
				return // the client went away
			}
			status, msg = s.fault(w, r, rt.opID, err)
		}
		writeError(w, r, status, msg)
	})
}

// fault answers an error that is not the client's: 503 with Retry-After when PostgreSQL
// is down or the request ran out of time (its SQL is cancelled with it), else a 500 that
// shows only the request id, under which the cause is logged.
func (s *server) fault(w http.ResponseWriter, r *http.Request, op string, err error) (int, string) {
	id := reqid.From(r.Context())
	if f, ok := db.RetryableFault(r.Context(), err); ok {
		s.log.WarnContext(r.Context(), "rest: retryable fault", "code", f.Code, "op", op, "request_id", id, "err", err)
		w.Header().Set("Retry-After", f.RetryAfter)
		return http.StatusServiceUnavailable, f.Message
	}
	s.log.ErrorContext(r.Context(), "rest: operation failed", "op", op, "request_id", id, "err", err)
	return http.StatusInternalServerError, "internal error (request id " + id + ")"
}

// noRoute answers a path under /beta that no operation serves: 405 when the path exists
// for another method, 404 otherwise.
func (s *server) noRoute(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "/beta/" && pattern != "/beta" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, r, http.StatusMethodNotAllowed,
			fmt.Sprintf("method %s is not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allowed, " or ")))
		return
	}
	writeError(w, r, http.StatusNotFound, "no operation at "+short(r.URL.Path))
}

// recoverFaults turns a panic into a logged 500 so that one bad request never takes the
// process down.
func recoverFaults(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				id := reqid.From(r.Context())
				log.ErrorContext(r.Context(), "rest: panic", "path", r.URL.Path, "request_id", id, "panic", v, "stack", string(debug.Stack()))
				writeError(w, r, http.StatusInternalServerError, "internal error (request id "+id+")")
			}
		}()
		next.ServeHTTP(w, r)
	})
}
