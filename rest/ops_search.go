package rest

import (
	"context"
	"net/http"

	"github.com/starkgraph/starkgraph/db"
)

// searchItem is an item of GET /beta/search: what was found, by what identifies it.
type searchItem struct {
	Type        string  `json:"type" enum:"block,transaction,contract,class,token,validator"`
	BlockNumber *int64  `json:"blockNumber"` // blocks and transactions
	Hash        *string `json:"hash"`        // blocks, transactions and classes
	Address     *string `json:"address"`     // contracts, tokens and validators
	Name        *string `json:"name"`        // tokens and validators
	Symbol      *string `json:"symbol"`      // tokens
}

func searchOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	nodes, err := s.res.Query().Search(ctx, a.str("q"), a.int("limit"))
	if err != nil {
		return nil, asParam(asParam(err, "query", "q"), "first", "limit")
	}
	items := make([]searchItem, 0, len(nodes))
	for _, n := range nodes {
		switch x := n.(type) {
		case *db.Block:
			items = append(items, searchItem{Type: "block", BlockNumber: ptr(x.Number), Hash: ptr(x.Hash.Hex())})
		case *db.Transaction:
			items = append(items, searchItem{Type: "transaction", BlockNumber: ptr(x.BlockNumber), Hash: ptr(x.Hash.Hex())})
		case *db.Contract:
			items = append(items, searchItem{Type: "contract", Address: ptr(addr(x.Address))})
		case *db.Class:
			items = append(items, searchItem{Type: "class", Hash: ptr(addr(x.Hash))})
		case *db.Token:
			items = append(items, searchItem{Type: "token", Address: ptr(addr(x.Address)), Name: x.Name, Symbol: x.Symbol})
		case *db.Validator:
			items = append(items, searchItem{Type: "validator", Address: ptr(addr(x.StakerAddress)), Name: x.Name})
		}
	}
	return struct {
		Items []searchItem `json:"items"`
	}{items}, nil
}
