package answercache_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/sim"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// Answers stay fresh while the chain moves: the indexer follows the simulated node as it
// grows, reorganizes and accepts blocks on L1, and labels are written, while clients ask the
// same questions of both APIs at once. Every answer served at a data version that still
// held once the answer without the cache was computed equals that answer. With the version frozen (no invalidation) the same run finds stale answers, so the
// test can fail.
func TestAnswersFollowTheData(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a live simulated chain")
	}
	stale, checked, hits := run(t, false)
	if stale > 0 {
		t.Errorf("%d of %d answers checked were staler than the data version they were asked at", stale, checked)
	}
	if checked < 50 || hits == 0 {
		t.Errorf("%d answers checked, %d hits: the run did not exercise the cache", checked, hits)
	}
	t.Logf("fresh: %d answers checked, %d served from memory", checked, hits)
	stale, checked, _ = run(t, true)
	if stale == 0 {
		t.Errorf("with the version frozen, none of %d answers was stale: the test cannot tell", checked)
	}
	t.Logf("frozen: %d of %d answers stale", stale, checked)
}

// questions are asked of both APIs: lists and single objects that blocks, reorgs, L1
// acceptance and labels change.
var questions = []struct{ method, target, body string }{
	{"POST", "/graphql", `{"query":"{ blocks(first: 5) { edges { node { number hash status timestamp txnCount } } } }"}`},
	{"POST", "/graphql", `{"query":"{ indexerStatus { headBlock headHash } }"}`},
	{"POST", "/graphql", `{"query":"{ contract(address: \"0x1\") { address alias } }"}`},
	{"GET", "/beta/blocks?ps=10", ""},
	{"GET", "/beta/blocks?ps=10&p=2", ""},
}

func run(t *testing.T, frozen bool) (stale, checked, hits int) {
	url := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	quiet := slog.New(slog.DiscardHandler)

	chain := sim.New(sim.Config{Seed: 3, Blocks: 30})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: -1, Logger: quiet,
		PollInterval: 20 * time.Millisecond, FinalityInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ixDone := make(chan error, 1)
	go func() { ixDone <- ix.Run(ctx) }()
	waitFor(t, conn, chain)

	follower := answercache.NewFollower(conn, conn, quiet)
	go follower.Run(ctx, url)
	version := follower.Current
	if frozen {
		first := follower.Current()
		version = func() answercache.Version { return first }
	}
	cache := answercache.New(version, answercache.Options{MaxBytes: 16 << 20})
	store := db.NewStore(conn)
	cached := api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits, Answers: cache,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: quiet, Answers: cache.Handler})})
	plain := api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: quiet})})

	// The chain moves: blocks, reorgs (the indexer undoes and rewrites), L1 acceptance (the
	// indexer's finality pass), labels written.
	moving, stop := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(moving)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(150 * time.Millisecond):
			}
			switch i % 4 {
			case 0, 2:
				chain.AddBlocks(1)
			case 1:
				chain.Reorg(2)
				chain.AddBlocks(3)
			case 3:
				label := db.Label{Address: db.MustFelt("0x1"), Name: fmt.Sprintf("label %d", i), Kind: "contract", Origin: db.LabelOriginCLI}
				if err := db.ImportLabels(ctx, conn, []db.Label{label}); err != nil {
					t.Errorf("labels: %v", err)
				}
			}
		}
	}()

	var mu sync.Mutex
	var nHits atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(4 * time.Second)
	for c := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; time.Now().Before(deadline); i++ {
				q := questions[i%len(questions)]
				known := follower.Current().Data
				got, result := ask(t, cached, q.method, q.target, q.body)
				want, _ := ask(t, plain, q.method, q.target, q.body)
				if result == "hit" {
					nHits.Add(1)
				}
				// Only an answer whose data version is certain is compared: no change was
				// heard of from the request's arrival until the uncached answer was computed,
				// nor in the moment after (a change committed while the request ran is
				// heard of within milliseconds: 50 of them leave room for a loaded machine,
				// where the follower's goroutine waited over 20 ms for a core; with one
				// version a block, far fewer notices fall in the window to hide that).
				time.Sleep(50 * time.Millisecond)
				if follower.Current().Data != known {
					continue
				}
				mu.Lock()
				checked++
				if !bytes.Equal(got, want) {
					stale++
					if stale <= 3 && !frozen {
						t.Logf("%s %s at version %d (%s):\n got  %s\n want %s", q.method, q.target, known, result, got, want)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-moving
	cancel()
	if err := <-ixDone; err != nil && ctx.Err() == nil {
		t.Fatalf("indexer: %v", err)
	}
	return stale, checked, int(nHits.Load())
}

// ask sends one request and returns the answer's body and what the cache did.
func ask(t *testing.T, h http.Handler, method, target, body string) ([]byte, string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("%s %s: %d %s", method, target, w.Code, w.Body)
	}
	return w.Body.Bytes(), w.Header().Get(answercache.Header)
}

// waitFor waits until the indexer has written the chain's head.
func waitFor(t *testing.T, conn *sqlx.DB, chain *sim.Chain) {
	t.Helper()
	head, _ := chain.Head()
	for range 600 {
		h, _, ok, err := db.IndexedHead(context.Background(), conn)
		if err == nil && ok && h >= int64(head) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the indexer did not reach block %d", head)
}
