package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// nftBalance is the NftBalance-shaped object: an item of /nft-holders and the `balance`
// of an NFT item.
type nftBalance struct {
	ContractAddress      *string     `json:"contractAddress"`
	OwnerAddress         *string     `json:"ownerAddress"`
	ContractAddressAlias *string     `json:"contractAddressAlias"`
	OwnerAddressAlias    *string     `json:"ownerAddressAlias"`
	Balance              json.Number `json:"balance"`
	TokenID              *string     `json:"tokenId"`
	LastTransferTime     int64       `json:"lastTransferTime"`
}

// nftItem is an item of GET /beta/nft-items.
type nftItem struct {
	ContractAddress         *string     `json:"contractAddress"`
	TokenID                 *string     `json:"tokenId"`
	ContractType            int         `json:"contractType"`
	Name                    *string     `json:"name"`
	Description             *string     `json:"description"`
	ExternalURL             *string     `json:"externalUrl"`
	Attributes              db.JSON     `json:"attributes" schema:"array"`
	ImageURL                *string     `json:"imageUrl"`
	ImageSmallURL           *string     `json:"imageSmallUrl"`
	ImageLargeURL           *string     `json:"imageLargeUrl"`
	YoutubeURL              *string     `json:"youtubeUrl"`
	AnimationURL            *string     `json:"animationUrl"`
	MintedByAddress         *string     `json:"mintedByAddress"`
	MintedAtTimestamp       *int64      `json:"mintedAtTimestamp"`
	MintedAtBlockNumber     *int64      `json:"mintedAtBlockNumber"`
	MintedAtTransactionHash *string     `json:"mintedAtTransactionHash"`
	OwnerAddress            *string     `json:"ownerAddress"`
	Balance                 *nftBalance `json:"balance"`
}

// nftEvent is an item of GET /beta/nft-events.
type nftEvent struct {
	TransactionHash            *string     `json:"transactionHash"`
	BlockNumber                int64       `json:"blockNumber"`
	TokenID                    *string     `json:"tokenId"`
	FromAddress                *string     `json:"fromAddress"`
	ToAddress                  *string     `json:"toAddress"`
	FromAlias                  *string     `json:"fromAlias"`
	ToAlias                    *string     `json:"toAlias"`
	NftContractAddress         *string     `json:"nftContractAddress"`
	Quantity                   json.Number `json:"quantity"`
	PaymentTokenAddress        *string     `json:"paymentTokenAddress"`
	PaymentTokenSymbol         *string     `json:"paymentTokenSymbol"`
	TotalPrice                 *string     `json:"totalPrice"`
	MarketplaceContractAddress *string     `json:"marketplaceContractAddress"`
	Timestamp                  int64       `json:"timestamp"`
	Name                       *string     `json:"name"`
	ImageURL                   *string     `json:"imageUrl"`
	ImageSmallURL              *string     `json:"imageSmallUrl"`
	ImageLargeURL              *string     `json:"imageLargeUrl"`
	Type                       string      `json:"type" enum:"Mint,Transfer,Burn,Sale"`
}

// nftTransfer is an item of GET /beta/nft-transfers and of the `nftTransferred` of GET
// /beta/txns/{txnHash}: an NFT event whose `quantity` is a decimal string (or null), as
// the reference's NftTransfer has it, where NftEvent has a number.
type nftTransfer struct {
	nftEvent
	Quantity *string `json:"quantity"`
}

// nftTransfer renders an event as an NftTransfer.
func (s *server) nftTransfer(ctx context.Context, ev *db.NftEvent) (nftTransfer, error) {
	out, err := s.nftEvent(ctx, ev)
	t := nftTransfer{nftEvent: out}
	if ev.Quantity != "" {
		t.Quantity = ptr(string(out.Quantity))
	}
	return t, err
}

// nftContractBalance is an item of GET /beta/nft-contract-balance: one NFT an owner holds.
type nftContractBalance struct {
	ContractAddress  *string     `json:"contractAddress"`
	TokenID          *string     `json:"tokenId"`
	OwnerAddress     *string     `json:"ownerAddress"`
	Balance          json.Number `json:"balance"`
	LastTransferTime int64       `json:"lastTransferTime"`
	TokenName        *string     `json:"tokenName"`
	TokenDescription *string     `json:"tokenDescription"`
	Attributes       db.JSON     `json:"attributes" schema:"array"`
	ImageURL         *string     `json:"imageUrl"`
	ImageSmallURL    *string     `json:"imageSmallUrl"`
	ImageLargeURL    *string     `json:"imageLargeUrl"`
	CollectionName   *string     `json:"collectionName"`
	ContractType     *int        `json:"contractType"`
}

