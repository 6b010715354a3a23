package rpcserver

import "fmt"

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// JSON-RPC 2.0 standard codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// Starknet RPC 0.8.1 errors (components/errors of starknet_api_openrpc.json).
// They are values: methods return them as they are, never modify them.
var (
	ErrContractNotFound         = &Error{Code: 20, Message: "Contract not found"}
	ErrEntrypointNotFound       = &Error{Code: 21, Message: "Requested entrypoint does not exist in the contract"}
	ErrBlockNotFound            = &Error{Code: 24, Message: "Block not found"}
	ErrInvalidTxnIndex          = &Error{Code: 27, Message: "Invalid transaction index in a block"}
	ErrClassHashNotFound        = &Error{Code: 28, Message: "Class hash not found"}
	ErrTxnHashNotFound          = &Error{Code: 29, Message: "Transaction hash not found"}
	ErrPageSizeTooBig           = &Error{Code: 31, Message: "Requested page size is too big"}
	ErrNoBlocks                 = &Error{Code: 32, Message: "There are no blocks"}
	ErrInvalidContinuationToken = &Error{Code: 33, Message: "The supplied continuation token is invalid or unknown"}
	ErrTooManyKeysInFilter      = &Error{Code: 34, Message: "Too many keys provided in a filter"}
	ErrStorageProofNotSupported = &Error{Code: 42, Message: "the node doesn't support storage proofs for blocks that are too far in the past"}
)

// ContractError is Starknet error 40 with its revert_error data.
func ContractError(revert string) *Error {
	return &Error{Code: 40, Message: "Contract error", Data: map[string]string{"revert_error": revert}}
}

// InvalidParams is a -32602 error saying what was wrong.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}
