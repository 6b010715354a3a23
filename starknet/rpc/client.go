// Package rpc is a Starknet JSON-RPC client for the indexer: single and batch calls over
// HTTP, typed errors (transient, RPC error object, invalid response), and one normalised set
// of block, transaction, receipt and state-update types for nodes speaking spec 0.8, 0.9 or
// 0.10.
//
// JSON is read and written with github.com/goccy/go-json, encoding/json's API with a faster
// decoder: a block decodes 2.5 times as fast (BenchmarkDecodeBlock), and decoding the node's
// answers was the largest share of the indexer's CPU during a catch-up.
package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	json "github.com/goccy/go-json"
)

// Defaults chosen for a node on the same network: a block with receipts is a few MB, a batch
// of blocks some tens of MB.
const (
	DefaultTimeout          = 60 * time.Second
	DefaultMaxResponseBytes = 256 << 20
)

// Client talks JSON-RPC 2.0 over HTTP to one Starknet node. It is safe for concurrent use.
type Client struct {
	url      string
	http     *http.Client
	maxBytes int64
	headers  http.Header
	nextID   atomic.Uint64

	specMu sync.Mutex
	spec   *Spec
}

// Option configures a Client.
type Option func(*Client)

// WithTimeout sets the limit for one HTTP exchange, body included (default 60 s).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.http.Timeout = d } }

// WithHTTPClient replaces the HTTP client (its Timeout is used as is).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithMaxResponseBytes limits the size of one response body (default 256 MiB).
func WithMaxResponseBytes(n int64) Option { return func(c *Client) { c.maxBytes = n } }

// WithHeader adds a header to every request (for example an API key for a hosted node).
func WithHeader(key, value string) Option { return func(c *Client) { c.headers.Add(key, value) } }

// NewClient returns a client for the node at url.
func NewClient(url string, opts ...Option) *Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	c := &Client{
		url:      url,
		http:     &http.Client{Timeout: DefaultTimeout, Transport: t},
		maxBytes: DefaultMaxResponseBytes,
		headers:  http.Header{},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// response is one JSON-RPC answer. For single calls Result holds the caller's pointer, so
// the result is decoded straight into it; for batches it stays a json.RawMessage.
type response struct {
	ID     *json.RawMessage `json:"id"`
	Result any              `json:"result"`
	Error  *RPCError        `json:"error"`
}

// Do makes one JSON-RPC call and decodes the result into result, a pointer. The result
// is decoded straight from the response body. A null result leaves *result untouched: pass a
// pointer to a pointer (**T) to tell null from a zero value.
func (c *Client) Do(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, method, nil, params, result)
}

func (c *Client) call(ctx context.Context, method string, block *uint64, params, result any) error {
	id := c.nextID.Add(1)
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	if result == nil {
		result = new(json.RawMessage)
	}
	resp := response{Result: result}
	err = c.post(ctx, method, block, body, func(dec *json.Decoder) error { return dec.Decode(&resp) })
	if err != nil {
		return err
	}
	if resp.Error != nil {
		return resp.Error // checked before the id: some nodes answer errors with a null id
	}
	if resp.ID == nil || string(*resp.ID) != strconv.FormatUint(id, 10) {
		return invalid(method, block, "response id does not match request id %d", id)
	}
	return nil
}

// post sends body and hands the (size-limited) response body to decode. It sorts failures
// into the error kinds of this package.
func (c *Client) post(ctx context.Context, method string, block *uint64, body []byte, decode func(*json.Decoder) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range c.headers {
		req.Header[k] = v
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		return &TransientError{Method: method, Err: err}
	}
	defer res.Body.Close()

	lr := &limitedReader{r: res.Body, left: c.maxBytes}
	if res.StatusCode != http.StatusOK {
		snippet, _ := io.ReadAll(io.LimitReader(lr, 4096))
		var env response
		env.Result = new(json.RawMessage)
		var cause error = &HTTPError{Method: method, StatusCode: res.StatusCode, Body: string(bytes.TrimSpace(snippet[:min(len(snippet), 200)]))}
		if json.Unmarshal(snippet, &env) == nil && env.Error != nil {
			cause = env.Error
		}
		// Overload and rate limits are worth a retry even when they come as an RPC error.
		if res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusRequestTimeout {
			return &TransientError{Method: method, Err: cause}
		}
		return cause
	}
	dec := json.NewDecoder(lr)
	err = decode(dec)
	switch {
	case lr.exceeded:
		return &InvalidResponseError{Method: method, Block: block, Err: fmt.Errorf("%w (%d bytes)", ErrResponseTooLarge, c.maxBytes)}
	case lr.err != nil:
		// The connection broke or timed out while the body was read.
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		return &TransientError{Method: method, Err: lr.err}
	case err != nil:
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) {
			return err
		}
		return &InvalidResponseError{Method: method, Block: block, Err: err}
	}
	// Anything but whitespace after the JSON value is garbage.
	if _, err := dec.Token(); err != io.EOF {
		if lr.err != nil {
			return &TransientError{Method: method, Err: lr.err}
		}
		return invalid(method, block, "trailing data after the JSON value")
	}
	return nil
}

