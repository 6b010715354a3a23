package auth

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/time/rate"
)

// RefusedRate bounds the refusals of one client address: requests and WebSocket
// connection_inits with a missing or unknown key. A client that keeps retrying a wrong key
// (a subscription client reconnecting, a script) gets 403 for the first ones, then 429 (on
// a WebSocket, the close that says "too many"), as any client over its rate does, and each
// refusal costs a counter. Only refusals count: a valid key from the same address is never
// held up. Behind a proxy every client has the proxy's address, so the burst is shared by
// whoever sends wrong keys through it.
var RefusedRate = Rate{RatePerSecond: 1, Burst: 20}

// The refusal counters are each replica's own, in a bounded set: an address unheard of for
// refusedIdle has earned its whole burst back, so its counter can go, and at most
// maxRefusers addresses are counted at once (the longest quiet ones leave first).
const (
	refusedIdle = time.Minute
	maxRefusers = 1 << 16
)

type refusals struct {
	mu      sync.Mutex
	buckets *expirable.LRU[string, *rate.Limiter]
}

func newRefusals() *refusals {
	return &refusals{buckets: expirable.NewLRU[string, *rate.Limiter](maxRefusers, nil, refusedIdle)}
}

type clientAddrKey struct{}

// clientAddr is the host of the client's address, as the connection gives it.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// refusedTooOften counts a refusal of the client at addr and says whether it is over
// RefusedRate, and when it may try again.
func (a *Auth) refusedTooOften(addr string) (time.Duration, bool) {
	if addr == "" {
		return 0, false
	}
	r := a.refusals
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.buckets.Get(addr)
	if !ok {
		b = rate.NewLimiter(rate.Limit(RefusedRate.RatePerSecond), RefusedRate.Burst)
	}
	r.buckets.Add(addr, b) // counted from its latest refusal
	now := a.opts.Now()
	if b.AllowN(now, 1) {
		return 0, false
	}
	return unitsDuration(1-b.TokensAt(now), RefusedRate.RatePerSecond), true
}
