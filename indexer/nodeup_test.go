package indexer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/sim"
)

// indexer_node_up, which StarkgraphNodeUnreachable alerts on, is 1 while the node answers,
// 0 once it stops answering, and 1 again when it is back.
func TestNodeUpMetricFollowsTheNode(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 4, Blocks: 5, TxPerBlock: 2})
	var down atomic.Bool
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		chain.Handler().ServeHTTP(w, r)
	}))
	defer node.Close()
	ix, err := New(Config{RPCURL: node.URL, DB: dbtest.New(t), StopAt: -1, Logger: quietLogger(), PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// The gauge is exported only once set (metrics.SetGauge): -1 until then.
	value := func() float64 {
		if testutil.CollectAndCount(metrics.IndexerNodeUp) == 0 {
			return -1
		}
		return testutil.ToFloat64(metrics.IndexerNodeUp)
	}
	wait := func(want float64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); value() != want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("indexer_node_up stayed %v, want %v", value(), want)
			}
		}
	}
	wait(1)
	down.Store(true)
	wait(0)
	down.Store(false)
	wait(1)
}
