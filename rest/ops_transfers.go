package rest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/starknet"
)

// transferItem is an item of GET /beta/token-transfers.
type transferItem struct {
	ID              string `json:"id"`
	BlockNumber     int64  `json:"blockNumber"`
	Timestamp       int64  `json:"timestamp"`
	TransactionHash string `json:"transactionHash"`
	EventIndex      int    `json:"eventIndex"`
	TokenAddress    string `json:"tokenAddress"`
	tokenNaming
	FromAddress    string `json:"fromAddress"`
	ToAddress      string `json:"toAddress"`
	Amount         string `json:"amount"` // in the token's smallest unit
	InvocationType string `json:"invocationType" enum:"EXECUTE,FEE_TRANSFER"`
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
	if sel := a.felt("event_selector"); sel != nil && !sel.Equal(transferEvent) {
		return keysetList[transferItem]{Items: []transferItem{}}, nil // transfers come from Transfer events only
	}
	filter, err := transferFilterOf(a, "from_address", "to_address")
	if err != nil {
		return nil, err
	}
	filter.InvocationType = invocationFilter(a, "invocation_type")
	return s.transfers(ctx, transferQuery{token: a.felt("token_address"), filter: filter,
		ascending: a.str("order_by") == "asc", id: a.str("id"), idName: "id", size: *a.int("page_size")})
}

// transferFilterOf reads the address and bound parameters shared by the snake_case
// transfer lists.
func transferFilterOf(a *args, fromName, toName string) (*model.TransferFilter, error) {
	filter := &model.TransferFilter{FromAddress: a.felt(fromName), ToAddress: a.felt(toName)}
	if err := bounds(a, "from_block", "to_block", &filter.FromBlock, &filter.ToBlock); err != nil {
		return nil, err
	}
	if err := bounds(a, "from_timestamp", "to_timestamp", &filter.FromTimestamp, &filter.ToTimestamp); err != nil {
		return nil, err
	}
	return filter, nil
}

// eventActivityOp answers GET /beta/event-activity: the ERC-20 transfers of a sender, a
// recipient or both, by page number or after last_id.
func eventActivityOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	if !a.has("from_address") && !a.has("to_address") {
		return nil, badRequest("from_address: give from_address, to_address or both")
	}
	filter, err := transferFilterOf(a, "from_address", "to_address")
	if err != nil {
		return nil, err
	}
	size, page := *a.int("page_size"), *a.int("page")
	if page > maxActivityPage {
		return nil, badRequest("page: must be at most %d; walk further with last_id", maxActivityPage)
	}
	q := transferQuery{filter: filter, ascending: a.str("sort") == "asc", id: a.str("last_id"), idName: "last_id", size: size}
	if q.id == "" {
		q.skip = (page - 1) * size
	}
	return s.transfers(ctx, q)
}

// maxActivityPage bounds page numbers of /event-activity: a page is read by skipping the
// ones before it, while last_id seeks.
const maxActivityPage = 100

// transferQuery is one page of a transfer list.
type transferQuery struct {
	token, wallet db.Felt
	filter        *model.TransferFilter
	ascending     bool
	id            string // the last item of the previous page; "" for a first page
	idName        string // the parameter id came in, for errors
	skip          int    // items to skip, for page-numbered lists (without id)
	size          int
}

// transfers runs a transfer list through tokenTransfers, keyset by id, without a total.
func (s *server) transfers(ctx context.Context, q transferQuery) (keysetList[transferItem], error) {
	var after *string
	list := resolvers.TokenTransfersList(q.ascending)
	switch {
	case q.id != "":
		block, tx, event, err := parseTransferID(q.idName, q.id)
		if err != nil {
			return keysetList[transferItem]{}, err
		}
		c := resolvers.KeysetCursor(list, block, tx, event)
		after = &c
	case q.skip > 0:
		c := resolvers.OffsetCursor(q.skip)
		after = &c
	}
	order := model.SortDirectionDesc
	if q.ascending {
		order = model.SortDirectionAsc
	}
	ctx = resolvers.WithoutTotal(ctx)
	conn, err := s.res.Query().TokenTransfers(ctx, &q.size, after, q.token, q.wallet, q.filter, &order)
	if err != nil {
		return keysetList[transferItem]{}, err
	}
	items, err := loadedItems(ctx, conn.Edges, func(e *model.TokenTransferEdge) *db.TokenTransfer { return e.Node },
		resolvers.LoadTransferTokens, s.transferItem)
	return keysetList[transferItem]{Items: emptyIfNil(items), HasMore: conn.PageInfo.HasNextPage}, err
}

// invocationFilter is invocation_type as the GraphQL filter wants it.
func invocationFilter(a *args, name string) *model.TransferInvocationType {
	t := invocationTypes[a.str(name)]
	return &t
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
	token, err := loaders.For(ctx).Token.Load(ctx, string(t.TokenAddress))()
	if err != nil {
		return out, err
	}
	out.tokenNaming = namingOf(token)
	return out, nil
}

// transferID is a transfer's position in the chain, the keyset id of transfer lists.
func transferID(t *db.TokenTransfer) string {
	return fmt.Sprintf("%d_%d_%d", t.BlockNumber, t.TxIndex, t.EventIndex)
}

func parseTransferID(name, id string) (block int64, tx, event int, err error) {
	bad := badRequest("%s: %q is not the id of a transfer (<block>_<transaction index>_<event index>)", name, short(id))
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
	from, to := int(window.From), int(window.To)
	filter := &model.TransferFilter{FromAddress: a.felt("from"), ToAddress: a.felt("to"), FromTimestamp: &from, ToTimestamp: &to,
		InvocationType: invocationFilter(a, "invocationType")}
	if symbol := a.str("symbol"); symbol != "" {
		if filter.TokenAddresses, err = s.tokensWithSymbol(ctx, symbol); err != nil {
			return nil, err
		}
	}
	page, err := s.transfers(ctx, transferQuery{token: a.felt("tokenAddress"), wallet: c.Address, filter: filter,
		ascending: a.str("order_by") == "asc", id: a.str("id"), idName: "id", size: *a.int("ps")})
	return contractTransfersBody{Items: page.Items, HasMore: page.HasMore, Range: window}, err
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
	first, standard := resolvers.MaxPageSize, db.StandardERC20
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
