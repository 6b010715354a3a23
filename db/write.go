package db

// The write side of the store, used only by the indexer. Everything here runs inside the
// caller's SQL transaction, so a block (or a batch of blocks) is written all or nothing.
//
// Conventions of the row types below: felts are Felt (nil = NULL); u256 amounts, fees and
// prices are decimal strings ("" = NULL); jsonb values are JSON (nil = NULL).

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
)

// BlockRow is one row of blocks.
type BlockRow struct {
	Number            int64
	Hash              Felt
	ParentHash        Felt
	Timestamp         int64
	Status            string
	StateRoot         Felt
	SequencerAddress  Felt
	StarknetVersion   string
	L1DAMode          string
	L1GasPriceWei     string
	L1GasPriceFri     string
	L1DataGasPriceWei string
	L1DataGasPriceFri string
	L2GasPriceWei     string
	L2GasPriceFri     string
	TxCount           int
	EventCount        int
	MessageCount      int
	// Actual fees of the block's transactions per unit (decimal sums), and how many paid in each.
	FeesWei, FeesFri     string
	FeeTxsWei, FeeTxsFri int
}

var blockColumns = []string{"number", "hash", "parent_hash", "timestamp", "status", "state_root",
	"sequencer_address", "starknet_version", "l1_da_mode", "l1_gas_price_wei", "l1_gas_price_fri",
	"l1_data_gas_price_wei", "l1_data_gas_price_fri", "l2_gas_price_wei", "l2_gas_price_fri",
	"tx_count", "event_count", "message_count", "fees_wei", "fee_txs_wei", "fees_fri", "fee_txs_fri"}

func (b *BlockRow) values() []any {
	return []any{b.Number, b.Hash, b.ParentHash, b.Timestamp, b.Status, b.StateRoot,
		b.SequencerAddress, b.StarknetVersion, text(b.L1DAMode), text(b.L1GasPriceWei), text(b.L1GasPriceFri),
		text(b.L1DataGasPriceWei), text(b.L1DataGasPriceFri), text(b.L2GasPriceWei), text(b.L2GasPriceFri),
		int64(b.TxCount), int64(b.EventCount), int64(b.MessageCount), orZero(b.FeesWei), int64(b.FeeTxsWei), orZero(b.FeesFri), int64(b.FeeTxsFri)}
}

// TransactionRow is one row of transactions.
type TransactionRow struct {
	BlockNumber           int64
	TxIndex               int
	Hash                  Felt
	Type                  string
	Version               int
	Timestamp             int64
	SenderAddress         Felt
	ContractAddress       Felt
	ClassHash             Felt
	EntryPointSelector    Felt
	Nonce                 string
	MaxFee                string
	Tip                   string
	ResourceBounds        JSON
	ActualFee             string
	ActualFeeUnit         string
	ExecutionStatus       string
	FinalityStatus        string
	RevertReason          *string
	Calldata              FeltArray
	ConstructorCalldata   FeltArray
	Signature             FeltArray
	CompiledClassHash     Felt
	ContractAddressSalt   Felt
	PaymasterData         FeltArray
	AccountDeploymentData FeltArray
	NonceDAMode           string
	FeeDAMode             string
	MessageHash           Felt
	L1TransactionHash     Felt
	ExecutionResources    JSON
	EventCount            int
	PartialCallsParsing   bool
}

var transactionColumns = []string{"block_number", "tx_index", "hash", "type", "version", "timestamp",
	"sender_address", "contract_address", "class_hash", "entry_point_selector", "nonce", "max_fee", "tip",
	"resource_bounds", "actual_fee", "actual_fee_unit", "execution_status", "finality_status",
	"revert_reason", "calldata", "constructor_calldata", "signature", "compiled_class_hash",
	"contract_address_salt", "paymaster_data", "account_deployment_data", "nonce_da_mode", "fee_da_mode",
	"message_hash", "l1_transaction_hash", "execution_resources", "event_count", "partial_calls_parsing"}

func (t *TransactionRow) values() []any {
	var revert any
	if t.RevertReason != nil {
		revert = *t.RevertReason
	}
	calldata := t.Calldata
	if calldata == nil {
		calldata = FeltArray{}
	}
	signature := t.Signature
	if signature == nil {
		signature = FeltArray{}
	}
	return []any{t.BlockNumber, int64(t.TxIndex), t.Hash, t.Type, int64(t.Version), t.Timestamp,
		t.SenderAddress, t.ContractAddress, t.ClassHash, t.EntryPointSelector, text(t.Nonce), text(t.MaxFee), text(t.Tip),
		jsonText(t.ResourceBounds), t.ActualFee, t.ActualFeeUnit, t.ExecutionStatus, t.FinalityStatus,
		revert, calldata, t.ConstructorCalldata, signature, t.CompiledClassHash,
		t.ContractAddressSalt, t.PaymasterData, t.AccountDeploymentData, text(t.NonceDAMode), text(t.FeeDAMode),
		t.MessageHash, t.L1TransactionHash, jsonText(t.ExecutionResources), int64(t.EventCount), t.PartialCallsParsing}
}