// collectionArg is the collection its contract_address parameter names, or a 404.
func (s *server) collectionArg(ctx context.Context, a *args) (db.Felt, *db.Token, error) {
	contract := a.felt("contract_address")
	t, err := s.res.Query().Token(ctx, contract)
	t, err = found(t, err, "contract_address: no NFT collection at %s", addr(contract))
	return contract, t, err
}

func nftItemsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	w, err := s.windowOf("nft-items", a)
	if err != nil {
		return nil, err
	}
	contract, _, err := s.collectionArg(ctx, a)
	if err != nil {
		return nil, err
	}
	conn, err := s.res.Query().NftItems(ctx, &w.first, w.after, contract, a.felt("owner_address"))
	if err != nil {
		return nil, err
	}
	return cursorLoaded(ctx, s, w, conn.Edges, conn.PageInfo, conn.TotalCount, func(e *model.NftItemEdge) *db.NftItem { return e.Node },
		resolvers.LoadNftItemHeaders, s.nftItem)
}

func (s *server) nftItem(ctx context.Context, it *db.NftItem) (nftItem, error) {
	out := nftItem{
		ContractAddress: addrOrNil(it.ContractAddress), TokenID: ptr(it.TokenID), ContractType: it.ContractType,
		Name: it.Name, Description: it.Description, ExternalURL: it.ExternalURL, Attributes: jsonArray(it.Attributes),
		ImageURL: it.ImageURL, ImageSmallURL: it.ImageSmallURL, ImageLargeURL: it.ImageLargeURL,
		YoutubeURL: it.YoutubeURL, AnimationURL: it.AnimationURL, MintedByAddress: addrOrNil(it.MintedByAddress),
		MintedAtTimestamp: it.MintedAtTimestamp, MintedAtBlockNumber: it.MintedAtBlockNumber,
		MintedAtTransactionHash: hexOrNil(it.MintedAtTransactionHash), OwnerAddress: addrOrNil(it.OwnerAddress),
	}
	bal, err := s.res.NftItem().Balance(ctx, it)
	if err != nil || bal == nil {
		return out, err
	}
	b, err := s.nftBalance(ctx, bal)
	if err != nil {
		return out, err
	}
	out.Balance = &b
	if out.OwnerAddress == nil {
		out.OwnerAddress = b.OwnerAddress
	}
	return out, nil
}

func (s *server) nftBalance(ctx context.Context, b *db.NftBalance) (nftBalance, error) {
	nr := s.res.NftBalance()
	contractAlias, err := nr.ContractAddressAlias(ctx, b)
	if err != nil {
		return nftBalance{}, err
	}
	ownerAlias, err := nr.OwnerAddressAlias(ctx, b)
	if err != nil {
		return nftBalance{}, err
	}
	return nftBalance{
		ContractAddress: addrOrNil(b.ContractAddress), OwnerAddress: addrOrNil(b.OwnerAddress),
		ContractAddressAlias: contractAlias, OwnerAddressAlias: ownerAlias,
		Balance: number(b.Balance), TokenID: ptr(b.TokenID), LastTransferTime: b.LastTransferTime,
	}, nil
}

func nftEventsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	w, err := s.windowOf("nft-events", a)
	if err != nil {
		return nil, err
	}
	conn, err := s.res.Query().NftEvents(ctx, &w.first, w.after, a.felt("contract_address"), a.optional("token_id"))
	if err != nil {
		return nil, err
	}
	return s.nftEventList(ctx, w, conn)
}

// nftEventList answers a window of NFT events, the aliases and items they show loaded for
// the whole window.
func (s *server) nftEventList(ctx context.Context, w window, conn *model.NftEventConnection) (any, error) {
	return cursorLoaded(ctx, s, w, conn.Edges, conn.PageInfo, conn.TotalCount, func(e *model.NftEventEdge) *db.NftEvent { return e.Node },
		resolvers.LoadNftEventHeaders, s.nftEvent)
}

