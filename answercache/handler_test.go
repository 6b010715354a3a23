package answercache

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// counting answers every request with its path and the version it was computed at, and
// counts the computations.
type counting struct {
	runs    atomic.Int64
	version *atomic.Int64
	delay   time.Duration
	status  int
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.runs.Add(1)
	time.Sleep(c.delay)
	w.Header().Set("Content-Type", "application/json")
	if c.status != 0 {
		w.WriteHeader(c.status)
	}
	fmt.Fprintf(w, `{"path":%q,"version":%d,"pad":%q}`, r.URL.RequestURI(), c.version.Load(), strings.Repeat("x", 200))
}

func get(t *testing.T, h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// An answer is kept for its version: asked again at the same version it is not computed
// again, at the next one it is; parameters in another order are the same question; a
// client holding the body gets a 304.
func TestKeptForOneVersion(t *testing.T) {
	var v atomic.Int64
	next := &counting{version: &v}
	c := New(func() Version { return Version{Data: v.Load()} }, Options{})
	h := c.Handler(next)
	first := get(t, h, "/beta/blocks?ps=10&p=1")
	second := get(t, h, "/beta/blocks?p=1&ps=10")
	if next.runs.Load() != 1 || first.Body.String() != second.Body.String() || second.Header().Get(Header) != "hit" {
		t.Fatalf("asked twice at one version: %d computations, second %q (%s)", next.runs.Load(), second.Body, second.Header().Get(Header))
	}
	etag := second.Header().Get("ETag")
	if w := get(t, h, "/beta/blocks?p=1&ps=10", "If-None-Match", etag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Fatalf("If-None-Match %s: %d %q, want 304 and no body", etag, w.Code, w.Body)
	}
	v.Add(1)
	third := get(t, h, "/beta/blocks?ps=10&p=1")
	if next.runs.Load() != 2 || !strings.Contains(third.Body.String(), `"version":1`) {
		t.Fatalf("after the version moved: %d computations, %q", next.runs.Load(), third.Body)
	}
}

// Concurrent identical requests at a new version wait for one computation.
func TestOneComputationPerMiss(t *testing.T) {
	var v atomic.Int64
	next := &counting{version: &v, delay: 50 * time.Millisecond}
	h := New(func() Version { return Version{Data: v.Load()} }, Options{}).Handler(next)
	var wg sync.WaitGroup
	bodies := make([]string, 20)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i] = get(t, h, "/beta/blocks").Body.String()
		}()
	}
	wg.Wait()
	if n := next.runs.Load(); n != 1 {
		t.Fatalf("20 identical requests at once: %d computations, want 1", n)
	}
	for _, b := range bodies {
		if b != bodies[0] {
			t.Fatalf("answers differ: %q and %q", b, bodies[0])
		}
	}
}

// Mutations, subscriptions, a key's webhooks, streams and errors are never kept.
func TestNeverKept(t *testing.T) {
	var v atomic.Int64
	next := &counting{version: &v}
	h := New(func() Version { return Version{} }, Options{}).Handler(next)
	post := func(body string, header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for range 2 {
		post(`{"query":"mutation { requestNftMetadataUpdate(contractAddress: \"0x1\", tokenId: \"1\") }"}`)
		post(`{"query":"subscription { newBlocks { number } }"}`, "Accept", "text/event-stream")
		post(`{"query":"{ blocks { totalCount } }"}`, "Accept", "text/event-stream")
		get(t, h, "/graphql?query=mutation%7Bx%7D")
		// A key's webhooks are its own: the same document answers each key differently.
		post(`{"query":"{ webhooks { id url } }"}`)
		post(`{"query":"{ \u0077ebhooks { id url } }"}`)
		get(t, h, "/graphql?query=%7Bwebhooks%7Bid%7D%7D")
	}
	if n := next.runs.Load(); n != 14 {
		t.Fatalf("%d computations of 14 requests that are never kept", n)
	}
	failing := &counting{version: &v, status: http.StatusNotFound}
	h = New(func() Version { return Version{} }, Options{}).Handler(failing)
	get(t, h, "/beta/blocks/99")
	if w := get(t, h, "/beta/blocks/99"); failing.runs.Load() != 2 || w.Code != http.StatusNotFound {
		t.Fatalf("a 404 asked twice: %d computations, status %d", failing.runs.Load(), w.Code)
	}
}

// 100,000 distinct questions, half REST paths and half GraphQL documents (POSTed, each with
// its own variables): the cache holds no more than its cap, and the process no more than
// the cap's worth besides.
func TestMemoryStaysWithinTheCap(t *testing.T) {
	const limit = 4 << 20
	var v atomic.Int64
	c := New(func() Version { return Version{} }, Options{MaxBytes: limit})
	h := c.Handler(&counting{version: &v})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 100_000 {
		if i%2 == 0 {
			get(t, h, fmt.Sprintf("/beta/txns?block=%d", i))
		} else {
			body := fmt.Sprintf(`{"query":"query Q($n: Int!) { block(number: $n) { hash } }","variables":{"n":%d}}`, i)
			r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(httptest.NewRecorder(), r)
		}
		if c.Bytes() > limit {
			t.Fatalf("after %d questions the cache holds %d bytes, over its cap of %d", i+1, c.Bytes(), limit)
		}
	}
	if c.Bytes() < limit/2 {
		t.Fatalf("the cache holds %d bytes of a %d cap after 100,000 answers: it keeps too little", c.Bytes(), limit)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 3*limit {
		t.Fatalf("the heap grew by %d bytes for a cache capped at %d", grown, limit)
	}
}
