package sim

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/starkgraph/starkgraph/rpcserver"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

func (c *Chain) newServer() *rpcserver.Server {
	s := rpcserver.New(c.logger)
	s.Register("starknet_specVersion", func(context.Context, json.RawMessage) (any, error) { return "0.8.1", nil })
	s.Register("starknet_chainId", func(context.Context, json.RawMessage) (any, error) {
		id, err := rpcserver.CanonicalFelt(c.w.cfg.ChainID)
		if err != nil {
			id = c.w.cfg.ChainID
		}
		return id, nil
	})
	s.Register("starknet_syncing", func(context.Context, json.RawMessage) (any, error) { return false, nil })
	s.Register("starknet_blockNumber", func(context.Context, json.RawMessage) (any, error) {
		n, _ := c.Head()
		return n, nil
	})
	s.Register("starknet_blockHashAndNumber", func(context.Context, json.RawMessage) (any, error) {
		n, h := c.Head()
		return json.RawMessage(fmt.Sprintf(`{"block_hash":%q,"block_number":%d}`, h, n)), nil
	})
	s.Register("starknet_getBlockWithReceipts", c.blockMethod(viewReceipts))
	s.Register("starknet_getBlockWithTxs", c.blockMethod(viewTxs))
	s.Register("starknet_getBlockWithTxHashes", c.blockMethod(viewHashes))
	s.Register("starknet_getBlockTransactionCount", func(_ context.Context, p json.RawMessage) (any, error) {
		ps, err := rpcserver.Params(p, []string{"block_id"}, 1)
		if err != nil {
			return nil, err
		}
		c.mu.RLock()
		defer c.mu.RUnlock()
		n, err := c.resolve(ps[0])
		if err != nil {
			return nil, err
		}
		return len(c.block(n).txs), nil
	})
	s.Register("starknet_getStateUpdate", c.getStateUpdate)
	s.Register("starknet_getClass", c.getClass)
	s.Register("starknet_getClassHashAt", c.getClassHashAt)
	s.Register("starknet_call", c.call)
	s.Register("starknet_getStorageAt", c.getStorageAt)
	s.Register("starknet_getEvents", c.getEvents)
	s.Register("starknet_getTransactionByHash", c.txMethod(func(e *enc, b *block, t *tx, _ string) { e.transaction(t, true) }))
	s.Register("starknet_getTransactionReceipt", c.txMethod(func(e *enc, b *block, t *tx, status string) { e.receipt(t, status, b) }))
	s.Register("starknet_getTransactionStatus", c.txMethod(func(e *enc, b *block, t *tx, status string) {
		e.raw(`{"finality_status":`)
		e.str(status)
		if t.reverted {
			e.raw(`,"execution_status":"REVERTED","failure_reason":`)
			e.str(t.revertReason)
			e.raw("}")
		} else {
			e.raw(`,"execution_status":"SUCCEEDED"}`)
		}
	}))
	s.Register("starknet_getTransactionByBlockIdAndIndex", func(_ context.Context, p json.RawMessage) (any, error) {
		ps, err := rpcserver.Params(p, []string{"block_id", "index"}, 2)
		if err != nil {
			return nil, err
		}
		var i int
		if err := json.Unmarshal(ps[1], &i); err != nil {
			return nil, rpcserver.InvalidParams("index must be an integer")
		}
		c.mu.RLock()
		defer c.mu.RUnlock()
		n, err := c.resolve(ps[0])
		if err != nil {
			return nil, err
		}
		b := c.block(n)
		if i < 0 || i >= len(b.txs) {
			return nil, rpc.ErrInvalidTxnIndex
		}
		e := enc{}
		e.transaction(&b.txs[i], true)
		return json.RawMessage(e.b), nil
	})
	return s
}

// resolve turns a BLOCK_ID into a block number on the current chain ("pending" is the
// head, except for the getBlockWith* methods, which answer the block being built).
// Callers hold c.mu.
func (c *Chain) resolve(raw json.RawMessage) (uint64, error) {
	id, err := rpcserver.ParseBlockID(raw)
	if err != nil {
		return 0, err
	}
	switch {
	case id.ByNum:
		if id.Number > c.head {
			return 0, rpc.ErrBlockNotFound
		}
		return id.Number, nil
	case id.Hash != "":
		h, _ := parseFelt(id.Hash)
		n := (h[3] ^ c.w.lowMask()) & (1<<40 - 1)
		if n > c.head || c.w.blockHash(n, c.forkOf(n)) != h {
			return 0, rpc.ErrBlockNotFound
		}
		return n, nil
	}
	return c.head, nil
}

