package rpc

import (
	"context"
	"errors"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/starknet/class"
)

// MixedBatch collects calls of different methods to send in one JSON-RPC batch request,
// each with a typed result. Add calls, send the batch with Client.Send, then read each
// call's result from the handle it was added with:
//
//	var b rpc.MixedBatch
//	blk := b.BlockWithReceipts(n)
//	su := b.StateUpdate(n)
//	if err := client.Send(ctx, &b); err != nil { ... } // the exchange failed
//	block, err := blk.Result()                           // this call's own result or error
//
// Results are checked and normalised exactly as by the single-call methods, and their
// errors are of the same kinds (*RPCError, *InvalidResponseError naming the block).
type MixedBatch struct {
	elems []*BatchElem
}

// ErrNotSent is the result error of a call whose batch was not sent (or not yet).
var ErrNotSent = errors.New("batch not sent")

// ErrNoResponse is wrapped in the *InvalidResponseError of a batched call the node left
// unanswered: unlike an answer that is garbage, it says nothing about the call itself.
var ErrNoResponse = errors.New("no response in the batch")

// Len is the number of calls in the batch.
func (b *MixedBatch) Len() int { return len(b.elems) }

func (b *MixedBatch) add(method string, block *uint64, params, result any) *BatchElem {
	e := &BatchElem{Method: method, Params: params, Result: result, Err: ErrNotSent, block: block}
	b.elems = append(b.elems, e)
	return e
}

// Send sends all calls of b in one HTTP request. The returned error is for the exchange as
// a whole, and is then also every call's result error; otherwise each call has its own.
// Sending an empty batch does nothing.
func (c *Client) Send(ctx context.Context, b *MixedBatch) error {
	if len(b.elems) == 0 {
		return nil
	}
	elems := make([]BatchElem, len(b.elems))
	for i, e := range b.elems {
		elems[i] = *e
		elems[i].Err = nil
	}
	err := c.Batch(ctx, elems)
	for i, e := range b.elems {
		e.Err = elems[i].Err
		if err != nil {
			e.Err = err
		}
	}
	return err
}

// numberedCall is a batched call about block n, whose raw answer W check turns into R.
type numberedCall[W, R any] struct {
	n     uint64
	wire  *W
	e     *BatchElem
	check func(method string, n uint64, wire *W) (R, error)
}

func addNumbered[W, R any](b *MixedBatch, method string, n uint64, check func(string, uint64, *W) (R, error)) *numberedCall[W, R] {
	r := &numberedCall[W, R]{n: n, check: check}
	r.e = b.add(method, &r.n, numberParam(n), &r.wire)
	return r
}

// Result is the checked answer, or this call's error.
func (r *numberedCall[W, R]) Result() (R, error) {
	if r.e.Err != nil {
		var none R
		return none, r.e.Err
	}
	return r.check(r.e.Method, r.n, r.wire)
}

// BlockCall is a batched starknet_getBlockWithReceipts.
type BlockCall = numberedCall[wireBlock, *Block]

// BlockWithReceipts adds a call for block n with its receipts (see Client.BlockWithReceipts).
func (b *MixedBatch) BlockWithReceipts(n uint64) *BlockCall {
	return addNumbered(b, "starknet_getBlockWithReceipts", n, checkBlock)
}

// BlockTxHashesCall is a batched starknet_getBlockWithTxHashes.
type BlockTxHashesCall = numberedCall[wireBlockTxHashes, *BlockTxHashes]

// BlockTxHashes adds a call for block n's header and transaction hashes.
func (b *MixedBatch) BlockTxHashes(n uint64) *BlockTxHashesCall {
	return addNumbered(b, "starknet_getBlockWithTxHashes", n,
		func(method string, n uint64, w *wireBlockTxHashes) (*BlockTxHashes, error) {
			return checkBlockTxHashes(method, &n, nil, w)
		})
}

// StateUpdateCall is a batched starknet_getStateUpdate.
type StateUpdateCall = numberedCall[wireStateUpdate, *StateUpdate]

// StateUpdate adds a call for the state diff of block n. A node that has the block but
// not its state diff answers ErrBlockNotFound.
func (b *MixedBatch) StateUpdate(n uint64) *StateUpdateCall {
	return addNumbered(b, "starknet_getStateUpdate", n, checkStateUpdate)
}

// ClassCall is a batched starknet_getClass.
type ClassCall struct {
	hash Felt
	raw  json.RawMessage
	e    *BatchElem
}

// Class adds a call for the class with hash classHash as of block n.
func (b *MixedBatch) Class(n uint64, classHash Felt) *ClassCall {
	r := &ClassCall{hash: classHash}
	r.e = b.add("starknet_getClass", nil,
		map[string]any{"block_id": map[string]uint64{"block_number": n}, "class_hash": classHash}, &r.raw)
	return r
}

// Result is the parsed class, or this call's error (ErrClassHashNotFound when the node does
// not have it).
func (r *ClassCall) Result() (*class.Class, error) {
	if r.e.Err != nil {
		return nil, r.e.Err
	}
	return parseClass(r.e.Method, r.hash, r.raw)
}

// CallCall is a batched starknet_call.
type CallCall struct {
	out *[]Felt
	e   *BatchElem
}

// Call adds a view-function call of selector on contract as of block n.
func (b *MixedBatch) Call(n uint64, contract, selector Felt, calldata []Felt) *CallCall {
	r := &CallCall{}
	r.e = b.add("starknet_call", nil, callParams(contract, selector, calldata, map[string]uint64{"block_number": n}), &r.out)
	return r
}

// Result is the function's result felts, or this call's error (an *RPCError such as
// ErrContractError or ErrEntrypointNotFound when the contract does not answer it).
func (r *CallCall) Result() ([]Felt, error) {
	if r.e.Err != nil {
		return nil, r.e.Err
	}
	if r.out == nil {
		return nil, invalid(r.e.Method, nil, "null result")
	}
	return *r.out, nil
}

func callParams(contract, selector Felt, calldata []Felt, blockID any) map[string]any {
	if calldata == nil {
		calldata = []Felt{}
	}
	return map[string]any{
		"request":  map[string]any{"contract_address": contract, "entry_point_selector": selector, "calldata": calldata},
		"block_id": blockID,
	}
}

func parseClass(method string, classHash Felt, raw []byte) (*class.Class, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, invalid(method, nil, "null result for class %s", classHash.Padded())
	}
	cl, err := class.Parse(raw)
	if err != nil {
		return nil, invalid(method, nil, "class %s: %v", classHash.Padded(), err)
	}
	return cl, nil
}

// StorageCall is a batched starknet_getStorageAt.
type StorageCall struct {
	out *Felt
	e   *BatchElem
}

// StorageAt adds a read of one storage slot of contract as of block n.
func (b *MixedBatch) StorageAt(n uint64, contract, key Felt) *StorageCall {
	r := &StorageCall{}
	r.e = b.add("starknet_getStorageAt", nil, map[string]any{"contract_address": contract, "key": key,
		"block_id": map[string]uint64{"block_number": n}}, &r.out)
	return r
}

// Result is the slot's value, or this call's error.
func (r *StorageCall) Result() (Felt, error) {
	if r.e.Err != nil {
		return Felt{}, r.e.Err
	}
	if r.out == nil {
		return Felt{}, invalid(r.e.Method, nil, "null result")
	}
	return *r.out, nil
}
