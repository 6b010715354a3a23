package rest

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// txActivity is an item of GET /beta/tx-activity (snake_case, as the reference has it).
type txActivity struct {
	BlockHash           string   `json:"block_hash"`
	BlockNumber         int64    `json:"block_number"`
	Hash                string   `json:"hash"`
	Index               int      `json:"index"`
	L1TransactionHash   *string  `json:"l1_transaction_hash"`
	Type                string   `json:"type" enum:"DECLARE,DEPLOY,DEPLOY_ACCOUNT,INVOKE,L1_HANDLER,OTHER"`
	ClassHash           *string  `json:"class_hash"`
	ContractAddress     *string  `json:"contract_address"`
	SenderAddress       *string  `json:"sender_address"`
	Timestamp           int64    `json:"timestamp"`
	Status              string   `json:"status"`
	ExecutionStatus     string   `json:"execution_status"`
	FinalityStatus      string   `json:"finality_status"`
	RevertError         *string  `json:"revert_error"`
	EntryPointSelector  *string  `json:"entry_point_selector"`
	MaxFee              *string  `json:"max_fee"`
	ActualFee           *string  `json:"actual_fee"`
	ActualFeeUnit       *string  `json:"actual_fee_unit"`
	GasPriceInWei       *string  `json:"gas_price_in_wei"`
	GasPriceInFri       *string  `json:"gas_price_in_fri"`
	Version             *string  `json:"version"`
	Nonce               *string  `json:"nonce"`
	ConstructorCalldata []string `json:"constructor_calldata" nullable:"true"`
	Calldata            []string `json:"calldata" nullable:"true"`
	Calls               []txCall `json:"calls"`
	PartialCallsParsing bool     `json:"partial_calls_parsing"`
	SenderAlias         *string  `json:"sender_alias"`
	ContractAlias       *string  `json:"contract_alias"`
	ClassAlias          *string  `json:"class_alias"`
}

// txCall is a decoded call of a transaction.
type txCall struct {
	ContractAddress string   `json:"contract_address"`
	ClassHash       *string  `json:"class_hash"`
	EntrypointType  string   `json:"entrypoint_type"`
	Entrypoint      string   `json:"entrypoint"`
	Selector        string   `json:"selector"`
	Calldata        []string `json:"calldata"`
	CallType        string   `json:"call_type"`
	Inputs          db.JSON  `json:"inputs" schema:"object"`
	Outputs         db.JSON  `json:"outputs" schema:"any"`
}

// feeUnitNames are the unit names the reference shows for the node's fee units.
var feeUnitNames = map[string]string{"WEI": "ETH", "FRI": "STRK"}

func txActivityOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	if a.has("from_block") && !a.has("sender_address") {
		return nil, badRequest("from_block: may only be used together with sender_address")
	}
	filter := &model.TransactionFilter{SenderAddress: a.felt("sender_address"), FromBlock: a.int("from_block")}
	order := a.direction("sort")
	pg := pageOf(a)
	// Its rows are read with what the items show of them and of their blocks, in the
	// list's statement (db.TxActivity); their aliases and calls follow, a statement each.
	acts, total, err := s.res.TransactionActivities(ctx, pg.first, pg.after, filter, order)
	if err != nil {
		return nil, err
	}
	return pageLoaded(ctx, pg, acts, total, func(a *db.TxActivity) *db.TxActivity { return a },
		s.res.LoadTxActivityLinks, s.txActivity)
}

// txHeader holds what every transaction rendering needs from the transaction resolver.
type txHeader struct {
	blockHash                         db.Felt
	typ, status, execution, finality  string
	senderAlias, contractAlias, alias *string
}

func (s *server) txHeader(ctx context.Context, tx *db.Transaction) (h txHeader, err error) {
	tr := s.res.Transaction()
	if h.blockHash, err = tr.BlockHash(ctx, tx); err != nil {
		return h, err
	}
	h.typ, h.status, h.execution, h.finality = string(tx.Type), tx.Status(), tx.ExecutionStatus(), tx.FinalityStatus()
	names, err := resolvers.TransactionAliases(ctx, tx)
	h.senderAlias, h.contractAlias, h.alias = names[0], names[1], names[2]
	return h, err
}

