// Package auth guards the APIs with keys: it stores API keys (hashed) and the
// plans they belong to, checks the x-api-key header of every request, applies
// each plan's rate limit, quotas and allowed operations, and records usage.
//
// Answers, for the /beta and /graphql APIs alike:
//   - no key, an unknown or revoked key, or an operation the plan may not
//     call: 403 {"message":"Forbidden"};
//   - over the rate or a quota: 429 {"message":"Limit Exceeded"} with
//     Retry-After (seconds);
//   - every answer carries X-RateLimit-Limit (the plan's burst),
//     X-RateLimit-Remaining (requests that would be accepted right now) and
//     X-RateLimit-Reset (seconds until Remaining is back to its maximum, or
//     until the exhausted quota starts over). Answers refused before a plan
//     is known (403) carry 0, 0, 0.
//
// Wiring, in the server:
//
//	limiter, closeLimiter, err := auth.NewLimiter(os.Getenv("REDIS_URL"), auth.FailLocal, logger)
//	store := auth.NewStore(db)
//	usage := auth.NewUsageRecorder(store, 5*time.Second, logger) // Close on shutdown
//	opts := auth.Options{Keys: store, Limiter: limiter, Usage: usage, Logger: logger}
//	beta, gql := opts, opts
//	beta.Operation = auth.MuxOperation(betaMux) // "GET /beta/tokens", ...
//	gql.Operation = func(*http.Request) string { return "graphql" }
//	mux.Handle("/beta/", auth.New(beta).Middleware(betaMux))
//	mux.Handle("POST /graphql", auth.New(gql).Middleware(gqlServer)) // gqlServer.Use(auth.NewComplexityCharge())
//	mux.Handle("GET /graphql", playground) // no key: the page sends the one the user types
//
// Quotas count requests, not cost; a request refused by a quota has still
// used one unit of the rate. Counters live in Redis when REDIS_URL is set
// (shared by replicas), in memory otherwise; during a Redis outage each
// replica counts on its own.
package auth

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starkgraph/starkgraph/metrics"
)

// HeaderAPIKey is the request header that carries the key. Go canonicalises
// header names, so clients may spell it in any case.
const HeaderAPIKey = "X-Api-Key"

// Response headers.
const (
	HeaderLimit      = "X-RateLimit-Limit"
	HeaderRemaining  = "X-RateLimit-Remaining"
	HeaderReset      = "X-RateLimit-Reset"
	HeaderRetryAfter = "Retry-After"
)

// maxKeyLength bounds what we hash; longer values cannot be keys.
const maxKeyLength = 256

// ErrLimitExceeded is returned by Charge when the cost does not fit. Its text is the
// reference API's wire message.
//
//lint:ignore ST1005 the text is the API's wire message, capitalised as clients expect it
var ErrLimitExceeded = errors.New("Limit Exceeded")

// IsLimitExceeded reports whether err (or an error it wraps) is ErrLimitExceeded.
func IsLimitExceeded(err error) bool { return errors.Is(err, ErrLimitExceeded) }

// KeyLookup finds the active key behind a key text; *Store is one.
type KeyLookup interface {
	Lookup(ctx context.Context, text string) (Key, Plan, error)
}

// Options configure the middleware.
type Options struct {
	// Keys resolves keys; required (usually a *Store).
	Keys KeyLookup
	// Limiter keeps rate and quota counters; required (see NewLimiter).
	Limiter Limiter
	// Usage counts requests per key and day; optional.
	Usage *UsageRecorder
	// Operation names a request for the plan's allowed_operations, e.g.
	// "GET /beta/tokens" or "graphql". When nil, the Go 1.22 ServeMux
	// pattern in r.Pattern is used if set, else "METHOD /path".
	Operation func(*http.Request) string
	// Logger receives operational warnings; slog.Default() when nil.
	Logger *slog.Logger
	// Now tells the time for quota windows and usage days; time.Now when nil.
	Now func() time.Time
	// MaxInFlightPerKey caps the requests of one key running at once (503 with
	// Retry-After above it); 0 means no cap.
	MaxInFlightPerKey int
}

// Auth is the configured middleware.
type Auth struct {
	opts          Options
	log           *slog.Logger
	inFlight      sync.Map  // key id -> *atomic.Int64
	subscriptions sync.Map  // key id -> *atomic.Int64, open subscriptions
	refusals      *refusals // refused.go
}

