package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/db/pglocal"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/sim"
)

// serveProcess runs `starkgraph serve` as a process of its own (this test binary running
// main) over databaseURL, with extra environment variables, and returns its base URL once
// /readyz answers. The process is stopped with SIGTERM when the test ends.
func serveProcess(t *testing.T, databaseURL string, env ...string) string {
	t.Helper()
	base, _ := serveProcessWith(t, databaseURL, nil, env)
	return base
}

// serveProcessWith is serveProcess with extra flags of serve; it also returns the process.
func serveProcessWith(t *testing.T, databaseURL string, args, env []string) (string, *os.Process) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", addr, "--admin-addr=", "--verify-workers", "0"}, args...)...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "DATABASE_URL="+databaseURL, "LOG_LEVEL=error")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	runUntilCleanup(t, cmd, 20*time.Second)
	base := "http://" + addr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := waitReady(ctx, base); err != nil {
		t.Fatal(err)
	}
	return base, cmd.Process
}

// apiKey creates a key of the dev plan.
func apiKey(t *testing.T, conn *sqlx.DB) string {
	t.Helper()
	key, _, err := auth.NewStore(conn).CreateKey(context.Background(), "dev", t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// getJSON GETs base+path with the key and decodes the 200 answer into out.
func getJSON(t *testing.T, base, key, path string, out any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

// Reads from a real streaming replica: a primary, a replica of it made with pg_basebackup,
// and `serve` with DATABASE_READ_URL pointing at the replica. With the replica's replay
// paused, the API still shows the head the replica has while the primary moves on, and
// reports how far behind the replica is; resumed, it catches up and reports 0. Keys and
// usage, which are written, go to the primary all along.
func TestReadReplica(t *testing.T) {
	ctx := context.Background()
	dir := dbtest.ClusterDir(t)
	quiet := slog.New(slog.DiscardHandler)
	primary, err := pglocal.Start(ctx, pglocal.Options{DataDir: filepath.Join(dir, "primary", "data"), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = primary.Stop(context.Background()) })
	if err := primary.CreateDatabase(ctx, "starkgraph"); err != nil {
		t.Fatal(err)
	}
	primaryURL := primary.URL("starkgraph")
	conn, err := openMigrated(ctx, primaryURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	chain := sim.New(sim.Config{Seed: 3, Blocks: 41})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	indexertest.Run(t, conn, node.URL, 0, 20)

	if err := primary.BaseBackup(ctx, filepath.Join(dir, "replica", "data")); err != nil {
		t.Fatal(err)
	}
	replica, err := pglocal.Start(ctx, pglocal.Options{DataDir: filepath.Join(dir, "replica", "data"), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replica.Stop(context.Background()) })
	replicaConn, err := sqlx.Open("postgres", replica.URL("starkgraph"))
	if err != nil {
		t.Fatal(err)
	}
	defer replicaConn.Close()

	base := serveProcess(t, primaryURL, "DATABASE_READ_URL="+replica.URL("starkgraph"))
	key := apiKey(t, conn)
	type status struct {
		Apis map[string]struct {
			Status            string   `json:"status"`
			HeadBlock         *int64   `json:"headBlock"`
			ReplicaLagSeconds *float64 `json:"replicaLagSeconds"`
		} `json:"apis"`
	}
	// waitFor polls api-status until cond holds, and returns the last answer's REST part.
	waitFor := func(what string, cond func(head int64, lag float64) bool) (int64, float64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var st status
			getJSON(t, base, key, "/beta/api-status", &st)
			rest := st.Apis["rest"]
			if rest.ReplicaLagSeconds == nil {
				t.Fatalf("api-status on a replica has no replicaLagSeconds: %+v", st)
			}
			head := int64(-1)
			if rest.HeadBlock != nil {
				head = *rest.HeadBlock
			}
			if cond(head, *rest.ReplicaLagSeconds) {
				return head, *rest.ReplicaLagSeconds
			}
			if time.Now().After(deadline) {
				t.Fatalf("api-status never showed %s: head %d, replica lag %v", what, head, *rest.ReplicaLagSeconds)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("the replica caught up at block 20", func(head int64, lag float64) bool { return head == 20 && lag == 0 })

	if _, err := replicaConn.Exec(`SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	indexertest.Run(t, conn, node.URL, 0, 40)
	time.Sleep(1100 * time.Millisecond) // the replica's last replayed commit is now over a second old
	head, lag := waitFor("a paused replica's lag", func(_ int64, lag float64) bool { return lag >= 1 })
	if head != 20 {
		t.Fatalf("with replay paused the API read head %d, want the replica's 20 (the primary is at 40)", head)
	}
	var blocks struct {
		Items []struct {
			Number int64 `json:"blockNumber"`
		} `json:"items"`
	}
	getJSON(t, base, key, "/beta/blocks?ps=10", &blocks)
	if len(blocks.Items) == 0 || blocks.Items[0].Number != 20 {
		t.Fatalf("/beta/blocks from the paused replica: %+v, want block 20 first", blocks.Items)
	}
	t.Logf("replay paused: the API reads head 20 while the primary is at 40, replica lag %.1f s", lag)

	if _, err := replicaConn.Exec(`SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	waitFor("the replica caught up at block 40", func(head int64, lag float64) bool { return head == 40 && lag == 0 })
	var used int64
	if err := conn.Get(&used, `SELECT count(*) FROM api_keys`); err != nil || used == 0 {
		t.Fatalf("the key lives on the primary: %d keys, %v", used, err)
	}
}

// API servers are stateless: two `serve` processes over one database, behind one port
// that sends requests to each in turn, page through the chain's transactions with one key.
// Cursors that one process signed are accepted by the other (the secret is the
// database's), and the pages join up as they do from one server.
func TestTwoAPIServersBehindOnePort(t *testing.T) {
	dbURL := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	chain := sim.New(sim.Config{Seed: 5, Blocks: 30})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	indexertest.Run(t, conn, node.URL, 0, 29)
	var backends []*url.URL
	for range 2 {
		u, err := url.Parse(serveProcess(t, dbURL))
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u)
	}
	var turn atomic.Int64
	var servedBy [2]atomic.Int64
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := turn.Add(1) % 2
		servedBy[i].Add(1)
		r.SetURL(backends[i])
	}})
	defer proxy.Close()
	key := apiKey(t, conn)

	var want []string
	if err := conn.Select(&want, `SELECT '0x' || encode(hash, 'hex') FROM transactions ORDER BY block_number DESC, tx_index DESC`); err != nil {
		t.Fatal(err)
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > len(want) {
			t.Fatal("the cursors do not end")
		}
		var page struct {
			Data struct {
				Transactions struct {
					Edges []struct {
						Node struct {
							Hash string `json:"hash"`
						} `json:"node"`
					} `json:"edges"`
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
				} `json:"transactions"`
			} `json:"data"`
			Errors []any `json:"errors"`
		}
		body, _ := json.Marshal(map[string]any{
			"query":     `query($after: String) { transactions(first: 10, after: $after) { edges { node { hash } } pageInfo { hasNextPage endCursor } } }`,
			"variables": map[string]any{"after": nilIfEmpty(after)},
		})
		req, _ := http.NewRequest(http.MethodPost, proxy.URL+"/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(raw, &page); err != nil || len(page.Errors) > 0 || resp.StatusCode != http.StatusOK {
			t.Fatalf("page %d: %d %s", pages, resp.StatusCode, raw)
		}
		for _, e := range page.Data.Transactions.Edges {
			got = append(got, canonicalHex(e.Node.Hash))
		}
		if !page.Data.Transactions.PageInfo.HasNextPage {
			break
		}
		after = page.Data.Transactions.PageInfo.EndCursor
	}
	for i := range want {
		want[i] = canonicalHex(want[i])
	}
	if len(want) < 30 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("paging through two servers: %d transactions, want the %d of the chain in order", len(got), len(want))
	}
	if servedBy[0].Load() < 2 || servedBy[1].Load() < 2 {
		t.Fatalf("the proxy did not alternate: %d and %d requests", servedBy[0].Load(), servedBy[1].Load())
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// canonicalHex drops a hex number's leading zeros, as felts are written.
func canonicalHex(h string) string {
	h = strings.TrimLeft(strings.TrimPrefix(h, "0x"), "0")
	if h == "" {
		h = "0"
	}
	return "0x" + h
}
