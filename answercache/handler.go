package answercache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/sync/singleflight"

	"github.com/starkgraph/starkgraph/internal/etag"
	"github.com/starkgraph/starkgraph/metrics"
)

// Options bound a Cache.
type Options struct {
	// MaxBytes caps the answers held, keys and headers included (default 256 MiB).
	MaxBytes int64
	// MaxEntry is the largest answer kept (default 1 MiB); larger ones are served, not kept.
	MaxEntry int
	// MaxRequestBody is the largest GraphQL request body keyed (default 64 KiB); a larger
	// one is passed through uncached.
	MaxRequestBody int64
}

// A Cache keeps answers for the version its Follower knows. Safe for concurrent use.
type Cache struct {
	opts    Options
	version func() Version
	answers *store
	flight  singleflight.Group
}

// New is a cache of answers valid for the versions version tells (Follower.Current).
func New(version func() Version, opts Options) *Cache {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 256 << 20
	}
	if opts.MaxEntry <= 0 {
		opts.MaxEntry = 1 << 20
	}
	if opts.MaxRequestBody <= 0 {
		opts.MaxRequestBody = 64 << 10
	}
	return &Cache{opts: opts, version: version,
		answers: newStore(opts.MaxBytes, metrics.AnswerCacheEvictions.Inc)}
}

// Bytes is what the cache holds.
func (c *Cache) Bytes() int64 { return c.answers.size() }

// Header names the cache's part in an answer: hit, wait, miss, uncached or bypass.
const Header = "X-Answer-Cache"

// Handler answers from the cache what next would answer at the current version. Only GET,
// HEAD and GraphQL POST requests are keyed; a GraphQL document that names a mutation or a
// subscription, a stream, and every answer but a 200 without GraphQL errors pass through
// (a GraphQL error may carry a request id, and a 4xx is cheap).
func (c *Cache) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := c.key(r)
		if !ok {
			c.pass(w, r, next, "bypass")
			return
		}
		v := c.version()
		if a := c.answers.get(key, v); a != nil {
			metrics.AnswerCache.WithLabelValues("hit").Inc()
			serve(w, r, a, "hit")
			return
		}
		// One computation per key and version; the others wait for it, each for no longer
		// than its own request may take.
		flightKey := strconv.FormatInt(v.Data, 10) + "." + strconv.FormatInt(v.Epoch, 10) + " " + key
		ch := c.flight.DoChan(flightKey, func() (any, error) {
			a := compute(r, next)
			a.version = v
			if a.status == http.StatusOK && len(a.body) <= c.opts.MaxEntry && !graphQLErrors(r, a.body) {
				c.answers.put(key, a)
				metrics.AnswerCacheBytes.Set(float64(c.answers.size()))
				return keptAnswer{a}, nil
			}
			return a, nil
		})
		select {
		case res := <-ch:
			// res.Shared is true for every request of a shared computation, the one that ran
			// it included: all of them count as waits.
			result := "miss"
			a, ok := res.Val.(*answer)
			if kept, isKept := res.Val.(keptAnswer); isKept {
				a, ok = kept.answer, true
			} else {
				result = "uncached"
			}
			if res.Shared && result == "miss" {
				result = "wait"
			}
			if !ok {
				c.pass(w, r, next, "uncached")
				return
			}
			metrics.AnswerCache.WithLabelValues(result).Inc()
			serve(w, r, a, result)
		case <-r.Context().Done():
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error":"the request timed out while its answer was computed for another request"}`, http.StatusServiceUnavailable)
		}
	})
}

// keptAnswer marks an answer the cache kept, so a waiter may serve it as its own.
type keptAnswer struct{ *answer }

func (c *Cache) pass(w http.ResponseWriter, r *http.Request, next http.Handler, result string) {
	metrics.AnswerCache.WithLabelValues(result).Inc()
	w.Header().Set(Header, result)
	next.ServeHTTP(w, r)
}

