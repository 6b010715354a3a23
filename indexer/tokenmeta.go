package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// tokenMeta is what a token says about itself through name(), symbol() and decimals().
// Fields are nil when the call failed or answered something unreadable.
type tokenMeta struct {
	Name, Symbol *string
	Decimals     *int16
}

// tokenMetaCache remembers the metadata fetched for token addresses, so that each token is
// asked once. The writer takes a new token's metadata from here.
type tokenMetaCache struct {
	mu   sync.Mutex
	meta map[starknet.Felt]*tokenMeta
}

func newTokenMetaCache() *tokenMetaCache {
	return &tokenMetaCache{meta: map[starknet.Felt]*tokenMeta{}}
}

func (c *tokenMetaCache) get(a starknet.Felt) *tokenMeta {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.meta[a]
}

func (c *tokenMetaCache) put(a starknet.Felt, m *tokenMeta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.meta[a] = m
}

var (
	selName     = starknet.Selector("name")
	selSymbol   = starknet.Selector("symbol")
	selDecimals = starknet.Selector("decimals")
)

// fetchTokenMeta asks new token contracts of the blocks (emitters of transfer events and
// deployed token contracts not yet in the tokens table) for their name, symbol and decimals,
// as of the block that first shows them. It costs three calls per token, once.
func (ix *Indexer) fetchTokenMeta(ctx context.Context, blocks []*blockData) error {
	type want struct {
		address starknet.Felt
		block   uint64
	}
	var wants []want
	seen := map[starknet.Felt]bool{}
	add := func(a starknet.Felt, block uint64) {
		if !seen[a] && ix.tokenMeta.get(a) == nil {
			seen[a] = true
			wants = append(wants, want{a, block})
		}
	}
	for _, bd := range blocks {
		if bd.State != nil {
			for _, d := range bd.State.DeployedContracts {
				info := bd.Classes[d.ClassHash]
				if info == nil {
					info = ix.classes.get(d.ClassHash)
				}
				if info != nil && info.ERCStandard != "" {
					add(d.Address, bd.Block.Number)
				}
			}
		}
		for _, t := range bd.Block.Transactions {
			for _, e := range t.Receipt.Events {
				if len(e.Keys) > 0 && (e.Keys[0] == selTransfer || e.Keys[0] == selTransferSingle || e.Keys[0] == selTransferBatch) {
					add(e.FromAddress, bd.Block.Number)
				}
			}
		}
	}
	if len(wants) == 0 {
		return nil
	}
	// Tokens already in the database were asked when they were created.
	addrs := make([]db.Felt, len(wants))
	for i, w := range wants {
		addrs[i] = dbf(w.address)
	}
	var known []db.Felt
	if err := ix.db.SelectContext(ctx, &known, `SELECT address FROM tokens WHERE address = ANY($1)`, db.ByteaKeys(addrs)); err != nil {
		return fmt.Errorf("token lookup: %w", err)
	}
	inDB := map[starknet.Felt]bool{}
	for _, a := range known {
		inDB[feltOf(a)] = true
	}
	var calls []*call
	var asked []want
	for _, w := range wants {
		if inDB[w.address] {
			ix.tokenMeta.put(w.address, &tokenMeta{})
			continue
		}
		for _, sel := range []starknet.Felt{selName, selSymbol, selDecimals} {
			calls = append(calls, &call{Method: "starknet_call", Params: map[string]any{
				"request":  map[string]any{"contract_address": w.address.Hex(), "entry_point_selector": sel.Hex(), "calldata": []string{}},
				"block_id": blockID{w.block},
			}})
		}
		asked = append(asked, w)
	}
	for start := 0; start < len(calls); start += 60 {
		end := min(start+60, len(calls))
		if err := ix.rpc.batch(ctx, calls[start:end]); err != nil {
			return fmt.Errorf("token metadata: %w", err)
		}
	}
	for i, w := range asked {
		m := &tokenMeta{}
		for j, c := range calls[3*i : 3*i+3] {
			if c.Err != nil {
				var re *rpcError
				if !asRPCError(c.Err, &re) {
					return fmt.Errorf("token metadata of %s: %w", w.address, c.Err)
				}
				continue // the contract does not answer this call: left NULL
			}
			var out []starknet.Felt
			if json.Unmarshal(c.Result, &out) != nil || len(out) == 0 {
				continue
			}
			switch j {
			case 0, 1:
				if s, ok := starknet.DecodeString(out); ok {
					if j == 0 {
						m.Name = &s
					} else {
						m.Symbol = &s
					}
				}
			case 2:
				if v, ok := out[0].Uint64(); ok && v <= 255 {
					d := int16(v)
					m.Decimals = &d
				}
			}
		}
		ix.tokenMeta.put(w.address, m)
	}
	return nil
}
