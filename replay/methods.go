package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strconv"

	"github.com/starkgraph/starkgraph/rpcserver"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Limits of starknet_getEvents.
const (
	maxChunkSize    = 10240
	maxKeysInFilter = 1024
)

func (s *Set) newServer(logger *slog.Logger) *rpcserver.Server {
	srv := rpcserver.New(logger)
	srv.Register("starknet_specVersion", func(context.Context, json.RawMessage) (any, error) { return "0.8.1", nil })
	srv.Register("starknet_chainId", func(context.Context, json.RawMessage) (any, error) { return s.ChainID, nil })
	srv.Register("starknet_blockNumber", func(context.Context, json.RawMessage) (any, error) { return s.LastBlock, nil })
	srv.Register("starknet_blockHashAndNumber", func(context.Context, json.RawMessage) (any, error) {
		return struct {
			Hash   string `json:"block_hash"`
			Number uint64 `json:"block_number"`
		}{s.blocks[s.LastBlock].hash, s.LastBlock}, nil
	})
	srv.Register("starknet_syncing", func(context.Context, json.RawMessage) (any, error) { return false, nil })
	srv.Register("starknet_getBlockWithReceipts", s.blockMethod(func(b *block) json.RawMessage { return b.withReceipts }))
	srv.Register("starknet_getBlockWithTxs", s.blockMethod(func(b *block) json.RawMessage { return b.withTxs }))
	srv.Register("starknet_getBlockWithTxHashes", s.blockMethod(func(b *block) json.RawMessage { return b.withHashes }))
	srv.Register("starknet_getBlockTransactionCount", s.blockMethod(func(b *block) json.RawMessage {
		return json.RawMessage(strconv.Itoa(len(b.txs)))
	}))
	srv.Register("starknet_getStateUpdate", s.getStateUpdate)
	srv.Register("starknet_getClass", s.getClass)
	srv.Register("starknet_getClassHashAt", s.getClassHashAt)
	srv.Register("starknet_getTransactionByHash", s.getTransactionByHash)
	srv.Register("starknet_getTransactionReceipt", s.getTransactionReceipt)
	srv.Register("starknet_getEvents", s.getEvents)
	return srv
}

// resolve finds the block a BLOCK_ID names. "pending" is served as the latest
// block: a replayed chain has nothing pending.
func (s *Set) resolve(raw json.RawMessage) (*block, error) {
	id, err := rpcserver.ParseBlockID(raw)
	if err != nil {
		return nil, err
	}
	n := s.LastBlock
	switch {
	case id.ByNum:
		n = id.Number
	case id.Hash != "":
		var ok bool
		if n, ok = s.byHash[id.Hash]; !ok {
			return nil, rpc.ErrBlockNotFound
		}
	}
	b, ok := s.blocks[n]
	if !ok {
		return nil, rpc.ErrBlockNotFound
	}
	return b, nil
}

func (s *Set) blockMethod(view func(*block) json.RawMessage) rpcserver.Method {
	return func(_ context.Context, params json.RawMessage) (any, error) {
		b, err := s.blockParam(params)
		if err != nil {
			return nil, err
		}
		return view(b), nil
	}
}

// blockParam resolves the block_id parameter of a method that takes only that.
func (s *Set) blockParam(params json.RawMessage) (*block, error) {
	ps, err := rpcserver.Params(params, []string{"block_id"}, 1)
	if err != nil {
		return nil, err
	}
	return s.resolve(ps[0])
}

// getStateUpdate answers BLOCK_NOT_FOUND (24), the only error the 0.8.1 spec
// allows for this method, when the set has the block but no state update for it
// (mainnet-763497); the error data says so.
func (s *Set) getStateUpdate(_ context.Context, params json.RawMessage) (any, error) {
	b, err := s.blockParam(params)
	if err != nil {
		return nil, err
	}
	su, ok := s.stateUpdates[b.number]
	if !ok {
		return nil, &rpcserver.Error{Code: rpc.ErrBlockNotFound.Code, Message: rpc.ErrBlockNotFound.Message,
			Data: fmt.Sprintf("fixture set %s has no state update for block %d", s.Name, b.number)}
	}
	return su, nil
}

func (s *Set) getClass(_ context.Context, params json.RawMessage) (any, error) {
	return lookupAtBlock(s, params, "class_hash", s.classes, rpc.ErrClassHashNotFound)
}

