package rest

import (
	"context"
	"net/http"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/resolvers"
)

// messageItem is an item of GET /beta/messages and the answer of GET /beta/message/{msgHash}.
type messageItem struct {
	Hash              string   `json:"hash"`
	Type              string   `json:"type" enum:"L1_TO_L2,L2_TO_L1"`
	FromAddress       string   `json:"fromAddress"` // the L1 sender, or the L2 contract
	ToAddress         string   `json:"toAddress"`   // the L2 contract, or the L1 recipient
	L2Address         string   `json:"l2Address"`
	Selector          *string  `json:"selector"` // L1 -> L2: the L1 handler's entry point
	Payload           []string `json:"payload"`
	TransactionHash   string   `json:"transactionHash"`
	BlockNumber       int64    `json:"blockNumber"`
	Index             int      `json:"index"`
	Timestamp         int64    `json:"timestamp"`
	L1TransactionHash *string  `json:"l1TransactionHash"` // L1 -> L2, once the L1 follower has seen it
}

// messageTypes maps the `type` filter ("0", "1") to the GraphQL direction.
var messageTypes = map[string]model.MessageDirection{"0": model.MessageDirectionL1ToL2, "1": model.MessageDirectionL2ToL1}

func listMessagesOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	filter := &model.MessageListFilter{Contract: a.felt("contract")}
	var err error
	if filter.BlockNumber, err = s.oneBlock(ctx, a, "block"); err != nil {
		return nil, err
	}
	if d, ok := messageTypes[a.str("type")]; ok {
		filter.Direction = &d
	}
	conn, err := s.res.Query().Messages(ctx, &pg.first, pg.after, filter)
	if err != nil {
		return nil, err
	}
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.MessageEdge) *db.Message { return e.Node },
		resolvers.LoadMessageTransactions, s.messageItem)
}

func (s *server) messageItem(ctx context.Context, m *db.Message) (messageItem, error) {
	mr := s.res.Message()
	dir, err := mr.Direction(ctx, m)
	if err != nil {
		return messageItem{}, err
	}
	out := messageItem{
		Hash: m.Hash.Hex(), Type: string(dir), FromAddress: m.FromAddress.Hex(), ToAddress: m.ToAddress.Hex(),
		L2Address: addr(m.L2Address), Selector: hexOrNil(m.Selector), Payload: feltList(m.Payload),
		TransactionHash: m.TransactionHash.Hex(), BlockNumber: m.BlockNumber, Index: m.Index, Timestamp: m.Timestamp,
	}
	if m.Direction == db.MessageToL2 {
		tx, err := mr.Transaction(ctx, m)
		if err != nil {
			return out, err
		}
		out.L1TransactionHash = hexOrNil(tx.L1TransactionHash)
	}
	return out, nil
}

// messagesWithHash reads the messages that have a hash, newest first (an identical message
// sent twice has one hash); 404 when there is none.
func (s *server) messagesWithHash(ctx context.Context, hash db.Felt, first int, after *string) (*model.MessageConnection, error) {
	h := hash.Hex()
	conn, err := s.res.Query().Messages(ctx, &first, after, &model.MessageListFilter{Hash: &h})
	if err != nil {
		return nil, err
	}
	if len(conn.Edges) == 0 && after == nil {
		return nil, notFound("msgHash: no message %s", h)
	}
	return conn, nil
}

func messageOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	conn, err := s.messagesWithHash(ctx, a.hash("msgHash"), 1, nil)
	if err != nil {
		return nil, err
	}
	return s.messageItem(ctx, conn.Edges[0].Node)
}

// bridgeTransaction is an item of GET /beta/message/{msgHash}/bridgeTransactions: the L2
// transaction that carried the message, with the token the bridge minted (a deposit) or
// burned (a withdrawal) in it.
type bridgeTransaction struct {
	TransactionHash   string  `json:"transactionHash"`
	BlockNumber       int64   `json:"blockNumber"`
	Timestamp         int64   `json:"timestamp"`
	Type              string  `json:"type" enum:"DEPOSIT,WITHDRAWAL"`
	BridgeAddress     string  `json:"bridgeAddress"` // the L2 side of the message
	L1Address         string  `json:"l1Address"`     // the L1 sender or recipient
	L1TransactionHash *string `json:"l1TransactionHash"`
	TokenAddress      *string `json:"tokenAddress"`
	tokenNaming
	Amount  *string `json:"amount"`  // minted or burned, in the token's smallest unit
	Account *string `json:"account"` // the L2 account credited or debited
}

func bridgeTransactionsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	conn, err := s.messagesWithHash(ctx, a.hash("msgHash"), pg.first, pg.after)
	if err != nil {
		return nil, err
	}
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.MessageEdge) *db.Message { return e.Node },
		resolvers.LoadBridgeTransfers, s.bridgeTransaction)
}

func (s *server) bridgeTransaction(ctx context.Context, m *db.Message) (bridgeTransaction, error) {
	out := bridgeTransaction{TransactionHash: m.TransactionHash.Hex(), BlockNumber: m.BlockNumber, Timestamp: m.Timestamp,
		Type: "DEPOSIT", BridgeAddress: addr(m.L2Address), L1Address: m.FromAddress.Hex()}
	if m.Direction == db.MessageToL1 {
		out.Type, out.L1Address = "WITHDRAWAL", m.ToAddress.Hex()
	}
	tx, err := s.res.Message().Transaction(ctx, m)
	if err != nil {
		return out, err
	}
	out.L1TransactionHash = hexOrNil(tx.L1TransactionHash)
	transfers, err := s.res.Transaction().TokenTransfers(ctx, tx)
	if err != nil {
		return out, err
	}
	if t, account := resolvers.BridgeTransfer(m, transfers); t != nil {
		out.TokenAddress, out.Amount, out.Account = ptr(addr(t.TokenAddress)), ptr(t.Amount), ptr(addr(account))
		token, err := loaders.For(ctx).Token.Load(ctx, string(t.TokenAddress))()
		if err != nil {
			return out, err
		}
		if token != nil {
			out.tokenNaming = namingOf(token)
		}
	}
	return out, nil
}
