package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// IsStream reports whether r opens a long-lived stream of GraphQL subscription messages:
// a WebSocket upgrade or a request for Server-Sent Events. Streams are capped by the
// plan's subscriptions, not by the requests in flight.
func IsStream(r *http.Request) bool {
	return isWebSocket(r) || strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// ErrForbidden refuses a request or stream without a valid key, or whose plan may not
// call the operation; its text is the API's wire message.
var ErrForbidden = errors.New("Forbidden")

// ErrTooManySubscriptions refuses a subscription beyond the plan's cap.
var ErrTooManySubscriptions = errors.New("too many subscriptions open")

// AdmitStream admits a WebSocket whose upgrade carried no key: a browser cannot set
// headers on one, so the key comes in the graphql-transport-ws connection_init payload,
// as "x-api-key" or in "headers". The checks are the middleware's (identify, the plan's
// operations, spend), and fail as ErrForbidden, ErrLimitExceeded or the key store's or
// limiter's unavailability; the returned context carries the key for Charge, OpenSubscription and
// CountMessage. A connection admitted by its header is returned as it is.
func (a *Auth) AdmitStream(ctx context.Context, payload map[string]any) (context.Context, error) {
	if _, ok := ctx.Value(stateKey{}).(*requestState); ok {
		return ctx, nil
	}
	text := keyIn(payload)
	if headers, ok := payload["headers"].(map[string]any); ok && text == "" {
		text = keyIn(headers)
	}
	key, plan, err := a.identify(ctx, text)
	if errors.Is(err, ErrForbidden) {
		if addr, _ := ctx.Value(clientAddrKey{}).(string); addr != "" {
			if _, limited := a.refusedTooOften(addr); limited {
				return nil, ErrLimitExceeded
			}
		}
	}
	if err != nil {
		return nil, err
	}
	now := a.opts.Now()
	if a.opts.Usage != nil {
		a.opts.Usage.Record(key.ID, http.StatusOK, now)
	}
	if !plan.Allows("graphql") {
		return nil, ErrForbidden
	}
	rr, qr, err := a.spend(ctx, key, plan, now)
	if err != nil {
		return nil, err
	}
	if !rr.Allowed || !qr.Allowed {
		return nil, ErrLimitExceeded
	}
	return context.WithValue(ctx, stateKey{}, &requestState{auth: a, key: key, plan: plan, quota: qr}), nil
}

// defaultMaxSubscriptions is the plans table's default.
const defaultMaxSubscriptions = 100

// OpenSubscription counts one more open subscription of ctx's key against its plan's
// cap (per API process); release ends it. Without a key (no auth configured) there is
// no cap.
func OpenSubscription(ctx context.Context) (release func(), err error) {
	st, ok := ctx.Value(stateKey{}).(*requestState)
	if !ok {
		return func() {}, nil
	}
	limit := defaultMaxSubscriptions
	if st.plan.MaxSubscriptions != nil {
		limit = *st.plan.MaxSubscriptions
	}
	release, ok = takeSlot(&st.auth.subscriptions, st.key.ID, limit)
	if !ok {
		return nil, fmt.Errorf("%w: this key's plan allows %d at once", ErrTooManySubscriptions, limit)
	}
	return release, nil
}

// CountMessage counts one subscription message toward ctx's key's usage.
func CountMessage(ctx context.Context) {
	st, ok := ctx.Value(stateKey{}).(*requestState)
	if ok && st.auth.opts.Usage != nil {
		st.auth.opts.Usage.Record(st.key.ID, http.StatusOK, st.auth.opts.Now())
	}
}

// keyIn finds the API key among JSON members named like the header, in any case.
func keyIn(members map[string]any) string {
	for name, v := range members {
		if text, ok := v.(string); ok && strings.EqualFold(name, HeaderAPIKey) {
			return text
		}
	}
	return ""
}
