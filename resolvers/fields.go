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
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return true
	}
	return graphql.FieldRequested(ctx, field)
}

type noTotalKey struct{}

// WithoutTotal marks a context whose lists are not counted: a REST keyset list answers
// whether more items follow, never a total, and a filtered count can read many rows.
func WithoutTotal(ctx context.Context) context.Context {
	return context.WithValue(ctx, noTotalKey{}, true)
}