// faulty applies an injected fault (already taken) to an encoded answer.
func (c *Chain) faulty(ctx context.Context, kind FaultKind, out []byte, isBlock bool) (any, error) {
	switch kind {
	case MalformedJSON:
		return json.RawMessage(out[:len(out)/2]), nil
	case MissingField:
		if isBlock {
			out = dropMember(out, "parent_hash")
		}
	case HTTP500:
		return nil, &rpcserver.HTTPError{Status: 500, Body: "injected fault: internal server error"}
	case Slow:
		select {
		case <-time.After(c.w.cfg.SlowDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return json.RawMessage(out), nil
}

func (c *Chain) blockMethod(view int) rpcserver.Method {
	return func(ctx context.Context, p json.RawMessage) (any, error) {
		ps, err := rpcserver.Params(p, []string{"block_id"}, 1)
		if err != nil {
			return nil, err
		}
		if id, err := rpcserver.ParseBlockID(ps[0]); err == nil && (id.Tag == "pending" || id.Tag == "pre_confirmed") {
			c.mu.RLock()
			next := c.block(c.head + 1)
			parent := c.block(c.head).hash
			c.mu.RUnlock()
			return json.RawMessage(encodePending(make([]byte, 0, 1024+len(next.txs)*1024), next, parent, view)), nil
		}
		c.mu.RLock()
		n, err := c.resolve(ps[0])
		if err != nil {
			c.mu.RUnlock()
			return nil, err
		}
		b, status := c.block(n), c.status(n)
		c.mu.RUnlock()
		fault := c.takeFault(n)
		if fault == WrongParentHash {
			wrong := *b // a shallow copy: the cached block stays intact
			wrong.parent = hash3(c.w.seed, n, 0xbad)
			b = &wrong
		}
		return c.faulty(ctx, fault, encodeBlock(make([]byte, 0, 1024+len(b.txs)*2048), b, status, view), true)
	}
}

// txMethod answers a method taking a transaction hash; the hash says where the
// transaction is (see txHash).
func (c *Chain) txMethod(write func(e *enc, b *block, t *tx, status string)) rpcserver.Method {
	return func(_ context.Context, p json.RawMessage) (any, error) {
		ps, err := rpcserver.Params(p, []string{"transaction_hash"}, 1)
		if err != nil {
			return nil, err
		}
		hs, err := rpcserver.FeltParam("transaction_hash", ps[0])
		if err != nil {
			return nil, err
		}
		h, _ := parseFelt(hs)
		n, j := c.w.txPosition(h)
		c.mu.RLock()
		defer c.mu.RUnlock()
		if n > c.head {
			return nil, rpc.ErrTxnHashNotFound
		}
		b := c.block(n)
		if j >= uint64(len(b.txs)) || b.txs[j].hash != h {
			return nil, rpc.ErrTxnHashNotFound
		}
		e := enc{}
		write(&e, b, &b.txs[j], c.status(n))
		return json.RawMessage(e.b), nil
	}
}

func (c *Chain) getStateUpdate(ctx context.Context, p json.RawMessage) (any, error) {
	ps, err := rpcserver.Params(p, []string{"block_id"}, 1)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	n, err := c.resolve(ps[0])
	if err != nil {
		c.mu.RUnlock()
		return nil, err
	}
	b := c.block(n)
	c.mu.RUnlock()
	var diffs []storageDiff
	c.ledgerAt(n, func(l *ledger) { diffs = c.storageDiffs(l, b) })
	return c.faulty(ctx, c.takeFault(n), encodeStateUpdate(make([]byte, 0, 4096+len(diffs)*256), b, diffs), false)
}

func (c *Chain) getClass(_ context.Context, p json.RawMessage) (any, error) {
	ps, err := rpcserver.Params(p, []string{"block_id", "class_hash"}, 2)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	n, err := c.resolve(ps[0])
	c.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	hs, err := rpcserver.FeltParam("class_hash", ps[1])
	if err != nil {
		return nil, err
	}
	h, _ := parseFelt(hs)
	if cls, ok := c.classes[h]; ok {
		return json.RawMessage(cls), nil
	}
	v := h[3] & 0xffffffff
	if h == dappClassHash(v) && declareBlock(v) <= n {
		return json.RawMessage(encodeClass(-1, v)), nil
	}
	return nil, rpc.ErrClassHashNotFound
}

// deployBlock is the block in which a contract is deployed.
func (w *world) deployBlock(e entity) (uint64, bool) {
	switch e.kind {
	case kindAccount:
		return w.accountDeployBlock(int(e.idx)), true
	case kindPool:
		if s := int(e.idx) - numStakers; s >= 0 { // a WBTC pool
			return btcPoolBlock(s), s < numStakers && hasBTCPool(s)
		}
		return stakerBlock(int(e.idx)), true
	case kindERC20:
		return 0, e.idx < numERC20
	case kindOdd:
		return 0, e.idx < numOdd
	case kindERC721:
		return 0, e.idx < numERC721
	case kindERC1155:
		return 0, e.idx < numERC1155
	case kindDapp:
		return declareBlock(uint64(e.idx)), true
	}
	return 0, true
}

// contractAt resolves block id and address to a contract deployed by then.
func (c *Chain) contractAt(blockID, address json.RawMessage, name string) (entity, uint64, error) {
	c.mu.RLock()
	n, err := c.resolve(blockID)
	c.mu.RUnlock()
	if err != nil {
		return entity{}, 0, err
	}
	as, err := rpcserver.FeltParam(name, address)
	if err != nil {
		return entity{}, 0, err
	}
	a, _ := parseFelt(as)
	e, ok := c.w.entityAt(a)
	if !ok {
		return entity{}, 0, rpc.ErrContractNotFound
	}
	if db, ok := c.w.deployBlock(e); !ok || db > n {
		return entity{}, 0, rpc.ErrContractNotFound
	}
	return e, n, nil
}

func (c *Chain) getClassHashAt(_ context.Context, p json.RawMessage) (any, error) {
	ps, err := rpcserver.Params(p, []string{"block_id", "contract_address"}, 2)
	if err != nil {
		return nil, err
	}
	e, _, err := c.contractAt(ps[0], ps[1], "contract_address")
	if err != nil {
		return nil, err
	}
	return c.w.classOfEntity(e).String(), nil
}

// ledgerAt brings the ledger to block n and runs f under its lock. It catches up
// in chunks, letting go of the chain between them, so that a long first replay
// does not stall block serving or head growth.
func (c *Chain) ledgerAt(n uint64, f func(l *ledger)) {
	for {
		c.mu.RLock()
		c.ledger.mu.Lock()
		c.ledger.advance(min(n, c.ledger.next+63), c.block)
		done := c.ledger.next > n
		if done {
			f(c.ledger)
		}
		c.ledger.mu.Unlock()
		c.mu.RUnlock()
		if done {
			return
		}
	}
}

func feltsResult(fs []felt) json.RawMessage {
	e := enc{make([]byte, 0, 16+70*len(fs))}
	e.felts(fs)
	return e.b
}

func u256Result(v u128) json.RawMessage { return feltsResult([]felt{v.felt(), {}}) }

// Token metadata.
func feeTokenMeta(idx uint32) (name, symbol string, decimals uint64) {
	switch idx {
	case fixedETH:
		return "Ether", "ETH", 18
	case fixedUSDC:
		return "USD Coin", "USDC", 6
	case fixedWBTC:
		return "Wrapped BTC", "WBTC", 8
	}
	return "Starknet Token", "STRK", 18
}

func errInputTooShort(have, need int) error {
	return rpcserver.ContractError(fmt.Sprintf("Execution failed. Failure reason: 0x496e70757420746f6f2073686f7274 ('Input too short for arguments'); %d calldata felts, %d needed", have, need))
}

func erc20Meta(t int) (name, symbol string, decimals uint64) {
	decimals = 18
	if t%5 == 4 {
		decimals = 6
	}
	return fmt.Sprintf("Sim Token %d", t), fmt.Sprintf("SIM%d", t), decimals
}

func (c *Chain) call(_ context.Context, p json.RawMessage) (any, error) {
	ps, err := rpcserver.Params(p, []string{"request", "block_id"}, 2)
	if err != nil {
		return nil, err
	}
	var req struct {
		ContractAddress    json.RawMessage `json:"contract_address"`
		EntryPointSelector string          `json:"entry_point_selector"`
		Calldata           []string        `json:"calldata"`
	}
	if err := json.Unmarshal(ps[0], &req); err != nil || req.ContractAddress == nil {
		return nil, rpcserver.InvalidParams("request must be a FUNCTION_CALL {contract_address, entry_point_selector, calldata}")
	}
	e, n, err := c.contractAt(ps[1], req.ContractAddress, "request.contract_address")
	if err != nil {
		return nil, err
	}
	selStr, err := rpcserver.CanonicalFelt(req.EntryPointSelector)
	if err != nil {
		return nil, rpcserver.InvalidParams("request.entry_point_selector: %v", err)
	}
	sel, _ := parseFelt(selStr)
	args := make([]felt, len(req.Calldata))
	for i, s := range req.Calldata {
		f, ok := parseFelt(s)
		if !ok {
			return nil, rpcserver.InvalidParams("request.calldata[%d] is not a felt", i)
		}
		args[i] = f
	}
	need := func(k int) error {
		if len(args) < k {
			return errInputTooShort(len(args), k)
		}
		return nil
	}
	c.mu.RLock()
	fork := c.forkOf(n)
	c.mu.RUnlock()
	if out, ok, err := c.w.economyCall(e, sel, args, n, fork); ok {
		if err != nil {
			return nil, err
		}
		return feltsResult(out), nil
	}
	holderArg := func(f felt) holder {
		if f.isZero() {
			return zeroHolder
		}
		if he, ok := c.w.entityAt(f); ok {
			return holderOf(he)
		}
		return holder(1<<62) | holder(f[3]&0xffffffff) // an address that never holds anything
	}
	balance := func(k balanceKey) json.RawMessage {
		var v u128
		c.ledgerAt(n, func(l *ledger) { v = l.balance(k, n) })
		return u256Result(v)
	}
	is := func(names ...string) bool {
		for _, name := range names {
			if sel == selector(name) {
				return true
			}
		}
		return false
	}
	token := e
	switch {
	case e.kind == kindFixed && (e.idx == fixedETH || e.idx == fixedSTRK || e.idx == fixedUSDC || e.idx == fixedWBTC):
		name, symbol, decimals := feeTokenMeta(e.idx)
		switch {
		case is("name"):
			return feltsResult([]felt{shortString(name)}), nil
		case is("symbol"):
			return feltsResult([]felt{shortString(symbol)}), nil
		case is("decimals"):
			return feltsResult([]felt{feltU(decimals)}), nil
		case is("totalSupply", "total_supply"):
			return balance(balanceKey{token, zeroHolder, 0}), nil
		case is("balanceOf", "balance_of"):
			if err := need(1); err != nil {
				return nil, err
			}
			return balance(balanceKey{token, holderArg(args[0]), 0}), nil
		}
	case e.kind == kindERC20:
		name, symbol, decimals := erc20Meta(int(e.idx))
		// Even tokens answer name/symbol as ByteArray (OpenZeppelin >= 0.9), odd
		// ones as a short-string felt (older OpenZeppelin), as on mainnet.
		text := func(s string) json.RawMessage {
			if e.idx%2 == 0 {
				return feltsResult(byteArray(s))
			}
			return feltsResult([]felt{shortString(s)})
		}
		switch {
		case is("name"):
			return text(name), nil
		case is("symbol"):
			return text(symbol), nil
		case is("decimals"):
			return feltsResult([]felt{feltU(decimals)}), nil
		case is("total_supply", "totalSupply"):
			return balance(balanceKey{token, zeroHolder, 0}), nil
		case is("balance_of", "balanceOf"):
			if err := need(1); err != nil {
				return nil, err
			}
			return balance(balanceKey{token, holderArg(args[0]), 0}), nil
		}
	case e.kind == kindOdd:
		name := [...]string{"Sim Interest", "Sim Fee On Transfer", "Sim Airdrop", "Sim Other Slot"}[e.idx]
		symbol := [...]string{"SIMI", "SIMF", "SIMA", "SIMO"}[e.idx]
		switch {
		case is("name"):
			return feltsResult(byteArray(name)), nil
		case is("symbol"):
			return feltsResult(byteArray(symbol)), nil
		case is("decimals"):
			return feltsResult([]felt{feltU(18)}), nil
		case is("total_supply", "totalSupply", "balance_of", "balanceOf"):
			k := balanceKey{token, zeroHolder, 0}
			if !is("total_supply", "totalSupply") {
				if err := need(1); err != nil {
					return nil, err
				}
				k.holder = holderArg(args[0])
			}
			var v u128
			c.ledgerAt(n, func(l *ledger) { v = l.balance(k, n) })
			if e.idx == oddInterest {
				v = interestBalance(v, n)
			}
			return u256Result(v), nil
		}
	case e.kind == kindERC721:
		switch {
		case is("name"):
			return feltsResult(byteArray(fmt.Sprintf("Sim Collection %d", e.idx))), nil
		case is("symbol"):
			return feltsResult(byteArray(fmt.Sprintf("SIMC%d", e.idx))), nil
		case is("total_supply", "totalSupply"): // ERC721Enumerable: minted minus burned
			return balance(balanceKey{token, zeroHolder, 0}), nil
		case is("balance_of", "balanceOf"):
			if err := need(1); err != nil {
				return nil, err
			}
			return balance(balanceKey{token, holderArg(args[0]), 0}), nil
		case is("owner_of", "ownerOf", "token_uri", "tokenURI"):
			if err := need(2); err != nil {
				return nil, err
			}
			var owner holder
			var ok bool
			id := args[0][3]
			if args[0][0]|args[0][1]|args[0][2]|args[1][0]|args[1][1]|args[1][2]|args[1][3] == 0 {
				c.ledgerAt(n, func(l *ledger) { owner, ok = l.owner(balanceKey{token: token, id: id}, n) })
			}
			if !ok || owner == zeroHolder {
				return nil, rpcserver.ContractError("Execution failed. Failure reason: 0x4552433732313a20696e76616c696420746f6b656e204944 ('ERC721: invalid token ID').")
			}
			if is("token_uri", "tokenURI") {
				return feltsResult(byteArray(tokenURI(e.idx, id))), nil
			}
			return feltsResult([]felt{c.w.addr(owner.entity())}), nil
		case is("supports_interface"):
			return feltsResult([]felt{feltU(1)}), nil
		}
	case e.kind == kindERC1155:
		switch {
		case is("balance_of", "balanceOf"):
			if err := need(3); err != nil {
				return nil, err
			}
			return balance(balanceKey{token, holderArg(args[0]), args[1][3]}), nil
		case is("uri"):
			if err := need(2); err != nil {
				return nil, err
			}
			return feltsResult(byteArray(fmt.Sprintf("https://1155.sim.starkgraph.dev/%d/{id}.json", e.idx))), nil
		case is("supports_interface"):
			return feltsResult([]felt{feltU(1)}), nil
		}
	case e.kind == kindAccount:
		switch {
		case is("supports_interface", "supportsInterface"):
			return feltsResult([]felt{feltU(1)}), nil
		case is("get_implementation") && c.w.accountClass(int(e.idx)) == 1:
			return feltsResult([]felt{classHash(clsArgentAccount0)}), nil
		case is("get_public_key", "getPublicKey"):
			return feltsResult([]felt{hash3(c.w.seed, uint64(e.idx), 0x9b)}), nil
		}
	}
	return nil, rpc.ErrEntrypointNotFound
}

// getStorageAt answers starknet_getStorageAt(contract_address, key, block_id).
func (c *Chain) getStorageAt(_ context.Context, p json.RawMessage) (any, error) {
	ps, err := rpcserver.Params(p, []string{"contract_address", "key", "block_id"}, 3)
	if err != nil {
		return nil, err
	}
	e, n, err := c.contractAt(ps[2], ps[0], "contract_address")
	if err != nil {
		return nil, err
	}
	var keyText string
	if json.Unmarshal(ps[1], &keyText) != nil {
		return nil, rpcserver.InvalidParams("key must be a felt")
	}
	canonical, err := rpcserver.CanonicalFelt(keyText)
	if err != nil {
		return nil, rpcserver.InvalidParams("key: %v", err)
	}
	key, _ := parseFelt(canonical)
	if v, ok := c.tokenStorage(e, key, n); ok {
		return v.String(), nil
	}
	return c.w.storageAt(e, key, n).String(), nil
}

// tokenURI is the URI of NFT id of ERC-721 collection c: even collections keep their
// metadata on chain, as a data: URI (so that the metadata fetcher has documents to read
// offline), odd ones name a web address.
func tokenURI(c uint32, id uint64) string {
	if c%2 == 1 {
		return fmt.Sprintf("https://nft.sim.starkgraph.dev/%d/%d.json", c, id)
	}
	doc := fmt.Sprintf(`{"name":"Sim %d #%d","description":"Item %d of simulated collection %d.","image":"https://nft.sim.starkgraph.dev/%d/%d.png",`+
		`"attributes":[{"trait_type":"rarity","value":"%s"}]}`, c, id, id, c, c, id, []string{"common", "rare", "legendary"}[id%3])
	return "data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(doc))
}
