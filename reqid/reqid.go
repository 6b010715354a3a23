// Package reqid gives every request an id: the client's X-Request-Id when it is a sane
// token, else a new random one. It is echoed in the response and logged with every fault,
// and it is all a 500 answer shows, so an operator can find the cause from a user's report.
package reqid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
)

// Header carries the id both ways.
const Header = "X-Request-Id"

var sane = regexp.MustCompile(`^[A-Za-z0-9._-]{8,64}$`)

type key struct{}

// From returns the request's id, "" outside a request.
func From(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}

// Middleware sets the id on the request's context and the response's header.
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(Header)
		if !sane.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set(Header, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), key{}, id)))
	})
}
