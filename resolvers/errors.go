package resolvers

import (
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Error codes carried in a GraphQL error's extensions.code.
const (
	CodeBadInput = "BAD_USER_INPUT"
	CodeNotFound = "NOT_FOUND"
	CodeInternal = "INTERNAL_SERVER_ERROR"
)

// badInput is an error about an argument the client sent; the REST layer turns it into a
// 400 naming the parameter.
func badInput(arg, msg string) error {
	return &gqlerror.Error{
		Message:    arg + " " + msg,
		Extensions: map[string]any{"code": CodeBadInput, "argument": arg},
	}
}

// notFound is an error about an argument that names nothing indexed; the REST layer turns
// it into a 404 naming the parameter.
func notFound(arg, msg string) error {
	return &gqlerror.Error{
		Message:    arg + " " + msg,
		Extensions: map[string]any{"code": CodeNotFound, "argument": arg},
	}
}

// IsBadInput reports whether err is an argument error, and which argument it names.
func IsBadInput(err error) (arg string, ok bool) {
	e, isGQL := err.(*gqlerror.Error)
	if !isGQL || e.Extensions["code"] != CodeBadInput {
		return "", false
	}
	arg, _ = e.Extensions["argument"].(string)
	return arg, true
}
