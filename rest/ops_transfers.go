package rest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/starknet"
)

// transferItem is an item of GET /beta/token-transfers.
type transferItem struct {
	ID              string  `json:"id"`
	BlockNumber     int64   `json:"blockNumber"`
	Timestamp       int64   `json:"timestamp"`
	TransactionHash string  `json:"transactionHash"`
	EventIndex      int     `json:"eventIndex"`
	TokenAddress    string  `json:"tokenAddress"`
	TokenName       *string `json:"tokenName"`
	TokenSymbol     *string `json:"tokenSymbol"`
	TokenDecimals   *int    `json:"tokenDecimals"`
	FromAddress     string  `json:"fromAddress"`
	ToAddress       string  `json:"toAddress"`
	Amount          string  `json:"amount"` // in the token's smallest unit
	InvocationType  string  `json:"invocationType" enum:"EXECUTE,FEE_TRANSFER"`
}

// transferEvent is the selector of the events transfers come from.
var transferEvent = db.FeltOf(starknet.Selector("Transfer"))

// invocationTypes maps invocation_type to the GraphQL filter.
var invocationTypes = map[string]model.TransferInvocationType{
	"all": model.TransferInvocationTypeAll, "all_except_fee_transfer": model.TransferInvocationTypeAllExceptFeeTransfer,
	"validate": model.TransferInvocationTypeValidate, "execute": model.TransferInvocationTypeExecute,
	"fee_transfer": model.TransferInvocationTypeFeeTransfer,
}

func tokenTransfersOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	empty := keysetList[transferItem]{Items: []transferItem{}}
	if sel := a.felt("event_selector"); sel != nil && !sel.Equal(transferEvent) {
		return empty, nil // transfers come from Transfer events only
	}
	filter := &model.TransferFilter{FromAddress: a.felt("from_address"), ToAddress: a.felt("to_address")}
	if err := bounds(a, "from_block", "to_block", &filter.FromBlock, &filter.ToBlock); err != nil {
		return nil, err
	}
	if err := bounds(a, "from_timestamp", "to_timestamp", &filter.FromTimestamp, &filter.ToTimestamp); err != nil {
		return nil, err
	}
	invocation := invocationTypes[a.str("invocation_type")]
	filter.InvocationType = &invocation
	order := model.SortDirectionDesc
	if a.str("order_by") == "asc" {
		order = model.SortDirectionAsc
	}
	var after *string
	if id := a.str("id"); id != "" {
		block, tx, event, err := parseTransferID(id)
		if err != nil {
			return nil, err
		}
		c := resolvers.KeysetCursor(resolvers.TokenTransfersList(order == model.SortDirectionAsc), block, tx, event)
		after = &c
	}
	first := *a.int("page_size")
	ctx = resolvers.WithoutTotal(ctx)
	conn, err := s.res.Query().TokenTransfers(ctx, &first, after, a.felt("token_address"), nil, filter, &order)
	if err != nil {
		return nil, err
	}
	items, err := mapAll(ctx, conn.Edges, func(ctx context.Context, e *model.TokenTransferEdge) (transferItem, error) {
		return s.transferItem(ctx, e.Node)
	})
	if err != nil {
		return nil, err
	}
	return keysetList[transferItem]{Items: emptyIfNil(items), HasMore: conn.PageInfo.HasNextPage}, nil
}

func (s *server) transferItem(ctx context.Context, t *db.TokenTransfer) (transferItem, error) {
	out := transferItem{
		ID:          transferID(t),
		BlockNumber: t.BlockNumber, Timestamp: t.Timestamp, TransactionHash: t.TransactionHash.Hex(), EventIndex: t.EventIndex,
		TokenAddress: addr(t.TokenAddress), FromAddress: addr(t.FromAddress), ToAddress: addr(t.ToAddress),
		Amount: t.Amount, InvocationType: "EXECUTE",
	}
	if t.IsFee {
		out.InvocationType = "FEE_TRANSFER"
	}
	token, err := s.res.TokenTransfer().Token(ctx, t)
	if err != nil {
		return out, err
	}
	if token != nil {
		out.TokenName, out.TokenSymbol, out.TokenDecimals = token.Name, token.Symbol, token.Decimals
	}
	return out, nil
}

// transferID is a transfer's position in the chain, the keyset id of transfer lists.
func transferID(t *db.TokenTransfer) string {
	return fmt.Sprintf("%d_%d_%d", t.BlockNumber, t.TxIndex, t.EventIndex)
}

