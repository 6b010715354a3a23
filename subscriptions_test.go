package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
)

const newBlocksDocument = `subscription { newBlocks { kind block { number hash status } reorg { ancestor depth oldHashes newHashes }
	preConfirmed { number txnCount } } }`

// blockMessage is one newBlocks message as a client reads it.
type blockMessage struct {
	Kind  string `json:"kind"`
	Block *struct {
		Number int64  `json:"number"`
		Hash   string `json:"hash"`
		Status string `json:"status"`
	} `json:"block"`
	Reorg *struct {
		Ancestor  int64    `json:"ancestor"`
		Depth     int64    `json:"depth"`
		OldHashes []string `json:"oldHashes"`
		NewHashes []string `json:"newHashes"`
	} `json:"reorg"`
	PreConfirmed *struct {
		Number   int64 `json:"number"`
		TxnCount int   `json:"txnCount"`
	} `json:"preConfirmed"`
}

// String is what the streams of different transports and replicas must agree on: the
// kind and the block (a block's status is read when the message is made, so it is left
// out).
func (m blockMessage) String() string {
	switch {
	case m.Block != nil:
		return fmt.Sprintf("%s %d %s", m.Kind, m.Block.Number, m.Block.Hash)
	case m.Reorg != nil:
		return fmt.Sprintf("%s above %d, depth %d, %v -> %v", m.Kind, m.Reorg.Ancestor, m.Reorg.Depth, m.Reorg.OldHashes, m.Reorg.NewHashes)
	case m.PreConfirmed != nil:
		return fmt.Sprintf("%s %d with %d transactions", m.Kind, m.PreConfirmed.Number, m.PreConfirmed.TxnCount)
	}
	return m.Kind
}

