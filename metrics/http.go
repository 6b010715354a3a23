package metrics

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Unmatched is the route label of requests that no pattern matched. Using
// one label for all of them keeps the number of series bounded whatever
// paths clients invent.
const Unmatched = "unmatched"

// MuxRoute returns a route function that names a request by the pattern of
// mux that will serve it ("GET /beta/tokens"), found before the request is
// served, or Unmatched.
func MuxRoute(mux *http.ServeMux) func(*http.Request) string {
	return func(r *http.Request) string {
		if _, pattern := mux.Handler(r); pattern != "" {
			return pattern
		}
		return Unmatched
	}
}

// Middleware counts the requests that pass through next and observes their
// duration, labelled by route(r). When route is nil the label is the Go 1.22
// ServeMux pattern that next recorded in r.Pattern (so next should then be
// the mux itself), or Unmatched.
func Middleware(route func(*http.Request) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		label := ""
		if route != nil {
			label = route(r)
		}
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		named := &routeName{}
		r = r.WithContext(context.WithValue(r.Context(), routeKey{}, named))
		next.ServeHTTP(sw, r) // a mux records its pattern in this r
		if named.route != "" {
			label = named.route // an inner router's pattern, more precise than ours
		}
		if label == "" {
			label = r.Pattern
		}
		if label == "" {
			label = Unmatched
		}
		HTTPRequests.WithLabelValues(label, strconv.Itoa(sw.statusOrOK())).Inc()
		HTTPDuration.WithLabelValues(label).Observe(time.Since(start).Seconds())
	})
}

// routeName lets an inner router (the /beta handler's) name the route it served.
type routeName struct{ route string }

type routeKey struct{}

// SetRoute names the route of the request that ctx belongs to, for the labels of
// Middleware: a pattern ("GET /beta/tokens/{address}/holders"), never a raw path.
func SetRoute(ctx context.Context, pattern string) {
	if n, ok := ctx.Value(routeKey{}).(*routeName); ok {
		n.route = pattern
	}
}

// statusWriter remembers the status code written through it. It passes
// Flush and Hijack through so streaming and websocket transports still work.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) statusOrOK() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("metrics: response writer cannot be hijacked")
	}
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}

// RequireToken guards next (typically Handler()) with an admin token sent as
// "Authorization: Bearer TOKEN", for deployments that serve /metrics on the
// public address instead of a separate admin one. The comparison takes the
// same time whatever the token sent.
func RequireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(sent))
		if !ok || token == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"message":"Forbidden"}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}
