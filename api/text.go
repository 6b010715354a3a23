package api

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/resolvers"
)

// textInputs refuses, before any resolver runs, a document whose literal arguments hold
// a number that cannot be read (1e400), or whose string inputs (its variables and the
// literal arguments it writes) hold bytes that are not UTF-8 or control characters other
// than tab and line breaks: NUL, which PostgreSQL refuses in text and
// which made a 500 of a search, and the others, which no valid input holds (sources
// submitted for verification keep their tabs and newlines). The error names the variable
// or the argument, as REST's parameter checks name the parameter.
type textInputs struct {
	// passed holds the documents without variables whose literals passed: their answer
	// depends on the document alone.
	passed *lru.LRU[struct{}]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = textInputs{}

func (textInputs) ExtensionName() string                         { return "TextInputs" }
func (textInputs) Validate(graphql.ExecutableSchema) (err error) { return nil }

func (t textInputs) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	key := ""
	if len(oc.Variables) == 0 && oc.Operation != nil && t.passed != nil {
		if key = factsKey(oc); key != "" {
			if _, ok := t.passed.Get(ctx, key); ok {
				return nil
			}
		}
	}
	if err := t.check(oc); err != nil {
		return err
	}
	if key != "" {
		t.passed.Add(ctx, key, struct{}{})
	}
	return nil
}

func (textInputs) check(oc *graphql.OperationContext) *gqlerror.Error {
	names := make([]string, 0, len(oc.Variables))
	for name := range oc.Variables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if where, msg := badText(oc.Variables[name], ""); msg != "" {
			return textError("variable $"+name+where, name, msg)
		}
	}
	if oc.Doc == nil {
		return nil
	}
	for _, op := range oc.Doc.Operations {
		if err := literalText(op.SelectionSet, oc.Variables); err != nil {
			return err
		}
	}
	for _, f := range oc.Doc.Fragments {
		if err := literalText(f.SelectionSet, oc.Variables); err != nil {
			return err
		}
	}
	return nil
}

// badText finds the first string in v that textInputs refuses: where it is (".a[2]") and
// what is wrong with it.
func badText(v any, at string) (string, string) {
	switch x := v.(type) {
	case string:
		return at, checkString(x)
	case []any:
		for i, e := range x {
			if where, msg := badText(e, fmt.Sprintf("%s[%d]", at, i)); msg != "" {
				return where, msg
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if msg := checkString(k); msg != "" {
				return at + "." + strings.ToValidUTF8(k, "?"), "a key: " + msg
			}
			if where, msg := badText(x[k], at+"."+k); msg != "" {
				return where, msg
			}
		}
	}
	return "", ""
}

func checkString(s string) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	if i := strings.IndexFunc(s, refusedRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Sprintf("control character %U at byte %d is not allowed", r, i)
	}
	return ""
}

func refusedRune(r rune) bool {
	return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'
}

// literalText checks the literals of a selection set's arguments (and of its
// directives'), fragments' own selection sets being checked on their own: their strings,
// and that their numbers can be read (gqlgen panics on a literal such as 1e400 given to a
// custom scalar, which validation lets through).
func literalText(set ast.SelectionSet, vars map[string]any) *gqlerror.Error {
	for _, sel := range set {
		var args ast.ArgumentList
		var dirs ast.DirectiveList
		var sub ast.SelectionSet
		field := ""
		switch s := sel.(type) {
		case *ast.Field:
			args, dirs, sub, field = s.Arguments, s.Directives, s.SelectionSet, s.Name
		case *ast.InlineFragment:
			dirs, sub = s.Directives, s.SelectionSet
		case *ast.FragmentSpread:
			dirs = s.Directives
		}
		// A new list: appending to the field's own would write into the spare capacity of
		// the parsed document, which the query cache shares between requests.
		for _, d := range dirs {
			args = slices.Concat(args, d.Arguments)
		}
		for _, a := range args {
			msg := literalMsg(a.Value)
			if _, err := a.Value.Value(vars); err != nil && msg == "" {
				msg = "a value that cannot be read"
				if n := numberIn(a.Value); n != "" {
					msg = "the number " + n + " is out of range"
				}
			}
			if msg != "" {
				e := textError(fmt.Sprintf("argument %s of %s", a.Name, field), a.Name, msg)
				if a.Position != nil {
					e.Locations = []gqlerror.Location{{Line: a.Position.Line, Column: a.Position.Column}}
				}
				return e
			}
		}
		if err := literalText(sub, vars); err != nil {
			return err
		}
	}
	return nil
}

func literalMsg(v *ast.Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case ast.StringValue, ast.BlockValue:
		return checkString(v.Raw)
	case ast.ListValue, ast.ObjectValue:
		for _, c := range v.Children {
			if msg := literalMsg(c.Value); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// numberIn is the first number literal of v that does not parse, shortened.
func numberIn(v *ast.Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case ast.IntValue, ast.FloatValue:
		if _, err := v.Value(nil); err != nil {
			if len(v.Raw) > 40 {
				return v.Raw[:40] + "..."
			}
			return v.Raw
		}
	case ast.ListValue, ast.ObjectValue:
		for _, c := range v.Children {
			if n := numberIn(c.Value); n != "" {
				return n
			}
		}
	}
	return ""
}

func textError(what, arg, msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: what + ": " + msg,
		Extensions: map[string]any{"code": resolvers.CodeBadInput, "argument": arg}}
}
