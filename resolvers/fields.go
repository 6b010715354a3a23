package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// wants reports whether the client selected field (a dot path such as "totalCount")
// under the field being resolved, so that a connection's total, which costs a statement,
// is only counted when asked for. Outside a GraphQL operation (the REST handler calls
// resolvers directly) every field is wanted.
func wants(ctx context.Context, field string) bool {
	if field == "totalCount" && ctx.Value(noTotalKey{}) != nil {
		return false
	}
	if !inGraphQL(ctx) {
		return true
	}
	return graphql.FieldRequested(ctx, field)
}

// inGraphQL tells a resolver called by gqlgen, which knows the client's selection, from
// one the REST handler calls directly.
func inGraphQL(ctx context.Context) bool {
	return graphql.HasOperationContext(ctx) && graphql.GetFieldContext(ctx) != nil
}

// wantsEdgeCursors says whether a GraphQL client selected its edges' cursors; the REST
// layer reads only the page's last.
func wantsEdgeCursors(ctx context.Context) bool {
	return inGraphQL(ctx) && graphql.FieldRequested(ctx, "edges.cursor")
}

type noTotalKey struct{}

// WithoutTotal marks a context whose lists are not counted: a REST keyset list answers
// whether more items follow, never a total, and a filtered count can read many rows.
func WithoutTotal(ctx context.Context) context.Context {
	return context.WithValue(ctx, noTotalKey{}, true)
}
