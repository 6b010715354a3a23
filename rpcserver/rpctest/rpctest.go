// Package rpctest is a JSON-RPC 2.0 client for tests of the servers built on rpcserver
// (the simulated node and the fixture replay): it posts raw bodies, calls one method, and
// fails the test on anything but the answer the test expects.
package rpctest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
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
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
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
		c.T.Fatalf("%s%v: error %d %s %s", method, params, r.Error.Code, r.Error.Message, r.Error.Data)
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
