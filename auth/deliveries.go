package auth

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// DeliveryMeter counts webhook deliveries toward their key's quotas (issue 57): each
// delivery attempt takes one unit from the same daily and monthly counters as the key's
// requests (quotas count requests, not outcomes: an attempt the receiver fails counts, as
// a request answered 4xx does), and is recorded in the key's usage (webhook_deliveries).
// The rate limit is not applied: a key's webhooks follow the chain, not the key's calls.
type DeliveryMeter struct {
	keys    *Store
	limiter Limiter
	usage   *UsageRecorder // nil: not recorded
	log     *slog.Logger

	mu    sync.Mutex
	plans map[int64]meteredKey // by key id, kept a minute
}

type meteredKey struct {
	plan    Plan
	revoked bool
	read    time.Time
}

// NewDeliveryMeter counts with limiter (the API's, so that requests and deliveries share
// the counters) and records with usage.
func NewDeliveryMeter(keys *Store, limiter Limiter, usage *UsageRecorder, log *slog.Logger) *DeliveryMeter {
	if log == nil {
		log = slog.Default()
	}
	return &DeliveryMeter{keys: keys, limiter: limiter, usage: usage, log: log, plans: map[int64]meteredKey{}}
}

// planOf is the plan of key id, read again after a minute.
func (m *DeliveryMeter) planOf(ctx context.Context, id int64, now time.Time) (meteredKey, error) {
	m.mu.Lock()
	k, ok := m.plans[id]
	m.mu.Unlock()
	if ok && now.Sub(k.read) < time.Minute {
		return k, nil
	}
	key, err := m.keys.FindKey(ctx, strconv.FormatInt(id, 10))
	if err != nil {
		return k, err
	}
	plan, err := m.keys.Plan(ctx, key.PlanName)
	if err != nil {
		return k, err
	}
	k = meteredKey{plan: plan, revoked: key.RevokedAt != nil, read: now}
	m.mu.Lock()
	m.plans[id] = k
	m.mu.Unlock()
	return k, nil
}

// Spend takes one delivery attempt from key id's quotas at now. When they have no room,
// it says so (reason) and when they will (retryAt): the delivery loop waits until then
// without counting a failure. A revoked key's webhooks wait an hour at a time. A store or
// limiter that fails lets the attempt be made (logged), as the API admits a request when
// its quota counter fails open.
func (m *DeliveryMeter) Spend(ctx context.Context, id int64, now time.Time) (ok bool, retryAt time.Time, reason string) {
	k, err := m.planOf(ctx, id, now)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn("webhooks: reading the plan of a webhook's key; delivered uncounted", "key", id, "err", err)
		}
		return true, time.Time{}, ""
	}
	if k.revoked {
		return false, now.Add(time.Hour), "its API key is revoked"
	}
	if q := k.plan.Quota(); !q.Unlimited() {
		qr, err := m.limiter.AllowQuota(ctx, limiterKey(Key{ID: id}), q, now)
		if err != nil {
			m.log.Warn("webhooks: the quota counter failed; delivered uncounted", "key", id, "err", err)
		} else if !qr.Allowed {
			wait := qr.DailyReset
			if qr.Exceeded == "monthly" {
				wait = qr.MonthlyReset
			}
			return false, now.Add(wait), "its API key's " + qr.Exceeded + " quota is used up (webhook deliveries count toward it)"
		}
	}
	if m.usage != nil {
		m.usage.RecordDelivery(id, now)
	}
	return true, time.Time{}, ""
}
