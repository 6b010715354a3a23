package sim

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/starkgraph/starkgraph/rpcserver"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Limits of starknet_getEvents. A request scans at most maxScanBlocks blocks and
// then answers with what it found and a continuation token, as nodes may.
const (
	maxEventChunk   = 1024
	maxEventKeys    = 256
	maxScanBlocks   = 1000
	eventTokenStart = "" // no token: start at from_block
)

// getEvents scans the generated blocks of the range. The continuation token is
// "block-tx-event" of the next event to look at.
func (c *Chain) getEvents(_ context.Context, params json.RawMessage) (any, error) {
	f, err := rpcserver.ParseEventFilter(params, maxEventChunk, maxEventKeys)
	if err != nil {
		return nil, err
	}
	var address felt
	if f.Address != "" {
		address, _ = parseFelt(f.Address)
	}
	keys := make([]map[felt]bool, len(f.Keys))
	for i, set := range f.Keys {
		keys[i] = map[felt]bool{}
		for k := range set {
			v, _ := parseFelt(k)
			keys[i][v] = true
		}
	}
	match := func(ev *event) bool {
		if f.Address != "" && ev.from != address {
			return false
		}
		for i, set := range keys {
			if len(set) > 0 && (i >= len(ev.keys) || !set[ev.keys[i]]) {
				return false
			}
		}
		return true
	}

	c.mu.RLock()
	defer c.mu.RUnlock()
	from, to := uint64(0), c.head
	if f.FromBlock != nil {
		if from, err = c.resolve(f.FromBlock); err != nil {
			return nil, err
		}
	}
	if f.ToBlock != nil {
		if to, err = c.resolve(f.ToBlock); err != nil {
			return nil, err
		}
	}
	startTx, startEv := 0, 0
	if f.ContinuationToken != eventTokenStart {
		var n uint64
		if _, err := fmt.Sscanf(f.ContinuationToken, "%d-%d-%d", &n, &startTx, &startEv); err != nil || n < from || n > to || startTx < 0 || startEv < 0 {
			return nil, rpc.ErrInvalidContinuationToken
		}
		from = n
	}
	e := enc{make([]byte, 0, 4096)}
	e.raw(`{"events":[`)
	count := 0
	token := ""
scan:
	for n := from; n <= to; n++ {
		if n-from >= maxScanBlocks {
			token = fmt.Sprintf("%d-0-0", n)
			break
		}
		b := c.block(n)
		for ti := startTx; ti < len(b.txs); ti++ {
			t := &b.txs[ti]
			for ei := startEv; ei < len(t.events); ei++ {
				ev := &t.events[ei]
				if !match(ev) {
					continue
				}
				if count == f.ChunkSize {
					token = fmt.Sprintf("%d-%d-%d", n, ti, ei)
					break scan
				}
				if count > 0 {
					e.comma()
				}
				count++
				e.raw(`{"from_address":`)
				e.felt(ev.from)
				e.feltsField("keys", ev.keys)
				e.feltsField("data", ev.data)
				e.feltField("block_hash", b.hash)
				e.uintField("block_number", b.number)
				e.feltField("transaction_hash", t.hash)
				e.raw("}")
			}
			startEv = 0
		}
		startTx = 0
	}
	e.raw("]")
	if token != "" {
		e.strField("continuation_token", token)
	}
	e.raw("}")
	return json.RawMessage(e.b), nil
}
