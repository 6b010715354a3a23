// Package api assembles the HTTP surface: the GraphQL endpoint with its cost controls, the
// playground, the /beta REST handler, health checks, CORS and the API-key middleware.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph"
	"github.com/starkgraph/starkgraph/resolvers"
)

// GraphQLLimits bound what one document may ask for. Every limit is checked before any
// SQL runs.
type GraphQLLimits struct {
	// MaxComplexity is the highest cost a document may have: each field costs 1, and a
	// connection multiplies the cost of its selection by its page size.
	MaxComplexity int
	// MaxDepth is the deepest nesting of selections, fragments included.
	MaxDepth int
	// MaxTokens bounds the lexer: a document with more tokens is refused unparsed.
	MaxTokens int
	// Timeout cancels a request that still runs after it.
	Timeout time.Duration
}

// DefaultGraphQLLimits allow a page of 25 tokens with 10 holders each, their contracts
// and classes (cost ~1,300), with room to spare.
var DefaultGraphQLLimits = GraphQLLimits{MaxComplexity: 5000, MaxDepth: 12, MaxTokens: 5000, Timeout: 10 * time.Second}

// NewGraphQL returns the /graphql handler over res.
func NewGraphQL(res *resolvers.Resolver, limits GraphQLLimits, introspection bool, log *slog.Logger) http.Handler {
	cfg := graph.Config{Resolvers: res}
	setConnectionComplexity(&cfg.Complexity)
	srv := handler.New(graph.NewExecutableSchema(cfg))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.SetParserTokenLimit(limits.MaxTokens)
	if introspection {
		srv.Use(extension.Introspection{})
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](1000)})
	srv.Use(depthLimit{max: limits.MaxDepth})
	srv.Use(&extension.ComplexityLimit{Func: func(context.Context, *graphql.OperationContext) int { return limits.MaxComplexity }})
	srv.AroundOperations(chargeComplexity)
	srv.SetErrorPresenter(presentError(log))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		log.Error("graphql: panic in a resolver", "panic", v, "path", graphql.GetPath(ctx))
		return gqlerror.Errorf("internal error")
	})
	return bounded(limits.Timeout, srv)
}

// bounded limits a request's body to 1 MiB and its run time to d: the context deadline
// stops the SQL it runs.
func bounded(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
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
// logged and shown as "internal error"; panics are handled by the recover function the
// same way; everything else is about the request and keeps its message.
func presentError(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		var gqlErr *gqlerror.Error
		if !errors.As(err, &gqlErr) {
			log.Error("graphql: internal error", "err", err, "path", graphql.GetPath(ctx))
			return &gqlerror.Error{Message: "internal error", Path: graphql.GetPath(ctx),
				Extensions: map[string]any{"code": resolvers.CodeInternal}}
		}
		// gqlgen wraps resolver and argument errors in a gqlerror whose Err is the original.
		if gqlErr.Err != nil {
			var inner *gqlerror.Error
			var storeErr *db.StoreError
			switch {
			case errors.As(gqlErr.Err, &inner) && inner != gqlErr:
				out := *inner
				out.Path, out.Locations = gqlErr.Path, gqlErr.Locations
				return &out
			case errors.Is(gqlErr.Err, context.DeadlineExceeded):
				return &gqlerror.Error{Message: "the request took too long", Path: gqlErr.Path,
					Extensions: map[string]any{"code": "TIMEOUT"}}
			case errors.As(gqlErr.Err, &storeErr):
				log.Error("graphql: store error", "err", gqlErr.Err, "path", gqlErr.Path)
				return &gqlerror.Error{Message: "internal error", Path: gqlErr.Path,
					Extensions: map[string]any{"code": resolvers.CodeInternal}}
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

// depthLimit refuses documents nested deeper than max, counting through fragments.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	if depth := selectionDepth(dataFields(oc.Operation.SelectionSet), oc.Doc.Fragments, d.max+1); depth > d.max {
		return &gqlerror.Error{
			Message:    "the document is nested more than " + strconv.Itoa(d.max) + " levels deep",
			Extensions: map[string]any{"code": "DEPTH_LIMIT_EXCEEDED"},
		}
	}
	return nil
}

// dataFields leaves out the introspection fields (__schema, __type) of a root selection:
// their depth is bounded by the schema itself and they run no SQL, and GraphiQL's own
// introspection query is nested deeper than any data document needs to be.
func dataFields(set ast.SelectionSet) ast.SelectionSet {
	out := make(ast.SelectionSet, 0, len(set))
	for _, sel := range set {
		if f, ok := sel.(*ast.Field); ok && (f.Name == "__schema" || f.Name == "__type") {
			continue
		}
		out = append(out, sel)
	}
	return out
}

// selectionDepth measures nesting, stopping once it passes limit (so that it is cheap on
// hostile documents).
func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, limit int) int {
	if limit <= 0 || len(set) == 0 {
		return 0
	}
	deepest := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = 1
			} else {
				d = 1 + selectionDepth(s.SelectionSet, frags, limit-1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, limit)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, limit)
			}
		}
		deepest = max(deepest, d)
		if deepest > limit {
			return deepest
		}
	}
	return deepest
}
