package rpc

import (
	"errors"
	"fmt"
)

// Errors come in three kinds that a caller branches on:
//
//   - *TransientError: the network, a timeout, HTTP 5xx/429/408 or a cut-off body. Retrying
//     later may succeed. IsTransient reports it.
//   - *RPCError: the node answered with a JSON-RPC error object (for example code 24,
//     BLOCK_NOT_FOUND). errors.Is(err, ErrBlockNotFound) and friends match by code.
//   - *InvalidResponseError: the node answered 200 but with garbage: malformed JSON, a wrong
//     id, a missing result or required member, an inconsistent block. Retrying the same node
//     will usually give the same garbage.
//
// *HTTPError is a non-2xx answer that is neither transient nor a JSON-RPC error (401, 404,
// ...): a configuration problem. ErrResponseTooLarge is returned when a body exceeds the
// client's limit.

// TransientError wraps a failure that may go away on retry.
type TransientError struct {
	Method string
	Err    error
}

func (e *TransientError) Error() string { return fmt.Sprintf("%s: transient: %v", e.Method, e.Err) }
func (e *TransientError) Unwrap() error { return e.Err }

// IsTransient reports whether err (or anything it wraps) is a *TransientError.
func IsTransient(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
}

// RPCError is a JSON-RPC error object returned by the node.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if e.Data != nil {
		return fmt.Sprintf("rpc error %d: %s (%v)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message)
}

// Is matches another *RPCError by code, so errors.Is(err, ErrBlockNotFound) works.
func (e *RPCError) Is(target error) bool {
	t, ok := target.(*RPCError)
	return ok && t.Code == e.Code
}

// Starknet JSON-RPC errors (components/errors of starknet_api_openrpc.json, v0.8): the
// client matches them by code (errors.Is), and the simulated node and the replay server
// answer with them (rpcserver). They are values: never modify them.
var (
	ErrContractNotFound         = &RPCError{Code: 20, Message: "Contract not found"}
	ErrEntrypointNotFound       = &RPCError{Code: 21, Message: "Requested entrypoint does not exist in the contract"}
	ErrBlockNotFound            = &RPCError{Code: 24, Message: "Block not found"}
	ErrInvalidTxnIndex          = &RPCError{Code: 27, Message: "Invalid transaction index in a block"}
	ErrClassHashNotFound        = &RPCError{Code: 28, Message: "Class hash not found"}
	ErrTxnHashNotFound          = &RPCError{Code: 29, Message: "Transaction hash not found"}
	ErrPageSizeTooBig           = &RPCError{Code: 31, Message: "Requested page size is too big"}
	ErrNoBlocks                 = &RPCError{Code: 32, Message: "There are no blocks"}
	ErrInvalidContinuationToken = &RPCError{Code: 33, Message: "The supplied continuation token is invalid or unknown"}
	ErrTooManyKeysInFilter      = &RPCError{Code: 34, Message: "Too many keys provided in a filter"}
	ErrContractError            = &RPCError{Code: 40, Message: "Contract error"}
	ErrStorageProofNotSupported = &RPCError{Code: 42, Message: "the node doesn't support storage proofs for blocks that are too far in the past"}
)

// InvalidResponseError says what was wrong with a response the node sent.
type InvalidResponseError struct {
	Method string
	Block  *uint64 // the block asked for, when there was one
	Err    error
}

func (e *InvalidResponseError) Error() string {
	if e.Block != nil {
		return fmt.Sprintf("%s: invalid response for block %d: %v", e.Method, *e.Block, e.Err)
	}
	return fmt.Sprintf("%s: invalid response: %v", e.Method, e.Err)
}

func (e *InvalidResponseError) Unwrap() error { return e.Err }

// HTTPError is a non-2xx status that carried no JSON-RPC error.
type HTTPError struct {
	Method     string
	StatusCode int
	Body       string // the first bytes of the body
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Method, e.StatusCode, e.Body)
}

// ErrResponseTooLarge is returned (wrapped) when a response body exceeds the client's limit.
var ErrResponseTooLarge = errors.New("response body exceeds the size limit")

func invalid(method string, block *uint64, format string, args ...any) error {
	return &InvalidResponseError{Method: method, Block: block, Err: fmt.Errorf(format, args...)}
}
