package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/internal/nodeclients"
	"github.com/starkgraph/starkgraph/sim"
)

// The real client libraries, from npm, against real servers: graphql-ws (graphql-transport-ws)
// and graphql-sse, run by Node from clients/ (internal/nodeclients).

// clientEvent is one line a script reports.
type clientEvent struct {
	Event  string          `json:"event"`
	MS     int64           `json:"ms"`
	Code   int             `json:"code"`
	Reason string          `json:"reason"`
	Status int             `json:"status"`
	N      int             `json:"n"`
	Result json.RawMessage `json:"result"`
	Raw    string          `json:"-"`
}

// nodeScript is a running scenario of clients/graphql.mjs.
type nodeScript struct {
	events <-chan clientEvent // closed when the script exits
	stdin  io.WriteCloser
	seen   []clientEvent
}

func runScenario(t *testing.T, dir, base, key, scenario string) *nodeScript {
	t.Helper()
	cmd := exec.Command("node", "graphql.mjs", scenario)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STARKGRAPH_URL="+base, "STARKGRAPH_KEY="+key)
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	events := make(chan clientEvent, 10000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(events)
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<24)
		for lines.Scan() {
			var e clientEvent
			if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
				e = clientEvent{Event: "unparsed"}
			}
			e.Raw = lines.Text()
			events <- e
		}
	}()
	script := &nodeScript{events: events, stdin: stdin}
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		if t.Failed() { // what the library saw says why a wait on the server failed
			for e := range events {
				script.seen = append(script.seen, e)
			}
			t.Logf("%s reported:\n%s", scenario, script.log())
		}
	})
	return script
}

// until reads events until want accepts one, and returns it.
func (s *nodeScript) until(t *testing.T, ctx context.Context, what string, want func(clientEvent) bool) clientEvent {
	t.Helper()
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				t.Fatalf("the script ended before %s; it reported:\n%s", what, s.log())
			}
			s.seen = append(s.seen, e)
			if e.Event == "crashed" {
				t.Fatalf("the script crashed: %s", e.Raw)
			}
			if want(e) {
				return e
			}
		case <-ctx.Done():
			t.Fatalf("no %s; the script reported:\n%s", what, s.log())
		}
	}
}

// finish reads the script's events to its end.
func (s *nodeScript) finish(t *testing.T, ctx context.Context) []clientEvent {
	t.Helper()
	s.stdin.Close()
	for {
		select {
		case e, ok := <-s.events:
			if !ok {
				return s.seen
			}
			s.seen = append(s.seen, e)
		case <-ctx.Done():
			t.Fatalf("the script did not end; it reported:\n%s", s.log())
		}
	}
}

func (s *nodeScript) log() string {
	var b strings.Builder
	for _, e := range s.seen {
		b.WriteString(e.Raw + "\n")
	}
	return b.String()
}

func (s *nodeScript) count(event string) int {
	n := 0
	for _, e := range s.seen {
		if e.Event == event {
			n++
		}
	}
	return n
}

// newBlock accepts a newBlocks message announcing block n as written.
func newBlock(n int64) func(clientEvent) bool {
	return func(e clientEvent) bool {
		if e.Event != "next" {
			return false
		}
		var r struct {
			Data struct {
				NewBlocks blockMessage `json:"newBlocks"`
			} `json:"data"`
		}
		_ = json.Unmarshal(e.Result, &r)
		return r.Data.NewBlocks.Kind == "NEW" && r.Data.NewBlocks.Block != nil && r.Data.NewBlocks.Block.Number == n
	}
}

// restartableServe runs `serve` on a fixed address, so that it can be stopped and started
// again where its clients left it.
type restartableServe struct {
	addr, admin string
	args        []string
	dbURL       string
	cmd         *exec.Cmd
	exited      chan error
}

func startServe(t *testing.T, dbURL string, args ...string) *restartableServe {
	t.Helper()
	s := &restartableServe{addr: freePort(t), admin: freePort(t), args: args, dbURL: dbURL}
	s.start(t)
	t.Cleanup(func() { s.stop(t) })
	return s
}

func (s *restartableServe) base() string { return "http://" + s.addr }

func (s *restartableServe) live() liveServer {
	return liveServer{base: s.base(), admin: "http://" + s.admin, proc: s.cmd.Process}
}

