package rest

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	json "github.com/goccy/go-json"
)

// final marks a response body as being about finalized data (Accepted on L1 blocks and
// their transactions, declared classes): it cannot change, so clients and caches may keep it.
type final struct{ body any }

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
	if f, ok := v.(final); ok {
		v, cache = f.body, cacheFinalized
	}
	body, err := marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if status == http.StatusOK {
		// A weak validator is only compared with the client's copy of the same URL, so a
		// 64-bit non-cryptographic hash does (SHA-256 was 3% of /beta/txns' CPU).
		etag := `W/"` + strconv.FormatUint(xxhash.Sum64(body), 16) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", cache)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
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

// etagMatches implements the weak comparison of If-None-Match (RFC 9110, 13.1.2).
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == want {
			return true
		}
	}
	return false
}