func parseTransferID(id string) (block int64, tx, event int, err error) {
	bad := badRequest("id: %q is not the id of a transfer (<block>_<transaction index>_<event index>)", short(id))
	parts := strings.Split(id, "_")
	if len(parts) != 3 {
		return 0, 0, 0, bad
	}
	var n [3]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 || v > 1<<31-1 || p != strconv.FormatInt(v, 10) {
			return 0, 0, 0, bad
		}
		n[i] = v
	}
	return n[0], int(n[1]), int(n[2]), nil
}

// bounds reads an inclusive range of two uint parameters into GraphQL arguments; the
// lower may not be above the upper.
func bounds(a *args, lowName, highName string, low, high **int) error {
	low2, high2 := a.int(lowName), a.int(highName)
	if low2 != nil && high2 != nil && *low2 > *high2 {
		return badRequest("%s: must not be above %s", lowName, highName)
	}
	*low, *high = low2, high2
	return nil
}

// contractTransfersBody is the answer of GET /beta/contracts/{contractAddress}/transfers.
type contractTransfersBody struct {
	Items   []transferItem `json:"items"`
	HasMore bool           `json:"hasMore"`
	Range   timeWindow     `json:"range"`
}

// timeWindow is the span of block times a list covers, Unix seconds, both ends included.
type timeWindow struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// maxTransferWindow is the longest span of time one contract transfers request covers.
const maxTransferWindow = 90 * 24 * 3600

func contractTransfersOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	c, err := s.requireContract(ctx, a.felt("contractAddress"))
	if err != nil {
		return nil, err
	}
	window, err := s.transferWindow(ctx, a)
	if err != nil {
		return nil, err
	}
	out := contractTransfersBody{Items: []transferItem{}, Range: window}
	from, to := int(window.From), int(window.To)
	filter := &model.TransferFilter{FromAddress: a.felt("from"), ToAddress: a.felt("to"), FromTimestamp: &from, ToTimestamp: &to}
	invocation := invocationTypes[a.str("invocationType")]
	filter.InvocationType = &invocation
	if symbol := a.str("symbol"); symbol != "" {
		if filter.TokenAddresses, err = s.tokensWithSymbol(ctx, symbol); err != nil {
			return nil, err
		}
	}
	order := model.SortDirectionDesc
	if a.str("order_by") == "asc" {
		order = model.SortDirectionAsc
	}
	var after *string
	if id := a.str("id"); id != "" {
		block, tx, event, err := parseTransferID(id)
		if err != nil {
			return nil, err
		}
		cur := resolvers.KeysetCursor(resolvers.TokenTransfersList(order == model.SortDirectionAsc), block, tx, event)
		after = &cur
	}
	first := *a.int("ps")
	ctx = resolvers.WithoutTotal(ctx)
	conn, err := s.res.Query().TokenTransfers(ctx, &first, after, a.felt("tokenAddress"), c.Address, filter, &order)
	if err != nil {
		return nil, err
	}
	items, err := mapAll(ctx, conn.Edges, func(ctx context.Context, e *model.TokenTransferEdge) (transferItem, error) {
		return s.transferItem(ctx, e.Node)
	})
	if err != nil {
		return nil, err
	}
	out.Items, out.HasMore = emptyIfNil(items), conn.PageInfo.HasNextPage
	return out, nil
}

// transferWindow reads timestampFrom and timestampTo: at most 90 days, ending by default
// at the newest indexed block's time (or 90 days after timestampFrom), and starting 90 days
// before its end.
func (s *server) transferWindow(ctx context.Context, a *args) (timeWindow, error) {
	var w timeWindow
	from, to := a.int("timestampFrom"), a.int("timestampTo")
	switch {
	case to != nil:
		w.To = int64(*to)
	case from != nil:
		w.To = int64(*from) + maxTransferWindow
	default:
		head, err := s.res.Query().Block(ctx, nil, nil)
		if err != nil {
			return w, err
		}
		if head != nil {
			w.To = head.Timestamp
		}
	}
	w.From = max(w.To-maxTransferWindow, 0)
	if from != nil {
		w.From = int64(*from)
	}
	if w.From > w.To {
		return w, badRequest("timestampFrom: must not be above timestampTo")
	}
	if w.To-w.From > maxTransferWindow {
		return w, badRequest("timestampFrom: the window up to timestampTo is longer than 90 days")
	}
	return w, nil
}

// tokensWithSymbol are the ERC-20 tokens whose symbol is symbol, in any case.
func (s *server) tokensWithSymbol(ctx context.Context, symbol string) ([]db.Felt, error) {
	first, standard := resolvers.MaxPageSize, model.TokenStandardErc20
	conn, err := s.res.Query().Tokens(ctx, &first, nil, &standard, nil, &symbol)
	if err != nil {
		return nil, err
	}
	out := make([]db.Felt, 0, len(conn.Edges))
	for _, e := range conn.Edges {
		out = append(out, e.Node.Address)
	}
	return out, nil
}