func (s *restartableServe) start(t *testing.T) {
	t.Helper()
	s.cmd = exec.Command(os.Args[0], append([]string{"serve", "--addr", s.addr, "--admin-addr", s.admin, "--verify-workers", "0"}, s.args...)...)
	s.cmd.Env = append(os.Environ(), runMainEnv+"=1", "DATABASE_URL="+s.dbURL, "LOG_LEVEL=error")
	s.cmd.Stdout, s.cmd.Stderr = os.Stderr, os.Stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.exited = make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan error) { exited <- cmd.Wait() }(s.cmd, s.exited)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := waitReady(ctx, s.base()); err != nil {
		t.Fatal(err)
	}
}

// stop ends the server as an operator would (SIGTERM), and waits for it.
func (s *restartableServe) stop(t *testing.T) {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		t.Errorf("serve did not stop within 20 s of SIGTERM")
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// graphql-ws and graphql-sse receive every new block, and come back after the server
// restarts: the WebSocket is closed as 1012 Service Restart and the SSE stream ends without
// complete, both of which the libraries retry; they subscribe again on the new server and
// receive the blocks written after it.
func TestClientLibrariesFollowBlocksAcrossARestart(t *testing.T) {
	dir := nodeclients.Dir(t)
	dbURL, conn, chain := followedChain(t, sim.Config{Seed: 21, Blocks: 4, TxPerBlock: 2})
	srv := startServe(t, dbURL)
	key := apiKey(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	ws := runScenario(t, dir, srv.base(), key, "ws-blocks")
	sse := runScenario(t, dir, srv.base(), key, "sse-blocks")
	srv.live().waitSubscriptions(t, 2)
	for n := int64(4); n < 7; n++ {
		chain.AddBlocks(1)
		ws.until(t, ctx, fmt.Sprintf("block %d over graphql-ws", n), newBlock(n))
		sse.until(t, ctx, fmt.Sprintf("block %d over graphql-sse", n), newBlock(n))
	}

	srv.stop(t)
	closed := ws.until(t, ctx, "the WebSocket's close", func(e clientEvent) bool { return e.Event == "closed" })
	if closed.Code != 1012 {
		t.Errorf("graphql-ws saw its socket closed with %d %q, want 1012 Service Restart", closed.Code, closed.Reason)
	}
	srv.start(t)
	srv.live().waitSubscriptions(t, 2)
	chain.AddBlocks(1)
	ws.until(t, ctx, "block 7 over graphql-ws after the restart", newBlock(7))
	sse.until(t, ctx, "block 7 over graphql-sse after the restart", newBlock(7))
	for name, s := range map[string]*nodeScript{"graphql-ws": ws, "graphql-sse": sse} {
		s.finish(t, ctx)
		if s.count("connecting") != 2 || s.count("error") != 0 || s.count("complete") != 0 {
			t.Errorf("%s: want two connections and neither error nor complete; it reported:\n%s", name, s.log())
		}
	}
}

// What graphql-ws and graphql-sse report for a query, a wrong key and a missing key.
func TestClientLibrariesQueryAndKeys(t *testing.T) {
	dir := nodeclients.Dir(t)
	dbURL, conn, _ := followedChain(t, sim.Config{Seed: 22, Blocks: 3, TxPerBlock: 2})
	srv := startServe(t, dbURL)
	key := apiKey(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// All at once: the scenarios wait on the server, not on each other.
	scripts := map[string]*nodeScript{}
	for _, s := range []string{"ws-query", "ws-bad-key", "ws-bad-key-retry", "ws-no-key", "sse-bad-key"} {
		scripts[s] = runScenario(t, dir, srv.base(), key, s)
	}

	t.Run("query over the WebSocket", func(t *testing.T) {
		s := scripts["ws-query"]
		next := s.until(t, ctx, "the answer", func(e clientEvent) bool { return e.Event == "next" })
		var got struct {
			Data struct {
				Blocks struct {
					Edges []struct {
						Node struct {
							Number int64
							Hash   string
						}
					}
				}
			}
			Errors []any
		}
		if err := json.Unmarshal(next.Result, &got); err != nil || len(got.Errors) > 0 {
			t.Fatalf("answer %s: %v", next.Result, err)
		}
		var want []string
		if err := conn.Select(&want, `SELECT '0x' || encode(hash, 'hex') FROM blocks ORDER BY number DESC LIMIT 2`); err != nil {
			t.Fatal(err)
		}
		var hashes []string
		for _, e := range got.Data.Blocks.Edges {
			hashes = append(hashes, canonicalHex(e.Node.Hash))
		}
		for i := range want {
			want[i] = canonicalHex(want[i])
		}
		if strings.Join(hashes, ",") != strings.Join(want, ",") {
			t.Errorf("blocks %v, want %v", hashes, want)
		}
		s.until(t, ctx, "complete", func(e clientEvent) bool { return e.Event == "complete" })
	})

	// The refusals, as the subscriber's error callback receives them.
	refusal := func(t *testing.T, scenario string, attempts int) []clientEvent {
		t.Helper()
		s := scripts[scenario]
		seen := s.finish(t, ctx)
		var errs, connecting []clientEvent
		for _, e := range seen {
			switch e.Event {
			case "error":
				errs = append(errs, e)
			case "connecting":
				connecting = append(connecting, e)
			}
		}
		if len(errs) != 1 || s.count("next") != 0 {
			t.Fatalf("want one error and no message; the script reported:\n%s", s.log())
		}
		if errs[0].Code != 4403 || errs[0].Reason != "Forbidden" {
			t.Errorf("the subscriber got %s, want the close 4403 Forbidden", errs[0].Raw)
		}
		if len(connecting) != attempts {
			t.Errorf("%d connection attempts, want %d; the script reported:\n%s", len(connecting), attempts, s.log())
		}
		return connecting
	}
	t.Run("a wrong key, no retries", func(t *testing.T) { refusal(t, "ws-bad-key", 1) })
	t.Run("no key", func(t *testing.T) { refusal(t, "ws-no-key", 1) })
	t.Run("a wrong key, one retry", func(t *testing.T) {
		// 4403 is not fatal to graphql-ws ("might grant access after retry"): it retries
		// retryAttempts times, after its backoff (1 s plus 0.3 to 3 s at first).
		connecting := refusal(t, "ws-bad-key-retry", 2)
		if len(connecting) == 2 {
			if wait := connecting[1].MS - connecting[0].MS; wait < 1000 {
				t.Errorf("the retry came %d ms after the first attempt; want the library's backoff (>= 1 s)", wait)
			}
		}
	})
	t.Run("a wrong key over SSE", func(t *testing.T) {
		s := scripts["sse-bad-key"]
		seen := s.finish(t, ctx)
		var errs []clientEvent
		for _, e := range seen {
			if e.Event == "error" {
				errs = append(errs, e)
			}
		}
		if len(errs) != 1 || errs[0].Status != 403 || s.count("next") != 0 {
			t.Fatalf("want one error with the status 403; the script reported:\n%s", s.log())
		}
	})
}

// A graphql-ws client that stops reading is told it was too slow (an error message, which
// ends the operation) and cut off, as the library reports it once it reads again.
func TestClientLibrariesSlowConsumer(t *testing.T) {
	dir := nodeclients.Dir(t)
	dbURL, conn, chain := followedChain(t, sim.Config{Seed: 23, Blocks: 3, TxPerBlock: 200})
	srv := startServe(t, dbURL, "--subscription-buffer", "8", "--stream-write-timeout", "2s")
	key := apiKey(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	slow := runScenario(t, dir, srv.base(), key, "ws-slow")
	srv.live().waitSubscriptions(t, 1)
	chain.AddBlocks(1)
	slow.until(t, ctx, "the pause", func(e clientEvent) bool { return e.Event == "paused" })
	for range 40 {
		chain.AddBlocks(1)
	}
	srv.live().waitMetric(t, "graphql_subscriptions_slow_ended_total", func(v float64) bool { return v >= 1 })
	if _, err := io.WriteString(slow.stdin, "resume\n"); err != nil {
		t.Fatal(err)
	}
	seen := slow.finish(t, ctx)
	var errs []clientEvent
	for _, e := range seen {
		if e.Event == "error" {
			errs = append(errs, e)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Raw, `"SLOW_CONSUMER"`) || slow.count("complete") != 0 {
		t.Errorf("want the subscriber's error callback to get SLOW_CONSUMER, and no complete; the script reported:\n%s", slow.log())
	}
	t.Logf("the slow client reported:\n%s", slow.log())
}
