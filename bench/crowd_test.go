package bench_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/bench"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
)

// The crowd on a small chain growing a block every 300 ms: blocks are indexed while it
// runs (the indexer resumes the built chain without a reorg), every answer is a 200, the
// answer cache serves hits, and no answer showing the latest blocks is older than the
// head seen before its request was sent. With the cache's version frozen the same check
// finds stale answers, so it can fail.
func TestCrowdOnAGrowingChain(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a growing simulated chain")
	}
	conn, dsn := dbtest.NewWithURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	if _, err := bench.Build(ctx, log, conn, 2000); err != nil {
		t.Fatal(err)
	}
	workloads, err := bench.Workloads(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	requests, err := bench.CrowdRequests(workloads)
	if err != nil {
		t.Fatal(err)
	}
	var startHash db.Felt
	if err := conn.Get(&startHash, `SELECT hash FROM blocks ORDER BY number DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}

	chain, err := bench.FollowChain(ctx, log, conn, 300*time.Millisecond, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Stop()
	versions, err := bench.FollowVersions(ctx, conn, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer versions.Close()
	follower := answercache.NewFollower(conn, conn, log)
	go follower.Run(ctx, dsn)

	store := db.NewStore(conn)
	serve := func(version func() answercache.Version) *httptest.Server {
		var cache *answercache.Cache
		var restCache func(http.Handler) http.Handler
		if version != nil {
			cache = answercache.New(version, answercache.Options{MaxBytes: 16 << 20})
			restCache = cache.Handler
		}
		return httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits, Answers: cache,
			REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: log, Answers: restCache})}))
	}
	run := func(name string, version func() answercache.Version) bench.CrowdMeasure {
		srv := serve(version)
		defer srv.Close()
		m := bench.Crowd(ctx, bench.CrowdOptions{Name: name, Base: srv.URL, Requests: requests, Concurrency: 4,
			Duration: 3 * time.Second, Versions: versions, Chain: chain})
		t.Logf("%s: %.0f req/s, p99 %v, first after a change p99 %v (%d), %v, %d changes, %d blocks, %d of %d stale",
			name, m.PerSecond, m.P99, m.FirstAfterChange.P99, m.FirstAfterChange.Requests, m.AnswerCache, m.Changes, m.Blocks, m.Stale, m.Checked)
		return m
	}

	on := run("answer cache on", follower.Current)
	off := run("answer cache off", nil)
	for _, m := range []bench.CrowdMeasure{on, off} {
		if m.Requests == 0 || m.Errors > 0 {
			t.Errorf("%s: %d answers, %d not 200 (%s)", m.Name, m.Requests, m.Errors, m.FirstError)
		}
		// A block every 300 ms, but the indexer shares two busy cores with the crowd: at
		// least one indexed during each run.
		if m.Blocks < 1 || m.Changes < 1 || m.FirstAfterChange.Requests == 0 {
			t.Errorf("%s: %d blocks indexed, %d data changes, %d first requests after one: the chain did not move",
				m.Name, m.Blocks, m.Changes, m.FirstAfterChange.Requests)
		}
		if m.Checked < 10 || m.Stale > 0 {
			t.Errorf("%s: %d of %d answers older than the head (%s)", m.Name, m.Stale, m.Checked, m.FirstStale)
		}
	}
	if on.AnswerCache["hit"] == 0 || on.AnswerCache["miss"] == 0 {
		t.Errorf("cache on: %v, want hits and misses", on.AnswerCache)
	}
	if len(off.AnswerCache) > 0 {
		t.Errorf("cache off: %v, want no answer cache header", off.AnswerCache)
	}

	frozenAt := follower.Current()
	frozen := run("answer cache frozen", func() answercache.Version { return frozenAt })
	if frozen.Stale == 0 {
		t.Errorf("with the version frozen, none of %d answers was stale: the check cannot tell", frozen.Checked)
	}

	if err := chain.Stop(); err != nil {
		t.Fatal(err)
	}
	// The indexer resumed the built chain: the block it started from is still there, and no
	// block was undone.
	var hash db.Felt
	if err := conn.Get(&hash, `SELECT hash FROM blocks WHERE number = $1`, chain.Start); err != nil || hash.String() != startHash.String() {
		t.Errorf("block %d: %s (%v), was %s: the indexer saw a reorg at start", chain.Start, hash, err, startHash)
	}
	table := bench.CrowdMarkdown(bench.CrowdResult{Clients: 4, Requests: []string{"a"}, BlockTime: "300ms", Runs: []bench.CrowdMeasure{on, off}})
	if strings.Count(table, "\n| answer cache") != 2 {
		t.Errorf("crowd table:\n%s", table)
	}
}
