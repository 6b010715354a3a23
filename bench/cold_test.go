package bench

import (
	"encoding/json"
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"
)

// ColdVary puts a block in [0, head] into each cold request, where its path or body asks for
// one, and the requests vary: a cold run that asked the same question twice would measure
// the cache's hits instead.
func TestColdVary(t *testing.T) {
	const head = 1000
	vary := ColdVary(head)
	rnd := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for _, w := range ColdRequests() {
		for range 50 {
			v := vary(w, rnd)
			var n int64
			if v.Body == "" {
				u, err := url.Parse(v.Path)
				if err != nil {
					t.Fatal(err)
				}
				if n, err = strconv.ParseInt(u.Query().Get("block"), 10, 64); err != nil {
					t.Fatalf("%s: %q has no block: %v", w.Name, v.Path, err)
				}
			} else {
				var req struct {
					Variables struct{ N *int64 } `json:"variables"`
				}
				if err := json.Unmarshal([]byte(v.Body), &req); err != nil || req.Variables.N == nil {
					t.Fatalf("%s: %q is not a request with its block: %v", w.Name, v.Body, err)
				}
				n = *req.Variables.N
			}
			if n < 0 || n > head {
				t.Fatalf("%s: block %d outside [0, %d]", w.Name, n, head)
			}
			seen[v.Path+v.Body] = true
		}
	}
	if len(seen) < 90 {
		t.Fatalf("100 cold requests were %d distinct ones", len(seen))
	}
}
