package rest

import (
	"bytes"
	"net/http"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/internal/etag"
)

// final marks a response body as being about finalized data (Accepted on L1 blocks and
// their transactions, declared classes): it cannot change, so clients and caches may keep it.
type final struct{ body any }

// withHeaders adds headers to a response: what the body says about itself beyond the
// reference's fields, which a client written against the reference never reads.
type withHeaders struct {
	body   any
	header map[string]string
}

// Cache lifetimes: finalized data for a day; anything else is revalidated every time
// (the ETag still saves the body when nothing changed).
const (
	cacheFinalized = "public, max-age=86400"
	cacheLive      = "no-cache"
)

// writeJSON answers with a JSON body, an ETag and a Cache-Control header, or with 304 Not
// Modified when the client already holds this body.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	cache := cacheLive
	h := w.Header()
	if wh, ok := v.(withHeaders); ok {
		for k, val := range wh.header {
			h.Set(k, val)
		}
		v = wh.body
	}
	if f, ok := v.(final); ok {
		v, cache = f.body, cacheFinalized
	}
	body, err := marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	h.Set("Content-Type", "application/json")
	if status == http.StatusOK {
		tag := etag.Of(body)
		h.Set("ETag", tag)
		h.Set("Cache-Control", cache)
		if etag.Matches(r.Header.Get("If-None-Match"), tag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	writeJSON(w, r, status, errorBody{Error: msg})
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