// CallRow is one decoded call of a transaction.
type CallRow struct {
	BlockNumber     int64
	TxIndex         int
	CallIndex       int
	ContractAddress Felt
	Selector        Felt
	Entrypoint      string // "" = unknown
	ClassHash       Felt
	Calldata        FeltArray
	Inputs          JSON // arguments by name, when the callee's ABI explains the calldata
}

var callColumns = []string{"block_number", "tx_index", "call_index", "contract_address", "selector",
	"entrypoint", "class_hash", "calldata", "inputs"}

func (c *CallRow) values() []any {
	calldata := c.Calldata
	if calldata == nil {
		calldata = FeltArray{}
	}
	return []any{c.BlockNumber, int64(c.TxIndex), int64(c.CallIndex), c.ContractAddress, c.Selector,
		text(c.Entrypoint), c.ClassHash, calldata, jsonText(c.Inputs)}
}

// EventRow is one event of a receipt.
type EventRow struct {
	BlockNumber int64
	TxIndex     int
	EventIndex  int
	FromAddress Felt
	Keys        FeltArray
	Data        FeltArray
}

var eventColumns = []string{"block_number", "tx_index", "event_index", "from_address", "key0", "keys", "data"}

func (e *EventRow) values() []any {
	var key0 any
	if len(e.Keys) > 0 {
		key0 = e.Keys[0]
	}
	keys, data := e.Keys, e.Data
	if keys == nil {
		keys = FeltArray{}
	}
	if data == nil {
		data = FeltArray{}
	}
	return []any{e.BlockNumber, int64(e.TxIndex), int64(e.EventIndex), e.FromAddress, key0, keys, data}
}

// NFTEventRow is one row of nft_events.
type NFTEventRow struct {
	BlockNumber     int64
	TxIndex         int
	EventIndex      int
	SubIndex        int
	ContractAddress Felt
	TokenID         string
	FromAddress     Felt
	ToAddress       Felt
	Quantity        string
	Type            string // Mint | Transfer | Burn
	TransactionHash Felt
	Timestamp       int64
}

var nftEventColumns = []string{"block_number", "tx_index", "event_index", "sub_index", "contract_address",
	"token_id", "from_address", "to_address", "quantity", "type", "transaction_hash", "timestamp"}

func (n *NFTEventRow) values() []any {
	return []any{n.BlockNumber, int64(n.TxIndex), int64(n.EventIndex), int64(n.SubIndex), n.ContractAddress,
		n.TokenID, n.FromAddress, n.ToAddress, n.Quantity, n.Type, n.TransactionHash, n.Timestamp}
}

// TokenTransferRow is one ERC-20 transfer.
type TokenTransferRow struct {
	BlockNumber     int64
	TxIndex         int
	EventIndex      int
	TokenAddress    Felt
	FromAddress     Felt
	ToAddress       Felt
	Amount          string // decimal
	TransactionHash Felt
	Timestamp       int64
}

var tokenTransferColumns = []string{"block_number", "tx_index", "event_index", "token_address",
	"from_address", "to_address", "amount", "transaction_hash", "timestamp"}

func (t *TokenTransferRow) values() []any {
	return []any{t.BlockNumber, int64(t.TxIndex), int64(t.EventIndex), t.TokenAddress, t.FromAddress,
		t.ToAddress, t.Amount, t.TransactionHash, t.Timestamp}
}

// MetaTransactionRow is one outside execution.
type MetaTransactionRow struct {
	BlockNumber     int64
	TxIndex         int
	CallIndex       int
	ContractAddress Felt
	CallerAddress   Felt
	Version         int
	Operations      string
	Actions         JSON
}

var metaTransactionColumns = []string{"block_number", "tx_index", "call_index", "contract_address",
	"caller_address", "version", "operations", "actions"}

func (m *MetaTransactionRow) values() []any {
	return []any{m.BlockNumber, int64(m.TxIndex), int64(m.CallIndex), m.ContractAddress, m.CallerAddress,
		int64(m.Version), m.Operations, jsonText(m.Actions)}
}

// ChainRows are the append-only rows of one or more blocks: they are removed on a reorg by
// the cascade from blocks, so they need no journal.
type ChainRows struct {
	Blocks           []BlockRow
	Transactions     []TransactionRow
	Calls            []CallRow
	Events           []EventRow
	NFTEvents        []NFTEventRow
	TokenTransfers   []TokenTransferRow
	MetaTransactions []MetaTransactionRow
}