// key is what determines r's answer: its method and path, and its query parameters sorted,
// or for a GraphQL POST the hash of its body; false when r is not to be cached.
func (c *Cache) key(r *http.Request) (string, bool) {
	if r.Header.Get("Upgrade") != "" || strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		return "", false
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		q := r.URL.Query()
		if strings.HasPrefix(r.URL.Path, "/graphql") && mutates(q.Get("query")) {
			return "", false
		}
		return "GET " + r.URL.Path + "?" + q.Encode(), true // Encode sorts by name
	case http.MethodPost:
		if !strings.HasPrefix(r.URL.Path, "/graphql") || r.ContentLength > c.opts.MaxRequestBody {
			return "", false
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, c.opts.MaxRequestBody+1))
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		if err != nil || int64(len(body)) > c.opts.MaxRequestBody || mutates(string(body)) || mutates(documentOf(body)) {
			return "", false
		}
		sum := sha256.Sum256(body)
		return "POST " + r.URL.Path + " " + r.Header.Get("Content-Type") + " " + hex.EncodeToString(sum[:]), true
	}
	return "", false
}

// mutates tells whether a GraphQL document may hold a mutation or a subscription, or read
// what belongs to the calling API key rather than the chain (its webhooks, whose answers
// differ per key and change without a data notice): any mention of the words, even in a
// string, so that none is ever kept.
func mutates(doc string) bool {
	return strings.Contains(doc, "mutation") || strings.Contains(doc, "subscription") || strings.Contains(doc, "webhook")
}

// documentOf is the query of a GraphQL POST body as the server decodes it (a JSON escape
// such as \u0077 spells a word mutates would otherwise miss); "" when it is not one, or
// has no escape (the raw body said it all: no decoding on the hits' path).
func documentOf(body []byte) string {
	if bytes.IndexByte(body, '\\') < 0 {
		return ""
	}
	var req struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	return req.Query
}

// compute runs next for r as it would answer a client that holds nothing and takes no
// compression: the answer kept is the plain one, for every client. It runs on a context
// that outlives r's cancellation (others may wait for it) but keeps r's deadline.
func compute(r *http.Request, next http.Handler) *answer {
	ctx := context.WithoutCancel(r.Context())
	if d, ok := r.Context().Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d)
		defer cancel()
	}
	clone := r.Clone(ctx)
	clone.Header.Del("If-None-Match")
	clone.Header.Del("If-Modified-Since")
	clone.Header.Del("Accept-Encoding")
	if r.Method == http.MethodHead {
		clone.Method = http.MethodGet
	}
	rec := &recorder{header: http.Header{}}
	next.ServeHTTP(rec, clone)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &answer{status: rec.status, header: rec.header, body: rec.body.Bytes()}
}

// graphQLErrors tells whether a GraphQL answer carries errors.
func graphQLErrors(r *http.Request, body []byte) bool {
	return strings.HasPrefix(r.URL.Path, "/graphql") && bytes.Contains(body, []byte(`"errors"`))
}

// serve writes a as the answer to r: its headers, an ETag of its body when it has none,
// and 304 when the client holds that body.
func serve(w http.ResponseWriter, r *http.Request, a *answer, result string) {
	h := w.Header()
	for k, vs := range a.header {
		h[k] = append([]string(nil), vs...)
	}
	tag := h.Get("ETag")
	if tag == "" && a.status == http.StatusOK {
		tag = etag.Of(a.body)
		h.Set("ETag", tag)
		if h.Get("Cache-Control") == "" {
			h.Set("Cache-Control", "no-cache")
		}
	}
	h.Set(Header, result)
	if a.status == http.StatusOK && etag.Matches(r.Header.Get("If-None-Match"), tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(a.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(a.body)
	}
}

// recorder keeps what a handler writes.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(p)
}

// Flush is a no-op: the answer is written whole once computed.
func (r *recorder) Flush() {}
