package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A client that keeps sending a wrong key gets 403 for RefusedRate's burst, then 429 like
// any client over its rate; its valid key is still served, and another address is refused
// with 403 as before.
func TestRefusedKeysAreRateLimited(t *testing.T) {
	api := newTestAPI(t, NewMemoryLimiter())
	api.plan(Plan{Name: "free", RatePerSecond: 100, Burst: 100})
	good := api.key("free")
	for i := range RefusedRate.Burst {
		if a := api.do("GET", "/beta/tokens", "sg_wrong"); a.status != http.StatusForbidden {
			t.Fatalf("refusal %d: %d %s, want 403", i+1, a.status, a.body)
		}
	}
	a := api.do("GET", "/beta/tokens", "sg_wrong")
	if a.status != http.StatusTooManyRequests || !strings.Contains(a.body, "Limit Exceeded") || a.header.Get(HeaderRetryAfter) == "" {
		t.Fatalf("past the burst of refusals: %d %s %v, want 429 with Retry-After", a.status, a.body, a.header)
	}
	if a := api.do("GET", "/beta/tokens", ""); a.status != http.StatusTooManyRequests {
		t.Errorf("a missing key past the burst: %d, want 429", a.status)
	}
	if a := api.do("GET", "/beta/tokens", good); a.status != http.StatusOK {
		t.Errorf("a valid key from the same address: %d %s", a.status, a.body)
	}
	// The bucket is the address's: another one starts with its own.
	req, _ := http.NewRequest("GET", api.srv.URL+"/beta/tokens", nil)
	req.Header.Set(HeaderAPIKey, "sg_wrong")
	req.RemoteAddr = "192.0.2.7:5000"
	rec := httptest.NewRecorder()
	api.srv.Config.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a wrong key from another address: %d, want 403", rec.Code)
	}
}
