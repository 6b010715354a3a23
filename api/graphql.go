// Package api assembles the HTTP surface: the GraphQL endpoint with its cost controls, the
// playground, the /beta REST handler, health checks, CORS and the API-key middleware.
package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/reqid"
	"github.com/starkgraph/starkgraph/resolvers"
)

// GraphQLLimits bound what one document may ask for. Every limit is checked before any
// resolver runs; each is a flag of serve and dev (see docs/operations.md, "Operations and limits").
type GraphQLLimits struct {
	// MaxComplexity is the highest cost a document may have: each field costs 1, and a
	// connection multiplies the cost of its selection by its page size.
	MaxComplexity int
	// MaxDepth is the deepest nesting of selections, fragments included.
	MaxDepth int
	// MaxTokens bounds the lexer: a document with more tokens is refused unparsed.
	MaxTokens int
	// MaxFields, MaxAliases, MaxFragments and MaxDirectives bound what a document writes
	// (fragments not expanded).
	MaxFields, MaxAliases, MaxFragments, MaxDirectives int
	// MaxBody is the largest request body, in bytes (413 above it).
	MaxBody int64
	// Timeout cancels a request that still runs after it.
	Timeout time.Duration
}

// DefaultGraphQLLimits allow a page of 25 tokens with 10 holders each, their contracts
// and classes (cost ~1,300), and GraphiQL's introspection, with room to spare.
var DefaultGraphQLLimits = GraphQLLimits{
	MaxComplexity: 5000, MaxDepth: 12, MaxTokens: 5000,
	MaxFields: 1000, MaxAliases: 100, MaxFragments: 100, MaxDirectives: 50,
	MaxBody: 1 << 20, Timeout: 10 * time.Second,
}

// NewGraphQL returns the /graphql handler over res; streams are the subscription
// transports (none: subscriptions are not served).
func NewGraphQL(res *resolvers.Resolver, limits GraphQLLimits, introspection bool, log *slog.Logger, streams ...graphql.Transport) http.Handler {
	cfg := graph.Config{Resolvers: res, Directives: graph.DirectiveRoot{Domain: resolvers.Domain}}
	setConnectionComplexity(&cfg.Complexity)
	srv := handler.New(graph.NewExecutableSchema(cfg))
	for _, t := range streams { // before POST, which would take an SSE request
		srv.AddTransport(t)
	}
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(postTransport{})
	srv.SetQueryCache(smallOnly[*ast.QueryDocument]{Cache: lru.New[*ast.QueryDocument](1000), max: maxCachedDocument,
		size: func(query string, _ *ast.QueryDocument) int { return len(query) }})
	srv.SetParserTokenLimit(limits.MaxTokens)
	if introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: smallOnly[string]{Cache: lru.New[string](1000), max: maxCachedDocument,
		size: func(_ string, query string) int { return len(query) }}})
	srv.Use(textInputs{passed: lru.New[struct{}](1000)}) // first: the limits' walk reads the arguments' values
	srv.Use(&documentLimits{limits: limits, known: lru.New[documentFacts](1000)})
	srv.AroundOperations(chargeComplexity)
	srv.AroundOperations(timeOperation)
	srv.AroundOperations(openSubscription)
	srv.AroundOperations(withLoaders(res.Store))
	srv.AroundResponses(subscriptionMessages)
	srv.AroundResponses(subscriptionLoaders(res.Store))
	srv.AroundRootFields(timeRootField)
	srv.SetErrorPresenter(presentError(log))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		return internalError(ctx, log, fmt.Errorf("panic: %v", v), graphql.GetPath(ctx))
	})
	if limits.MaxBody <= 0 {
		limits.MaxBody = DefaultGraphQLLimits.MaxBody
	}
	return checkedRequest(limits.MaxBody, srv)
}

// checkedRequest checks a POST body before gqlgen reads it: at most maxBody bytes (413), a
// JSON object whose members have the types GraphQL-over-HTTP gives them (400 otherwise, in
// words a client can act on rather than the decoder's Go types). It also lets errors met
// during execution turn the answer into a 503 (statusWriter). The request's deadline is
// set by the caller (api.NewHandler).
func checkedRequest(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if r.Method == http.MethodPost {
			var body []byte
			var err error = &http.MaxBytesError{Limit: maxBody}
			if r.ContentLength <= maxBody { // a body announced larger is refused unread
				body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
			}
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeGraphQLError(w, http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE",
					fmt.Sprintf("the request body is larger than %d bytes (--max-body)", maxBody))
				return
			}
			if err != nil {
				writeGraphQLError(w, http.StatusBadRequest, "BAD_REQUEST", "the request body could not be read")
				return
			}
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
				if msg := checkJSONBody(body); msg != "" {
					writeGraphQLError(w, http.StatusBadRequest, "BAD_REQUEST", msg)
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		mark := &unavailableMark{}
		ctx = context.WithValue(ctx, unavailableKey{}, mark)
		next.ServeHTTP(&statusWriter{ResponseWriter: w, ctx: ctx, mark: mark}, r.WithContext(ctx))
	})
}