// InsertChainRows bulk-loads the rows with COPY, parents first.
func InsertChainRows(ctx context.Context, tx *sqlx.Tx, r *ChainRows) error {
	if err := copyRows(ctx, tx, "blocks", blockColumns, len(r.Blocks), func(i int) []any { return r.Blocks[i].values() }); err != nil {
		return err
	}
	if err := copyRows(ctx, tx, "transactions", transactionColumns, len(r.Transactions), func(i int) []any { return r.Transactions[i].values() }); err != nil {
		return err
	}
	if err := copyRows(ctx, tx, "calls", callColumns, len(r.Calls), func(i int) []any { return r.Calls[i].values() }); err != nil {
		return err
	}
	if err := copyRows(ctx, tx, "events", eventColumns, len(r.Events), func(i int) []any { return r.Events[i].values() }); err != nil {
		return err
	}
	if err := copyRows(ctx, tx, "nft_events", nftEventColumns, len(r.NFTEvents), func(i int) []any { return r.NFTEvents[i].values() }); err != nil {
		return err
	}
	if err := copyRows(ctx, tx, "token_transfers", tokenTransferColumns, len(r.TokenTransfers), func(i int) []any { return r.TokenTransfers[i].values() }); err != nil {
		return err
	}
	return copyRows(ctx, tx, "meta_transactions", metaTransactionColumns, len(r.MetaTransactions), func(i int) []any { return r.MetaTransactions[i].values() })
}

// copyRows streams n rows into table with COPY FROM STDIN.
func copyRows(ctx context.Context, tx *sqlx.Tx, table string, columns []string, n int, row func(i int) []any) error {
	if n == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, "COPY "+table+" ("+strings.Join(columns, ", ")+") FROM STDIN")
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	defer stmt.Close()
	for i := 0; i < n; i++ {
		if _, err := stmt.ExecContext(ctx, cleanArgs(row(i))...); err != nil {
			return fmt.Errorf("copy %s: %w", table, err)
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	return nil
}

// text is a nullable text or numeric value: "" is NULL.
func text(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// orZero is a NOT NULL numeric value: "" is 0.
func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// jsonText passes jsonb as text (COPY would otherwise encode bytes as bytea).
func jsonText(j JSON) any {
	if j == nil {
		return nil
	}
	return string(j)
}

// InsertChainRowsOneByOne writes the same rows as InsertChainRows with one INSERT per row.
// It exists as the baseline of the indexer benchmark, to measure what COPY buys.
func InsertChainRowsOneByOne(ctx context.Context, tx *sqlx.Tx, r *ChainRows) error {
	tables := []struct {
		name    string
		columns []string
		n       int
		row     func(i int) []any
	}{
		{"blocks", blockColumns, len(r.Blocks), func(i int) []any { return r.Blocks[i].values() }},
		{"transactions", transactionColumns, len(r.Transactions), func(i int) []any { return r.Transactions[i].values() }},
		{"calls", callColumns, len(r.Calls), func(i int) []any { return r.Calls[i].values() }},
		{"events", eventColumns, len(r.Events), func(i int) []any { return r.Events[i].values() }},
		{"nft_events", nftEventColumns, len(r.NFTEvents), func(i int) []any { return r.NFTEvents[i].values() }},
		{"token_transfers", tokenTransferColumns, len(r.TokenTransfers), func(i int) []any { return r.TokenTransfers[i].values() }},
		{"meta_transactions", metaTransactionColumns, len(r.MetaTransactions), func(i int) []any { return r.MetaTransactions[i].values() }},
	}
	for _, t := range tables {
		marks := make([]string, len(t.columns))
		for i := range marks {
			marks[i] = fmt.Sprintf("$%d", i+1)
		}
		q := "INSERT INTO " + t.name + " (" + strings.Join(t.columns, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
		for i := 0; i < t.n; i++ {
			if _, err := tx.ExecContext(ctx, q, t.row(i)...); err != nil {
				return fmt.Errorf("insert %s: %w", t.name, err)
			}
		}
	}
	return nil
}

// cleanArgs makes the text values of a row storable: PostgreSQL refuses NUL characters and
// invalid UTF-8 in text, and the \u0000 escape in jsonb. Such values come from the chain
// (revert reasons, ABIs, token names) and must not stop the indexer.
func cleanArgs(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = cleanText(s)
		}
	}
	return args
}

func cleanText(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, "\x00") && !strings.Contains(s, `\u0000`) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	return strings.ReplaceAll(s, `\u0000`, `\ufffd`)
}
