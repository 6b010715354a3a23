package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// tokenItem is an item of GET /beta/tokens.
type tokenItem struct {
	Address   string  `json:"address"`
	Name      *string `json:"name"`
	Symbol    *string `json:"symbol"`
	Decimals  *string `json:"decimals"`
	Transfers string  `json:"transfers"`
	Holders   string  `json:"holders"`
	Type      string  `json:"type" enum:"erc20,erc721,erc1155"`
}

var tokenStandards = map[string]db.TokenStandard{
	"erc20": db.StandardERC20, "erc721": db.StandardERC721, "erc1155": db.StandardERC1155,
}

var tokenOrders = map[string]model.TokenOrder{
	"holders": model.TokenOrderHolders, "transfers": model.TokenOrderTransfers, "market_cap": model.TokenOrderMarketCap,
}

func listTokens(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	standard, order := tokenStandards[a.str("type")], tokenOrders[a.str("attribute")]
	conn, err := s.res.Query().Tokens(ctx, &pg.first, pg.after, &standard, &order, nil)
	if err != nil {
		return nil, err
	}
	return pageRows(pg, conn.Edges, conn.TotalCount, func(e *model.TokenEdge) tokenItem { return tokenItemOf(e.Node) }), nil
}

func tokenItemOf(t *db.Token) tokenItem {
	item := tokenItem{
		Address: addr(t.Address), Name: t.Name, Symbol: t.Symbol,
		Transfers: t.TransferCountText(), Holders: t.HolderCountText(), Type: strings.ToLower(t.RawStandard),
	}
	if t.Decimals != nil {
		item.Decimals = ptr(strconv.Itoa(*t.Decimals))
	}
	return item
}

// holdersOverviewBody is the answer of GET /beta/tokens/{address}/holders/overview.
type holdersOverviewBody struct {
	Overview *holdersOverview `json:"overview"`
}

type holdersOverview struct {
	TokenAddress         string               `json:"tokenAddress"`
	TotalSupply          string               `json:"totalSupply"`
	BurnedSupply         string               `json:"burnedSupply"`
	CirculatingSupply    string               `json:"circulatingSupply"`
	HolderCount          int64                `json:"holderCount"`
	HoldersOver1Pct      int                  `json:"holdersOver1Pct"`
	TopNConcentration    topNConcentration    `json:"topNConcentration"`
	ConcentrationBuckets concentrationBuckets `json:"concentrationBuckets"`
	TierDistribution     []tierShare          `json:"tierDistribution"`
	WalletDepthUsd       []walletDepth        `json:"walletDepthUsd" nullable:"true"`
	GiniTop10k           float64              `json:"giniTop10k"`
	TokenUsdPrice        *float64             `json:"tokenUsdPrice"`
	ComputedAt           string               `json:"computedAt"`
	IsStale              bool                 `json:"isStale"`
	IsRecomputing        bool                 `json:"isRecomputing"`
}

type topNConcentration struct {
	Top5   float64 `json:"top5"`
	Top10  float64 `json:"top10"`
	Top100 float64 `json:"top100"`
}

type concentrationBuckets struct {
	Top1To5    float64 `json:"top_1_5"`
	Top6To10   float64 `json:"top_6_10"`
	Top11To25  float64 `json:"top_11_25"`
	Top26To50  float64 `json:"top_26_50"`
	Top51To100 float64 `json:"top_51_100"`
	Outside100 float64 `json:"outside_100"`
}

type tierShare struct {
	Tier        string  `json:"tier" enum:"whale,shark,dolphin,fish,crab,shrimp"`
	Count       float64 `json:"count"`
	SupplyShare float64 `json:"supplyShare"`
}

type walletDepth struct {
	UsdThreshold float64 `json:"usdThreshold"`
	WalletCount  float64 `json:"walletCount"`
}

// Headers that say how a token's balances are known (docs/indexer.md, "Balances and the
// chain's storage"), on the answers that show its balances: the reference's bodies have no
// field for it, and a header leaves them as they are.
const (
	// HeaderBalancesSource is events, events_match_storage, storage or calls, as
	// tokens.balances_source (GraphQL's Token.balancesSource in lower case).
	HeaderBalancesSource = "X-Balances-Source"
	// HeaderStorageCheckedBlock is the newest block whose storage diff was compared with
	// the token's events (Token.storageCheckedBlock); absent when none was.
	HeaderStorageCheckedBlock = "X-Balances-Storage-Checked-Block"
)

