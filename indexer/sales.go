package indexer

import (
	"math/big"

	"github.com/starkgraph/starkgraph/db"
)

// markSales reads a transaction's NFT transfers as sales where the buyer paid the seller
// in the same transaction: whatever marketplace ran it, a sale moves the NFT from seller
// to buyer and an ERC-20 amount from buyer to seller. The price is everything the buyer
// sent in that token in the transaction (marketplace fees and royalties included), shared
// evenly among the NFTs the seller sent the buyer; the marketplace is the contract the
// transaction called first, when it is neither the collection nor the payment token.
func (w *batchWriter) markSales(nfts []db.NFTEventRow, transfers []db.TokenTransfer, calls []decodedCall) {
	for i := range nfts {
		n := &nfts[i]
		if n.Type != "Transfer" || n.TotalPrice != "" {
			continue
		}
		var token db.Felt
		for _, t := range transfers {
			if !t.IsFee && t.FromAddress.Equal(n.ToAddress) && t.ToAddress.Equal(n.FromAddress) {
				token = t.TokenAddress
				break
			}
		}
		if token == nil {
			continue
		}
		paid := new(big.Int)
		for _, t := range transfers {
			if !t.IsFee && t.FromAddress.Equal(n.ToAddress) && t.TokenAddress.Equal(token) {
				paid.Add(paid, bigOf(t.Amount))
			}
		}
		var lot []*db.NFTEventRow // the NFTs of this sale: from the seller to the buyer
		for j := i; j < len(nfts); j++ {
			m := &nfts[j]
			if m.Type == "Transfer" && m.FromAddress.Equal(n.FromAddress) && m.ToAddress.Equal(n.ToAddress) {
				lot = append(lot, m)
			}
		}
		price := paid.Div(paid, big.NewInt(int64(len(lot)))).String()
		var marketplace db.Felt
		if len(calls) > 0 {
			if to := db.FeltOf(calls[0].To); !to.Equal(n.ContractAddress) && !to.Equal(token) {
				marketplace = to
			}
		}
		symbol := ""
		if tok := w.tokens[token.Starknet()]; tok != nil && tok.Symbol != nil {
			symbol = *tok.Symbol
		}
		for _, m := range lot {
			m.PaymentToken, m.PaymentSymbol, m.TotalPrice, m.Marketplace = token, symbol, price, marketplace
		}
	}
}
