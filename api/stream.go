package api

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
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

var errInitPanic = errors.New("internal server error")

// streamTransports are the subscription transports of /graphql: graphql-transport-ws on
// a WebSocket upgrade and Server-Sent Events for Accept: text/event-stream. keys admits a
// WebSocket from its connection_init when the upgrade carried no key (nil: no keys).
func streamTransports(keys *auth.Auth, origins []string, log *slog.Logger) []graphql.Transport {
	accept := coderws.AcceptOptions{OriginPatterns: originPatterns(origins), CompressionMode: coderws.CompressionDisabled}
	if len(origins) == 0 {
		// Any origin, as CORS allows: a key is never ambient (no cookies), so a page of
		// another site can only use a key it was given.
		accept.InsecureSkipVerify = true
	}
	ws := transport.Websocket{
		// protocolWS times connection_init out itself, with the protocol's code (gqlgen's
		// InitTimeout would close with 1002). gqlgen's, later, is the backstop of the sockets
		// protocolWS passes as they are (the legacy graphql-ws subprotocol, or none), which
		// would otherwise wait for their connection_init for ever.
		Implementation:        protocolWS{inner: transport.CoderWebsocketImplementation{AcceptOptions: accept}, initTimeout: wsInitTimeout},
		InitTimeout:           2 * wsInitTimeout,
		KeepAlivePingInterval: 15 * time.Second,
		InitFunc: func(ctx context.Context, payload transport.InitPayload) (out context.Context, ack *transport.InitPayload, err error) {
			if keys == nil {
				return ctx, nil, nil
			}
			defer func() { // a bug of ours closes the one connection, as 4500
				if p := recover(); p != nil {
					log.Error("graphql-transport-ws: connection_init panicked", "panic", p)
					out, err = transport.WithWebsocketCloseCode(transport.AppendCloseReason(ctx, "Internal Server Error"), closeInternal), errInitPanic
				}
			}()
			admitted, err := keys.AdmitStream(ctx, payload)
			if err != nil {
				code, reason := initRefusal(err)
				return transport.WithWebsocketCloseCode(transport.AppendCloseReason(ctx, reason), code), nil, err
			}
			return admitted, nil, nil
		},
	}
	return []graphql.Transport{ws, transport.SSE{}}
}

// initRefusal is the close code and reason of a connection_init that AdmitStream refused:
// without a valid key 4403, which graphql-ws reports to its subscribers (1000, as gqlgen
// closes by default, made its client reconnect at once, forever); over the rate or a quota,
// or with the key store or a closed-failing limiter down, 1013 Try Again Later, which
// clients retry with their backoff, as an HTTP client would after a 429 or 503.
func initRefusal(err error) (code int, reason string) {
	switch {
	case errors.Is(err, auth.ErrForbidden):
		return closeForbidden, "Forbidden"
	case errors.Is(err, auth.ErrLimitExceeded):
		return closeTryAgainLater, "Limit Exceeded"
	}
	return closeTryAgainLater, "Service Unavailable" // the key store or limiter: 503 over HTTP
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
// is bounded by writeTimeout instead. When stopping is done (the server shuts down), every
// stream is told to come back: a WebSocket is closed as 1012 Service Restart and an SSE
// stream ends without its complete event, which graphql-ws and graphql-sse both retry
// (a complete would tell them the subscription is over).
func streamRequests(writeTimeout time.Duration, stopping context.Context, next http.Handler) http.Handler {
	if writeTimeout <= 0 {
		writeTimeout = DefaultStreamWriteTimeout
	}
	streams := &openStreams{open: map[*boundedWrites]struct{}{}}
	if stopping != nil {
		context.AfterFunc(stopping, streams.goAway)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !auth.IsStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		bw := &boundedWrites{ResponseWriter: w, timeout: writeTimeout, cancel: cancel}
		if !streams.add(bw) {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"message": "the server is restarting"})
			return
		}
		defer streams.remove(bw)
		next.ServeHTTP(bw, r.WithContext(context.WithValue(ctx, streamKey{}, bw)))
	})
}

// openStreams are the streams being served, until the server stops.
type openStreams struct {
	mu       sync.Mutex
	open     map[*boundedWrites]struct{}
	stopping bool
}

func (s *openStreams) add(bw *boundedWrites) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.open[bw] = struct{}{}
	return true
}

func (s *openStreams) remove(bw *boundedWrites) {
	s.mu.Lock()
	delete(s.open, bw)
	s.mu.Unlock()
}

func (s *openStreams) goAway() {
	s.mu.Lock()
	s.stopping = true
	all := make([]*boundedWrites, 0, len(s.open))
	for bw := range s.open {
		all = append(all, bw)
	}
	s.mu.Unlock()
	for _, bw := range all {
		bw.goAway()
	}
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

// onWebSocket reports whether ctx's operation came on a WebSocket (a hijacked stream).
func onWebSocket(ctx context.Context) bool {
	bw, ok := ctx.Value(streamKey{}).(*boundedWrites)
	if !ok {
		return false
	}
	bw.mu.Lock()
	defer bw.mu.Unlock()
	return bw.conn != nil
}

// boundedWrites hands over a connection whose writes each have a deadline.
type boundedWrites struct {
	http.ResponseWriter
	timeout time.Duration
	cancel  context.CancelFunc // ends the stream's request

	mu       sync.Mutex
	conn     net.Conn // once hijacked
	closeWS  func()   // closes its WebSocket as 1012 Service Restart
	goneAway bool     // the server is stopping: an SSE stream's last writes are dropped
}

func (w *boundedWrites) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// setGoingAway gives the stream's WebSocket closer (protocolWS).
func (w *boundedWrites) setGoingAway(closeWS func()) {
	w.mu.Lock()
	w.closeWS = closeWS
	w.mu.Unlock()
}

func (w *boundedWrites) goAway() {
	w.mu.Lock()
	w.goneAway = true
	closeWS := w.closeWS
	w.mu.Unlock()
	if closeWS != nil {
		closeWS()
	}
	w.cancel()
}

func (w *boundedWrites) Write(b []byte) (int, error) {
	w.mu.Lock()
	gone := w.goneAway
	w.mu.Unlock()
	if gone {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

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
// a subscription the server ended (a client too slow) into a last message that says so:
// an error message on a WebSocket, a next event on SSE.
func subscriptionMessages(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if !isSubscription(ctx) {
		return next(ctx)
	}
	resp := next(ctx)
	if resp == nil {
		if err := live.TakeEndReason(ctx); errors.Is(err, live.ErrTooSlow) {
			disconnectStream(ctx)
			gqlErr := &gqlerror.Error{Message: err.Error(), Extensions: map[string]any{"code": "SLOW_CONSUMER"}}
			if onWebSocket(ctx) {
				// graphql-transport-ws ends an operation the server ends with an error
				// message, which clients hand to the subscriber's error callback; it is not
				// followed by complete.
				transport.AddSubscriptionError(ctx, gqlErr)
				return nil
			}
			return &graphql.Response{Errors: gqlerror.List{gqlErr}} // SSE: a next event, then complete
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
		// Made when a resolver first asks: most documents load nothing (a page of blocks,
		// a page of transfers), and building the ~45 loaders cost them ~60 allocations.
		return next(loaders.WithNew(ctx, store))
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
