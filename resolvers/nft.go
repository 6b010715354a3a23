package resolvers

import (
	"context"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// itemKey is the loader key of an NFT item.
func itemKey(contract db.Felt, tokenID string) db.NftKey {
	return db.NftKey{Contract: string(db.Normalize(contract)), TokenID: tokenID}
}

// ownedNfts is the page of an address's NFT balances, optionally of one collection: the
// body of Contract.nfts and Wallet.nfts.
func ownedNfts(ctx context.Context, owner db.Felt, first *int, after *string, contract db.Felt) (*model.NftBalanceConnection, error) {
	key := db.OwnedNftKey{Owner: string(db.Normalize(owner))}
	if contract != nil {
		key.Contract, key.ByContract = string(db.Normalize(contract)), true
	}
	l := loaders.For(ctx)
	pg, err := fetchPage(ctx, first, after, listSpec[*db.NftBalance]{
		name: "nfts.owned",
		load: loadWithTotal(ctx, l.OwnedNfts, l.OwnedNftCount, key),
	}, newNftBalanceEdge)
	if err != nil {
		return nil, err
	}
	return &model.NftBalanceConnection{Edges: pg.edges, PageInfo: pg.info, TotalCount: pg.total}, nil
}

// statsTimeframes are the windows of the sale statistics, in seconds back from the newest
// block; 0 is every sale.
var statsTimeframes = map[model.StatsTimeframe]int64{
	model.StatsTimeframeDay: 86400, model.StatsTimeframeWeek: 7 * 86400, model.StatsTimeframeMonth: 30 * 86400, model.StatsTimeframeAll: 0,
}

// statsArgs reads a statistics list's timeframe (ALL when nil), sort key (SALES when nil,
// lower-cased as the store names them) and direction (DESC when nil).
func statsArgs[O ~string](timeframe *model.StatsTimeframe, orderBy *O, direction *model.SortDirection) (seconds int64, order string, ascending bool) {
	if timeframe != nil {
		seconds = statsTimeframes[*timeframe]
	}
	order = "sales"
	if orderBy != nil {
		order = strings.ToLower(string(*orderBy))
	}
	return seconds, order, direction != nil && *direction == model.SortDirectionAsc
}

// MaxTransactionNftTransfers bounds the NFT transfers shown with a transaction: a batch
// mint of thousands would otherwise make one answer of them all.
const MaxTransactionNftTransfers = 1000

// NftTransfersOfTransaction lists the NFT transfers, mints and burns of tx, in the order
// it made them (at most MaxTransactionNftTransfers).
func (r *Resolver) NftTransfersOfTransaction(ctx context.Context, tx *db.Transaction) ([]*db.NftEvent, error) {
	return r.Store.NftEventsOfTransaction(ctx, tx.BlockNumber, tx.Index, MaxTransactionNftTransfers)
}
