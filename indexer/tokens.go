package indexer

import (
	"math/big"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// Token movements: tokens rows, ERC-20 balances, NFT items, balances and events, with holder
// and transfer counts kept as they change.

// token returns the token row of address, creating it when first seen.
func (w *batchWriter) token(address starknet.Felt, standard string, block int64) *db.TokenRow {
	t := w.tokens[address]
	if t == nil {
		first := block
		t = &db.TokenRow{Address: db.FeltOf(address), Standard: standard, FirstBlock: &first}
		if w.tokenMeta != nil {
			if m := w.tokenMeta.get(address); m != nil {
				t.Name, t.Symbol, t.Decimals = m.Name, m.Symbol, m.Decimals
				// The supply was read for the block that first showed the token; any
				// other block (after a reorg, say) would count some mints twice.
				if standard != "erc1155" && m.Block == uint64(block) {
					t.TotalSupply = m.TotalSupply
				}
			}
		}
		w.tokens[address] = t
		w.counts["tokens:"+standard]++
	}
	w.dirtyTokens[address] = true
	return t
}

func (w *batchWriter) applyMove(num, ts int64, txIndex, eventIndex int, txHash, contract starknet.Felt, m tokenMove) {
	tok := w.token(contract, m.Standard, num)
	tok.TransferCount++
	if tok.TotalSupply != nil && m.Standard != "erc1155" && m.From.IsZero() != m.To.IsZero() {
		delta := m.Amount
		if m.To.IsZero() {
			delta = new(big.Int).Neg(m.Amount)
		}
		supply := new(big.Int).Add(bigOf(*tok.TotalSupply), delta).String()
		tok.TotalSupply = &supply
	}
	if m.Standard == "erc20" {
		w.rows.TokenTransfers = append(w.rows.TokenTransfers, db.TokenTransfer{
			BlockNumber: num, TxIndex: txIndex, EventIndex: eventIndex, TokenAddress: db.FeltOf(contract),
			FromAddress: db.FeltOf(m.From), ToAddress: db.FeltOf(m.To), Amount: m.Amount.String(), IsFee: m.Fee,
		})
		w.counts["token_transfers"]++
		w.addERC20(tok, contract, m.From, new(big.Int).Neg(m.Amount), num, ts)
		w.addERC20(tok, contract, m.To, m.Amount, num, ts)
		return
	}
	id := m.TokenID.String()
	kind := "Transfer"
	switch {
	case m.From.IsZero():
		kind = "Mint"
	case m.To.IsZero():
		kind = "Burn"
	}
	w.rows.NFTEvents = append(w.rows.NFTEvents, db.NFTEventRow{
		BlockNumber: num, TxIndex: txIndex, EventIndex: eventIndex, SubIndex: m.SubIndex,
		ContractAddress: db.FeltOf(contract), TokenID: id, FromAddress: db.FeltOf(m.From), ToAddress: db.FeltOf(m.To),
		Quantity: m.Amount.String(), Type: kind, TransactionHash: db.FeltOf(txHash), Timestamp: ts,
	})
	w.counts["nft_events"]++
	key := nftKey{contract, id}
	item := w.nftItems[key]
	if item == nil {
		ct := int16(721)
		if m.Standard == "erc1155" {
			ct = 1155
		}
		item = &db.NFTItemRow{Contract: db.FeltOf(contract), TokenID: id, ContractType: ct}
		w.nftItems[key] = item
		w.counts["nft_items"]++
	}
	if kind == "Mint" && item.MintedAtBlock == nil {
		block, at := num, ts
		item.MintedBy, item.MintedAtBlock, item.MintedAtTxHash, item.MintedAtTime = db.FeltOf(m.To), &block, db.FeltOf(txHash), &at
	}
	if item.ContractType == 721 {
		if m.To.IsZero() {
			item.Owner = nil
		} else {
			item.Owner = db.FeltOf(m.To)
		}
	}
	w.dirtyItems[key] = true
	for _, side := range []struct {
		owner starknet.Felt
		delta *big.Int
	}{{m.From, new(big.Int).Neg(m.Amount)}, {m.To, m.Amount}} {
		if side.owner.IsZero() {
			continue
		}
		k := nftOwnerKey{key, side.owner}
		b := w.nftBals[k]
		if b == nil {
			b = &balance{amount: new(big.Int)}
			w.nftBals[k] = b
		}
		b.amount = new(big.Int).Add(b.amount, side.delta)
		b.lastTime = ts
		w.dirtyNFTBals[k] = true
		hk := [2]starknet.Felt{contract, side.owner}
		held := w.nftHeld[hk]
		if held == nil {
			held = new(big.Int)
		}
		before := held.Sign() > 0
		held = new(big.Int).Add(held, side.delta)
		w.nftHeld[hk] = held
		switch after := held.Sign() > 0; {
		case !before && after:
			tok.HolderCount++
		case before && !after:
			tok.HolderCount--
		}
	}
}

func (w *batchWriter) addERC20(tok *db.TokenRow, token, owner starknet.Felt, delta *big.Int, num, ts int64) {
	if owner.IsZero() {
		return
	}
	k := [2]starknet.Felt{token, owner}
	b := w.balances[k]
	if b == nil {
		b = &balance{amount: new(big.Int)}
		w.balances[k] = b
	}
	before := b.amount.Sign() > 0
	b.amount = new(big.Int).Add(b.amount, delta)
	b.lastBlock, b.lastTime = num, ts
	after := b.amount.Sign() > 0
	switch {
	case !before && after:
		tok.HolderCount++
	case before && !after:
		tok.HolderCount--
	}
	w.dirtyBalances[k] = true
	w.blockBalances[k] = true
}

// takeKnown starts the batch's balances from the bulk load's memory where it has them, and
// returns the pairs (token, owner) left to read.
func (w *batchWriter) takeKnown(tokens, owners []db.Felt) (restT, restO []db.Felt) {
	for i := range tokens {
		k := [2]starknet.Felt{tokens[i].Starknet(), owners[i].Starknet()}
		if b, ok := w.known[k]; ok {
			w.balances[k] = &b
			continue
		}
		restT, restO = append(restT, tokens[i]), append(restO, owners[i])
	}
	return restT, restO
}