// balancesEvidence wraps body with the headers saying how token's balances are known.
func balancesEvidence(token *db.Token, body any) withHeaders {
	h := map[string]string{HeaderBalancesSource: strings.ToLower(string(token.BalancesSource()))}
	if token.StorageCheckedBlock != nil {
		h[HeaderStorageCheckedBlock] = strconv.FormatInt(*token.StorageCheckedBlock, 10)
	}
	return withHeaders{body: body, header: h}
}

// requireToken answers 404 for an address where no token is indexed.
func (s *server) requireToken(ctx context.Context, address db.Felt) (*db.Token, error) {
	t, err := s.res.Query().Token(ctx, address)
	return found(t, err, "address: no token at %s", addr(address))
}

func holdersOverviewOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	token, err := s.requireToken(ctx, a.felt("address"))
	if err != nil {
		return nil, err
	}
	if token.Standard() != db.StandardERC20 || !token.IsVerified {
		return nil, notFound("address: holders analytics cover verified ERC-20 tokens only")
	}
	ov, err := s.res.HoldersOverviewNow(ctx, token)
	if err != nil {
		return nil, err
	}
	if ov == nil {
		return balancesEvidence(token, holdersOverviewBody{}), nil
	}
	computedAt, err := s.res.HoldersOverview().ComputedAt(ctx, ov)
	if err != nil {
		return nil, err
	}
	out := &holdersOverview{
		TokenAddress: addr(ov.TokenAddress), TotalSupply: ov.TotalSupply, BurnedSupply: ov.BurnedSupply,
		CirculatingSupply: ov.CirculatingSupply, HolderCount: ov.HolderCount, HoldersOver1Pct: ov.HoldersOver1Pct,
		GiniTop10k: ov.GiniTop10k, TokenUsdPrice: ov.TokenUsdPrice, ComputedAt: computedAt,
		IsStale: ov.IsStale, IsRecomputing: ov.IsRecomputing,
	}
	// The snapshot's JSON columns are decoded into fixed shapes, so the body keeps the
	// reference's keys whatever the writer stored.
	for _, part := range []struct {
		raw db.JSON
		dst any
	}{
		{ov.TopNConcentration, &out.TopNConcentration},
		{ov.ConcentrationBuckets, &out.ConcentrationBuckets},
		{ov.TierDistribution, &out.TierDistribution},
		{ov.WalletDepthUsd, &out.WalletDepthUsd},
	} {
		if len(part.raw) == 0 || string(part.raw) == "null" {
			continue
		}
		if err := json.Unmarshal(part.raw, part.dst); err != nil {
			return nil, fmt.Errorf("holders snapshot of %s: %w", addr(ov.TokenAddress), err)
		}
	}
	out.TierDistribution = emptyIfNil(out.TierDistribution)
	return balancesEvidence(token, holdersOverviewBody{Overview: out}), nil
}

// tokenHolder is an item of GET /beta/tokens/{address}/holders.
type tokenHolder struct {
	Address          string  `json:"address"`
	Alias            *string `json:"alias"`
	Balance          string  `json:"balance"`
	LastTransferTime int64   `json:"lastTransferTime"`
}

type tokenHoldersBody struct {
	Items    []tokenHolder `json:"items"`
	LastPage int           `json:"lastPage"`
	HasMore  bool          `json:"hasMore"`
}

func tokenHoldersOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	token, err := s.requireToken(ctx, a.felt("address"))
	if err != nil {
		return nil, err
	}
	pg := pageOf(a)
	conn, err := s.res.Token().Holders(ctx, token, &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	balances := make([]*db.TokenBalance, len(conn.Edges))
	for i, e := range conn.Edges {
		balances[i] = e.Node
	}
	aliases, err := resolvers.OwnerAliases(ctx, balances)
	if err != nil {
		return nil, err
	}
	items := make([]tokenHolder, len(balances))
	for i, b := range balances {
		items[i] = tokenHolder{Address: addr(b.OwnerAddress), Balance: b.Balance, LastTransferTime: b.LastTransferTime, Alias: aliases[i]}
	}
	return balancesEvidence(token, tokenHoldersBody{Items: items, LastPage: lastPage(conn.TotalCount, pg.size),
		HasMore: conn.PageInfo != nil && conn.PageInfo.HasNextPage}), nil
}
