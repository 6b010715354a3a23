package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/live"
)

// protocolServer serves /graphql with subscriptions and keys; stop ends it as a shutdown
// does. The hub is not run: a subscription waits for blocks that never come.
func protocolServer(t *testing.T) (base, key string, stop context.CancelFunc) {
	t.Helper()
	conn := dbtest.New(t)
	store := db.NewStore(conn)
	keys := auth.NewStore(conn)
	key, _, err := keys.CreateKey(context.Background(), "dev", t.Name())
	if err != nil {
		t.Fatal(err)
	}
	stopping, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	srv := httptest.NewServer(NewHandler(Config{Store: store, Limits: DefaultGraphQLLimits,
		Live: live.NewHub(store, live.Options{}), Stopping: stopping,
		Auth: auth.New(auth.Options{Keys: keys, Limiter: auth.NewMemoryLimiter()})}))
	t.Cleanup(srv.Close)
	return srv.URL, key, stop
}

func dialTransportWS(t *testing.T, ctx context.Context, base string) *websocket.Conn {
	t.Helper()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{transportWS}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	return conn
}

// closedWith reads conn until it closes and returns the close frame's code and reason,
// and the types of the messages read before it.
func closedWith(t *testing.T, ctx context.Context, conn *websocket.Conn) (websocket.StatusCode, string, []string) {
	t.Helper()
	var types []string
	for {
		var m struct {
			Type string `json:"type"`
		}
		err := wsjson.Read(ctx, conn, &m)
		if err == nil {
			types = append(types, m.Type)
			continue
		}
		var ce websocket.CloseError
		if ctx.Err() != nil || !asCloseError(err, &ce) {
			t.Fatalf("the socket did not close with a close frame: %v (after %v)", err, types)
		}
		return ce.Code, ce.Reason, types
	}
}