// singleError reads the rest of a response object whose '{' was consumed and returns its
// error member.
func singleError(dec *json.Decoder) error {
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key == "error" {
			var e *RPCError
			if err := dec.Decode(&e); err != nil {
				return err
			}
			if e != nil {
				return e
			}
			continue
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return errors.New("batch answered with a single object")
}

// limitedReader stops at the size limit and remembers why reading stopped, so that a cut
// connection (transient) is told apart from malformed JSON (invalid response).
type limitedReader struct {
	r        io.Reader
	left     int64
	exceeded bool
	err      error
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.exceeded = true
		return 0, ErrResponseTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

var _ net.Error = (*net.OpError)(nil) // net errors reach callers wrapped in *TransientError

// BatchElem is one call of a batch. After Batch returns, Err holds this call's own error
// (an *RPCError or *InvalidResponseError) and Result its decoded result.
type BatchElem struct {
	Method string
	Params any
	Result any // a pointer to decode into
	Err    error
	block  *uint64
}

// Batch sends all calls in one HTTP request (a JSON-RPC batch). The returned error is for
// the whole exchange (transport, HTTP, unparsable body); per-call errors are in elems[i].Err.
func (c *Client) Batch(ctx context.Context, elems []BatchElem) error {
	if len(elems) == 0 {
		return nil
	}
	method := "batch(" + elems[0].Method + ")"
	first := c.nextID.Add(uint64(len(elems))) - uint64(len(elems)) + 1
	reqs := make([]request, len(elems))
	for i, e := range elems {
		p := e.Params
		if p == nil {
			p = []any{}
		}
		reqs[i] = request{JSONRPC: "2.0", ID: first + uint64(i), Method: e.Method, Params: p}
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return fmt.Errorf("%s: encoding params: %w", method, err)
	}
	type batchResp struct {
		ID     *uint64         `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	var resps []batchResp
	err = c.post(ctx, method, nil, body, func(dec *json.Decoder) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['):
			for dec.More() {
				var r batchResp
				if err := dec.Decode(&r); err != nil {
					return err
				}
				resps = append(resps, r)
			}
			_, err = dec.Token() // the closing ]
			return err
		case json.Delim('{'):
			// A node that refuses batches answers with one error object.
			return singleError(dec)
		}
		return fmt.Errorf("batch answered with %v", tok)
	})
	if err != nil {
		return err
	}
	seen := make([]bool, len(elems))
	for _, r := range resps {
		if r.ID == nil || *r.ID < first || *r.ID >= first+uint64(len(elems)) || seen[*r.ID-first] {
			continue
		}
		i := *r.ID - first
		seen[i] = true
		e := &elems[i]
		switch {
		case r.Error != nil:
			e.Err = r.Error
		case len(r.Result) == 0 || string(r.Result) == "null":
			e.Err = invalid(e.Method, e.block, "null result")
		case e.Result != nil:
			if err := json.Unmarshal(r.Result, e.Result); err != nil {
				e.Err = &InvalidResponseError{Method: e.Method, Block: e.block, Err: err}
			}
		}
	}
	for i := range elems {
		if !seen[i] {
			elems[i].Err = &InvalidResponseError{Method: elems[i].Method, Block: elems[i].block, Err: fmt.Errorf("%w for id %d", ErrNoResponse, first+uint64(i))}
		}
	}
	return nil
}