func (s *Set) getClassHashAt(_ context.Context, params json.RawMessage) (any, error) {
	return lookupAtBlock(s, params, "contract_address", s.contracts, rpc.ErrContractNotFound)
}

// lookupAtBlock answers a method taking (block_id, a felt named name) from one of the
// set's maps by the felt; the block must exist, though the map does not vary by block.
func lookupAtBlock[V any](s *Set, params json.RawMessage, name string, values map[string]V, notFound *rpcserver.Error) (any, error) {
	ps, err := rpcserver.Params(params, []string{"block_id", name}, 2)
	if err != nil {
		return nil, err
	}
	if _, err := s.resolve(ps[0]); err != nil {
		return nil, err
	}
	key, err := rpcserver.FeltParam(name, ps[1])
	if err != nil {
		return nil, err
	}
	v, ok := values[key]
	if !ok {
		return nil, notFound
	}
	return v, nil
}

func (s *Set) lookupTx(params json.RawMessage) (*block, txWithReceipt, error) {
	ps, err := rpcserver.Params(params, []string{"transaction_hash"}, 1)
	if err != nil {
		return nil, txWithReceipt{}, err
	}
	h, err := rpcserver.FeltParam("transaction_hash", ps[0])
	if err != nil {
		return nil, txWithReceipt{}, err
	}
	ref, ok := s.txs[h]
	if !ok {
		return nil, txWithReceipt{}, rpc.ErrTxnHashNotFound
	}
	b := s.blocks[ref.block]
	return b, b.txs[ref.index], nil
}

func (s *Set) getTransactionByHash(_ context.Context, params json.RawMessage) (any, error) {
	_, t, err := s.lookupTx(params)
	if err != nil {
		return nil, err
	}
	return spliceMembers(t.tx, `"transaction_hash":`+strconv.Quote(t.hash)), nil
}

func (s *Set) getTransactionReceipt(_ context.Context, params json.RawMessage) (any, error) {
	b, t, err := s.lookupTx(params)
	if err != nil {
		return nil, err
	}
	return spliceMembers(t.receipt, fmt.Sprintf(`"block_hash":%q,"block_number":%d`, b.hash, b.number)), nil
}

// spliceMembers puts extra members (already encoded, without braces) first into a
// stored JSON object without re-encoding the rest.
func spliceMembers(obj json.RawMessage, extra string) json.RawMessage {
	out := make([]byte, 0, len(obj)+len(extra)+2)
	out = append(out, '{')
	out = append(out, extra...)
	rest := obj[1:]
	for _, c := range rest {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			continue
		}
		if c != '}' {
			out = append(out, ',')
		}
		break
	}
	return append(out, rest...)
}

// getEvents pages through the events of the set in chain order. The
// continuation token is the position of the next matching event in that order.
func (s *Set) getEvents(_ context.Context, params json.RawMessage) (any, error) {
	f, err := rpcserver.ParseEventFilter(params, maxChunkSize, maxKeysInFilter)
	if err != nil {
		return nil, err
	}
	from, to := s.FirstBlock, s.LastBlock
	if f.FromBlock != nil {
		b, err := s.resolve(f.FromBlock)
		if err != nil {
			return nil, err
		}
		from = b.number
	}
	if f.ToBlock != nil {
		b, err := s.resolve(f.ToBlock)
		if err != nil {
			return nil, err
		}
		to = b.number
	}
	start := sort.Search(len(s.events), func(i int) bool { return s.events[i].blockNumber >= from })
	if f.ContinuationToken != "" {
		pos, err := strconv.Atoi(f.ContinuationToken)
		if err != nil || pos < start || pos > len(s.events) {
			return nil, rpc.ErrInvalidContinuationToken
		}
		start = pos
	}
	page := make([]json.RawMessage, 0, min(f.ChunkSize, 256))
	var next *string
	for i := start; i < len(s.events) && s.events[i].blockNumber <= to; i++ {
		e := &s.events[i]
		if !f.Match(e.fromAddress, e.keys) {
			continue
		}
		if len(page) == f.ChunkSize {
			tok := strconv.Itoa(i)
			next = &tok
			break
		}
		page = append(page, e.json)
	}
	return struct {
		Events            []json.RawMessage `json:"events"`
		ContinuationToken *string           `json:"continuation_token,omitempty"`
	}{page, next}, nil
}