func asCloseError(err error, ce *websocket.CloseError) bool {
	if websocket.CloseStatus(err) == -1 {
		return false
	}
	for e := err; e != nil; {
		if c, ok := e.(websocket.CloseError); ok {
			*ce = c
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

func sendWS(t *testing.T, ctx context.Context, conn *websocket.Conn, raw string) {
	t.Helper()
	if err := conn.Write(ctx, websocket.MessageText, []byte(raw)); err != nil {
		t.Fatal(err)
	}
}

func initWith(key string) string {
	b, _ := json.Marshal(map[string]any{"type": "connection_init", "payload": map[string]string{"x-api-key": key}})
	return string(b)
}

const subscribeBlocks = `{"id":"a","type":"subscribe","payload":{"query":"subscription { newBlocks { kind } }"}}`

// Each breach of graphql-transport-ws closes the socket with the code PROTOCOL.md gives it
// (gqlgen alone closes them all as 1002, a refused key as 1000, and lets an id be reused
// while its operation runs).
func TestTransportWSCloseCodes(t *testing.T) {
	defer func(d time.Duration) { wsInitTimeout = d }(wsInitTimeout)
	wsInitTimeout = 300 * time.Millisecond
	base, key, _ := protocolServer(t)
	cases := []struct {
		name     string
		messages []string // sent in turn, each after the answer to the one before
		code     int
		reason   string
	}{
		{"a wrong key", []string{initWith("sg_not_a_key")}, closeForbidden, "Forbidden"},
		{"no key", []string{`{"type":"connection_init"}`}, closeForbidden, "Forbidden"},
		{"no key, null payload", []string{`{"type":"connection_init","payload":null}`}, closeForbidden, "Forbidden"},
		{"subscribe before connection_init", []string{subscribeBlocks}, closeUnauthorized, "Unauthorized"},
		{"two connection_init", []string{initWith(key), initWith(key)}, closeTooManyInits, "Too many initialisation requests"},
		{"not JSON", []string{`{"type":`}, closeBadMessage, "Invalid message received"},
		{"no type", []string{`{"id":"1"}`}, closeBadMessage, "Invalid message received"},
		{"an unknown type", []string{initWith(key), `{"type":"start","id":"1","payload":{"query":"{ __typename }"}}`}, closeBadMessage, "Invalid message received: a client does not send start"},
		{"a server's message", []string{initWith(key), `{"type":"next","id":"1","payload":{}}`}, closeBadMessage, "Invalid message received: a client does not send next"},
		{"subscribe without an id", []string{initWith(key), `{"type":"subscribe","payload":{"query":"{ __typename }"}}`}, closeBadMessage, "Invalid message received: subscribe needs an id and a payload with a query"},
		{"subscribe without a query", []string{initWith(key), `{"type":"subscribe","id":"1","payload":{}}`}, closeBadMessage, "Invalid message received: subscribe needs an id and a payload with a query"},
		{"variables not an object", []string{initWith(key), `{"type":"subscribe","id":"1","payload":{"query":"{ __typename }","variables":[1]}}`}, closeBadMessage, "Invalid message received: subscribe needs an id and a payload with a query"},
		{"init payload not an object", []string{`{"type":"connection_init","payload":"key"}`}, closeBadMessage, "Invalid message received: connection_init's payload is not an object"},
		{"a running id again", []string{initWith(key), subscribeBlocks, subscribeBlocks}, closeSubscriberExists, "Subscriber for a already exists"},
		{"no connection_init in time", nil, closeInitTimeout, "Connection initialisation timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn := dialTransportWS(t, ctx, base)
			for i, m := range c.messages {
				sendWS(t, ctx, conn, m)
				if strings.Contains(m, "connection_init") && i < len(c.messages)-1 {
					var ack struct{ Type string }
					if err := wsjson.Read(ctx, conn, &ack); err != nil || ack.Type != "connection_ack" {
						t.Fatalf("connection_init: %+v %v", ack, err)
					}
				}
				if i == 1 && c.code == closeSubscriberExists {
					time.Sleep(100 * time.Millisecond) // the first subscription is running
				}
			}
			code, reason, _ := closedWith(t, ctx, conn)
			if int(code) != c.code || reason != c.reason {
				t.Errorf("closed with %d %q, want %d %q", code, reason, c.code, c.reason)
			}
		})
	}
}

// What the protocol allows goes through: a ping before connection_init is answered, an id
// is free again once the client completed its operation, and the server's complete frees
// it too.
func TestTransportWSAllowed(t *testing.T) {
	base, key, _ := protocolServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := dialTransportWS(t, ctx, base)
	read := func() (typ, id string) {
		t.Helper()
		var m struct{ Type, ID string }
		if err := wsjson.Read(ctx, conn, &m); err != nil {
			t.Fatalf("read: %v", err)
		}
		return m.Type, m.ID
	}
	sendWS(t, ctx, conn, `{"type":"ping"}`)
	if typ, _ := read(); typ != "pong" {
		t.Fatalf("ping before connection_init: %s, want pong", typ)
	}
	sendWS(t, ctx, conn, initWith(key))
	if typ, _ := read(); typ != "connection_ack" {
		t.Fatalf("connection_init: %s", typ)
	}
	sendWS(t, ctx, conn, subscribeBlocks)
	time.Sleep(100 * time.Millisecond)
	sendWS(t, ctx, conn, `{"id":"a","type":"complete"}`)
	sendWS(t, ctx, conn, subscribeBlocks) // the same id, completed by the client
	sendWS(t, ctx, conn, `{"id":"q","type":"subscribe","payload":{"query":"{ __typename }"}}`)
	for want := []string{"next q", "complete q"}; len(want) > 0; want = want[1:] {
		if typ, id := read(); typ+" "+id != want[0] {
			t.Fatalf("got %s %s, want %s", typ, id, want[0])
		}
	}
	sendWS(t, ctx, conn, `{"id":"q","type":"subscribe","payload":{"query":"{ __typename }"}}`) // completed by the server
	if typ, id := read(); typ != "next" || id != "q" {
		t.Fatalf("the query again: %s %s", typ, id)
	}
}

// A stopping server tells its streams to come back: a WebSocket is closed as 1012 Service
// Restart, and an SSE stream ends without the complete event that would tell its client
// the subscription is over.
func TestStreamsGoAwayOnShutdown(t *testing.T) {
	base, key, stop := protocolServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := dialTransportWS(t, ctx, base)
	sendWS(t, ctx, conn, initWith(key))
	sendWS(t, ctx, conn, subscribeBlocks)

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql",
		strings.NewReader(`{"query":"subscription { newBlocks { kind } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("x-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("SSE: %d", resp.StatusCode)
	}
	time.Sleep(200 * time.Millisecond)
	stop()

	code, reason, _ := closedWith(t, ctx, conn)
	if code != closeServiceRestart {
		t.Errorf("the WebSocket closed with %d %q, want %d", code, reason, closeServiceRestart)
	}
	var events []string
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if e, ok := strings.CutPrefix(lines.Text(), "event: "); ok {
			events = append(events, e)
		}
	}
	if len(events) != 0 || ctx.Err() != nil {
		t.Errorf("the SSE stream had the events %v (context: %v); want it ended without any", events, ctx.Err())
	}

	// A stream that begins while the server stops is sent away at once.
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql",
		strings.NewReader(`{"query":"subscription { newBlocks { kind } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("x-api-key", key)
	late, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	late.Body.Close()
	if late.StatusCode != http.StatusServiceUnavailable || late.Header.Get("Retry-After") == "" {
		t.Errorf("a stream during shutdown: %d, want 503 with Retry-After", late.StatusCode)
	}
}

// The errors of Server-Sent Events (graphql-sse's distinct connections mode): a refused
// key gets its HTTP status before any stream; a document that does not validate gets a
// stream of one next event with the errors, then complete, as the protocol asks.
func TestSSEErrors(t *testing.T) {
	base, key, _ := protocolServer(t)
	sse := func(key, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/graphql", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		if key != "" {
			req.Header.Set("x-api-key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, c := range []struct {
		name, key, body string
		status          int
		contentType     string
		has             []string
	}{
		{"a wrong key", "sg_not_a_key", `{"query":"subscription { newBlocks { kind } }"}`, 403, "application/json", []string{`{"message":"Forbidden"}`}},
		{"no key", "", `{"query":"subscription { newBlocks { kind } }"}`, 403, "application/json", []string{`{"message":"Forbidden"}`}},
		{"a document that does not validate", key, `{"query":"subscription { newBlocks { nope } }"}`, 200, "text/event-stream",
			[]string{"event: next\ndata: {\"errors\":[{\"message\":\"Cannot query field", "GRAPHQL_VALIDATION_FAILED", "event: complete"}},
		{"a body that is not JSON", key, `{"query":`, 400, "application/json", []string{"errors"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, ct, body := sse(c.key, c.body)
			ok := status == c.status && strings.HasPrefix(ct, c.contentType)
			for _, h := range c.has {
				ok = ok && strings.Contains(body, h)
			}
			if !ok {
				t.Errorf("%d %s %q; want %d %s with %q", status, ct, body, c.status, c.contentType, c.has)
			}
		})
	}
}

// A client that keeps reconnecting with a wrong key is refused with 4403 for the burst of
// refusals its address may have (auth.RefusedRate), then closed as over its rate (1013
// "Limit Exceeded"), as an HTTP client gets 429; a valid key from the same address is
// still admitted.
func TestTransportWSRefusalsAreRateLimited(t *testing.T) {
	base, key, _ := protocolServer(t)
	refusal := func() (websocket.StatusCode, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn := dialTransportWS(t, ctx, base)
		sendWS(t, ctx, conn, initWith("sg_not_a_key"))
		code, reason, _ := closedWith(t, ctx, conn)
		return code, reason
	}
	for i := range auth.RefusedRate.Burst {
		if code, reason := refusal(); code != closeForbidden {
			t.Fatalf("refusal %d: %d %q, want %d", i+1, code, reason, closeForbidden)
		}
	}
	if code, reason := refusal(); code != closeTryAgainLater || reason != "Limit Exceeded" {
		t.Fatalf("past the burst: %d %q, want %d \"Limit Exceeded\"", code, reason, closeTryAgainLater)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := dialTransportWS(t, ctx, base)
	sendWS(t, ctx, conn, initWith(key))
	var ack struct{ Type string }
	if err := wsjson.Read(ctx, conn, &ack); err != nil || ack.Type != "connection_ack" {
		t.Fatalf("a valid key after the refusals: %+v %v", ack, err)
	}
}

// A socket of the legacy graphql-ws subprotocol, which protocolWS passes as it is, is
// closed too when its connection_init does not come (gqlgen's InitTimeout, the backstop).
func TestLegacyWSInitTimesOut(t *testing.T) {
	defer func(d time.Duration) { wsInitTimeout = d }(wsInitTimeout)
	wsInitTimeout = 300 * time.Millisecond
	base, _, _ := protocolServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql",
		&websocket.DialOptions{Subprotocols: []string{"graphql-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	began := time.Now()
	_, _, err = conn.Read(ctx)
	if err == nil || ctx.Err() != nil || time.Since(began) > 5*time.Second {
		t.Fatalf("a legacy socket without connection_init: %v after %v", err, time.Since(began))
	}
}
