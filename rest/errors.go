package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/resolvers"
)

// apiError is an error a client caused or can act on: it becomes the response status and
// the `{"error": "..."}` body. Any other error from a handler is a server fault (500).
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &apiError{status: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

// found passes on what a lookup found, and turns "nothing" into a 404 saying what was
// looked for.
func found[T any](v *T, err error, format string, args ...any) (*T, error) {
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, notFound(format, args...)
	}
	return v, nil
}

// errorBody is the body of every 4xx and 5xx answer of this handler.
type errorBody struct {
	Error string `json:"error"`
}

// asParam restates a resolver's error about its argument arg (bad input, or naming nothing
// indexed) as one about the REST parameter param that carried it, for handlers whose
// parameter names differ.
func asParam(err error, arg, param string) error {
	var ge *gqlerror.Error
	if !errors.As(err, &ge) || ge.Extensions["argument"] != arg {
		return err
	}
	msg := param + ": " + strings.TrimPrefix(ge.Message, arg+" ")
	switch ge.Extensions["code"] {
	case resolvers.CodeBadInput:
		return badRequest("%s", msg)
	case resolvers.CodeNotFound:
		return notFound("%s", msg)
	}
	return err
}

// statusOf tells which HTTP status an error returned by a handler becomes.
func statusOf(err error) (int, string) {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status, ae.msg
	}
	var ge *gqlerror.Error
	if arg, ok := resolvers.IsBadInput(err); ok && errors.As(err, &ge) {
		// The resolvers validate what they get too (a cursor, an argument out of range);
		// their `after` is what REST clients send as `cursor`.
		if arg == "after" {
			return http.StatusBadRequest, "cursor: not a cursor returned by this API for this list"
		}
		return http.StatusBadRequest, ge.Message
	}
	if errors.As(err, &ge) && ge.Extensions["code"] == resolvers.CodeNotFound {
		return http.StatusNotFound, ge.Message
	}
	return http.StatusInternalServerError, "internal error"
}