// checkJSONBody says what is wrong with a GraphQL-over-HTTP JSON body, or "".
func checkJSONBody(body []byte) string {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return "the request body is empty; send a JSON object with a query"
	}
	if trimmed[0] == '[' {
		return "batched requests are not supported; send one document per request"
	}
	var members map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(body, &members) != nil {
		return `the request body must be a JSON object such as {"query": "{ blocks { totalCount } }"}`
	}
	// Each member's JSON kind, by its first byte: '"' a string, '{' an object.
	for _, m := range []struct {
		name     string
		first    byte
		nullable bool
		want     string
	}{
		{"query", '"', false, "a string"},
		{"operationName", '"', true, "a string or null"},
		{"variables", '{', true, "an object or null"},
		{"extensions", '{', true, "an object or null"},
	} {
		raw, ok := members[m.name]
		if !ok {
			continue
		}
		v := bytes.TrimSpace(raw)
		if m.nullable && bytes.Equal(v, []byte("null")) {
			continue
		}
		if len(v) == 0 || v[0] != m.first {
			return m.name + " must be " + m.want
		}
	}
	return ""
}

func writeGraphQLError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"message": msg, "extensions": map[string]any{"code": code}}}})
}

// timeRootField observes each root field's time, selection included, by field name.
func timeRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	start := time.Now()
	out := next(ctx)
	if fc := graphql.GetRootFieldContext(ctx); fc != nil {
		observer(&rootFieldObservers, metrics.GraphQLFieldDuration, fc.Field.Name).Observe(time.Since(start).Seconds())
	}
	return out
}

// The histograms of root fields and operations, by label: looking a label's histogram up
// in its vector hashes the label under a lock on every request. Both label sets are
// bounded (the schema's root fields; metrics.OperationLabel's names).
var rootFieldObservers, operationObservers sync.Map

func observer(seen *sync.Map, vec *prometheus.HistogramVec, label string) prometheus.Observer {
	if o, ok := seen.Load(label); ok {
		return o.(prometheus.Observer)
	}
	o := vec.WithLabelValues(label)
	seen.Store(label, o)
	return o
}

// timeOperation observes each operation's time, from its start to its response, by
// operation name.
func timeOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	start := time.Now()
	respond := next(ctx)
	observed := false
	return func(ctx context.Context) *graphql.Response {
		resp := respond(ctx)
		if !observed {
			observed = true
			oc := graphql.GetOperationContext(ctx)
			name := oc.OperationName
			if oc.Operation != nil { // the document's own name, also when the request gave none
				name = oc.Operation.Name
			}
			label := metrics.OperationLabel(name)
			observer(&operationObservers, metrics.GraphQLOperationDuration, label).Observe(time.Since(start).Seconds())
		}
		return resp
	}
}

// chargeComplexity makes a document's cost count against the key's rate: one request of
// cost 500 takes what 500 requests of cost 1 would.
func chargeComplexity(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if stats := extension.GetComplexityStats(ctx); stats != nil {
		if err := auth.Charge(ctx, stats.Complexity); err != nil {
			return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{{
				Message:    "Limit Exceeded",
				Extensions: map[string]any{"code": "RATE_LIMITED"},
			}}})
		}
	}
	return next(ctx)
}

// presentError gives every error a code in extensions. Failures of the database are
// logged with the request id: PostgreSQL down or a request out of time is UNAVAILABLE or
// TIMEOUT and turns the answer into a 503 with Retry-After; anything else unexpected is
// "internal error" with only the request id. Everything else is about the request and
// keeps its message.
func presentError(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		var gqlErr *gqlerror.Error
		if !errors.As(err, &gqlErr) {
			return internalError(ctx, log, err, graphql.GetPath(ctx))
		}
		// gqlgen wraps resolver and argument errors in a gqlerror whose Err is the original.
		if gqlErr.Err != nil {
			var inner *gqlerror.Error
			var storeErr *db.StoreError
			if errors.As(gqlErr.Err, &inner) && inner != gqlErr {
				out := *inner
				out.Path, out.Locations = gqlErr.Path, gqlErr.Locations
				return &out
			}
			if f, ok := db.RetryableFault(ctx, gqlErr.Err); ok {
				if f == db.UnavailableFault {
					log.Warn("graphql: database unavailable", "request_id", reqid.From(ctx), "err", gqlErr.Err)
				}
				return faultError(ctx, f, gqlErr.Path)
			}
			if errors.As(gqlErr.Err, &storeErr) {
				return internalError(ctx, log, gqlErr.Err, gqlErr.Path)
			}
		}
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		if _, ok := gqlErr.Extensions["code"]; !ok {
			gqlErr.Extensions["code"] = resolvers.CodeBadInput
		}
		return gqlErr
	}
}

