package indexer

import (
	"context"
	"errors"
	"fmt"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

func stringArray(s []string) pq.StringArray { return pq.StringArray(s) }

// fetchRange reads blocks from..to with their state updates in one JSON-RPC batch, then the
// classes they name that the indexer does not know, in a second batch. It checks that the
// blocks chain up and that each state update belongs to its block; any error means the node
// answered something that must not be written, and the caller retries.
func (ix *Indexer) fetchRange(ctx context.Context, from, to uint64) ([]*blockData, error) {
	n := int(to - from + 1)
	var batch rpc.MixedBatch
	blockCalls := make([]*rpc.BlockCall, n)
	stateCalls := make([]*rpc.StateUpdateCall, n)
	for i := range n {
		blockCalls[i] = batch.BlockWithReceipts(from + uint64(i))
		stateCalls[i] = batch.StateUpdate(from + uint64(i))
	}
	if err := ix.node.Send(ctx, &batch); err != nil {
		return nil, fmt.Errorf("blocks %d-%d: %w", from, to, err)
	}
	out := make([]*blockData, n)
	for i := range n {
		num := from + uint64(i)
		b, err := blockCalls[i].Result()
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", num, err)
		}
		s, err := stateCalls[i].Result()
		switch {
		case errors.Is(err, rpc.ErrBlockNotFound):
			// The node has the block but not its state diff (some archives lack old ones):
			// the block is indexed without contract and class changes.
			ix.log.Warn("node has no state update for block; indexing it without one", "block", num)
		case err != nil:
			return nil, fmt.Errorf("state update %d: %w", num, err)
		}
		if s != nil && s.BlockHash != b.Hash {
			return nil, fmt.Errorf("block %d: state update is of block %s, not %s", num, s.BlockHash, b.Hash)
		}
		if i > 0 && b.ParentHash != out[i-1].Block.Hash {
			return nil, fmt.Errorf("block %d: parent %s is not block %d (%s)", num, b.ParentHash, num-1, out[i-1].Block.Hash)
		}
		out[i] = &blockData{Block: b, State: s, rows: makeBlockRows(b)}
	}
	if err := ix.fetchClasses(ctx, out); err != nil {
		return nil, err
	}
	if err := ix.fetchImplementations(ctx, out); err != nil {
		return nil, err
	}
	if err := ix.fetchFigures(ctx, out); err != nil {
		return nil, err
	}
	if err := ix.fetchTokenMeta(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// fetchImplementations reads the implementation of the proxies the blocks deploy, or whose
// class they replace by a proxy's, as of the block that does so.
func (ix *Indexer) fetchImplementations(ctx context.Context, blocks []*blockData) error {
	// A class fetched for the batch is in the Classes of the first block that wanted it.
	fetched := map[starknet.Felt]*classInfo{}
	for _, bd := range blocks {
		for h, info := range bd.Classes {
			fetched[h] = info
		}
	}
	isProxy := func(h starknet.Felt) bool {
		info := fetched[h]
		if info == nil {
			info = ix.classes.get(h)
		}
		return info != nil && info.IsProxy
	}
	var proxies []proxyAt
	for _, bd := range blocks {
		if bd.State == nil {
			continue
		}
		for _, d := range bd.State.DeployedContracts {
			if isProxy(d.ClassHash) {
				proxies = append(proxies, proxyAt{bd.Block.Number, d.Address})
			}
		}
		for _, r := range bd.State.ReplacedClasses {
			if isProxy(r.ClassHash) {
				proxies = append(proxies, proxyAt{bd.Block.Number, r.ContractAddress})
			}
		}
	}
	if len(proxies) == 0 {
		return nil
	}
	impls, err := ix.lookup.implementations(ctx, proxies)
	if err != nil {
		return err
	}
	for _, bd := range blocks {
		bd.Implementations = map[starknet.Felt]starknet.Felt{}
	}
	for p, impl := range impls {
		for _, bd := range blocks {
			if bd.Block.Number == p.block {
				bd.Implementations[p.address] = impl
			}
		}
	}
	return nil
}

// fetchClasses fetches the classes declared in the blocks, and those of deployed or
// upgraded contracts, that neither memory nor the database knows.
func (ix *Indexer) fetchClasses(ctx context.Context, blocks []*blockData) error {
	type want struct {
		hash  starknet.Felt
		block *blockData
	}
	var wants []want
	var hashes []starknet.Felt
	seen := map[starknet.Felt]bool{}
	for _, bd := range blocks {
		bd.Classes = map[starknet.Felt]*classInfo{}
		if bd.State == nil {
			continue
		}
		add := func(h starknet.Felt) {
			if !seen[h] {
				seen[h] = true
				wants = append(wants, want{h, bd})
				hashes = append(hashes, h)
			}
		}
		for _, d := range bd.State.DeclaredClasses {
			add(d.ClassHash)
		}
		for _, h := range bd.State.DeprecatedDeclaredClasses {
			add(h)
		}
		for _, d := range bd.State.DeployedContracts {
			add(d.ClassHash)
		}
		for _, r := range bd.State.ReplacedClasses {
			add(r.ClassHash)
		}
	}
	if len(wants) == 0 {
		return nil
	}
	if err := ix.classes.load(ctx, ix.db, hashes); err != nil {
		return err
	}
	// At most classBatch classes per request: a class is up to a few MB of JSON.
	const classBatch = 16
	var calls []*rpc.ClassCall
	var asked []want
	for _, w := range wants {
		if !ix.classes.known(w.hash) {
			asked = append(asked, w)
		}
	}
	for start := 0; start < len(asked); start += classBatch {
		var batch rpc.MixedBatch
		for _, w := range asked[start:min(start+classBatch, len(asked))] {
			calls = append(calls, batch.Class(w.block.Block.Number, w.hash))
		}
		if err := ix.node.Send(ctx, &batch); err != nil {
			return fmt.Errorf("classes of block %d: %w", asked[start].block.Block.Number, err)
		}
	}
	for i, c := range calls {
		w := asked[i]
		cl, err := c.Result()
		switch {
		case errors.Is(err, rpc.ErrClassHashNotFound):
			w.block.Classes[w.hash] = nil // the node does not have it: stored without an ABI
			ix.log.Warn("class not available from the node", "class", w.hash.Hex(), "block", w.block.Block.Number)
		case err != nil:
			return fmt.Errorf("class %s of block %d: %w", w.hash, w.block.Block.Number, err)
		default:
			w.block.Classes[w.hash] = classInfoOf(cl)
		}
	}
	return nil
}

// nodeHeaders returns the node's hash and status of blocks from..to.
func (ix *Indexer) nodeHeaders(ctx context.Context, from, to uint64) ([]rpc.Felt, []string, error) {
	var batch rpc.MixedBatch
	var calls []*rpc.BlockTxHashesCall
	for b := from; b <= to; b++ {
		calls = append(calls, batch.BlockTxHashes(b))
	}
	if err := ix.node.Send(ctx, &batch); err != nil {
		return nil, nil, err
	}
	hashes := make([]rpc.Felt, len(calls))
	statuses := make([]string, len(calls))
	for i, c := range calls {
		h, err := c.Result()
		if err != nil {
			return nil, nil, fmt.Errorf("block %d: %w", from+uint64(i), err)
		}
		hashes[i], statuses[i] = h.Hash, h.Status
	}
	return hashes, statuses, nil
}

// nodeHead asks the node for its newest block number.
func (ix *Indexer) nodeHead(ctx context.Context) (uint64, error) {
	return ix.node.BlockNumber(ctx)
}
