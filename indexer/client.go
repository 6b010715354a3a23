package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// client is a small Starknet JSON-RPC client that sends calls in batches. It only moves
// bytes: decoding and checking the results is wire.go's job, so that a node answering
// garbage is reported with the block it was asked for.
//
// It is internal to the indexer because starknet/rpc had no client yet when this was
// written; it can be replaced by that package's client once it exists.
type client struct {
	url  string
	http *http.Client
}

func newClient(url string) *client {
	return &client{
		url: url,
		http: &http.Client{
			Timeout: 60 * time.Second,
			Transport: &http.Transport{
				MaxIdleConnsPerHost: 16,
				IdleConnTimeout:     90 * time.Second,
			},
		},
	}
}

// call is one JSON-RPC request of a batch and, after the batch, its answer.
type call struct {
	Method string
	Params any

	Result json.RawMessage // set when the node answered with a result
	Err    error           // set when this call failed (a JSON-RPC error or no answer)
}

// rpcError is an error object returned by the node.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	if len(e.Data) > 0 && len(e.Data) < 200 {
		return fmt.Sprintf("node error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("node error %d: %s", e.Code, e.Message)
}

// Starknet error codes the indexer treats specially.
const (
	codeBlockNotFound = 24
	codeClassNotFound = 28
)

func isRPCCode(err error, code int) bool {
	var re *rpcError
	return errors.As(err, &re) && re.Code == code
}

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// maxResponseBytes bounds what a node may send in answer to one batch.
const maxResponseBytes = 512 << 20

// batch sends all calls in one HTTP request. The returned error is for the batch as a
// whole (network, HTTP status, malformed JSON); per-call failures are in call.Err.
func (c *client) batch(ctx context.Context, calls []*call) error {
	if len(calls) == 0 {
		return nil
	}
	reqs := make([]request, len(calls))
	for i, cl := range calls {
		reqs[i] = request{JSONRPC: "2.0", ID: i, Method: cl.Method, Params: cl.Params}
		cl.Result, cl.Err = nil, nil
	}
	body, err := json.Marshal(reqs)
	if err != nil {
		return err
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(httpReq)
	if err != nil {
		return fmt.Errorf("rpc %s: %w", calls[0].Method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("rpc %s: read answer: %w", calls[0].Method, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("rpc %s: http %d: %s", calls[0].Method, resp.StatusCode, truncate(string(raw), 200))
	}
	var answers []response
	if err := json.Unmarshal(raw, &answers); err != nil {
		// A node may answer a batch with a single error object.
		var single response
		if json.Unmarshal(raw, &single) == nil && single.Error != nil {
			return single.Error
		}
		return fmt.Errorf("rpc %s: malformed answer: %w", calls[0].Method, err)
	}
	seen := make([]bool, len(calls))
	for _, a := range answers {
		id, err := strconv.Atoi(string(a.ID))
		if err != nil || id < 0 || id >= len(calls) || seen[id] {
			return fmt.Errorf("rpc %s: answer with unexpected id %s", calls[0].Method, truncate(string(a.ID), 40))
		}
		seen[id] = true
		switch {
		case a.Error != nil:
			calls[id].Err = a.Error
		case len(a.Result) == 0:
			calls[id].Err = fmt.Errorf("rpc %s: answer has neither result nor error", calls[id].Method)
		default:
			calls[id].Result = a.Result
		}
	}
	for i, ok := range seen {
		if !ok {
			calls[i].Err = fmt.Errorf("rpc %s: no answer in batch", calls[i].Method)
		}
	}
	return nil
}

// do makes one call and decodes its result into out.
func (c *client) do(ctx context.Context, method string, params any, out any) error {
	cl := &call{Method: method, Params: params}
	if err := c.batch(ctx, []*call{cl}); err != nil {
		return err
	}
	if cl.Err != nil {
		return cl.Err
	}
	if err := json.Unmarshal(cl.Result, out); err != nil {
		return fmt.Errorf("rpc %s: malformed result: %w", method, err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// blockID is the block_id parameter for a block number.
type blockID struct {
	Number uint64 `json:"block_number"`
}

func asRPCError(err error, target **rpcError) bool { return errors.As(err, target) }
