package rest

import (
	"context"
	"net/http"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// txnItem is an item of GET /beta/txns.
type txnItem struct {
	Hash            string  `json:"hash"`
	BlockNumber     int64   `json:"blockNumber"`
	BlockHash       string  `json:"blockHash"`
	Index           int     `json:"index"`
	Type            string  `json:"type"`
	Version         int     `json:"version"`
	Timestamp       int64   `json:"timestamp"`
	Status          string  `json:"status"`
	ExecutionStatus string  `json:"executionStatus"`
	FinalityStatus  string  `json:"finalityStatus"`
	SenderAddress   *string `json:"senderAddress"`
	ContractAddress *string `json:"contractAddress"`
	ClassHash       *string `json:"classHash"`
	ActualFee       string  `json:"actualFee"`
	ActualFeeUnit   string  `json:"actualFeeUnit"`
	RevertError     *string `json:"revertError"`
	SenderAlias     *string `json:"senderAlias"`
	ContractAlias   *string `json:"contractAlias"`
	ClassAlias      *string `json:"classAlias"`
}

// txnDetails is the answer of GET /beta/txns/{txnHash}.
type txnDetails struct {
	txnItem
	EntryPointSelector  *string  `json:"entryPointSelector"`
	Nonce               *string  `json:"nonce"`
	MaxFee              *string  `json:"maxFee"`
	Tip                 *string  `json:"tip"`
	Calldata            []string `json:"calldata"`
	ConstructorCalldata []string `json:"constructorCalldata" nullable:"true"`
	Signature           []string `json:"signature"`
	L1TransactionHash   *string  `json:"l1TransactionHash"`
	EventCount          int      `json:"eventCount"`
	Calls               []txCall `json:"calls"`
	PartialCallsParsing bool     `json:"partialCallsParsing"`
	// NftTransferred are the NFT transfers, mints and burns the transaction made, in its
	// order (the first resolvers.MaxTransactionNftTransfers).
	NftTransferred []nftTransfer `json:"nftTransferred"`
}

// txnTypeCodes are the values of the `type` filter of /txns.
var txnTypeCodes = map[string]db.TxType{
	"0": db.TxInvoke, "1": db.TxDeclare, "2": db.TxDeploy, "3": db.TxDeployAccount, "4": db.TxL1Handler,
}

func listTxnsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	if a.str("rejected") == "true" {
		// Rejected transactions never reach a block, so the index has none.
		return pageList[txnItem]{Items: []txnItem{}, LastPage: 1}, nil
	}
	filter := &model.TransactionFilter{ContractAddress: a.felt("to")}
	if t, ok := txnTypeCodes[a.str("type")]; ok {
		filter.Type = &t
	}
	block, err := s.oneBlock(ctx, a, "block")
	if err != nil {
		return nil, err
	}
	filter.FromBlock, filter.ToBlock = block, block
	order := model.SortDirectionDesc
	conn, err := s.res.Query().Transactions(ctx, &pg.first, pg.after, filter, &order)
	if err != nil {
		return nil, err
	}
	// The page's blocks and aliases in one statement each; then each item reads them.
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.TransactionEdge) *db.Transaction { return e.Node },
		resolvers.LoadTransactionHeaders, s.txnItem)
}

func (s *server) txnItem(ctx context.Context, tx *db.Transaction) (txnItem, error) {
	h, err := s.txHeader(ctx, tx)
	if err != nil {
		return txnItem{}, err
	}
	return txnItem{
		Hash: tx.Hash.Hex(), BlockNumber: tx.BlockNumber, BlockHash: hexOrEmpty(h.blockHash), Index: tx.Index,
		Type: h.typ, Version: tx.Version, Timestamp: tx.Timestamp, Status: h.status, ExecutionStatus: h.execution,
		FinalityStatus: h.finality, SenderAddress: addrOrNil(tx.SenderAddress), ContractAddress: addrOrNil(tx.ContractAddress),
		ClassHash: addrOrNil(tx.ClassHash), ActualFee: tx.ActualFee, ActualFeeUnit: tx.ActualFeeUnit,
		RevertError: tx.RevertError, SenderAlias: h.senderAlias, ContractAlias: h.contractAlias, ClassAlias: h.alias,
	}, nil
}

