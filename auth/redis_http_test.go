package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Two API replicas with their own limiters over one Redis share one limit:
// 64 clients spread over both get exactly the allowance.
func TestReplicasShareTheLimitThroughRedis(t *testing.T) {
	redisSrv := startRedis(t)
	api := newTestAPI(t, NewRedisLimiter(redisSrv.client()))
	api.plan(Plan{Name: "shared", RatePerSecond: 0.001, Burst: 40})
	key := api.key("shared")

	second := httptest.NewServer(api.handler(NewRedisLimiter(redisSrv.client())))
	defer second.Close()

	ok, limited := hammerHTTP(t, []string{api.srv.URL, second.URL}, key, 64, 3)
	if ok != 40 || limited != 64*3-40 {
		t.Fatalf("two replicas: %d answered 200 and %d 429, want exactly 40 and %d", ok, limited, 64*3-40)
	}
}

// When Redis goes away the server keeps serving with local limits and says
// so once in its log; when Redis is back, the limiter returns to it.
func TestRedisOutageFallsBackToLocalLimitsAndRecovers(t *testing.T) {
	redisSrv := startRedis(t)
	rdb := redisSrv.client()
	logger, logs := newTestLogger()
	redisLimiter := NewRedisLimiter(rdb)
	limiter := NewFallbackLimiter(redisLimiter, redisLimiter.Ping, NewMemoryLimiter(), logger, 50*time.Millisecond)
	defer limiter.Close()
	api := newTestAPI(t, limiter)
	api.plan(Plan{Name: "outage", RatePerSecond: 0.001, Burst: 5})
	key := api.key("outage")
	ctx := context.Background()

	// With Redis: the counters are in Redis.
	for i := range 2 {
		if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != 4-i {
			t.Fatalf("request %d with Redis: %d remaining %s", i, a.status, a.header.Get(HeaderRemaining))
		}
	}
	if n, err := rdb.Exists(ctx, "rate:"+limiterKey(mustFindKey(t, api.store, key))).Result(); err != nil || n != 1 {
		t.Fatalf("rate counter not in Redis (%d, %v)", n, err)
	}

	redisSrv.stop() // outage
	// Still served: the local bucket starts full, so 5 more pass, then 429.
	for i := range 5 {
		a := api.do("GET", "/beta/tokens", key)
		if a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != 4-i {
			t.Fatalf("request %d during the outage: %d %s remaining %s", i, a.status, a.body, a.header.Get(HeaderRemaining))
		}
	}
	assertLimited(t, api.do("GET", "/beta/tokens", key), "local limit during the outage")
	if limiter.UsingPrimary() {
		t.Fatal("limiter claims to use Redis during the outage")
	}
	if got := strings.Count(logs.String(), "Redis unreachable"); got != 1 {
		t.Fatalf("outage logged %d times, want once:\n%s", got, logs.String())
	}

	redisSrv.start() // Redis is back (empty: it keeps no data on disk)
	deadline := time.Now().Add(5 * time.Second)
	for !limiter.UsingPrimary() {
		if time.Now().After(deadline) {
			t.Fatalf("limiter did not return to Redis within 5s; log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "Redis reachable again") {
		t.Fatalf("recovery not logged:\n%s", logs.String())
	}
	// Back on Redis: a fresh bucket there, whatever the local one says.
	a := api.do("GET", "/beta/tokens", key)
	if a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != 4 {
		t.Fatalf("after recovery: %d remaining %s, want 200 with 4 remaining (Redis's new bucket)", a.status, a.header.Get(HeaderRemaining))
	}
	if n, err := rdb.Exists(ctx, "rate:"+limiterKey(mustFindKey(t, api.store, key))).Result(); err != nil || n != 1 {
		t.Fatalf("rate counter not back in Redis (%d, %v)", n, err)
	}
}

func mustFindKey(t *testing.T, s *Store, ref string) Key {
	t.Helper()
	k, err := s.FindKey(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// An unusable REDIS_URL is refused at start rather than at the first request.
func TestNewLimiter(t *testing.T) {
	if _, _, err := NewLimiter("http://not-redis", nil); err == nil {
		t.Fatal("NewLimiter accepted a non-redis URL")
	}
	l, closeFn, err := NewLimiter("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if _, ok := l.(*MemoryLimiter); !ok {
		t.Fatalf("without REDIS_URL: %T, want *MemoryLimiter", l)
	}
	redisSrv := startRedis(t)
	l, closeFn, err = NewLimiter(redisSrv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	fb, ok := l.(*FallbackLimiter)
	if !ok || !fb.UsingPrimary() {
		t.Fatalf("with REDIS_URL: %T, want a *FallbackLimiter on Redis", l)
	}
	r, err := l.AllowRate(context.Background(), "k", Rate{RatePerSecond: 1, Burst: 3}, 1)
	if err != nil || !r.Allowed || r.Remaining != 2 {
		t.Fatalf("%+v %v", r, err)
	}
}
