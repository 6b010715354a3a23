package api

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"github.com/starkgraph/starkgraph/loaders"
)

// A request is marked as having cores to spare while no more requests run than there are
// cores, and only then; past the cap, one is refused.
func TestCapInFlightMarksSpareCores(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	release := make(chan struct{})
	spare := make(chan bool, cores+2)
	h := capInFlight(cores+1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spare <- loaders.HasSpareCores(r.Context())
		<-release
	}))
	serve := func() int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/beta/blocks", nil))
		return w.Code
	}
	var held sync.WaitGroup
	hold := func() {
		held.Add(1)
		go func() { defer held.Done(); serve() }()
	}
	for range cores {
		hold()
	}
	for range cores {
		if !<-spare {
			t.Error("a request among the first as many as the cores is not marked")
		}
	}
	hold()
	if <-spare {
		t.Error("a request beyond the cores is marked")
	}
	if code := serve(); code != http.StatusServiceUnavailable {
		t.Errorf("a request past the cap answered %d, want 503", code)
	}
	close(release)
	held.Wait()
	serve()
	if !<-spare {
		t.Error("a request alone again is not marked")
	}
}
