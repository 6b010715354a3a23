package indexer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// tokenMeta is what a token says about itself through name(), symbol() and decimals().
// Fields are nil when the call failed or answered something unreadable.
type tokenMeta struct {
	Name, Symbol *string
	Decimals     *int16
	// TotalSupply is the supply before Block, the block that first shows the token (0 for a
	// token deployed in it); mints and burns are added to it from there on.
	TotalSupply *string
	Block       uint64
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

// put keeps the metadata asked for the earliest block: ranges are fetched concurrently,
// and the token row is created at the first block that shows the token.
func (c *tokenMetaCache) put(a starknet.Felt, m *tokenMeta) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.meta[a]; old == nil || m.Block < old.Block {
		c.meta[a] = m
	}
}

// needs reports whether a token first shown in block has no metadata for that block yet.
func (c *tokenMetaCache) needs(a starknet.Felt, block uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.meta[a]
	return old == nil || old.Block > block
}

// reset forgets everything, after a reorg or a failed write.
func (c *tokenMetaCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.meta = map[starknet.Felt]*tokenMeta{}
}

var (
	selName     = starknet.Selector("name")
	selSymbol   = starknet.Selector("symbol")
	selDecimals = starknet.Selector("decimals")

	selTotalSupply      = starknet.Selector("total_supply")
	selTotalSupplyCamel = starknet.Selector("totalSupply")
)

// fetchTokenMeta asks new token contracts of the blocks (emitters of transfer events and
// deployed token contracts not yet in the tokens table) for their name, symbol and decimals,
// as of the block that first shows them. It costs three calls per token, once.
func (ix *Indexer) fetchTokenMeta(ctx context.Context, blocks []*blockData) error {
	type want struct {
		address  starknet.Felt
		block    uint64
		deployed bool // deployed in block: it had no supply before
	}
	var wants []want
	seen := map[starknet.Felt]bool{}
	add := func(a starknet.Felt, block uint64, deployed bool) {
		if !seen[a] && ix.tokenMeta.needs(a, block) {
			seen[a] = true
			wants = append(wants, want{a, block, deployed})
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
					add(d.Address, bd.Block.Number, true)
				}
			}
		}
		for _, t := range bd.Block.Transactions {
			for _, e := range t.Receipt.Events {
				// The same test as the writer's, so that the token is asked about at the
				// block where its row is created.
				if len(readTransfers(e.Keys, e.Data, "")) > 0 || len(readTransfers(e.Keys, e.Data, "erc721")) > 0 {
					add(e.FromAddress, bd.Block.Number, false)
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
		addrs[i] = db.FeltOf(w.address)
	}
	var known []db.Felt
	if err := ix.db.SelectContext(ctx, &known, `SELECT address FROM tokens WHERE address = ANY($1)`, db.ByteaKeys(addrs)); err != nil {
		return fmt.Errorf("token lookup: %w", err)
	}
	inDB := map[starknet.Felt]bool{}
	for _, a := range known {
		inDB[a.Starknet()] = true
	}
	// Per token: name, symbol, decimals at its block, then total_supply and totalSupply
	// just before it.
	const perToken = 5
	// At most tokensPerBatch tokens (perToken calls each) per request.
	const tokensPerBatch = 12
	var calls []*rpc.CallCall
	var asked []want
	var batch rpc.MixedBatch
	send := func() error {
		err := ix.node.Send(ctx, &batch)
		batch = rpc.MixedBatch{}
		if err != nil {
			return fmt.Errorf("token metadata: %w", err)
		}
		return nil
	}
	for _, w := range wants {
		if inDB[w.address] {
			ix.tokenMeta.put(w.address, &tokenMeta{Block: w.block})
			continue
		}
		before := w.block
		if before > 0 {
			before--
		}
		for i, sel := range []starknet.Felt{selName, selSymbol, selDecimals, selTotalSupply, selTotalSupplyCamel} {
			at := w.block
			if i >= 3 {
				at = before
			}
			calls = append(calls, batch.Call(at, w.address, sel, nil))
		}
		asked = append(asked, w)
		if batch.Len() >= tokensPerBatch*perToken {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if err := send(); err != nil {
		return err
	}
	for i, w := range asked {
		m := &tokenMeta{Block: w.block}
		for j, c := range calls[perToken*i : perToken*(i+1)] {
			out, err := c.Result()
			if err != nil && !unanswerable(err) {
				return fmt.Errorf("token metadata of %s: %w", w.address, err)
			}
			if len(out) == 0 {
				continue // the contract does not answer this call, or not readably: left NULL
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
			case 3, 4:
				if m.TotalSupply == nil && len(out) == 2 {
					supply := u256(out[0], out[1]).String()
					m.TotalSupply = &supply
				}
			}
		}
		if w.deployed || w.block == 0 {
			zero := "0"
			m.TotalSupply = &zero
		}
		ix.tokenMeta.put(w.address, m)
	}
	return nil
}

// unanswerable reports whether a view call's error says the contract cannot answer it (a
// node error, such as a missing entry point, or a result that is not felts), as opposed to
// a failure worth retrying (the node left the call unanswered).
func unanswerable(err error) bool {
	var re *rpc.RPCError
	var inv *rpc.InvalidResponseError
	return errors.As(err, &re) || (errors.As(err, &inv) && !errors.Is(err, rpc.ErrNoResponse))
}
