package api

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/live"
	"github.com/starkgraph/starkgraph/loaders"
)

// DefaultStreamWriteTimeout bounds one write to a subscriber's connection: a client that
// stops reading is disconnected after it, instead of holding its connection and
// goroutines.
const DefaultStreamWriteTimeout = 10 * time.Second

// streamTransports are the subscription transports of /graphql: graphql-transport-ws on
// a WebSocket upgrade and Server-Sent Events for Accept: text/event-stream. keys admits a
// WebSocket from its connection_init when the upgrade carried no key (nil: no keys).
func streamTransports(keys *auth.Auth, origins []string) []graphql.Transport {
	accept := coderws.AcceptOptions{OriginPatterns: originPatterns(origins), CompressionMode: coderws.CompressionDisabled}
	if len(origins) == 0 {
		// Any origin, as CORS allows: a key is never ambient (no cookies), so a page of
		// another site can only use a key it was given.
		accept.InsecureSkipVerify = true
	}
	ws := transport.Websocket{
		Implementation:        transport.CoderWebsocketImplementation{AcceptOptions: accept},
		KeepAlivePingInterval: 15 * time.Second,
		InitTimeout:           10 * time.Second,
		InitFunc: func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			if keys == nil {
				return ctx, nil, nil
			}
			admitted, err := keys.AdmitStream(ctx, payload)
			if err != nil {
				return transport.AppendCloseReason(ctx, err.Error()), nil, err
			}
			return admitted, nil, nil
		},
	}
	return []graphql.Transport{ws, transport.SSE{}}
}

// originPatterns turns CORS origins ("https://app.example") into the host patterns the
// WebSocket library checks Origin against.
func originPatterns(origins []string) []string {
	var out []string
	for _, o := range origins {
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			out = append(out, u.Host)
		} else {
			out = append(out, o)
		}
	}
	return out
}

// streamRequests prepares a stream's request: it lives as long as its subscriptions, so
// the server's whole-request timeouts are lifted, and each write to a hijacked WebSocket
// is bounded by writeTimeout instead.
func streamRequests(writeTimeout time.Duration, next http.Handler) http.Handler {
	if writeTimeout <= 0 {
		writeTimeout = DefaultStreamWriteTimeout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !auth.IsStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		bw := &boundedWrites{ResponseWriter: w, timeout: writeTimeout}
		next.ServeHTTP(bw, r.WithContext(context.WithValue(r.Context(), streamKey{}, bw)))
	})
}

type streamKey struct{}

// disconnectStream closes the WebSocket that ctx's operation came on, once its last
// message had the write timeout to go out: a connection too slow for one subscription
// is too slow for all of them. An SSE stream ends with its one subscription.
func disconnectStream(ctx context.Context) {
	bw, ok := ctx.Value(streamKey{}).(*boundedWrites)
	if !ok {
		return
	}
	bw.mu.Lock()
	conn := bw.conn
	bw.mu.Unlock()
	if conn != nil {
		time.AfterFunc(bw.timeout, func() { conn.Close() })
	}
}

// boundedWrites hands over a connection whose writes each have a deadline.
type boundedWrites struct {
	http.ResponseWriter
	timeout time.Duration

	mu   sync.Mutex
	conn net.Conn // once hijacked
}

func (w *boundedWrites) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *boundedWrites) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w *boundedWrites) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	// The WebSocket library writes through the returned buffer, so it must write to the
	// bounded connection too.
	if err := rw.Flush(); err != nil {
		conn.Close()
		return nil, nil, err
	}
	bounded := &deadlineConn{Conn: conn, timeout: w.timeout}
	w.mu.Lock()
	w.conn = bounded
	w.mu.Unlock()
	return bounded, bufio.NewReadWriter(rw.Reader, bufio.NewWriter(bounded)), nil
}

type deadlineConn struct {
	net.Conn
	timeout time.Duration
}

func (c *deadlineConn) Write(b []byte) (int, error) {
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.timeout))
	return c.Conn.Write(b)
}

// openSubscription counts a subscription against its key's plan and tracks it, so that
// its last message can say why it ended (see subscriptionMessages).
func openSubscription(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if !isSubscription(ctx) {
		return next(ctx)
	}
	release, err := auth.OpenSubscription(ctx)
	if err != nil {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{{Message: err.Error(),
			Extensions: map[string]any{"code": "TOO_MANY_SUBSCRIPTIONS"}}}})
	}
	context.AfterFunc(ctx, release)
	return next(live.Track(ctx))
}

// subscriptionMessages counts each message toward the key's usage, and turns the end of
// a subscription the server ended (a client too slow) into a last message that says so.
func subscriptionMessages(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !isSubscription(ctx) {
		return next(ctx)
	}
	resp := next(ctx)
	if resp == nil {
		if err := live.TakeEndReason(ctx); errors.Is(err, live.ErrTooSlow) {
			disconnectStream(ctx)
			return &graphql.Response{Errors: gqlerror.List{{Message: err.Error(), Extensions: map[string]any{"code": "SLOW_CONSUMER"}}}}
		}
		return nil
	}
	auth.CountMessage(ctx)
	return resp
}

// withLoaders gives each query and mutation fresh dataloaders (a WebSocket carries many
// operations); a subscription gets them per message (subscriptionLoaders), as one held
// for its lifetime would cost every idle subscription its loaders.
func withLoaders(store *db.Store) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if isSubscription(ctx) {
			return next(ctx)
		}
		return next(loaders.With(ctx, loaders.New(store)))
	}
}

func isSubscription(ctx context.Context) bool {
	op := graphql.GetOperationContext(ctx)
	return op.Operation != nil && op.Operation.Operation == ast.Subscription
}

// subscriptionLoaders gives each message of a subscription fresh dataloaders: one
// subscription's caches would otherwise grow, and go stale, for as long as it is open.
func subscriptionLoaders(store *db.Store) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		if !isSubscription(ctx) {
			return next(ctx)
		}
		return next(loaders.WithNew(ctx, store))
	}
}