// New returns the middleware configured by opts.
func New(opts Options) *Auth {
	if opts.Keys == nil || opts.Limiter == nil {
		panic("auth.New: Options.Keys and Options.Limiter are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Auth{opts: opts, log: log, refusals: newRefusals()}
}

// MuxOperation names a request by the pattern of mux that will serve it
// ("GET /beta/tokens/{address}"), found before it is served; requests no
// pattern matches are named "METHOD /path".
func MuxOperation(mux *http.ServeMux) func(*http.Request) string {
	return func(r *http.Request) string {
		if _, pattern := mux.Handler(r); pattern != "" {
			return pattern
		}
		return r.Method + " " + r.URL.Path
	}
}

func (a *Auth) operation(r *http.Request) string {
	if a.opts.Operation != nil {
		return a.opts.Operation(r)
	}
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.Method + " " + r.URL.Path
}

// requestState travels in the context of an admitted request: it lets
// Charge take more from the same bucket and answer 429 itself.
type requestState struct {
	auth  *Auth
	key   Key
	plan  Plan
	quota QuotaResult
	w     *trackingWriter
}

type stateKey struct{}

// KeyFromContext returns the key of the request that ctx belongs to, when it
// passed the middleware.
func KeyFromContext(ctx context.Context) (Key, bool) {
	st, ok := ctx.Value(stateKey{}).(*requestState)
	if !ok {
		return Key{}, false
	}
	return st.key, true
}

// limiterKey names a key's counters; the key's id, never its text.
func limiterKey(k Key) string { return "key:" + strconv.FormatInt(k.ID, 10) }

// Middleware admits requests with a valid key within its plan's limits and
// answers the others itself.
func (a *Auth) Middleware(next http.Handler) http.Handler { return a.middleware(next, false) }

// MiddlewareWithStreams is Middleware for a handler whose WebSockets are admitted by
// their connection_init (AdmitStream, which the handler must call): an upgrade without a
// key header is passed on unchecked.
func (a *Auth) MiddlewareWithStreams(next http.Handler) http.Handler {
	return a.middleware(next, true)
}

func (a *Auth) middleware(next http.Handler, streamsAdmitThemselves bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		text := r.Header.Get(HeaderAPIKey)
		if text == "" && streamsAdmitThemselves && isWebSocket(r) {
			// admitted by its connection_init (AdmitStream), which counts its refusals
			// against the client's address
			next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, clientAddrKey{}, clientAddr(r))))
			return
		}
		key, plan, err := a.identify(ctx, text)
		if errors.Is(err, ErrForbidden) {
			if retry, limited := a.refusedTooOften(clientAddr(r)); limited {
				setNoPlanHeaders(w.Header())
				limitExceeded(w, retry, "refused")
				return
			}
			forbidden(w)
			return
		}
		if err != nil {
			setNoPlanHeaders(w.Header())
			unavailable(w)
			return
		}

		now := a.opts.Now()
		tw := &trackingWriter{ResponseWriter: w}
		defer func() {
			if a.opts.Usage != nil {
				a.opts.Usage.Record(key.ID, tw.statusOrOK(), now)
			}
		}()

		if !plan.Allows(a.operation(r)) {
			forbidden(tw)
			return
		}
		// Before the rate and quota: a request refused as one too many in flight must not
		// spend them.
		if !IsStream(r) { // a stream's subscriptions are capped by OpenSubscription
			release, ok := a.enter(key)
			if !ok {
				a.log.Warn("auth: too many requests in flight for one key", "key_id", key.ID, "max", a.opts.MaxInFlightPerKey)
				busy(tw)
				return
			}
			defer release()
		}

		rr, qr, err := a.spend(ctx, key, plan, now)
		switch {
		case err != nil:
			unavailable(tw) // --limiter-fail closed while Redis is down
			return
		case !rr.Allowed:
			setLimitHeaders(tw.Header(), plan, rr, QuotaResult{DailyRemaining: -1, MonthlyRemaining: -1})
			limitExceeded(tw, rr.RetryAfter, "rate")
			return
		case !qr.Allowed:
			retry := qr.DailyReset
			if qr.Exceeded == "monthly" {
				retry = qr.MonthlyReset
			}
			setLimitHeaders(tw.Header(), plan, rr, qr)
			limitExceeded(tw, retry, qr.Exceeded)
			return
		}

		setLimitHeaders(tw.Header(), plan, rr, qr)
		st := &requestState{auth: a, key: key, plan: plan, quota: qr, w: tw}
		next.ServeHTTP(tw, r.WithContext(context.WithValue(ctx, stateKey{}, st)))
	})
}

