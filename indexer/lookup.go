package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Contracts the indexer meets without having seen their deployment (those deployed before
// --from-block) are looked up on the node: starknet_getClassHashAt as of the block before
// the batch, then their class. Proxies' implementations are read with starknet_call.

// lookupBatch bounds the calls of one JSON-RPC request.
const lookupBatch = 256

// maxAbsent bounds the memory of addresses known not to exist; past it the set starts over.
const maxAbsent = 1 << 17

// errMethodNotFound is JSON-RPC's "method not found": a node that does not serve a method.
var errMethodNotFound = &rpc.RPCError{Code: -32601, Message: "Method not found"}

// contractLookup asks the node about contracts. Its memory of absent addresses holds for
// the life of the process: an address absent at some block the indexer has reached was not
// deployed before --from-block, and any later deployment comes with a state diff the
// indexer writes (reorgs included), so it need never be asked again.
type contractLookup struct {
	node *rpc.Client
	log  *slog.Logger

	mu          sync.Mutex
	absent      map[starknet.Felt]bool
	unsupported bool // the node does not serve getClassHashAt: lookups are off
	noNonces    bool // the node does not serve getNonce: looked-up contracts start at nonce 0
}

func newContractLookup(node *rpc.Client, log *slog.Logger) *contractLookup {
	return &contractLookup{node: node, log: log, absent: map[starknet.Felt]bool{}}
}

// classHashesAt returns the class hash, as of block, of those addrs that existed then. An
// address the node cannot answer for (other than "not found") is left out and not
// remembered; an error is returned only when an exchange with the node failed.
func (l *contractLookup) classHashesAt(ctx context.Context, block uint64, addrs []starknet.Felt) (map[starknet.Felt]starknet.Felt, error) {
	l.mu.Lock()
	if l.unsupported {
		l.mu.Unlock()
		return nil, nil
	}
	var ask []starknet.Felt
	for _, a := range addrs {
		if !l.absent[a] {
			ask = append(ask, a)
		}
	}
	l.mu.Unlock()
	found := map[starknet.Felt]starknet.Felt{}
	for start := 0; start < len(ask); start += lookupBatch {
		part := ask[start:min(start+lookupBatch, len(ask))]
		elems := make([]rpc.BatchElem, len(part))
		results := make([]*starknet.Felt, len(part))
		for i, a := range part {
			elems[i] = rpc.BatchElem{Method: "starknet_getClassHashAt", Result: &results[i],
				Params: map[string]any{"block_id": map[string]uint64{"block_number": block}, "contract_address": a}}
		}
		if err := l.node.Batch(ctx, elems); err != nil {
			return nil, fmt.Errorf("class hashes at block %d: %w", block, err)
		}
		l.mu.Lock()
		for i, e := range elems {
			switch {
			case errors.Is(e.Err, rpc.ErrContractNotFound):
				if len(l.absent) >= maxAbsent {
					l.absent = map[starknet.Felt]bool{}
				}
				l.absent[part[i]] = true
			case errors.Is(e.Err, errMethodNotFound):
				if !l.unsupported {
					l.log.Warn("node does not serve starknet_getClassHashAt; contracts deployed before --from-block stay unknown")
				}
				l.unsupported = true
			case e.Err != nil:
				l.log.Warn("cannot look up a contract's class", "address", part[i].Hex(), "block", block, "err", e.Err)
			case results[i] != nil:
				found[part[i]] = *results[i]
			}
		}
		l.mu.Unlock()
	}
	return found, nil
}

// nonces returns, as of block, the nonce of those addrs the node answers for (all of them
// on a node that serves starknet_getNonce; none on one that does not).
func (l *contractLookup) nonces(ctx context.Context, block uint64, addrs []starknet.Felt) (map[starknet.Felt]starknet.Felt, error) {
	l.mu.Lock()
	off := l.noNonces
	l.mu.Unlock()
	out := map[starknet.Felt]starknet.Felt{}
	if off {
		return out, nil
	}
	for start := 0; start < len(addrs); start += lookupBatch {
		part := addrs[start:min(start+lookupBatch, len(addrs))]
		elems := make([]rpc.BatchElem, len(part))
		results := make([]*starknet.Felt, len(part))
		for i, a := range part {
			elems[i] = rpc.BatchElem{Method: "starknet_getNonce", Result: &results[i],
				Params: map[string]any{"block_id": map[string]uint64{"block_number": block}, "contract_address": a}}
		}
		if err := l.node.Batch(ctx, elems); err != nil {
			return nil, fmt.Errorf("nonces at block %d: %w", block, err)
		}
		for i, e := range elems {
			switch {
			case errors.Is(e.Err, errMethodNotFound):
				l.mu.Lock()
				l.noNonces = true
				l.mu.Unlock()
				return out, nil
			case e.Err == nil && results[i] != nil:
				out[part[i]] = *results[i]
			}
		}
	}
	return out, nil
}

// classes fetches, as of block, the classes among hashes; a class the node does not have
// is left out.
func (l *contractLookup) classes(ctx context.Context, block uint64, hashes []starknet.Felt) (map[starknet.Felt]*classInfo, error) {
	const classBatch = 16 // a class is up to a few MB of JSON
	out := map[starknet.Felt]*classInfo{}
	for start := 0; start < len(hashes); start += classBatch {
		var batch rpc.MixedBatch
		var calls []*rpc.ClassCall
		part := hashes[start:min(start+classBatch, len(hashes))]
		for _, h := range part {
			calls = append(calls, batch.Class(block, h))
		}
		if err := l.node.Send(ctx, &batch); err != nil {
			return nil, fmt.Errorf("classes at block %d: %w", block, err)
		}
		for i, c := range calls {
			cl, err := c.Result()
			if err != nil {
				l.log.Warn("class not available from the node", "class", part[i].Hex(), "block", block, "err", err)
				continue
			}
			out[part[i]] = classInfoOf(cl)
		}
	}
	return out, nil
}

// Proxies answer one of these with their implementation (an address or a class hash).
var implementationSelectors = []starknet.Felt{
	starknet.Selector("get_implementation"),
	starknet.Selector("implementation"),
	starknet.Selector("get_implementation_hash"),
}

// proxyAt names a proxy and the block as of which to read its implementation.
type proxyAt struct {
	block   uint64
	address starknet.Felt
}

// implementations reads the implementation of each proxy: the first felt answered by the
// first of implementationSelectors the proxy serves. A proxy that answers none is left out.
func (l *contractLookup) implementations(ctx context.Context, proxies []proxyAt) (map[proxyAt]starknet.Felt, error) {
	out := map[proxyAt]starknet.Felt{}
	per := len(implementationSelectors)
	step := lookupBatch / per
	for start := 0; start < len(proxies); start += step {
		part := proxies[start:min(start+step, len(proxies))]
		var batch rpc.MixedBatch
		calls := make([]*rpc.CallCall, 0, len(part)*per)
		for _, p := range part {
			for _, sel := range implementationSelectors {
				calls = append(calls, batch.Call(p.block, p.address, sel, nil))
			}
		}
		if err := l.node.Send(ctx, &batch); err != nil {
			return nil, fmt.Errorf("proxy implementations of block %d: %w", part[0].block, err)
		}
		for i, p := range part {
			for _, c := range calls[i*per : (i+1)*per] {
				if res, err := c.Result(); err == nil && len(res) > 0 {
					out[p] = res[0]
					break
				}
			}
		}
	}
	return out, nil
}
