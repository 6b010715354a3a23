package rpcserver

import (
	"fmt"

	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Error is a JSON-RPC error object: the one the client reads, so that the Starknet errors
// the servers answer with (rpc.ErrBlockNotFound, ...) are described once, in starknet/rpc.
type Error = rpc.RPCError

// JSON-RPC 2.0 standard codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// ContractError is Starknet error 40 with its revert_error data.
func ContractError(revert string) *Error {
	return &Error{Code: rpc.ErrContractError.Code, Message: rpc.ErrContractError.Message, Data: map[string]string{"revert_error": revert}}
}

// InvalidParams is a -32602 error saying what was wrong.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}