// identify finds the active key behind text, or says ErrForbidden; another error is the
// key store's failure (logged).
func (a *Auth) identify(ctx context.Context, text string) (Key, Plan, error) {
	if text == "" || len(text) > maxKeyLength {
		return Key{}, Plan{}, ErrForbidden
	}
	key, plan, err := a.opts.Keys.Lookup(ctx, text)
	if errors.Is(err, ErrUnknownKey) {
		return Key{}, Plan{}, ErrForbidden
	}
	if err != nil {
		a.log.Error("auth: key lookup failed", "err", err)
	}
	return key, plan, err
}

// spend takes one request from the key's rate and, when the plan has quotas, from them:
// a result not Allowed says which limit refused. The error is ErrLimiterUnavailable, when
// the limiter fails closed; a limiter failing otherwise admits (logged), serving rather
// than refusing everyone.
func (a *Auth) spend(ctx context.Context, key Key, plan Plan, now time.Time) (RateResult, QuotaResult, error) {
	unlimited := QuotaResult{Allowed: true, DailyRemaining: -1, MonthlyRemaining: -1}
	rr, err := a.opts.Limiter.AllowRate(ctx, limiterKey(key), plan.Rate(), 1)
	if errors.Is(err, ErrLimiterUnavailable) {
		return rr, unlimited, err
	}
	if err != nil {
		a.log.Warn("auth: rate limiter failed, request admitted", "err", err)
		rr = RateResult{Allowed: true, Remaining: plan.Burst}
	}
	q := plan.Quota()
	if !rr.Allowed || q.Unlimited() {
		return rr, unlimited, nil
	}
	qr, err := a.opts.Limiter.AllowQuota(ctx, limiterKey(key), q, now)
	if errors.Is(err, ErrLimiterUnavailable) {
		return rr, unlimited, err
	}
	if err != nil {
		a.log.Warn("auth: quota counter failed, request admitted", "err", err)
		qr = unlimited
	}
	return rr, qr, nil
}

// Charge takes the rest of a request's cost from its key's rate: a GraphQL
// document of complexity cost costs cost units in all, of which the
// middleware already took one. A cost above the plan's burst is charged as
// the whole burst (such a document runs only on a full bucket and empties it).
//
// When the cost does not fit, Charge answers the request itself with 429
// {"message":"Limit Exceeded"} and Retry-After, makes later writes to the
// response no-ops, and returns ErrLimitExceeded: the caller should stop
// executing and return that error (its GraphQL response is discarded). When
// ctx did not pass the middleware, Charge does nothing.
func Charge(ctx context.Context, cost int) error {
	st, ok := ctx.Value(stateKey{}).(*requestState)
	if !ok {
		return nil
	}
	extra := min(cost-1, st.plan.Burst-1)
	if extra <= 0 {
		return nil
	}
	rr, err := st.auth.opts.Limiter.AllowRate(ctx, limiterKey(st.key), st.plan.Rate(), extra)
	if err != nil {
		st.auth.log.Warn("auth: rate limiter failed, cost not charged", "err", err)
		return nil
	}
	if st.w == nil { // a WebSocket admitted by AdmitStream: no HTTP answer to give
		if !rr.Allowed {
			metrics.RateLimitRejections.WithLabelValues("cost").Inc()
			return ErrLimitExceeded
		}
		return nil
	}
	st.w.mu.Lock()
	defer st.w.mu.Unlock()
	if st.w.status != 0 {
		// The answer has begun; too late for a 429, but still refuse.
		if !rr.Allowed {
			metrics.RateLimitRejections.WithLabelValues("cost").Inc()
			return ErrLimitExceeded
		}
		return nil
	}
	setLimitHeaders(st.w.Header(), st.plan, rr, st.quota)
	if !rr.Allowed {
		st.w.rejectLocked(rr.RetryAfter)
		return ErrLimitExceeded
	}
	return nil
}