func (s *server) nftEvent(ctx context.Context, ev *db.NftEvent) (nftEvent, error) {
	er := s.res.NftEvent()
	out := nftEvent{
		TransactionHash: hexOrNil(ev.TransactionHash), BlockNumber: ev.BlockNumber, TokenID: ptr(ev.TokenID),
		FromAddress: addrOrNil(ev.FromAddress), ToAddress: addrOrNil(ev.ToAddress),
		NftContractAddress: addrOrNil(ev.ContractAddress), Quantity: number(ev.Quantity),
		PaymentTokenAddress: addrOrNil(ev.PaymentTokenAddress), PaymentTokenSymbol: ev.PaymentTokenSymbol,
		TotalPrice: ev.TotalPrice, MarketplaceContractAddress: addrOrNil(ev.MarketplaceContractAddress),
		Timestamp: ev.Timestamp, Type: ev.Type,
	}
	var err error
	if out.FromAlias, err = er.FromAlias(ctx, ev); err != nil {
		return out, err
	}
	if out.ToAlias, err = er.ToAlias(ctx, ev); err != nil {
		return out, err
	}
	item, err := er.Item(ctx, ev)
	if err != nil || item == nil {
		return out, err
	}
	out.Name, out.ImageURL, out.ImageSmallURL, out.ImageLargeURL = item.Name, item.ImageURL, item.ImageSmallURL, item.ImageLargeURL
	return out, nil
}

func nftContractBalanceOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	w, err := s.windowOf("nft-contract-balance", a)
	if err != nil {
		return nil, err
	}
	wallet, err := s.res.Query().Wallet(ctx, a.felt("owner_address"))
	if err != nil {
		return nil, err
	}
	conn, err := s.res.Wallet().Nfts(ctx, wallet, &w.first, w.after, a.felt("contract_address"))
	if err != nil {
		return nil, err
	}
	return cursorLoaded(ctx, s, w, conn.Edges, conn.PageInfo, conn.TotalCount, func(e *model.NftBalanceEdge) *db.NftBalance { return e.Node },
		resolvers.LoadNftBalanceItems, s.nftContractBalance)
}

func (s *server) nftContractBalance(ctx context.Context, b *db.NftBalance) (nftContractBalance, error) {
	out := nftContractBalance{
		ContractAddress: addrOrNil(b.ContractAddress), TokenID: ptr(b.TokenID), OwnerAddress: addrOrNil(b.OwnerAddress),
		Balance: number(b.Balance), LastTransferTime: b.LastTransferTime, Attributes: db.JSON("[]"),
	}
	nr := s.res.NftBalance()
	item, err := nr.Item(ctx, b)
	if err != nil {
		return out, err
	}
	if item != nil {
		out.TokenName, out.TokenDescription, out.Attributes = item.Name, item.Description, jsonArray(item.Attributes)
		out.ImageURL, out.ImageSmallURL, out.ImageLargeURL = item.ImageURL, item.ImageSmallURL, item.ImageLargeURL
		out.ContractType = ptr(item.ContractType)
	}
	collection, err := nr.Collection(ctx, b)
	if err != nil {
		return out, err
	}
	if collection != nil {
		out.CollectionName = collection.Name
		if out.ContractType == nil {
			out.ContractType = contractTypeCode(collection.Standard())
		}
	}
	return out, nil
}

// contractTypeCode is the numeric NFT contract type the items carry (721 or 1155).
func contractTypeCode(std db.TokenStandard) *int {
	switch std {
	case db.StandardERC721:
		return ptr(721)
	case db.StandardERC1155:
		return ptr(1155)
	}
	return nil
}

// nftHoldersBody is the answer of GET /beta/nft-holders: page-number inputs, cursor-style
// pagination object. next and prev are the neighbouring page numbers, as strings.
type nftHoldersBody struct {
	Items      []nftBalance `json:"items"`
	Pagination pagination   `json:"pagination"`
}

func nftHoldersOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	contract, _, err := s.collectionArg(ctx, a)
	if err != nil {
		return nil, err
	}
	pg := pageOf(a)
	conn, err := s.res.Query().NftHolders(ctx, contract, a.optional("token_id"), &pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	items, err := loadedItems(ctx, conn.Edges, func(e *model.NftBalanceEdge) *db.NftBalance { return e.Node },
		resolvers.LoadNftBalanceAliases, s.nftBalance)
	if err != nil {
		return nil, err
	}
	return nftHoldersBody{Items: emptyIfNil(items), Pagination: pageNumbers(pg, conn.TotalCount)}, nil
}

// jsonArray passes a stored JSON array through, and [] for anything else.
func jsonArray(j db.JSON) db.JSON {
	if len(j) == 0 || j[0] != '[' {
		return db.JSON("[]")
	}
	return j
}
