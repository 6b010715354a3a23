// Package rpcserver is the JSON-RPC 2.0 over HTTP plumbing shared by the simulated
// Starknet node (sim) and the fixture replay server (replay): request and batch
// decoding, method dispatch, error objects, and the parameter helpers every
// Starknet method needs (named or positional params, block ids, felts).
//
// Results are written without re-encoding when a method returns json.RawMessage,
// so fixture bytes reach the client exactly as stored.
package rpcserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// Method answers one JSON-RPC call. params is the raw "params" member (nil when absent).
// A returned *Error is sent as the JSON-RPC error; any other error becomes -32603.
type Method func(ctx context.Context, params json.RawMessage) (any, error)

// HTTPError makes the whole HTTP exchange fail with Status instead of a JSON-RPC
// answer. It exists for fault injection (a node behind a failing proxy).
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("http %d: %s", e.Status, e.Body) }

// Server dispatches JSON-RPC requests to registered methods. Serve it on any path.
type Server struct {
	methods map[string]Method
	// MaxBodyBytes bounds a request body; larger bodies get HTTP 413.
	MaxBodyBytes int64
	// MaxBatch bounds the number of calls in one batch.
	MaxBatch int
	Logger   *slog.Logger
}

// New returns a server with no methods and sane limits.
func New(logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Server{methods: map[string]Method{}, MaxBodyBytes: 8 << 20, MaxBatch: 1000, Logger: logger}
}

// Register adds (or replaces) a method.
func (s *Server) Register(name string, m Method) { s.methods[name] = m }

// request is one decoded call. ID stays raw so that it is echoed byte for byte.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	ID      json.RawMessage `json:"id"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "JSON-RPC requests must be POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return
	}
	out, herr := s.Handle(r.Context(), body)
	if herr != nil {
		http.Error(w, herr.Body, herr.Status)
		return
	}
	if out == nil { // only notifications
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// Handle answers a raw request body (a single call or a batch). It returns nil bytes
// when nothing is to be sent back (notifications only), or an *HTTPError when a method
// asked for the HTTP exchange to fail.
func (s *Server) Handle(ctx context.Context, body []byte) ([]byte, *HTTPError) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return s.handleBatch(ctx, trimmed)
	}
	var req request
	if err := json.Unmarshal(trimmed, &req); err != nil {
		if json.Valid(trimmed) { // JSON, but not a request object
			return errorResponse(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: " + err.Error()}), nil
		}
		return errorResponse(nil, &Error{Code: CodeParseError, Message: "Parse error: " + err.Error()}), nil
	}
	resp, herr := s.call(ctx, &req)
	if herr != nil {
		return nil, herr
	}
	return resp, nil
}

func (s *Server) handleBatch(ctx context.Context, body []byte) ([]byte, *HTTPError) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return errorResponse(nil, &Error{Code: CodeParseError, Message: "Parse error: " + err.Error()}), nil
	}
	if len(raws) == 0 {
		return errorResponse(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: empty batch"}), nil
	}
	if len(raws) > s.MaxBatch {
		return errorResponse(nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("Invalid Request: batch of %d calls exceeds the limit of %d", len(raws), s.MaxBatch)}), nil
	}
	results := make([][]byte, len(raws))
	herrs := make([]*HTTPError, len(raws))
	// Calls of a batch run in parallel (bounded), so that a batch of block
	// requests uses every core of the simulated node.
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, raw := range raws {
		var req request
		if err := json.Unmarshal(raw, &req); err != nil {
			results[i] = errorResponse(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: " + err.Error()})
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i], herrs[i] = s.call(ctx, &req)
		}()
	}
	wg.Wait()
	// The answer's size is known: grown by doubling instead, a batch of blocks (megabytes)
	// was copied and cleared again at each step, a tenth of the bench's CPU while indexing.
	size := 2 + len(results)
	for _, r := range results {
		size += len(r)
	}
	var out bytes.Buffer
	out.Grow(size)
	out.WriteByte('[')
	n := 0
	for i, r := range results {
		if herrs[i] != nil {
			return nil, herrs[i]
		}
		if r == nil {
			continue
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(r)
		n++
	}
	if n == 0 {
		return nil, nil
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

// call runs one request and returns its encoded response (nil for a notification).
func (s *Server) call(ctx context.Context, req *request) (resp []byte, herr *HTTPError) {
	isNotification := req.ID == nil
	id := req.ID
	if !validID(id) {
		return errorResponse(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: id must be a string, a number or null"}), nil
	}
	if req.Method == "" {
		return errorResponse(nil, &Error{Code: CodeInvalidRequest, Message: `Invalid Request: "method" is missing`}), nil
	}
	if req.JSONRPC != "2.0" {
		return errorResponse(id, &Error{Code: CodeInvalidRequest, Message: `Invalid Request: "jsonrpc" must be "2.0"`}), nil
	}
	m, ok := s.methods[req.Method]
	if !ok {
		if isNotification {
			return nil, nil
		}
		return errorResponse(id, &Error{Code: CodeMethodNotFound, Message: "Method not found"}), nil
	}
	if p := bytes.TrimSpace(req.Params); len(p) > 0 && p[0] != '[' && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		return errorResponse(id, &Error{Code: CodeInvalidParams, Message: "Invalid params: params must be an array or an object"}), nil
	}
	defer func() {
		// A bug in a method must not take the server down; the caller sees -32603.
		if r := recover(); r != nil {
			s.Logger.Error("json-rpc method panicked", "method", req.Method, "panic", r)
			resp, herr = errorResponse(id, &Error{Code: CodeInternal, Message: "Internal error"}), nil
		}
	}()
	result, err := m(ctx, req.Params)
	if err != nil {
		var he *HTTPError
		if errors.As(err, &he) {
			return nil, he
		}
		var re *Error
		if !errors.As(err, &re) {
			s.Logger.Error("json-rpc method failed", "method", req.Method, "err", err)
			re = &Error{Code: CodeInternal, Message: "Internal error"}
		}
		if isNotification {
			return nil, nil
		}
		return errorResponse(id, re), nil
	}
	if isNotification {
		return nil, nil
	}
	return resultResponse(id, result)
}

func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	t := bytes.TrimSpace(id)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func resultResponse(id json.RawMessage, result any) ([]byte, *HTTPError) {
	var enc []byte
	switch r := result.(type) {
	case json.RawMessage:
		enc = r // written verbatim: fixture bytes, or bytes the simulator encoded itself
	default:
		var err error
		enc, err = json.Marshal(r)
		if err != nil {
			return errorResponse(id, &Error{Code: CodeInternal, Message: "Internal error: " + err.Error()}), nil
		}
	}
	out := make([]byte, 0, len(enc)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = appendID(out, id)
	out = append(out, `,"result":`...)
	out = append(out, enc...)
	out = append(out, '}')
	return out, nil
}

func errorResponse(id json.RawMessage, e *Error) []byte {
	enc, err := json.Marshal(e)
	if err != nil {
		enc = []byte(`{"code":-32603,"message":"Internal error"}`)
	}
	out := make([]byte, 0, len(enc)+48)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = appendID(out, id)
	out = append(out, `,"error":`...)
	out = append(out, enc...)
	out = append(out, '}')
	return out
}

func appendID(out []byte, id json.RawMessage) []byte {
	if id == nil {
		return append(out, "null"...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, id); err != nil {
		return append(out, "null"...)
	}
	return append(out, buf.Bytes()...)
}

// ServeUntilDone serves srv on ln until ctx ends (then it shuts srv down, allowing 5 s for
// requests in flight, and returns nil) or serving fails.
func ServeUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
		return nil
	}
}
