package api

import (
	"context"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// documentLimits refuses, after parsing and validation and before any resolver runs, a
// document that is too large (fields, aliases, fragments, directives as written), too deep
// or too costly. Depth and cost are measured in one walk that computes each fragment once
// and reuses it wherever it is spread, so the time is linear in the document's size: a
// document of fragments that each spread the previous one twice is refused in
// microseconds, not after an exponential expansion.
type documentLimits struct {
	limits GraphQLLimits
	schema graphql.ExecutableSchema
	// known holds the size and measure of documents without variables, which depend on
	// the document alone: a client sending the same document again is not walked again.
	known *lru.LRU[documentFacts]
}

// documentFacts is what documentLimits measured of one operation of a document.
type documentFacts struct {
	size documentSize
	m    measure
}

// factsKey is the key of an operation's facts: its document and name, when the
// operation declares no variables and its document is small enough to be cached ("" if
// not).
func factsKey(oc *graphql.OperationContext) string {
	if len(oc.Operation.VariableDefinitions) > 0 || len(oc.RawQuery) > maxCachedDocument {
		return ""
	}
	return oc.OperationName + "\x00" + oc.RawQuery
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = &documentLimits{}

func (*documentLimits) ExtensionName() string { return "DocumentLimits" }

func (d *documentLimits) Validate(schema graphql.ExecutableSchema) error {
	d.schema = schema
	return nil
}

// costCeiling bounds the arithmetic: costs saturate there, far above any limit, so that
// no document overflows an int however it multiplies page sizes.
const costCeiling = 1 << 50

func (d *documentLimits) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Doc == nil || oc.Operation == nil {
		return nil
	}
	key := factsKey(oc)
	facts, known := documentFacts{}, false
	if key != "" && d.known != nil {
		facts, known = d.known.Get(ctx, key)
	}
	if !known {
		facts.size = countDocument(oc.Doc)
	}
	size := facts.size
	for _, c := range []struct {
		name, flag string
		n, max     int
	}{
		{"fields", "--max-fields", size.fields, d.limits.MaxFields},
		{"aliases", "--max-aliases", size.aliases, d.limits.MaxAliases},
		{"fragments", "--max-fragments", size.fragments, d.limits.MaxFragments},
		{"directives", "--max-directives", size.directives, d.limits.MaxDirectives},
	} {
		if c.max > 0 && c.n > c.max {
			return limitError("DOCUMENT_TOO_LARGE", c.name, c.n, c.max,
				fmt.Sprintf("the document has %d %s, more than the limit of %d (%s)", c.n, c.name, c.max, c.flag))
		}
	}

	if !known {
		w := &costWalker{ctx: ctx, schema: d.schema, vars: oc.Variables, frags: oc.Doc.Fragments,
			memo: map[string]measure{}, visiting: map[string]bool{}}
		facts.m = w.selections(oc.Operation.SelectionSet)
		if key != "" && d.known != nil {
			d.known.Add(ctx, key, facts)
		}
	}
	m := facts.m
	if d.limits.MaxDepth > 0 && m.depth > d.limits.MaxDepth {
		return limitError("DEPTH_LIMIT_EXCEEDED", "depth", m.depth, d.limits.MaxDepth,
			fmt.Sprintf("the document is nested %d levels deep, more than the limit of %d (--max-depth)", m.depth, d.limits.MaxDepth))
	}
	oc.Stats.SetExtension("ComplexityLimit", &extension.ComplexityStats{Complexity: m.cost, ComplexityLimit: d.limits.MaxComplexity})
	if d.limits.MaxComplexity > 0 && m.cost > d.limits.MaxComplexity {
		cost := fmt.Sprint(m.cost)
		if m.cost >= costCeiling {
			cost = "more than 10^15"
		}
		return limitError("COMPLEXITY_LIMIT_EXCEEDED", "complexity", m.cost, d.limits.MaxComplexity,
			fmt.Sprintf("the document costs %s, more than the limit of %d (--max-complexity); ask for smaller pages or fewer fields", cost, d.limits.MaxComplexity))
	}
	return nil
}

func limitError(code, limit string, value, max int, msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": code, "limit": limit, "value": value, "max": max}}
}

// measure is the cost and depth of a selection set.
type measure struct{ cost, depth int }

func (m *measure) add(o measure) {
	m.cost = min(m.cost+o.cost, costCeiling)
	m.depth = max(m.depth, o.depth)
}

// costWalker computes cost as gqlgen's complexity functions define it (a field costs 1
// plus its selection, a connection its selection times its page size) and depth (levels
// of fields, fragments adding none), each fragment once. Introspection fields (__schema,
// __type, __typename) run no SQL and cost nothing.
type costWalker struct {
	ctx      context.Context
	schema   graphql.ExecutableSchema
	vars     map[string]any
	frags    ast.FragmentDefinitionList
	memo     map[string]measure
	visiting map[string]bool
}

func (w *costWalker) selections(set ast.SelectionSet) measure {
	var m measure
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") {
				continue
			}
			child := w.selections(s.SelectionSet)
			cost := 1 + child.cost
			if s.ObjectDefinition != nil {
				if c, ok := w.schema.Complexity(w.ctx, s.ObjectDefinition.Name, s.Name, child.cost, s.ArgumentMap(w.vars)); ok {
					cost = c
				}
			}
			m.add(measure{cost: min(max(cost, 0), costCeiling), depth: 1 + child.depth})
		case *ast.InlineFragment:
			m.add(w.selections(s.SelectionSet))
		case *ast.FragmentSpread:
			m.add(w.fragment(s.Name))
		}
	}
	return m
}

func (w *costWalker) fragment(name string) measure {
	if m, ok := w.memo[name]; ok {
		return m
	}
	f := w.frags.ForName(name)
	if f == nil || w.visiting[name] { // validation refuses both; never loop
		return measure{}
	}
	w.visiting[name] = true
	m := w.selections(f.SelectionSet)
	w.visiting[name] = false
	w.memo[name] = m
	return m
}

// documentSize counts what a document writes, without expanding fragments.
type documentSize struct{ fields, aliases, fragments, directives int }

func countDocument(doc *ast.QueryDocument) documentSize {
	s := documentSize{fragments: len(doc.Fragments)}
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch x := sel.(type) {
			case *ast.Field:
				s.fields++
				if x.Alias != "" && x.Alias != x.Name {
					s.aliases++
				}
				s.directives += len(x.Directives)
				walk(x.SelectionSet)
			case *ast.InlineFragment:
				s.directives += len(x.Directives)
				walk(x.SelectionSet)
			case *ast.FragmentSpread:
				s.directives += len(x.Directives)
			}
		}
	}
	for _, op := range doc.Operations {
		s.directives += len(op.Directives)
		walk(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		s.directives += len(f.Directives)
		walk(f.SelectionSet)
	}
	return s
}