// graphQLMessage is the payload of a subscription message on either transport.
type graphQLMessage struct {
	Raw  json.RawMessage `json:"-"` // the whole payload
	Data struct {
		NewBlocks blockMessage `json:"newBlocks"`
	} `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

// subscribeWS opens a graphql-transport-ws connection to base with key in its
// connection_init, subscribes to document and sends each message's payload to the
// returned channel, which is closed when the stream ends.
func subscribeWS(t *testing.T, ctx context.Context, base, key, document string) <-chan graphQLMessage {
	t.Helper()
	conn := dialWS(t, ctx, base, key, nil)
	if err := wsjson.Write(ctx, conn, map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": document}}); err != nil {
		t.Fatal(err)
	}
	out := make(chan graphQLMessage, 1000)
	go func() {
		defer close(out)
		for {
			var msg struct {
				Type    string          `json:"type"`
				Payload json.RawMessage `json:"payload"`
			}
			if err := wsjson.Read(ctx, conn, &msg); err != nil {
				return
			}
			switch msg.Type {
			case "ping":
				_ = wsjson.Write(ctx, conn, map[string]string{"type": "pong"})
			case "next":
				m := graphQLMessage{Raw: msg.Payload}
				_ = json.Unmarshal(msg.Payload, &m)
				out <- m
			case "complete", "error":
				return
			}
		}
	}()
	return out
}

// dialWS connects and completes the connection_init handshake.
func dialWS(t *testing.T, ctx context.Context, base, key string, opts *websocket.DialOptions) *websocket.Conn {
	t.Helper()
	if opts == nil {
		opts = &websocket.DialOptions{}
	}
	opts.Subprotocols = []string{"graphql-transport-ws"}
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql", opts)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(1 << 24)
	t.Cleanup(func() { conn.CloseNow() })
	if err := wsjson.Write(ctx, conn, map[string]any{"type": "connection_init", "payload": map[string]string{"x-api-key": key}}); err != nil {
		t.Fatal(err)
	}
	var ack struct {
		Type string `json:"type"`
	}
	if err := wsjson.Read(ctx, conn, &ack); err != nil || ack.Type != "connection_ack" {
		t.Fatalf("connection_init: %+v, %v", ack, err)
	}
	return conn
}

// subscribeSSE subscribes over Server-Sent Events (graphql-sse's distinct connections
// mode, as `curl -N` does it).
func subscribeSSE(t *testing.T, ctx context.Context, base, key, document string) <-chan graphQLMessage {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": document})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("SSE: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan graphQLMessage, 1000)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		lines.Buffer(nil, 1<<24)
		event := ""
		for lines.Scan() {
			line := lines.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "next":
				m := graphQLMessage{Raw: json.RawMessage(strings.TrimPrefix(line, "data: "))}
				_ = json.Unmarshal(m.Raw, &m)
				out <- m
			case event == "complete":
				return
			}
		}
	}()
	return out
}

// liveServer is a `serve` process with its admin address, whose metrics tell how many
// subscriptions its hub holds.
type liveServer struct {
	base, admin string
	proc        *os.Process
}

func serveLive(t *testing.T, dbURL string, args ...string) liveServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	admin := ln.Addr().String()
	ln.Close()
	base, proc := serveProcessWith(t, dbURL, append([]string{"--admin-addr", admin}, args...), nil)
	return liveServer{base: base, admin: "http://" + admin, proc: proc}
}

// waitSubscriptions waits until the server's hub holds n subscriptions: a subscribe
// message has no answer of its own to wait for.
func (s liveServer) waitSubscriptions(t *testing.T, n int) {
	t.Helper()
	s.waitMetric(t, "graphql_subscriptions_open", func(v float64) bool { return v == float64(n) })
}

// waitMetric waits until the server's metric (a line "name value" of /metrics) satisfies ok.
func (s liveServer) waitMetric(t *testing.T, name string, ok func(float64) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	last := "no value"
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.admin + "/metrics"); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			for _, line := range strings.Split(string(body), "\n") {
				if rest, found := strings.CutPrefix(line, name+" "); found {
					last = rest
					if v, err := strconv.ParseFloat(rest, 64); err == nil && ok(v) {
						return
					}
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server at %s: %s never came as wanted in a minute (last: %s)", s.base, name, last)
}

// followedChain starts the simulated node with cfg in a database of its own, and the
// indexer following it until the test ends; it returns once the node's blocks are indexed.
func followedChain(t *testing.T, cfg sim.Config) (dbURL string, conn *sqlx.DB, chain *sim.Chain) {
	t.Helper()
	dbURL = dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	chain = sim.New(cfg)
	node := httptest.NewServer(chain.Handler())
	t.Cleanup(node.Close)
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, StopAt: -1, PollInterval: 20 * time.Millisecond,
		FinalityInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	t.Cleanup(func() { // before the node and the connection close
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("indexer: %v", err)
		}
	})
	head, _ := chain.Head()
	waitIndexed(t, conn, int64(head))
	return dbURL, conn, chain
}

// waitIndexed waits until the database holds block n.
func waitIndexed(t *testing.T, conn *sqlx.DB, n int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var head int64
		if err := conn.Get(&head, `SELECT coalesce(max(number), -1) FROM blocks`); err == nil && head >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("block %d was not indexed in time", n)
}

// Subscriptions end to end: the simulated node grows its chain block by block while the
// indexer follows it, and two `serve` processes (two API replicas) stream newBlocks, one
// over a WebSocket and over SSE, the other over a WebSocket. Each stream has the new
// blocks in order, each first being built (PRE_CONFIRMED), then written (Accepted on L2),
// and some moving to Accepted on L1, and a REORG
// notice when the simulator replaces its newest blocks, followed by the replacements; and
// the three streams are the same.
func TestSubscriptionsFollowTheChain(t *testing.T) {
	dbURL, conn, chain := followedChain(t, sim.Config{Seed: 11, Blocks: 12, TxPerBlock: 4, L1Lag: 3})

	replicaA, replicaB := serveLive(t, dbURL), serveLive(t, dbURL)
	key := apiKey(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	streams := map[string]<-chan graphQLMessage{
		"replica A, WebSocket": subscribeWS(t, ctx, replicaA.base, key, newBlocksDocument),
		"replica A, SSE":       subscribeSSE(t, ctx, replicaA.base, key, newBlocksDocument),
		"replica B, WebSocket": subscribeWS(t, ctx, replicaB.base, key, newBlocksDocument),
	}
	replicaA.waitSubscriptions(t, 2)
	replicaB.waitSubscriptions(t, 1)

	got := map[string][]blockMessage{}
	// readUntil reads a stream until a message that want accepts.
	readUntil := func(name string, want func(blockMessage) bool) {
		t.Helper()
		for {
			select {
			case m, ok := <-streams[name]:
				if !ok {
					t.Fatalf("%s: the stream ended after %v", name, got[name])
				}
				if len(m.Errors) > 0 {
					t.Fatalf("%s: %+v", name, m.Errors)
				}
				got[name] = append(got[name], m.Data.NewBlocks)
				if want(m.Data.NewBlocks) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("%s: not there after %v", name, got[name])
			}
		}
	}
	written := func(n int64) func(blockMessage) bool {
		return func(m blockMessage) bool { return m.Kind == "NEW" && m.Block.Number == n }
	}
	building := func(n int64) func(blockMessage) bool {
		return func(m blockMessage) bool { return m.Kind == "PRE_CONFIRMED" && m.PreConfirmed.Number == n }
	}

	// Five blocks, one at a time, each appended once the stream showed it being built;
	// then a reorg of the newest two, and one more block.
	const watch = "replica A, WebSocket"
	for n := int64(12); n < 17; n++ {
		chain.AddBlocks(1)
		readUntil(watch, written(n))
		readUntil(watch, building(n+1))
	}
	chain.Reorg(2)
	chain.AddBlocks(1)
	waitIndexed(t, conn, 17)
	var replacement string
	if err := conn.Get(&replacement, `SELECT '0x' || encode(hash, 'hex') FROM blocks WHERE number = 15`); err != nil {
		t.Fatal(err)
	}

	var first []string
	for name := range streams {
		readUntil(name, func(m blockMessage) bool {
			return m.Kind == "NEW" && canonicalHex(m.Block.Hash) == canonicalHex(replacement)
		})
		got := got[name]
		checkBlockStream(t, name, got)
		var lines []string
		for _, m := range got {
			lines = append(lines, m.String())
		}
		if first == nil {
			first = lines
		} else if strings.Join(lines, "\n") != strings.Join(first, "\n") {
			t.Errorf("%s differs from another stream:\n%s\nvs\n%s", name, strings.Join(lines, "\n"), strings.Join(first, "\n"))
		}
	}
}

// checkBlockStream asserts what every newBlocks stream of the test must show.
func checkBlockStream(t *testing.T, name string, got []blockMessage) {
	t.Helper()
	var news []int64
	var l1, reorgs, confirmedAfterBuilding int
	last := int64(-1)
	building := map[int64]bool{}
	for _, m := range got {
		switch m.Kind {
		case "PRE_CONFIRMED":
			building[m.PreConfirmed.Number] = true
			if last >= 0 && m.PreConfirmed.Number != last+1 {
				t.Errorf("%s: block %d is being built on block %d", name, m.PreConfirmed.Number, last)
			}
		case "NEW":
			if m.Block.Number <= last {
				t.Errorf("%s: block %d came after %d without a reorg", name, m.Block.Number, last)
			}
			last = m.Block.Number
			news = append(news, m.Block.Number)
			if building[m.Block.Number] && m.Block.Status == "Accepted on L2" {
				confirmedAfterBuilding++
			}
		case "STATUS":
			if m.Block.Status == "Accepted on L1" {
				l1++
			}
		case "REORG":
			reorgs++
			r := m.Reorg
			if r.Ancestor != 14 || r.Depth != 2 || len(r.OldHashes) != 2 || len(r.NewHashes) != 2 || r.OldHashes[1] == r.NewHashes[1] {
				t.Errorf("%s: reorg notice %+v; want blocks 15-16 replaced", name, *r)
			}
			last = r.Ancestor
		}
	}
	if len(news) < 5 || news[0] != 12 || news[4] != 16 {
		t.Errorf("%s: new blocks %v; want 12..16 in order, then the replacements", name, news)
	}
	if l1 == 0 {
		t.Errorf("%s: no block moved to Accepted on L1: %v", name, got)
	}
	if confirmedAfterBuilding < 4 {
		t.Errorf("%s: %d blocks went from PRE_CONFIRMED to Accepted on L2; want each appended block: %v", name, confirmedAfterBuilding, got)
	}
	if reorgs != 1 {
		t.Errorf("%s: %d reorg notices, want 1", name, reorgs)
	}
}

// rssMiB reads a process's resident set from /proc.
func rssMiB(t *testing.T, pid int) float64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

// 10,000 idle subscriptions (100 WebSockets of 100 subscriptions each) hold a `serve`
// process under 300 MB of resident memory; and they are live: one new block reaches
// every one of them.
func TestTenThousandIdleSubscriptions(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 10,000 subscriptions")
	}
	const connections, perConnection = 100, 100
	dbURL, conn, chain := followedChain(t, sim.Config{Seed: 12, Blocks: 5, TxPerBlock: 2})
	srv := serveLive(t, dbURL) // with the GC settings serve ships with
	base, proc := srv.base, srv.proc
	key := apiKey(t, conn)
	before := rssMiB(t, proc.Pid)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	received := make(chan int, connections)
	for range connections {
		ws := dialWS(t, ctx, base, key, nil)
		for i := range perConnection {
			msg := map[string]any{"id": strconv.Itoa(i), "type": "subscribe", "payload": map[string]any{"query": `subscription { newBlocks { kind block { number } } }`}}
			if err := wsjson.Write(ctx, ws, msg); err != nil {
				t.Fatal(err)
			}
		}
		go func() {
			n := 0
			defer func() { received <- n }()
			for n < perConnection {
				var m struct {
					Type string `json:"type"`
				}
				if err := wsjson.Read(ctx, ws, &m); err != nil {
					return
				}
				if m.Type == "next" {
					n++
				}
			}
		}()
	}
	srv.waitSubscriptions(t, connections*perConnection)
	idle := rssMiB(t, proc.Pid)
	t.Logf("serve RSS: %.0f MiB before, %.0f MiB with %d idle subscriptions", before, idle, connections*perConnection)
	if idle > 300 {
		t.Errorf("%d idle subscriptions take the process to %.0f MiB; want under 300", connections*perConnection, idle)
	}

	chain.AddBlocks(1)
	total := 0
	for range connections {
		total += <-received
	}
	if total != connections*perConnection {
		t.Fatalf("the new block reached %d of %d subscriptions", total, connections*perConnection)
	}
}

// A client that stops reading is told it was too slow and disconnected, with a bounded
// buffer on the server, while a client beside it on the same server receives every block.
func TestSlowSubscriberIsDisconnected(t *testing.T) {
	dbURL, conn, chain := followedChain(t, sim.Config{Seed: 13, Blocks: 5, TxPerBlock: 200})
	srv := serveLive(t, dbURL, "--subscription-buffer", "8", "--stream-write-timeout", "5s")
	base := srv.base
	key := apiKey(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The slow client asks for every transaction with its calldata and does not read; a
	// small receive buffer makes the server's writes block soon.
	slow := dialWS(t, ctx, base, key, &websocket.DialOptions{HTTPClient: smallReceiveBuffer()})
	heavy := `subscription { transactions { hash calldata signature senderAddress } }`
	if err := wsjson.Write(ctx, slow, map[string]any{"id": "slow", "type": "subscribe", "payload": map[string]any{"query": heavy}}); err != nil {
		t.Fatal(err)
	}
	fast := subscribeWS(t, ctx, base, key, `subscription { newBlocks { kind block { number } } }`)
	srv.waitSubscriptions(t, 2)

	const blocks = 40
	for range blocks {
		chain.AddBlocks(1)
	}
	srv.waitMetric(t, "graphql_subscriptions_slow_ended_total", func(v float64) bool { return v >= 1 })

	// The slow client reads again, before its blocked write times out: what was buffered,
	// the reason its subscription ended, then the end of the connection.
	read, told, lastErr := 0, false, error(nil)
	for {
		var m struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		readCtx, stop := context.WithTimeout(ctx, 15*time.Second)
		lastErr = wsjson.Read(readCtx, slow, &m)
		stop()
		if lastErr != nil {
			break
		}
		read++
		told = told || (m.Type == "error" && strings.Contains(string(m.Payload), `"SLOW_CONSUMER"`))
	}
	var all int
	if err := conn.Get(&all, `SELECT count(*) FROM transactions WHERE block_number > 4`); err != nil {
		t.Fatal(err)
	}
	if !told || read >= all || errors.Is(lastErr, context.DeadlineExceeded) {
		t.Fatalf("the slow client read %d of %d messages (told it was too slow: %v) and then %v; want it told and cut off by the server",
			read, all, told, lastErr)
	}
	t.Logf("the slow client got %d of %d messages, was told why, and the server closed it (%v)", read, all, lastErr)

	for n := 0; n < blocks; {
		select {
		case m, ok := <-fast:
			if !ok {
				t.Fatalf("the fast client's stream ended after %d blocks", n)
			}
			if m.Data.NewBlocks.Kind == "NEW" {
				n++
			}
		case <-ctx.Done():
			t.Fatalf("the fast client received %d of %d blocks", n, blocks)
		}
	}
}

// smallReceiveBuffer is an HTTP client whose connections have a 4 KiB receive buffer.
func smallReceiveBuffer() *http.Client {
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		_ = c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return err
	}}
	return &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
}

// The filtered subscriptions deliver exactly the rows of the new blocks that match, in
// chain order: a sender's transactions, STRK's transfers, and STRK's Transfer events by
// their first key; a plan's cap refuses a subscription over it; and every message counts
// toward the key's usage.
func TestFilteredSubscriptions(t *testing.T) {
	dbURL, conn, chain := followedChain(t, sim.Config{Seed: 14, Blocks: 5, TxPerBlock: 30})
	srv := serveLive(t, dbURL)
	base := srv.base
	key := apiKey(t, conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The busiest sender so far is likely to send again.
	var sender string
	if err := conn.Get(&sender, `SELECT '0x' || encode(sender_address, 'hex') FROM transactions_named
		WHERE sender_address IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	const strk = "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
	transfer := starknet.Selector("Transfer").Hex()
	streams := map[string]<-chan graphQLMessage{
		"transactions":   subscribeWS(t, ctx, base, key, `subscription { transactions(filter: {senderAddress: "`+sender+`"}) { hash senderAddress } }`),
		"tokenTransfers": subscribeSSE(t, ctx, base, key, `subscription { tokenTransfers(token: "`+strk+`") { transactionHash amount token { symbol } usdValue } }`),
		"events":         subscribeWS(t, ctx, base, key, `subscription { events(contract: "`+strk+`", keys: ["`+transfer+`"]) { transactionHash keys } }`),
	}
	srv.waitSubscriptions(t, 3)
	chain.AddBlocks(10)
	waitIndexed(t, conn, 14)

	want := map[string][]string{}
	queries := map[string]string{
		"transactions": `SELECT '0x' || encode(hash, 'hex') FROM transactions_named WHERE block_number > 4 AND sender_address = $1
			ORDER BY block_number, tx_index`,
		"tokenTransfers": `SELECT '0x' || encode(t.hash, 'hex') FROM token_transfers_named e JOIN transactions t USING (block_number, tx_index)
			WHERE e.block_number > 4 AND e.token_address = $2 ORDER BY e.block_number, e.tx_index, e.event_index`,
		"events": `SELECT '0x' || encode(t.hash, 'hex') FROM events_named e JOIN transactions t USING (block_number, tx_index)
			WHERE e.block_number > 4 AND e.from_address = $2 AND felts_at(e.keys, 1) = $3
			ORDER BY e.block_number, e.tx_index, e.event_index`,
	}
	felt := func(hex string) db.Felt { return db.FeltOf(starknet.MustFelt(hex)) }
	for name, q := range queries {
		var rows []string
		if err := conn.Select(&rows, `WITH p AS (SELECT $1::bytea, $2::bytea, $3::bytea) `+q, felt(sender), felt(strk), felt(transfer)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range rows {
			want[name] = append(want[name], canonicalHex(r))
		}
	}
	messages := 0
	for name, stream := range streams {
		if len(want[name]) == 0 {
			t.Fatalf("%s: the new blocks have nothing to match; pick another seed", name)
		}
		var got []string
		for len(got) < len(want[name]) {
			select {
			case m, ok := <-stream:
				if !ok || len(m.Errors) > 0 {
					t.Fatalf("%s: the stream ended (%+v) after %d of %d", name, m.Errors, len(got), len(want[name]))
				}
				var data map[string]map[string]any
				_ = json.Unmarshal(m.Raw, &struct {
					Data *map[string]map[string]any `json:"data"`
				}{&data})
				item := data[name]
				// A transfer's token and USD value are read for its message (resolvers.linkLiveTransfer).
				if name == "tokenTransfers" {
					if symbol := at(item, "token.symbol"); symbol != "STRK" {
						t.Errorf("tokenTransfers: a message's token is %v: %s", symbol, m.Raw)
					}
					if v, ok := item["usdValue"].(float64); !ok || v <= 0 {
						t.Errorf("tokenTransfers: a message's USD value is %v: %s", item["usdValue"], m.Raw)
					}
				}
				hash, _ := item["hash"].(string)
				if hash == "" {
					hash, _ = item["transactionHash"].(string)
				}
				got = append(got, canonicalHex(hash))
			case <-ctx.Done():
				t.Fatalf("%s: %d of %d messages", name, len(got), len(want[name]))
			}
		}
		if strings.Join(got, ",") != strings.Join(want[name], ",") {
			t.Errorf("%s: got %v, want %v", name, got, want[name])
		}
		select {
		case m := <-stream:
			t.Errorf("%s: a message beyond the matching rows: %s", name, m.Raw)
		case <-time.After(300 * time.Millisecond):
		}
		messages += len(got)
	}

	// Usage: the three subscriptions' messages (and their connections) were counted.
	deadline := time.Now().Add(15 * time.Second)
	var used int
	for time.Now().Before(deadline) && used < messages {
		time.Sleep(500 * time.Millisecond)
		_ = conn.Get(&used, `SELECT coalesce(sum(requests), 0) FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id WHERE k.label = $1`, t.Name())
	}
	if used < messages {
		t.Errorf("the key's usage counts %d requests; want at least the %d messages", used, messages)
	}

	// The cap: a plan allowing 2 subscriptions refuses a third on the same server.
	if _, err := conn.Exec(`INSERT INTO plans (name, rate_per_second, burst, max_subscriptions) VALUES ('two', 100, 100, 2)`); err != nil {
		t.Fatal(err)
	}
	capped, _, err := auth.NewStore(conn).CreateKey(ctx, "two", "capped")
	if err != nil {
		t.Fatal(err)
	}
	ws := dialWS(t, ctx, base, capped, nil)
	for i := range 3 {
		msg := map[string]any{"id": strconv.Itoa(i), "type": "subscribe", "payload": map[string]any{"query": `subscription { newBlocks { kind } }`}}
		if err := wsjson.Write(ctx, ws, msg); err != nil {
			t.Fatal(err)
		}
	}
	// The refusal comes as the subscription's one message, an error, then its completion.
	refusal := ""
	for !strings.Contains(refusal, "TOO_MANY_SUBSCRIPTIONS") {
		var msg struct {
			Type    string          `json:"type"`
			Payload json.RawMessage `json:"payload"`
		}
		readCtx, stop := context.WithTimeout(ctx, 10*time.Second)
		err := wsjson.Read(readCtx, ws, &msg)
		stop()
		if err != nil {
			t.Fatalf("no subscription was refused: %v", err)
		}
		if msg.Type == "next" || msg.Type == "error" {
			refusal = string(msg.Payload)
		}
	}
	if !strings.Contains(refusal, "allows 2 at once") {
		t.Fatalf("refusal: %s", refusal)
	}
}

// Streams and keys: an upgrade to a WebSocket elsewhere than /graphql needs the key header
// like any request, and a GraphQL WebSocket whose connection_init has no valid key is
// closed before it can subscribe, as 4403 Forbidden (graphql-transport-ws).
func TestStreamsNeedAKey(t *testing.T) {
	dbURL, _, _ := followedChain(t, sim.Config{Seed: 15, Blocks: 3, TxPerBlock: 2})
	base := serveProcess(t, dbURL)
	req, _ := http.NewRequest(http.MethodGet, base+"/beta/blocks", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket upgrade to /beta without a key: %d, want 403", resp.StatusCode)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, payload := range []map[string]string{{}, {"x-api-key": "sg_not_a_key"}} {
		conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql",
			&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := wsjson.Write(ctx, conn, map[string]any{"type": "connection_init", "payload": payload}); err != nil {
			t.Fatal(err)
		}
		var msg map[string]any
		err = wsjson.Read(ctx, conn, &msg)
		if websocket.CloseStatus(err) != 4403 || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("connection_init with %v: %v, %v; want the connection closed as 4403 Forbidden", payload, msg, err)
		}
		conn.CloseNow()
	}
}