// faultError is the GraphQL error of a retryable fault; the answer becomes a 503 with its
// Retry-After.
func faultError(ctx context.Context, f db.Fault, path ast.Path) *gqlerror.Error {
	markUnavailable(ctx, f.RetryAfter)
	return &gqlerror.Error{Message: f.Message, Path: path, Extensions: map[string]any{"code": f.Code}}
}

func internalError(ctx context.Context, log *slog.Logger, err error, path ast.Path) *gqlerror.Error {
	id := reqid.From(ctx)
	log.Error("graphql: internal error", "request_id", id, "err", err, "path", path)
	return &gqlerror.Error{Message: "internal error (request id " + id + ")", Path: path,
		Extensions: map[string]any{"code": resolvers.CodeInternal, "requestId": id}}
}

// unavailableKey holds, per request, the Retry-After of a 503 that an error presented
// during execution asks for; statusWriter applies it when gqlgen writes the answer.
type unavailableKey struct{}

type unavailableMark struct{ retryAfter atomic.Value }

func markUnavailable(ctx context.Context, retryAfter string) {
	if m, ok := ctx.Value(unavailableKey{}).(*unavailableMark); ok {
		m.retryAfter.Store(retryAfter)
	}
}

// statusWriter turns the 200 of a GraphQL answer into a 503 with Retry-After when an
// error of the request was the database's unavailability or the request's deadline.
type statusWriter struct {
	http.ResponseWriter
	ctx   context.Context
	mark  *unavailableMark
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		if ra, ok := w.mark.retryAfter.Load().(string); ok && code == http.StatusOK {
			w.Header().Set("Retry-After", ra)
			code = http.StatusServiceUnavailable
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote && string(bytes.TrimSpace(b)) == "null" && errors.Is(w.ctx.Err(), context.DeadlineExceeded) {
		// gqlgen answers a bare null when the deadline passed before it built a response.
		w.wrote = true
		w.Header().Set("Retry-After", "1")
		w.Header().Del("Content-Length")
		w.ResponseWriter.WriteHeader(http.StatusServiceUnavailable)
		body, _ := json.Marshal(map[string]any{"errors": []*gqlerror.Error{faultError(w.ctx, db.TimeoutFault, nil)}})
		_, err := w.ResponseWriter.Write(body)
		return len(b), err
	}
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// setConnectionComplexity sets the cost of every connection field (a field with a
// `first` argument) to its selection's cost times its page size. The fields are found in
// the schema, and the matching complexity functions of gqlgen's Config set by reflection,
// so a new connection in the schema is covered without code.
func setConnectionComplexity(c any) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	root := reflect.ValueOf(c).Elem()
	for _, def := range schema.Types {
		if def.Kind != ast.Object || strings.HasPrefix(def.Name, "__") {
			continue
		}
		typeFuncs := root.FieldByName(def.Name)
		if !typeFuncs.IsValid() {
			continue
		}
		for _, field := range def.Fields {
			firstPos, defaultFirst := -1, 25
			for i, arg := range field.Arguments {
				if arg.Name == "first" {
					firstPos = i
					if arg.DefaultValue != nil {
						if v, err := arg.DefaultValue.Value(nil); err == nil {
							if n, ok := v.(int64); ok {
								defaultFirst = int(n)
							}
						}
					}
				}
			}
			if firstPos < 0 {
				continue
			}
			fn := typeFuncs.FieldByName(exportedName(field.Name))
			if !fn.IsValid() || fn.Kind() != reflect.Func {
				continue
			}
			pos, dflt := firstPos+1, defaultFirst // argument 0 is childComplexity
			fn.Set(reflect.MakeFunc(fn.Type(), func(args []reflect.Value) []reflect.Value {
				child := int(args[0].Int())
				n := dflt
				if p, ok := args[pos].Interface().(*int); ok && p != nil {
					n = *p
				}
				n = max(n, 1)
				return []reflect.Value{reflect.ValueOf(1 + child*n)}
			}))
		}
	}
}

func exportedName(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush sends what a stream (Server-Sent Events) has written so far.
func (w *statusWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands a WebSocket's connection over.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.wrote = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}
