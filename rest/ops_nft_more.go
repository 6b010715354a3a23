package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// nftBalancesOp answers GET /beta/nft-balances: a collection's balance records (or one
// item's), by token id then owner.
func nftBalancesOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	contract, _, err := s.collectionArg(ctx, a)
	if err != nil {
		return nil, err
	}
	pg := pageOf(a)
	conn, err := s.res.Query().NftBalances(ctx, contract, a.optional("token_id"), &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	items, err := loadedItems(ctx, conn.Edges, func(e *model.NftBalanceEdge) *db.NftBalance { return e.Node },
		resolvers.LoadNftBalanceAliases, s.nftBalance)
	if err != nil {
		return nil, err
	}
	return cursorList[nftBalance]{Items: items, Pagination: pageNumbers(pg, conn.TotalCount)}, nil
}

// nftTransfersOp answers GET /beta/nft-transfers: a collection's transfers, mints and burns,
// newest first, as items of GET /nft-events; a collection of the other standard lists none.
func nftTransfersOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	w, err := s.windowOf("nft-transfers", a)
	if err != nil {
		return nil, err
	}
	contract, t, err := s.collectionArg(ctx, a)
	if err != nil {
		return nil, err
	}
	if t.RawStandard != a.str("type") { // the enum's values are the standards' names
		return cursorList[nftTransfer]{Items: []nftTransfer{}, Pagination: s.paginate(w, 0, &model.PageInfo{}, 0)}, nil
	}
	conn, err := s.res.Query().NftEvents(ctx, &w.first, w.after, contract, nil)
	if err != nil {
		return nil, err
	}
	return cursorLoaded(ctx, s, w, conn.Edges, conn.PageInfo, conn.TotalCount, func(e *model.NftEventEdge) *db.NftEvent { return e.Node },
		resolvers.LoadNftEventHeaders, s.nftTransfer)
}

// nftContractBody is the answer of GET /beta/nft-contract/{contract_address}: the
// collection and a page of its items.
type nftContractBody struct {
	Address     string              `json:"address"`
	Name        *string             `json:"name"`
	Symbol      *string             `json:"symbol"`
	Standard    string              `json:"standard" enum:"erc721,erc1155"`
	TotalSupply *string             `json:"totalSupply"`
	Holders     int64               `json:"holders"`
	Transfers   int64               `json:"transfers"`
	IsVerified  bool                `json:"isVerified"`
	Items       cursorList[nftItem] `json:"items"`
}

func nftContractOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	w, err := s.windowOf("nft-contract", a)
	if err != nil {
		return nil, err
	}
	contract, t, err := s.collectionArg(ctx, a)
	if err != nil {
		return nil, err
	}
	if t.RawStandard == "erc20" {
		return nil, notFound("contract_address: %s is an ERC-20 token, not an NFT collection", addr(contract))
	}
	conn, err := s.res.Query().NftItems(ctx, &w.first, w.after, contract, nil)
	if err != nil {
		return nil, err
	}
	items, err := cursorLoaded(ctx, s, w, conn.Edges, conn.PageInfo, conn.TotalCount, func(e *model.NftItemEdge) *db.NftItem { return e.Node },
		resolvers.LoadNftItemHeaders, s.nftItem)
	if err != nil {
		return nil, err
	}
	return nftContractBody{Address: addr(t.Address), Name: t.Name, Symbol: t.Symbol, Standard: t.RawStandard,
		TotalSupply: t.TotalSupply, Holders: t.HolderCount, Transfers: t.TransferCount, IsVerified: t.IsVerified,
		Items: items.(cursorList[nftItem])}, nil
}

// nftDetailsBody is the answer of GET /beta/nft/{contract_address}/{token_id}: the item
// and a page of its events.
type nftDetailsBody struct {
	nftItem
	Events cursorList[nftEvent] `json:"events"`
}

func nftDetailsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	w, err := s.windowOf("nft-details", a)
	if err != nil {
		return nil, err
	}
	contract, id := a.felt("contract_address"), a.str("token_id")
	it, err := s.res.Query().NftItem(ctx, contract, id)
	if _, err := found(it, err, "token_id: no item %s in the collection %s", id, addr(contract)); err != nil {
		return nil, err
	}
	if err := resolvers.LoadNftItemHeaders(ctx, []*db.NftItem{it}); err != nil {
		return nil, err
	}
	item, err := s.nftItem(ctx, it)
	if err != nil {
		return nil, err
	}
	conn, err := s.res.NftItem().Events(ctx, it, &w.first, w.after)
	if err != nil {
		return nil, err
	}
	events, err := s.nftEventList(ctx, w, conn)
	if err != nil {
		return nil, err
	}
	return nftDetailsBody{nftItem: item, Events: events.(cursorList[nftEvent])}, nil
}

// metadataUpdateAnswer is the answer of POST /beta/nft/update-metadata/{contract_address}/{token_id}.
type metadataUpdateAnswer struct {
	Success bool `json:"success"`
}

func nftMetadataUpdateOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	queued, err := s.res.Mutation().RequestNftMetadataUpdate(ctx, a.felt("contract_address"), a.str("token_id"))
	if err != nil {
		return nil, asParam(err, "tokenId", "token_id")
	}
	return metadataUpdateAnswer{Success: queued}, nil
}

// nftStatsItem is an item of GET /beta/nft-stats.
type nftStatsItem struct {
	ContractAddress string  `json:"contractAddress"`
	Name            *string `json:"name"`
	Symbol          *string `json:"symbol"`
	Sales           int     `json:"sales"`
	SalesVolume     float64 `json:"salesVolume"` // USD
	Traders         int     `json:"traders"`
	Owners          int     `json:"owners"`
	Supply          *string `json:"supply"`
}

// marketplaceStatsItem is an item of GET /beta/marketplace-stats.
type marketplaceStatsItem struct {
	MarketplaceAddress string  `json:"marketplaceAddress"`
	Name               *string `json:"name"`
	Sales              int     `json:"sales"`
	SalesVolume        float64 `json:"salesVolume"` // USD
	Traders            int     `json:"traders"`
	Collections        int     `json:"collections"`
}

// statsArgs reads the timeframe, attribute and sort of a statistics list.
func statsArgs(a *args) (model.StatsTimeframe, string, model.SortDirection) {
	return model.StatsTimeframe(strings.ToUpper(a.str("timeframe"))), strings.ToUpper(a.str("attribute")), a.direction("sort")
}

func nftStatsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	timeframe, attribute, dir := statsArgs(a)
	order := model.NftStatsOrder(attribute)
	pg := pageOf(a)
	conn, err := s.res.Query().NftCollectionStats(ctx, &pg.first, pg.after, &timeframe, &order, &dir)
	if err != nil {
		return nil, err
	}
	return pageCursorRows(pg, conn.Edges, conn.TotalCount, func(e *model.NftCollectionStatsEdge) nftStatsItem {
		n := e.Node
		return nftStatsItem{ContractAddress: addr(n.ContractAddress), Name: n.Name, Symbol: n.Symbol, Sales: n.Sales,
			SalesVolume: n.SalesVolumeUsd, Traders: n.Traders, Owners: n.Owners, Supply: n.Supply}
	}), nil
}

func marketplaceStatsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	timeframe, attribute, dir := statsArgs(a)
	order := model.MarketplaceStatsOrder(attribute)
	pg := pageOf(a)
	conn, err := s.res.Query().MarketplaceStats(ctx, &pg.first, pg.after, &timeframe, &order, &dir)
	if err != nil {
		return nil, err
	}
	return pageCursorRows(pg, conn.Edges, conn.TotalCount, func(e *model.MarketplaceStatsEdge) marketplaceStatsItem {
		m := e.Node
		return marketplaceStatsItem{MarketplaceAddress: addr(m.MarketplaceAddress), Name: m.Name, Sales: m.Sales,
			SalesVolume: m.SalesVolumeUsd, Traders: m.Traders, Collections: m.Collections}
	}), nil
}
