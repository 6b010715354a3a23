package auth

import (
	"context"
	"testing"
)

func TestRedisLimiter(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	limiterContract(t, func() Limiter {
		if err := rdb.FlushAll(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		return NewRedisLimiter(rdb)
	})
}

// Two replicas, each with its own connection pool, share one bucket and one
// quota: together they allow exactly one allowance.
func TestRedisLimiterIsSharedBetweenReplicas(t *testing.T) {
	srv := startRedis(t)
	replicas := []Limiter{NewRedisLimiter(srv.client()), NewRedisLimiter(srv.client())}
	ctx := context.Background()
	got := hammer(t, 64, 2, func(client int) (bool, error) {
		r, err := replicas[client%2].AllowRate(ctx, "shared", slowRate, 1)
		return r.Allowed, err
	})
	if got != slowRate.Burst {
		t.Fatalf("two replicas allowed %d, want exactly the burst %d", got, slowRate.Burst)
	}
}
