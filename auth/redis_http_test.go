package auth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
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
	if _, _, err := NewLimiter("http://not-redis", FailLocal, nil); err == nil {
		t.Fatal("NewLimiter accepted a non-redis URL")
	}
	l, closeFn, err := NewLimiter("", FailLocal, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if _, ok := l.(*MemoryLimiter); !ok {
		t.Fatalf("without REDIS_URL: %T, want *MemoryLimiter", l)
	}
	redisSrv := startRedis(t)
	l, closeFn, err = NewLimiter(redisSrv.url(), FailLocal, nil)
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

// --limiter-fail open: while Redis is down every request is admitted, uncounted; the
// limiter returns to Redis when it is back.
func TestRedisOutageFailOpen(t *testing.T) {
	redisSrv := startRedis(t)
	redisLimiter := NewRedisLimiter(redisSrv.client())
	limiter := NewFallbackLimiter(redisLimiter, redisLimiter.Ping, fallbackFor(FailOpen), nil, 50*time.Millisecond)
	defer limiter.Close()
	api := newTestAPI(t, limiter)
	api.plan(Plan{Name: "open", RatePerSecond: 0.001, Burst: 2})
	key := api.key("open")
	redisSrv.stop()
	for i := range 10 {
		if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK {
			t.Fatalf("request %d during the outage: %d, want 200 (fail open)", i, a.status)
		}
	}
	redisSrv.start()
	waitForPrimary(t, limiter)
	for i := range 2 {
		if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK {
			t.Fatalf("request %d after recovery: %d", i, a.status)
		}
	}
	assertLimited(t, api.do("GET", "/beta/tokens", key), "Redis counts again after recovery")
}

// --limiter-fail closed: while Redis is down every request is refused with 503 and
// Retry-After; served again when Redis is back.
func TestRedisOutageFailClosed(t *testing.T) {
	redisSrv := startRedis(t)
	redisLimiter := NewRedisLimiter(redisSrv.client())
	limiter := NewFallbackLimiter(redisLimiter, redisLimiter.Ping, fallbackFor(FailClosed), nil, 50*time.Millisecond)
	defer limiter.Close()
	api := newTestAPI(t, limiter)
	api.plan(Plan{Name: "closed", RatePerSecond: 100, Burst: 100})
	key := api.key("closed")
	if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK {
		t.Fatalf("with Redis: %d", a.status)
	}
	redisSrv.stop()
	for i := range 3 {
		a := api.do("GET", "/beta/tokens", key)
		if a.status != http.StatusServiceUnavailable || a.header.Get(HeaderRetryAfter) == "" || !strings.Contains(a.body, "Service Unavailable") {
			t.Fatalf("request %d during the outage: %d %s (Retry-After %q), want 503 (fail closed)", i, a.status, a.body, a.header.Get(HeaderRetryAfter))
		}
	}
	redisSrv.start()
	waitForPrimary(t, limiter)
	if a := api.do("GET", "/beta/tokens", key); a.status != http.StatusOK {
		t.Fatalf("after recovery: %d", a.status)
	}
}

func waitForPrimary(t *testing.T, limiter *FallbackLimiter) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !limiter.UsingPrimary() {
		if time.Now().After(deadline) {
			t.Fatal("limiter did not return to Redis within 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// One key cannot hold more than MaxInFlightPerKey requests at once; others are not held up,
// and the refused requests spend none of the key's rate.
func TestInFlightCapPerKey(t *testing.T) {
	api := &testAPI{t: t, maxInFlight: 2, slow: make(chan struct{}), heldIn: make(chan struct{}, 2)}
	api.db = dbtest.New(t)
	api.store = NewStore(api.db)
	api.usage = NewUsageRecorder(api.store, time.Hour, nil)
	t.Cleanup(func() { api.usage.Close(context.Background()) })
	api.srv = httptest.NewServer(api.handler(NewMemoryLimiter()))
	t.Cleanup(api.srv.Close)
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(api.slow) }) }) // before the server closes
	// A burst the probes below cannot spend before the two held requests are in (at most
	// 500 of them in 5 s): with 30, a slow machine let the probes take every token, the held
	// requests were then refused 429 and never held, and the test waited for nothing.
	const burst = 1000
	api.plan(Plan{Name: "busy", RatePerSecond: 0.001, Burst: burst})
	busyKey, otherKey := api.key("busy"), api.key("busy")
	done := make(chan int, 2)
	for range 2 {
		go func() { done <- api.do("GET", "/beta/slow", busyKey).status }()
	}
	// Both held requests are in before any probe: a probe running beside only one of them
	// would make the second the third in flight, refused, and the cap never met again.
	for range 2 {
		select {
		case <-api.heldIn:
		case s := <-done:
			t.Fatalf("a request to hold was answered %d", s)
		case <-time.After(10 * time.Second):
			t.Fatal("the two requests to hold never came in")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	admitted := 2 // the held ones
	for {
		a := api.do("GET", "/beta/tokens", busyKey)
		if a.status == http.StatusServiceUnavailable {
			if a.header.Get(HeaderRetryAfter) != "1" || !strings.Contains(a.body, "Too many requests in progress") {
				t.Fatalf("over the cap: %d %s %v", a.status, a.body, a.header)
			}
			break
		}
		admitted++
		if time.Now().After(deadline) {
			t.Fatal("a third request of the key was never refused while two were running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 5 { // more refusals: none of them may take from the rate
		if a := api.do("GET", "/beta/tokens", busyKey); a.status != http.StatusServiceUnavailable {
			t.Fatalf("while two are held: %d", a.status)
		}
	}
	if a := api.do("GET", "/beta/tokens", otherKey); a.status != http.StatusOK {
		t.Fatalf("another key: %d", a.status)
	}
	release.Do(func() { close(api.slow) })
	for range 2 {
		if s := <-done; s != http.StatusOK {
			t.Fatalf("held request: %d", s)
		}
	}
	a := api.do("GET", "/beta/tokens", busyKey)
	admitted++
	if a.status != http.StatusOK || a.intHeader(t, HeaderRemaining) != burst-admitted {
		t.Fatalf("after the held requests ended: %d, remaining %s, want %d (refusals spent the rate)",
			a.status, a.header.Get(HeaderRemaining), burst-admitted)
	}
}
