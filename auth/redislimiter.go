package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// RedisLimiter keeps counters in Redis so that every replica of the API
// shares one limit per key. Rates use go-redis/redis_rate (GCRA in a Lua
// script, atomic in Redis); quotas use a small script of our own that checks
// and increments the day and month counters in one step.
type RedisLimiter struct {
	rdb  *redis.Client
	rate *redis_rate.Limiter
}

// NewRedisClient connects to the Redis at url (redis://[:password@]host:port/db)
// with short timeouts: a rate-limit check must not hold a request for long
// when Redis is in trouble, the fallback takes over instead.
func NewRedisClient(url string) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opts.DialTimeout = 300 * time.Millisecond
	opts.ReadTimeout = 300 * time.Millisecond
	opts.WriteTimeout = 300 * time.Millisecond
	opts.MaxRetries = 1
	return redis.NewClient(opts), nil
}

// NewRedisLimiter returns a limiter over rdb.
func NewRedisLimiter(rdb *redis.Client) *RedisLimiter {
	return &RedisLimiter{rdb: rdb, rate: redis_rate.NewLimiter(rdb)}
}

// Ping reports whether Redis answers.
func (l *RedisLimiter) Ping(ctx context.Context) error {
	return l.rdb.Ping(ctx).Err()
}

// AllowRate implements Limiter.
func (l *RedisLimiter) AllowRate(ctx context.Context, key string, r Rate, n int) (RateResult, error) {
	n = capCost(n, r.Burst)
	// redis_rate wants "Rate events per Period"; one event per emission
	// interval expresses any rate, including fractional ones.
	limit := redis_rate.Limit{
		Rate:   1,
		Period: time.Duration(float64(time.Second) / r.RatePerSecond),
		Burst:  r.Burst,
	}
	res, err := l.rate.AllowN(ctx, key, limit, n)
	if err != nil {
		return RateResult{}, err
	}
	out := RateResult{
		Allowed:    res.Allowed > 0 || n == 0,
		Remaining:  res.Remaining,
		ResetAfter: max(res.ResetAfter, 0),
	}
	if !out.Allowed {
		out.RetryAfter = max(res.RetryAfter, 0)
	}
	return out, nil
}

// quotaScript checks both windows and, only when neither would overflow,
// increments both. Returns {allowed, which window refused (1 day, 2 month),
// day count, month count}.
var quotaScript = redis.NewScript(`
local daily = tonumber(ARGV[1])
local monthly = tonumber(ARGV[2])
local d = tonumber(redis.call("GET", KEYS[1]) or "0")
local m = tonumber(redis.call("GET", KEYS[2]) or "0")
if daily > 0 and d + 1 > daily then return {0, 1, d, m} end
if monthly > 0 and m + 1 > monthly then return {0, 2, d, m} end
d = redis.call("INCR", KEYS[1])
m = redis.call("INCR", KEYS[2])
if d == 1 then redis.call("EXPIRE", KEYS[1], ARGV[3]) end
if m == 1 then redis.call("EXPIRE", KEYS[2], ARGV[4]) end
return {1, 0, d, m}
`)

// AllowQuota implements Limiter.
func (l *RedisLimiter) AllowQuota(ctx context.Context, key string, q Quota, now time.Time) (QuotaResult, error) {
	day, dayEnd, month, monthEnd := quotaWindows(now)
	res := QuotaResult{Allowed: true, DailyRemaining: -1, MonthlyRemaining: -1,
		DailyReset: dayEnd.Sub(now), MonthlyReset: monthEnd.Sub(now)}
	if q.Unlimited() {
		return res, nil
	}
	// The {key} hash tag keeps both counters in one Redis Cluster slot, which
	// a multi-key script requires. Counters expire a day after their window
	// ends (by our clock, not Redis's), which absorbs clock differences
	// between replicas.
	keys := []string{"quota:{" + key + "}:d:" + day, "quota:{" + key + "}:m:" + month}
	v, err := quotaScript.Run(ctx, l.rdb, keys, q.Daily, q.Monthly,
		ttlSeconds(dayEnd.Sub(now)+24*time.Hour), ttlSeconds(monthEnd.Sub(now)+24*time.Hour)).Int64Slice()
	if err != nil {
		return QuotaResult{}, err
	}
	if len(v) != 4 {
		return QuotaResult{}, fmt.Errorf("quota script returned %d values", len(v))
	}
	res.Allowed = v[0] == 1
	switch v[1] {
	case 1:
		res.Exceeded = "daily"
	case 2:
		res.Exceeded = "monthly"
	}
	res.DailyRemaining = remainingOf(q.Daily, v[2])
	res.MonthlyRemaining = remainingOf(q.Monthly, v[3])
	return res, nil
}

// ttlSeconds renders a positive duration as whole seconds for EXPIRE.
func ttlSeconds(d time.Duration) int64 { return max(1, secondsCeil(d)) }
