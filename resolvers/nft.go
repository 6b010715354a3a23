package resolvers

import (
	"context"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// itemKey is the loader key of an NFT item.
func itemKey(contract db.Felt, tokenID string) db.NftKey {
	return db.NftKey{Contract: string(db.Normalize(contract)), TokenID: tokenID}
}

// ownedNfts is the page of an address's NFT balances, optionally of one collection: the
// body of Contract.nfts and Wallet.nfts. Rows and total are asked of the loaders together,
// so that both join the batches of sibling parents.
func ownedNfts(ctx context.Context, owner db.Felt, first *int, after *string, contract db.Felt) (*model.NftBalanceConnection, error) {
	p, err := newPager("nfts.owned", first, after, 0)
	if err != nil {
		return nil, err
	}
	l := loaders.For(ctx)
	key := db.OwnedNftKey{Owner: string(db.Normalize(owner))}
	if contract != nil {
		key.Contract, key.ByContract = string(db.Normalize(contract)), true
	}
	rowsOf := l.OwnedNfts.Load(ctx, loaders.PageKey[db.OwnedNftKey]{Parent: key, Limit: p.window.Limit, Offset: p.window.Offset})
	var countOf func() (int64, error)
	if wants(ctx, "totalCount") {
		countOf = l.OwnedNftCount.Load(ctx, key)
	}
	rows, err := rowsOf()
	if err != nil {
		return nil, err
	}
	conn := nftBalanceConnection(p, rows)
	if countOf != nil {
		n, err := countOf()
		if err != nil {
			return nil, err
		}
		conn.TotalCount = clampCount(n)
	}
	return conn, nil
}

func nftBalanceConnection(p *pager, rows []*db.NftBalance) *model.NftBalanceConnection {
	items, cursors, info := page(p, rows, nil)
	conn := &model.NftBalanceConnection{PageInfo: info, Edges: []*model.NftBalanceEdge{}}
	for i, b := range items {
		conn.Edges = append(conn.Edges, &model.NftBalanceEdge{Cursor: cursors[i], Node: b})
	}
	return conn
}

func nftEventConnection(p *pager, rows []*db.NftEvent, keyed bool) *model.NftEventConnection {
	var keyOf func(*db.NftEvent) []any
	if keyed {
		keyOf = func(e *db.NftEvent) []any { return []any{e.BlockNumber, e.TxIndex, e.EventIndex, e.SubIndex} }
	}
	items, cursors, info := page(p, rows, keyOf)
	conn := &model.NftEventConnection{PageInfo: info, Edges: []*model.NftEventEdge{}}
	for i, e := range items {
		conn.Edges = append(conn.Edges, &model.NftEventEdge{Cursor: cursors[i], Node: e})
	}
	return conn
}
