package hostile

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/internal/linger"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/sim"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestHostileRun sends a short hostile run (HOSTILE_REQUESTS, default 3,000) to a real
// server, with API keys, over a database the indexer filled from the simulated chain, and
// wants nothing wrong: no 5xx, no leak, no broken connection, no hang, every oversized
// body answered with a readable 413 (or the 403 of a forged key).
func TestHostileRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a hostile run against a real server")
	}
	conn := dbtest.New(t)
	chain := sim.New(sim.Config{Seed: 1, Blocks: 40})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	head, _ := chain.Head()
	quiet := slog.New(slog.DiscardHandler)
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: int64(head), Logger: quiet, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := ix.Run(ctx); err != nil {
		t.Fatalf("indexing the simulated chain: %v", err)
	}

	store := db.NewStore(conn)
	keys := auth.NewStore(conn)
	key, err := auth.DevKey(ctx, keys, "")
	if err != nil {
		t.Fatal(err)
	}
	limiter, closeLimiter, err := auth.NewLimiter("", auth.FailLocal, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLimiter()
	// With the answer cache on, as serve runs by default: hostile documents and parameters go
	// through its keys, its one computation per miss and its size checks (issue 56). The
	// chain stands still, so one data version serves the whole run.
	answers := answercache.New(func() answercache.Version { return answercache.Version{Data: 1} }, answercache.Options{MaxBytes: 8 << 20})
	handler := api.NewHandler(api.Config{Store: store, Writes: store, Logger: quiet,
		Auth:    auth.New(auth.Options{Keys: keys, Limiter: limiter, Logger: quiet}),
		REST:    rest.NewHandler(&resolvers.Resolver{Store: store, Writes: store}, rest.Options{Logger: quiet, Answers: answers.Handler}),
		Answers: answers,
		Limits:  api.DefaultGraphQLLimits, MaxInFlight: 512, Introspection: true})
	srv := httptest.NewUnstartedServer(handler)
	// As serve's server (serving.go).
	srv.Config.ReadHeaderTimeout, srv.Config.ReadTimeout, srv.Config.WriteTimeout = 10*time.Second, 30*time.Second, 20*time.Second
	srv.Config.MaxHeaderBytes = 64 << 10
	srv.Listener = linger.Listen(srv.Listener)
	srv.Start()
	defer srv.Close()

	n := 3000
	if s := os.Getenv("HOSTILE_REQUESTS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Run(ctx, Config{URL: srv.URL, Key: key, Requests: n, Concurrency: 16, Timeout: 30 * time.Second,
		PID: os.Getpid(), MaxBody: int(api.DefaultGraphQLLimits.MaxBody), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out)
	t.Log("\n" + out.String())
	if !rep.Clean() {
		t.Errorf("the hostile run found problems")
	}
	if rep.Requests != n || len(rep.ByKind) < 8 || rep.Oversized == 0 {
		t.Errorf("the run did not send every kind of attack: %d requests, %v", rep.Requests, rep.ByKind)
	}
	if answers.Bytes() == 0 {
		t.Errorf("the answer cache kept nothing: the run did not go through it")
	}
	if rep.ByStatus[200] == 0 || rep.ByStatus[400] == 0 || rep.ByStatus[413] == 0 {
		t.Errorf("statuses %v: the run should reach operations, their checks and the body limit", rep.ByStatus)
	}
}