func (s *server) txActivity(ctx context.Context, a *db.TxActivity) (txActivity, error) {
	tx := &a.Transaction
	names, err := resolvers.TransactionAliases(ctx, tx)
	if err != nil {
		return txActivity{}, err
	}
	out := txActivity{
		BlockHash: hexOrEmpty(a.BlockHash), BlockNumber: tx.BlockNumber, Hash: tx.Hash.Hex(), Index: tx.Index,
		L1TransactionHash: hexOrNil(tx.L1TransactionHash), Type: string(tx.Type), ClassHash: addrOrNil(tx.ClassHash),
		ContractAddress: addrOrNil(tx.ContractAddress), SenderAddress: addrOrNil(tx.SenderAddress),
		Timestamp: tx.Timestamp, Status: tx.Status(), ExecutionStatus: tx.ExecutionStatus(), FinalityStatus: tx.FinalityStatus(),
		RevertError: tx.RevertError, EntryPointSelector: hexOrNil(tx.EntryPointSelector),
		MaxFee: decimalToHex(tx.MaxFee), ActualFee: decimalToHex(&tx.ActualFee),
		GasPriceInWei: decimalToHex(a.GasPriceWei), GasPriceInFri: decimalToHex(a.GasPriceFri),
		Version: ptr("0x" + strconv.FormatInt(int64(tx.Version), 16)), Nonce: decimalToHex(tx.Nonce),
		Calldata:            feltList(tx.Calldata),
		PartialCallsParsing: tx.PartialCallsParsing,
		SenderAlias:         names[0], ContractAlias: names[1], ClassAlias: names[2],
	}
	if out.ContractAddress == nil {
		out.ContractAddress = out.SenderAddress // an account's INVOKE calls the account itself
	}
	if unit, ok := feeUnitNames[tx.ActualFeeUnit]; ok {
		out.ActualFeeUnit = &unit
	} else if tx.ActualFeeUnit != "" {
		out.ActualFeeUnit = ptr(tx.ActualFeeUnit)
	}
	if tx.ConstructorCalldata != nil {
		out.ConstructorCalldata = feltList(tx.ConstructorCalldata)
	}
	out.Calls, err = s.txCalls(ctx, tx, out.Calldata)
	return out, err
}

// txCalls renders tx's calls. calldataHex, when not nil, is tx.Calldata rendered: a call
// whose calldata was cut from the transaction's (db's lean calls, read with the
// transaction's calldata in hand) takes its run of it instead of rendering its felts again.
func (s *server) txCalls(ctx context.Context, tx *db.Transaction, calldataHex []string) ([]txCall, error) {
	calls, err := s.res.Transaction().Calls(ctx, tx)
	if err != nil {
		return nil, err
	}
	out := make([]txCall, 0, len(calls))
	for _, c := range calls {
		entrypoint := c.Selector.Hex()
		if c.Entrypoint != nil {
			entrypoint = *c.Entrypoint
		}
		inputs := c.DecodedInputs()
		if len(inputs) == 0 || inputs[0] != '{' {
			inputs = db.JSON("{}")
		}
		out = append(out, txCall{
			ContractAddress: addr(c.ContractAddress), ClassHash: addrOrNil(c.ClassHash),
			EntrypointType: c.EntrypointType, Entrypoint: entrypoint, Selector: c.Selector.Hex(),
			Calldata: runOf(tx.Calldata, calldataHex, c.Calldata), CallType: c.CallType, Inputs: inputs, Outputs: c.Outputs,
		})
	}
	return out, nil
}

// runOf renders part, reusing whole's rendering (wholeHex) when part is a run of whole's
// own elements (a slice of it, not a copy).
func runOf(whole []db.Felt, wholeHex []string, part []db.Felt) []string {
	if len(part) > 0 && len(wholeHex) == len(whole) {
		for i := range whole {
			if &whole[i] == &part[0] {
				if i+len(part) <= len(whole) {
					return wholeHex[i : i+len(part) : i+len(part)]
				}
				break
			}
		}
	}
	return feltList(part)
}

