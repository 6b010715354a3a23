package auth

import (
	"context"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
)

// ComplexityCharge is a gqlgen handler extension that charges every
// operation's complexity against the caller's rate limit (see Charge), so
// that one huge document costs as much as the many small ones it replaces.
//
//	srv := handler.New(graph.NewExecutableSchema(cfg))
//	srv.Use(extension.FixedComplexityLimit(5000)) // refuses absurd documents outright
//	srv.Use(auth.NewComplexityCharge())
//
// It uses the complexity the ComplexityLimit extension computed when that is
// installed, and computes it itself otherwise. When the cost does not fit,
// the client receives HTTP 429 {"message":"Limit Exceeded"} with Retry-After
// (written by Charge) and the operation is not executed.
type ComplexityCharge struct {
	schema graphql.ExecutableSchema
}

var (
	_ graphql.HandlerExtension     = (*ComplexityCharge)(nil)
	_ graphql.OperationInterceptor = (*ComplexityCharge)(nil)
)

// NewComplexityCharge returns the extension.
func NewComplexityCharge() *ComplexityCharge { return &ComplexityCharge{} }

// ExtensionName implements graphql.HandlerExtension.
func (*ComplexityCharge) ExtensionName() string { return "ComplexityCharge" }

// Validate implements graphql.HandlerExtension; it keeps the schema to
// compute complexities with.
func (c *ComplexityCharge) Validate(schema graphql.ExecutableSchema) error {
	c.schema = schema
	return nil
}

// InterceptOperation implements graphql.OperationInterceptor.
func (c *ComplexityCharge) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	cost := 1
	if stats := extension.GetComplexityStats(ctx); stats != nil {
		cost = stats.Complexity
	} else if opCtx := graphql.GetOperationContext(ctx); opCtx != nil && opCtx.Doc != nil && c.schema != nil {
		if op := opCtx.Doc.Operations.ForName(opCtx.OperationName); op != nil {
			cost = complexity.Calculate(ctx, c.schema, op, opCtx.Variables)
		}
	}
	if err := Charge(ctx, cost); err != nil {
		return graphql.OneShot(graphql.ErrorResponse(ctx, "Limit Exceeded"))
	}
	return next(ctx)
}
