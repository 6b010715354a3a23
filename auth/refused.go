package auth

import (
	"context"
	"net"
	"net/http"
	"time"
)

// RefusedRate bounds the refusals of one client address: requests and WebSocket
// connection_inits with a missing or unknown key. A client that keeps retrying a wrong key
// (a subscription client reconnecting, a script) gets 403 for the first ones, then 429 (on
// a WebSocket, the close that says "too many"), as any client over its rate does, and each
// refusal costs a counter. Only refusals count: a valid key from the same address is never
// held up. Behind a proxy every client has the proxy's address, so the burst is shared by
// whoever sends wrong keys through it.
var RefusedRate = Rate{RatePerSecond: 1, Burst: 20}

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
// RefusedRate, and when it may try again. A limiter that fails lets the refusal stand as
// a 403.
func (a *Auth) refusedTooOften(ctx context.Context, addr string) (time.Duration, bool) {
	if addr == "" {
		return 0, false
	}
	res, err := a.opts.Limiter.AllowRate(ctx, "refused:"+addr, RefusedRate, 1)
	if err != nil || res.Allowed {
		return 0, false
	}
	return res.RetryAfter, true
}