// metaTxn is an item of GET /beta/meta-txns.
type metaTxn struct {
	BlockNumber        int64   `json:"blockNumber"`
	BlockID            string  `json:"blockId"`
	Hash               string  `json:"hash"`
	Index              int     `json:"index"`
	L1VerificationHash string  `json:"l1VerificationHash"`
	ClassHash          *string `json:"classHash"`
	ContractAddress    *string `json:"contractAddress"`
	Timestamp          int64   `json:"timestamp"`
	ActualFee          *string `json:"actualFee"`
	ContractAlias      *string `json:"contractAlias"`
	ClassAlias         *string `json:"classAlias"`
	SenderAddress      *string `json:"senderAddress"`
	SenderAlias        *string `json:"senderAlias"`
	Status             string  `json:"status"`
	Type               string  `json:"type"`
	Actions            *string `json:"actions"`
	ExecutionStatus    string  `json:"executionStatus"`
	FinalityStatus     string  `json:"finalityStatus"`
	Operations         *string `json:"operations"`
	Name               *string `json:"name"`
	Selector           *string `json:"selector"`
	RevertError        *string `json:"revertError"`
}

func metaTxnsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	conn, err := s.res.Query().MetaTransactions(ctx, &pg.first, pg.after, a.felt("to"))
	if err != nil {
		return nil, err
	}
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.MetaTransactionEdge) *db.MetaTransaction { return e.Node },
		s.res.LoadMetaTransactionLinks, s.metaTxn)
}

func (s *server) metaTxn(ctx context.Context, m *db.MetaTransaction) (metaTxn, error) {
	tx, err := s.res.MetaTransaction().Transaction(ctx, m)
	if err != nil {
		return metaTxn{}, err
	}
	h, err := s.txHeader(ctx, tx)
	if err != nil {
		return metaTxn{}, err
	}
	block, err := s.res.Transaction().Block(ctx, tx)
	if err != nil {
		return metaTxn{}, err
	}
	out := metaTxn{
		BlockNumber: m.BlockNumber, BlockID: hexOrEmpty(h.blockHash), Hash: m.Hash.Hex(), Index: m.Index,
		ClassHash: addrOrNil(tx.ClassHash), ContractAddress: addrOrNil(m.ContractAddress), Timestamp: tx.Timestamp,
		ActualFee: ptr(tx.ActualFee), ClassAlias: h.alias, SenderAddress: addrOrNil(tx.SenderAddress),
		SenderAlias: h.senderAlias, Status: h.status, Type: h.typ, ExecutionStatus: h.execution,
		FinalityStatus: h.finality, RevertError: tx.RevertError,
	}
	if block != nil {
		out.L1VerificationHash = hexOrEmpty(block.L1VerificationTxHash)
	}
	if len(m.Actions) > 0 && string(m.Actions) != "null" {
		out.Actions = ptr(string(m.Actions))
	}
	account, err := s.res.Query().Contract(ctx, m.ContractAddress)
	if err != nil {
		return out, err
	}
	if account != nil {
		if out.ContractAlias, err = s.res.Contract().Alias(ctx, account); err != nil {
			return out, err
		}
	}
	// name and selector are the outside-execution call's; operations lists it first, then
	// the calls it ran, as the reference's "execute_from_outside_v3,claim_reward_token".
	calls, err := s.res.Transaction().Calls(ctx, tx)
	if err != nil {
		return out, err
	}
	var ops []string
	for _, c := range calls {
		if c.Index == m.CallIndex {
			out.Selector = ptr(c.Selector.Hex())
			if c.Entrypoint != nil {
				out.Name = c.Entrypoint
				ops = append(ops, *c.Entrypoint)
			}
		}
	}
	if m.Operations != "" {
		ops = append(ops, m.Operations)
	}
	if len(ops) > 0 {
		out.Operations = ptr(strings.Join(ops, ","))
	}
	return out, nil
}
