package rpcserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// newEchoAndBlock is a server with two methods: echo (answers its value parameter) and
// block (answers its block_id parameter parsed).
func newEchoAndBlock() *Server {
	s := New(nil)
	s.Register("echo", func(_ context.Context, p json.RawMessage) (any, error) {
		ps, err := Params(p, []string{"value"}, 1)
		if err != nil {
			return nil, err
		}
		return ps[0], nil
	})
	s.Register("block", func(_ context.Context, p json.RawMessage) (any, error) {
		ps, err := Params(p, []string{"block_id"}, 1)
		if err != nil {
			return nil, err
		}
		return ParseBlockID(ps[0])
	})
	return s
}

// newTestServer serves newEchoAndBlock's methods and three that fail: boom (panics),
// fails (an error), http500 (an HTTP error).
func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := newEchoAndBlock()
	s.Register("boom", func(context.Context, json.RawMessage) (any, error) { panic("bug") })
	s.Register("fails", func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("db down") })
	s.Register("http500", func(context.Context, json.RawMessage) (any, error) {
		return nil, &HTTPError{Status: 500, Body: "injected"}
	})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSingleAndErrors(t *testing.T) {
	srv := newTestServer(t)
	cases := []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"echo","params":[{"a":1.50}]}`, `{"jsonrpc":"2.0","id":1,"result":{"a":1.50}}`},
		{`{"jsonrpc":"2.0","id":"x","method":"echo","params":{"value":7}}`, `{"jsonrpc":"2.0","id":"x","result":7}`},
		{`{"jsonrpc":"2.0","id":2,"method":"nope"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"echo","params":[]}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: missing param \"value\""}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"other":1}}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: unknown param \"other\""}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"boom"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Internal error"}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"fails"}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}`},
		{`{"jsonrpc":"1.0","id":6,"method":"echo"}`, `{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`},
		{`{"jsonrpc":"2.0","id":{},"method":"echo"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string, a number or null"}}`},
		{`{"jsonrpc":"2.0","id":7,"method":"block","params":["latest"]}`, `{"jsonrpc":"2.0","id":7,"result":{"Tag":"latest","Hash":"","Number":0,"ByNum":false}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"block","params":[{"block_hash":"0x00AB"}]}`, `{"jsonrpc":"2.0","id":8,"result":{"Tag":"","Hash":"0xab","Number":0,"ByNum":false}}`},
		{`{"jsonrpc":"2.0","id":9,"method":"block","params":{"block_id":{"block_number":12}}}`, `{"jsonrpc":"2.0","id":9,"result":{"Tag":"","Hash":"","Number":12,"ByNum":true}}`},
	}
	for _, c := range cases {
		code, got := post(t, srv.URL+"/rpc/v0_8", c.body)
		if code != 200 || got != c.want {
			t.Errorf("%s\n got %d %s\nwant %s", c.body, code, got, c.want)
		}
	}
	// Parse errors and bad block ids carry the right codes.
	for body, wantCode := range map[string]float64{
		`{"jsonrpc":`: -32700,
		`{"jsonrpc":"2.0","id":1,"method":"block","params":[{"block_number":-1}]}`:                                -32602,
		`{"jsonrpc":"2.0","id":1,"method":"block","params":[{"block_number":1,"block_hash":"0x1"}]}`:              -32602,
		`{"jsonrpc":"2.0","id":1,"method":"block","params":["earliest"]}`:                                         -32602,
		`{"jsonrpc":"2.0","id":1,"method":"block","params":[{"block_hash":"0xzz"}]}`:                              -32602,
		`{"jsonrpc":"2.0","id":1,"method":"block","params":[{"block_hash":"0x` + strings.Repeat("f", 64) + `"}]}`: -32602,
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":"str"}`:                                                 -32602,
	} {
		_, got := post(t, srv.URL, body)
		var resp struct{ Error Error }
		if err := json.Unmarshal([]byte(got), &resp); err != nil || float64(resp.Error.Code) != wantCode {
			t.Errorf("%s: got %s, want code %v", body, got, wantCode)
		}
	}
}

func TestBatch(t *testing.T) {
	srv := newTestServer(t)
	_, got := post(t, srv.URL, `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","method":"echo","params":[2]},5,{"jsonrpc":"2.0","id":3,"method":"nope"}]`)
	want := `[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: json: cannot unmarshal number into Go value of type rpcserver.request"}},{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}]`
	if got != want {
		t.Errorf("batch:\n got %s\nwant %s", got, want)
	}
	_, got = post(t, srv.URL, `[]`)
	if !strings.Contains(got, `-32600`) {
		t.Errorf("empty batch: %s", got)
	}
	code, got := post(t, srv.URL, `[{"jsonrpc":"2.0","method":"echo","params":[2]}]`)
	if code != http.StatusNoContent || got != "" {
		t.Errorf("notification-only batch: %d %q", code, got)
	}
	code, _ = post(t, srv.URL, `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","id":2,"method":"http500"}]`)
	if code != 500 {
		t.Errorf("HTTPError in batch: status %d", code)
	}
}

func TestHTTPLevel(t *testing.T) {
	srv := newTestServer(t)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	code, _ := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"echo","params":["`+strings.Repeat("a", 9<<20)+`"]}`)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("huge body: %d", code)
	}
}

func TestCanonicalFelt(t *testing.T) {
	for in, want := range map[string]string{"0x0": "0x0", "0x000": "0x0", "0X0AbC": "0xabc",
		"0x029927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b": "0x29927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b"} {
		if got, err := CanonicalFelt(in); err != nil || got != want {
			t.Errorf("%s: %s %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "0x", "12", "0xg", "0x800000000000011000000000000000000000000000000000000000000000001", "0x" + strings.Repeat("0", 65), "0x-1", "0x+1"} {
		if _, err := CanonicalFelt(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