// requireTransaction answers 404 for a hash of no indexed transaction.
func (s *server) requireTransaction(ctx context.Context, hash db.Felt) (*db.Transaction, error) {
	tx, err := s.res.Query().Transaction(ctx, hash)
	return found(tx, err, "txnHash: no transaction %s", hash.Hex())
}

func txnOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	tx, err := s.requireTransaction(ctx, a.felt("txnHash"))
	if err != nil {
		return nil, err
	}
	item, err := s.txnItem(ctx, tx)
	if err != nil {
		return nil, err
	}
	tr := s.res.Transaction()
	out := txnDetails{
		txnItem: item, EntryPointSelector: hexOrNil(tx.EntryPointSelector), Nonce: tx.Nonce, MaxFee: tx.MaxFee,
		Tip: tx.Tip, L1TransactionHash: hexOrNil(tx.L1TransactionHash), EventCount: tx.EventCount,
		PartialCallsParsing: tx.PartialCallsParsing,
	}
	calldata, err := tr.Calldata(ctx, tx)
	if err != nil {
		return nil, err
	}
	out.Calldata = feltList(calldata)
	ctor, err := tr.ConstructorCalldata(ctx, tx)
	if err != nil {
		return nil, err
	}
	if ctor != nil {
		out.ConstructorCalldata = feltList(ctor)
	}
	sig, err := tr.Signature(ctx, tx)
	if err != nil {
		return nil, err
	}
	out.Signature = feltList(sig)
	if out.Calls, err = s.txCalls(ctx, tx, nil); err != nil {
		return nil, err
	}
	nfts, err := s.res.NftTransfersOfTransaction(ctx, tx)
	if err != nil {
		return nil, err
	}
	// Their aliases and items in one statement each; then each transfer reads them.
	if out.NftTransferred, err = loadedItems(ctx, nfts, self, resolvers.LoadNftEventHeaders, s.nftTransfer); err != nil {
		return nil, err
	}
	if item.FinalityStatus == statusAcceptedOnL1 {
		return final{out}, nil
	}
	return out, nil
}

// eventItem is an item of GET /beta/events.
type eventItem struct {
	BlockNumber     int64    `json:"blockNumber"`
	TransactionHash string   `json:"transactionHash"`
	Index           int      `json:"index"`
	FromAddress     string   `json:"fromAddress"`
	Keys            []string `json:"keys"`
	Data            []string `json:"data"`
	Timestamp       int64    `json:"timestamp"`
}

func listEventsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	if a.has("contract") && (a.has("txnHash") || a.has("blockHash")) {
		return nil, badRequest("contract: cannot be combined with txnHash or blockHash")
	}
	pg := pageOf(a)
	var conn *model.EventConnection
	var err error
	switch {
	case a.has("txnHash"):
		tx, err := s.requireTransaction(ctx, a.felt("txnHash"))
		if err != nil {
			return nil, err
		}
		conn, err = s.res.Transaction().Events(ctx, tx, &pg.first, pg.after)
		if err != nil {
			return nil, err
		}
	default:
		filter := &model.EventFilter{FromAddress: a.felt("contract")}
		if filter.FromBlock, err = s.oneBlock(ctx, a, "blockHash"); err != nil {
			return nil, err
		}
		filter.ToBlock = filter.FromBlock
		if conn, err = s.res.Query().Events(ctx, &pg.first, pg.after, filter); err != nil {
			return nil, err
		}
	}
	items := make([]eventItem, 0, len(conn.Edges))
	for _, e := range conn.Edges {
		ev := e.Node
		items = append(items, eventItem{
			BlockNumber: ev.BlockNumber, TransactionHash: ev.TransactionHash.Hex(), Index: ev.Index,
			FromAddress: addr(ev.FromAddress), Keys: feltList(ev.Keys), Data: feltList(ev.Data), Timestamp: ev.Timestamp,
		})
	}
	return pageList[eventItem]{Items: items, LastPage: lastPage(conn.TotalCount, pg.size)}, nil
}
