package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/db/pglocal"
	"github.com/starkgraph/starkgraph/webhooks/webhookstest"
)

// chaosPhase is how long each trouble of TestWebhooksChaos lasts. Issue 57 asks for a
// receiver down for a minute and slow for another; the test scales that minute down so
// that it stays within CI's time: 2 s by default (the whole test 16-25 s here), 6 s with
// STARKGRAPH_WEBHOOK_CHAOS=1 (about 65 s), or STARKGRAPH_WEBHOOK_CHAOS_PHASE (e.g. 1m,
// the minute as written). The retry schedule's ceiling is scaled with it
// (--webhook-retry-max phase/4), so that a receiver back up is tried again within the
// phase, and a receiver down for a phase is not failed the 36 times that disable it.
func chaosPhase(t *testing.T) time.Duration {
	phase := 2 * time.Second
	if os.Getenv("STARKGRAPH_WEBHOOK_CHAOS") == "1" {
		phase = 6 * time.Second
	}
	if v := os.Getenv("STARKGRAPH_WEBHOOK_CHAOS_PHASE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("STARKGRAPH_WEBHOOK_CHAOS_PHASE=%q: %v", v, err)
		}
		phase = d
	}
	return phase
}

// TestWebhooksChaos is issue 57's first "Done when": real processes (this binary running
// `sim`, `index` and `serve`), a PostgreSQL cluster of the test's own, and a receiver on
// loopback. While the simulated chain grows and reorganizes (`sim --block-time
// --reorg-every`), four webhooks (blocks, a sender's transactions, a token's transfers of
// a wallet, an emitter's events) are delivered to a receiver that answers 500 to a third
// of the requests at random throughout, and in turn: is down (connection refused, then
// 503), slow, and fine; meanwhile the API process is killed with SIGKILL twice (and
// started again) and PostgreSQL is stopped and started once. At the end (the indexer
// stopped, the chain read from the database) every webhook's receiver holds exactly the
// chain's matching items, each applied in order, every item a reorg undid was retracted,
// no signature failed, and the duplicates (messages received again after a 2xx, the price
// of at-least-once) are counted and reported.
func TestWebhooksChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sim, index and serve as processes for a while")
	}
	needPostgresInstalled(t)
	phase := chaosPhase(t)
	logLevel := "LOG_LEVEL=error"
	if testing.Verbose() { // the indexer's reorgs, the delivery loop's moves back
		logLevel = "LOG_LEVEL=info"
	}
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	// PostgreSQL of our own, to stop and start.
	dataDir := filepath.Join(dbtest.ClusterDir(t), "data")
	startPG := func() *pglocal.Cluster {
		c, err := pglocal.Start(ctx, pglocal.Options{DataDir: dataDir, Fast: true, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cluster := startPG()
	t.Cleanup(func() { _ = pglocal.Kill(dataDir) })
	if err := cluster.CreateDatabase(ctx, "sg"); err != nil {
		t.Fatal(err)
	}
	dbURL := cluster.URL("sg")
	conn, err := openMigrated(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	store := db.NewStore(conn)

	// The chain: a block every 400 ms, a reorg of 5 blocks every 6 (deep enough to undo
	// what a webhook a few blocks behind was told).
	simAddr := freePort(t)
	process(t, nil, "sim", "--addr", simAddr, "--seed", "57", "--blocks", "12", "--tx-per-block", "4",
		"--block-time", "400ms", "--reorg-every", "6", "--reorg-depth", "5")
	indexer, indexerDone := process(t, []string{"DATABASE_URL=" + dbURL, logLevel}, "index", "--rpc", "http://"+simAddr+"/rpc/v0_8", "--admin-addr=", "--batch-size", "5", "--poll-interval", "100ms",
		"--bulk-load-min-blocks", "-1", "--figures-every", "1000000")
	waitFor(t, time.Minute, "the indexer's first blocks", func() bool {
		head, _, ok, err := db.IndexedHead(ctx, conn)
		return err == nil && ok && head >= 11
	})

	// One receiver host for the four webhooks: --webhook-per-host lets them all be served.
	serveArgs := []string{"--webhook-allow-loopback", "--webhook-allow-http", "--webhook-retry-max", (phase / 4).String(),
		"--webhook-per-host", "4",
		"--answer-cache-mb", "0"}
	base, api := serveProcessWith(t, dbURL, serveArgs, []string{logLevel})
	key := apiKey(t, conn)

	recv := webhookstest.NewReceiver(57, 3)
	recvURL, err := recv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()

	// Filters that match some items a block: the busiest sender, a token it moves, the
	// events of an emitter and key with a few a block.
	sender, token, emitter, eventKey := chaosFilters(t, ctx, store)
	const from = 3
	inputs := []string{
		`kind: BLOCKS`,
		fmt.Sprintf(`kind: TRANSACTIONS, transactions: {senderAddress: "%s"}`, sender.Hex()),
		fmt.Sprintf(`kind: TRANSFERS, token: "%s", wallet: "%s"`, token.Hex(), sender.Hex()),
		fmt.Sprintf(`kind: EVENTS, contract: "%s", keys: ["%s"]`, emitter.Hex(), eventKey.Hex()),
	}
	var ids []int64
	for _, in := range inputs {
		var out struct {
			CreateWebhook struct {
				Webhook struct{ ID string }
				Secret  string
			}
		}
		graphQL(t, base, key, fmt.Sprintf(`mutation { createWebhook(input: {url: "%s/hook", fromBlock: %d, %s}) { webhook { id } secret } }`,
			recvURL, from, in), &out)
		id, err := strconv.ParseInt(out.CreateWebhook.Webhook.ID, 10, 64)
		if err != nil {
			t.Fatalf("createWebhook answered id %q", out.CreateWebhook.Webhook.ID)
		}
		recv.Expect(id, out.CreateWebhook.Secret)
		ids = append(ids, id)
	}

	began := time.Now()
	step := func(what string) { t.Logf("%6.1fs  %s", time.Since(began).Seconds(), what) }
	kill := func() {
		step("SIGKILL the API process")
		if err := api.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		base, api = serveProcessWith(t, dbURL, serveArgs, []string{logLevel})
		step("the API process is up again")
	}
	step("fine (but 500 to a third of the requests)")
	time.Sleep(phase)
	kill()
	time.Sleep(phase / 2)
	step("the receiver is down: connection refused")
	recv.Down()
	time.Sleep(phase / 2)
	step("the receiver answers 503")
	if err := recv.Up(); err != nil {
		t.Fatal(err)
	}
	recv.SetUnavailable(true)
	time.Sleep(phase / 2)
	recv.SetUnavailable(false)
	step("the receiver is back; PostgreSQL stops")
	if err := cluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(phase / 2)
	cluster = startPG()
	if cluster.URL("sg") != dbURL {
		t.Fatal("the restarted cluster has another URL")
	}
	step("PostgreSQL is back; the receiver is slow")
	recv.SetSlow(phase / 8)
	time.Sleep(phase / 2)
	kill() // while answers are slow: likely between a receiver's 2xx and its commit
	time.Sleep(phase / 2)
	recv.SetSlow(0)
	step("the receiver is fine again")
	time.Sleep(2 * phase)
	// Reorgs undo what a webhook was told only when it has caught up with the head; the
	// chain goes on until one has (30 s at most), so that retractions are always tested.
	retracted := func() bool {
		for _, id := range ids {
			if st := recv.State(id); st != nil && st.Retractions > 0 {
				return true
			}
		}
		return false
	}
	for wait := time.Now().Add(30 * time.Second); !retracted() && time.Now().Before(wait); {
		time.Sleep(100 * time.Millisecond)
	}

	// The chain stops where the indexer stops: the database is the chain to compare with.
	step("the indexer stops")
	if err := indexer.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-indexerDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the indexer did not exit within 30 s of SIGTERM")
	}
	head, _, _, err := db.IndexedHead(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][]string{}
	hooks := map[int64]*db.Webhook{}
	for _, id := range ids {
		w, err := store.Webhook(ctx, id)
		if err != nil || w == nil {
			t.Fatalf("webhook %d: %v", id, err)
		}
		hooks[id] = w
		if want[id], err = webhookstest.ChainMessages(ctx, store, w, from, head); err != nil {
			t.Fatal(err)
		}
	}
	// A third of the requests failing, each failure waiting up to phase/4, a webhook
	// delivers a few messages a second: the last ones may come a minute after the chain stops.
	deadline := time.Now().Add(max(90*time.Second, 10*phase))
	for _, id := range ids {
		for !slices.Equal(recv.Holds(id), want[id]) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	step(fmt.Sprintf("the receivers have caught up with block %d (or the wait ended)", head))

	received, failed, unavailable, bad := recv.Counts()
	duplicates, retractions := 0, 0
	for _, id := range ids {
		w := hooks[id]
		st := recv.State(id)
		if st == nil {
			t.Errorf("webhook %d (%s): nothing applied", id, w.Kind)
			continue
		}
		got := st.IDs()
		if !slices.Equal(got, want[id]) {
			missing, extra := diff(want[id], got)
			t.Errorf("webhook %d (%s): the receiver holds %d items, the chain %d; missing %v; not on the chain %v",
				id, w.Kind, len(got), len(want[id]), missing, extra)
		}
		if len(want[id]) == 0 {
			t.Errorf("webhook %d (%s): its filter matches nothing; the test shows nothing", id, w.Kind)
		}
		for _, v := range st.Violations {
			t.Errorf("webhook %d (%s): out of order: %s", id, w.Kind, v)
		}
		// Every item applied that the chain no longer has was retracted.
		onChain := map[string]bool{}
		for _, m := range want[id] {
			onChain[m] = true
		}
		undone := 0
		for m := range st.Seen {
			if strings.HasSuffix(m, ":removed") || onChain[m] {
				continue
			}
			undone++
			if !st.Seen[m+":removed"] {
				t.Errorf("webhook %d (%s): %s was undone by a reorg and never retracted", id, w.Kind, m)
			}
		}
		now, err := store.Webhook(ctx, id)
		if err != nil || now.Status != "active" {
			t.Errorf("webhook %d (%s) is not active at the end: %+v %v", id, w.Kind, now, err)
		} else if !slices.Equal(got, want[id]) {
			t.Logf("webhook %d at the end: position %d/%d/%d, %d failures, next attempt %v, last error %q", id, now.PositionBlock,
				now.PositionTx, now.PositionEvent, now.Attempts, now.NextAttemptAt, now.LastError)
		}
		duplicates += st.Duplicates
		retractions += st.Retractions
		t.Logf("webhook %d (%s): %d items, %d undone by reorgs and retracted, %d duplicates", id, w.Kind, len(got), undone, st.Duplicates)
	}
	for _, b := range bad {
		t.Errorf("a signature did not verify: %s", b)
	}
	if t.Failed() { // who holds the webhooks' advisory locks (webhooks.lockKey: 57 << 48 | id)
		var locks []struct {
			ID    int64  `db:"id"`
			PID   int    `db:"pid"`
			State string `db:"state"`
			Query string `db:"query"`
			Since string `db:"since"`
		}
		if err := conn.Select(&locks, `SELECT l.objid::bigint AS id, l.pid, coalesce(a.state, '') AS state, coalesce(a.query, '') AS query,
			coalesce((now() - a.backend_start)::text, '') AS since
			FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted`); err != nil {
			t.Log(err)
		}
		for _, l := range locks {
			t.Logf("advisory lock %d held by backend %d (%s for %s): %s", l.ID, l.PID, l.State, l.Since, l.Query)
		}
		_ = api.Signal(syscall.SIGQUIT) // its goroutines, on the test's stderr
		time.Sleep(time.Second)
	}
	if retractions == 0 {
		t.Error("no retraction was delivered: the reorgs undid nothing delivered, so the test shows nothing of them")
	}
	if failed == 0 || unavailable == 0 {
		t.Errorf("the receiver failed %d requests and answered 503 to %d: the troubles did not happen", failed, unavailable)
	}
	var attempts, refused int
	if err := conn.Get(&attempts, `SELECT count(*) FROM webhook_deliveries`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Get(&refused, `SELECT count(*) FROM webhook_deliveries WHERE status = 0`); err != nil {
		t.Fatal(err)
	}
	if refused == 0 {
		t.Error("no attempt met the receiver down (no answer): the outage did not happen")
	}
	// Duplicates: the at-least-once price of the kills (an answer received, the process
	// killed before its commit) and of nothing else.
	t.Logf("to block %d (phase %s): %d requests, %d answered 500, %d answered 503, %d without an answer; %d retractions; DUPLICATES %d",
		head, phase, received, failed, unavailable, refused, retractions, duplicates)
	t.Logf("the delivery log holds %d attempts", attempts)
}

// needPostgresInstalled skips without a PostgreSQL install, unless CI=true.
func needPostgresInstalled(t *testing.T) {
	t.Helper()
	if _, err := pglocal.Find(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is not installed: %v", err)
		}
		t.Skipf("PostgreSQL is not installed (%v): skipping", err)
	}
}

// process runs `starkgraph args...` (this test binary running main) with env until the
// test ends; the channel is closed when it has exited.
func process(t *testing.T, env []string, args ...string) (*exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1", "LOG_LEVEL=error"), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	return cmd, exited
}

// graphQL posts query with key and decodes its data into out; errors fail the test.
func graphQL(t *testing.T, base, key, query string, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || len(a.Errors) > 0 {
		t.Fatalf("%s: %d %v %v", query, resp.StatusCode, a.Errors, err)
	}
	if err := json.Unmarshal(a.Data, out); err != nil {
		t.Fatal(err)
	}
}

// chaosFilters picks from the indexed blocks the busiest sender, the token of most of its
// transfers, and an emitter and first key with a few events a block.
func chaosFilters(t *testing.T, ctx context.Context, store *db.Store) (sender, token, emitter, key db.Felt) {
	t.Helper()
	txs, err := store.TransactionsInRange(ctx, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, x := range txs {
		if x.SenderAddress != nil {
			if n[x.SenderAddress.Hex()]++; sender == nil || n[x.SenderAddress.Hex()] > n[sender.Hex()] {
				sender = x.SenderAddress
			}
		}
	}
	transfers, err := store.TransfersInRange(ctx, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	clear(n)
	for _, x := range transfers {
		if x.FromAddress.Equal(sender) || x.ToAddress.Equal(sender) {
			if n[x.TokenAddress.Hex()]++; token == nil || n[x.TokenAddress.Hex()] > n[token.Hex()] {
				token = x.TokenAddress
			}
		}
	}
	events, err := store.EventsInRange(ctx, 3, 11) // not the genesis block's deployments
	if err != nil {
		t.Fatal(err)
	}
	clear(n)
	for _, e := range events {
		if len(e.Keys) > 0 {
			n[e.FromAddress.Hex()+" "+e.Keys[0].Hex()]++
		}
	}
	for _, e := range events {
		if len(e.Keys) == 0 {
			continue
		}
		c := n[e.FromAddress.Hex()+" "+e.Keys[0].Hex()]
		if c <= 12 && (emitter == nil || c > n[emitter.Hex()+" "+key.Hex()]) {
			emitter, key = e.FromAddress, e.Keys[0]
		}
	}
	if sender == nil || token == nil || emitter == nil {
		t.Fatalf("no filter to pick: sender %v, token %v, emitter %v", sender, token, emitter)
	}
	return sender, token, emitter, key
}

// diff is what want has that got lacks, and what got has that want lacks.
func diff(want, got []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return missing, extra
}