// setLimitHeaders writes the X-RateLimit-* headers from the rate result and,
// when a quota is closer to its end than the bucket, from the quota.
func setLimitHeaders(h http.Header, plan Plan, rr RateResult, qr QuotaResult) {
	remaining := int64(rr.Remaining)
	reset := rr.ResetAfter
	if qr.DailyRemaining >= 0 && qr.DailyRemaining < remaining {
		remaining, reset = qr.DailyRemaining, qr.DailyReset
	}
	if qr.MonthlyRemaining >= 0 && qr.MonthlyRemaining < remaining {
		remaining, reset = qr.MonthlyRemaining, qr.MonthlyReset
	}
	h.Set(HeaderLimit, strconv.Itoa(plan.Burst))
	h.Set(HeaderRemaining, strconv.FormatInt(remaining, 10))
	h.Set(HeaderReset, strconv.FormatInt(secondsCeil(reset), 10))
}

func forbidden(w http.ResponseWriter) {
	setNoPlanHeaders(w.Header())
	writeMessage(w, http.StatusForbidden, "Forbidden")
}

// setNoPlanHeaders marks an answer given before any plan applied.
func setNoPlanHeaders(h http.Header) {
	h.Set(HeaderLimit, "0")
	h.Set(HeaderRemaining, "0")
	h.Set(HeaderReset, "0")
}

// limitExceeded answers 429; reason labels the rejection metric.
func limitExceeded(w http.ResponseWriter, retryAfter time.Duration, reason string) {
	metrics.RateLimitRejections.WithLabelValues(reason).Inc()
	w.Header().Set(HeaderRetryAfter, strconv.FormatInt(max(1, secondsCeil(retryAfter)), 10))
	w.Header().Set(HeaderRemaining, "0")
	writeMessage(w, http.StatusTooManyRequests, "Limit Exceeded")
}

// unavailable answers 503 when what admission depends on (the key store, a closed-failing
// limiter) does not answer.
func unavailable(w http.ResponseWriter) {
	w.Header().Set(HeaderRetryAfter, "5")
	writeMessage(w, http.StatusServiceUnavailable, "Service Unavailable")
}

// busy answers 503 to a key that has MaxInFlightPerKey requests running already.
func busy(w http.ResponseWriter) {
	metrics.RateLimitRejections.WithLabelValues("in_flight").Inc()
	w.Header().Set(HeaderRetryAfter, "1")
	writeMessage(w, http.StatusServiceUnavailable, "Too many requests in progress for this key")
}

// enter counts a request of key as running, unless MaxInFlightPerKey are already; the
// returned function ends it.
func (a *Auth) enter(key Key) (release func(), ok bool) {
	if a.opts.MaxInFlightPerKey <= 0 {
		return func() {}, true
	}
	return takeSlot(&a.inFlight, key.ID, a.opts.MaxInFlightPerKey)
}

// takeSlot counts one more of something a key holds at once (requests in flight, open
// subscriptions) in counters, if that stays within limit; release gives it back, once.
func takeSlot(counters *sync.Map, keyID int64, limit int) (release func(), ok bool) {
	v, _ := counters.LoadOrStore(keyID, new(atomic.Int64))
	n := v.(*atomic.Int64)
	if n.Add(1) > int64(limit) {
		n.Add(-1)
		return nil, false
	}
	var once sync.Once
	return func() { once.Do(func() { n.Add(-1) }) }, true
}

func writeMessage(w http.ResponseWriter, status int, message string) {
	body, _ := json.Marshal(struct {
		Message string `json:"message"`
	}{message})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// trackingWriter remembers the status of the answer (for usage) and, once
// Charge has answered 429, swallows whatever the handler still writes.
type trackingWriter struct {
	http.ResponseWriter
	mu      sync.Mutex
	status  int
	discard bool
}

func (w *trackingWriter) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.discard {
		return
	}
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *trackingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.discard {
		return len(p), nil
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// rejectLocked answers 429 and discards later writes; w.mu is held.
func (w *trackingWriter) rejectLocked(retryAfter time.Duration) {
	w.status = http.StatusTooManyRequests
	limitExceeded(w.ResponseWriter, retryAfter, "cost")
	w.discard = true
}

func (w *trackingWriter) statusOrOK() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *trackingWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.discard {
		f.Flush()
	}
}

func (w *trackingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("auth: response writer cannot be hijacked")
	}
	w.mu.Lock()
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	w.mu.Unlock()
	return h.Hijack()
}
