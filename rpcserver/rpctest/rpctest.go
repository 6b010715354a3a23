// Package rpctest is a JSON-RPC 2.0 client for tests of the servers built on rpcserver
// (the simulated node and the fixture replay): it posts raw bodies, calls one method, and
// fails the test on anything but the answer the test expects; Serve runs such a server for
// a test and checks that it stops when told to.
package rpctest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Client calls the JSON-RPC endpoint at URL on behalf of T.
type Client struct {
	T   testing.TB
	URL string
}

// Response is one JSON-RPC answer, kept raw.
type Response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpc.RPCError   `json:"error"`
}

// Post sends body as it is and returns the HTTP status and the answer's bytes.
func (c Client) Post(body string) (int, []byte) {
	c.T.Helper()
	resp, err := http.Post(c.URL, "application/json", strings.NewReader(body))
	if err != nil {
		c.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// Raw sends body as it is and returns the answer's bytes, failing on a status but 200.
func (c Client) Raw(body string) []byte {
	c.T.Helper()
	code, b := c.Post(body)
	if code != http.StatusOK {
		c.T.Fatalf("status %d: %.300s", code, b)
	}
	return b
}

// Call calls method with positional params.
func (c Client) Call(method string, params ...any) Response {
	c.T.Helper()
	p, _ := json.Marshal(params)
	body := c.Raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, p))
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		c.T.Fatalf("%s: bad response %.300s", method, body)
	}
	return r
}

// OK calls method and returns its result, failing on an error answer.
func (c Client) OK(method string, params ...any) json.RawMessage {
	c.T.Helper()
	r := c.Call(method, params...)
	if r.Error != nil {
		c.T.Fatalf("%s%v: %v", method, params, r.Error)
	}
	return r.Result
}

// WantError calls method and checks that it answers the error code.
func (c Client) WantError(code int, method string, params ...any) {
	c.T.Helper()
	r := c.Call(method, params...)
	if r.Error == nil || r.Error.Code != code {
		c.T.Errorf("%s%v: got %+v %.200s, want error %d", method, params, r.Error, r.Result, code)
	}
}

// Serve runs serve, a server's Serve bound to addr, on a free local address until the test
// ends, and returns a client of its /rpc/v0_8 endpoint once it answers. When the test ends
// it cancels serve's context, and fails the test unless serve then returns nil within five
// seconds: a server must stop cleanly when told to.
func Serve(t testing.TB, serve func(ctx context.Context, addr string) error) Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, addr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not stop")
		}
	})
	c := Client{T: t, URL: "http://" + addr + "/rpc/v0_8"}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("Serve returned before it answered: %v", err)
		default:
		}
		resp, err := http.Post(c.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"starknet_blockNumber"}`))
		if err == nil {
			resp.Body.Close()
			return c
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("Serve did not come up")
		}
	}
}
