package db

// The write side of the store, used only by the indexer. Everything here runs inside the
// caller's SQL transaction, so a block (or a batch of blocks) is written all or nothing.
//
// Conventions of the row types below: felts are Felt (nil = NULL); u256 amounts, fees and
// prices are decimal strings ("" = NULL); jsonb values are JSON (nil = NULL).

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// BlockRow is one row of blocks.
type BlockRow struct {
	Number            int64  `db:"number"`
	Hash              Felt   `db:"hash"`
	ParentHash        Felt   `db:"parent_hash"`
	Timestamp         int64  `db:"timestamp"`
	Status            string `db:"status"`
	StateRoot         Felt   `db:"state_root"`
	SequencerAddress  Felt   `db:"sequencer_address"`
	StarknetVersion   string `db:"starknet_version"`
	L1DAMode          string `db:"l1_da_mode,nullempty"`
	L1GasPriceWei     string `db:"l1_gas_price_wei,nullempty"`
	L1GasPriceFri     string `db:"l1_gas_price_fri,nullempty"`
	L1DataGasPriceWei string `db:"l1_data_gas_price_wei,nullempty"`
	L1DataGasPriceFri string `db:"l1_data_gas_price_fri,nullempty"`
	L2GasPriceWei     string `db:"l2_gas_price_wei,nullempty"`
	L2GasPriceFri     string `db:"l2_gas_price_fri,nullempty"`
	TxCount           int    `db:"tx_count"`
	EventCount        int    `db:"event_count"`
	MessageCount      int    `db:"message_count"`
	// Actual fees of the block's transactions per unit (decimal sums), and how many paid in each.
	FeesWei   string `db:"fees_wei,zeroempty"`
	FeeTxsWei int    `db:"fee_txs_wei"`
	FeesFri   string `db:"fees_fri,zeroempty"`
	FeeTxsFri int    `db:"fee_txs_fri"`
}

// TransactionRow is one row of transactions.
type TransactionRow struct {
	BlockNumber           int64     `db:"block_number"`
	TxIndex               int       `db:"tx_index"`
	Hash                  Felt      `db:"hash"`
	Type                  string    `db:"type"`
	Version               int       `db:"version"`
	Timestamp             int64     `db:"timestamp"`
	SenderAddress         Felt      `db:"-"`
	ContractAddress       Felt      `db:"-"`
	ClassHash             Felt      `db:"-"`
	SenderID              *int32    `db:"sender_id"` // the felt ids of the three (nil: none), set when written (felt_ids.go)
	ContractID            *int32    `db:"contract_id"`
	ClassID               *int32    `db:"class_id"`
	EntryPointSelector    Felt      `db:"entry_point_selector"`
	Nonce                 string    `db:"nonce,nullempty"`
	MaxFee                string    `db:"max_fee,nullempty"`
	Tip                   string    `db:"tip,nullempty"`
	ActualFee             string    `db:"actual_fee"`
	ActualFeeUnit         string    `db:"actual_fee_unit"`
	ExecutionStatus       string    `db:"execution_status"`
	FinalityStatus        string    `db:"finality_status"`
	RevertReason          *string   `db:"revert_reason"`
	Calldata              FeltArray `db:"calldata,emptyarray"`
	ConstructorCalldata   FeltArray `db:"constructor_calldata"`
	Signature             FeltArray `db:"signature,emptyarray"`
	CompiledClassHash     Felt      `db:"compiled_class_hash"`
	ContractAddressSalt   Felt      `db:"contract_address_salt"`
	PaymasterData         FeltArray `db:"paymaster_data"`
	AccountDeploymentData FeltArray `db:"account_deployment_data"`
	NonceDAMode           string    `db:"nonce_da_mode,nullempty"`
	FeeDAMode             string    `db:"fee_da_mode,nullempty"`
	MessageHash           Felt      `db:"message_hash"`
	L1TransactionHash     Felt      `db:"l1_transaction_hash"`
	EventCount            int       `db:"event_count"`
	PartialCallsParsing   bool      `db:"partial_calls_parsing"`
	// The v3 resource bounds in decimal ("" = NULL: before v3), and the gas the receipt
	// says was used (migration 00041).
	MaxL1Gas          string `db:"max_l1_gas,nullempty"`
	MaxL1GasPrice     string `db:"max_l1_gas_price,nullempty"`
	MaxL2Gas          string `db:"max_l2_gas,nullempty"`
	MaxL2GasPrice     string `db:"max_l2_gas_price,nullempty"`
	MaxL1DataGas      string `db:"max_l1_data_gas,nullempty"`
	MaxL1DataGasPrice string `db:"max_l1_data_gas_price,nullempty"`
	L1GasUsed         string `db:"l1_gas_used,nullempty"`
	L2GasUsed         string `db:"l2_gas_used,nullempty"`
	L1DataGasUsed     string `db:"l1_data_gas_used,nullempty"`
}

// CallRow is one decoded call of a transaction.
type CallRow struct {
	BlockNumber     int64  `db:"block_number"`
	TxIndex         int    `db:"tx_index"`
	CallIndex       int    `db:"call_index"`
	ContractAddress Felt   `db:"-"`
	Selector        Felt   `db:"-"`
	Entrypoint      string `db:"entrypoint,nullempty"` // "" = unknown
	ClassHash       Felt   `db:"-"`                    // nil: unknown
	// The three felts above by felt id (migration 00048), filled in when written
	// (felt_ids.go); ClassID is nil when ClassHash is.
	ContractID int32  `db:"contract_id"`
	SelectorID int32  `db:"selector_id"`
	ClassID    *int32 `db:"class_id"`
	// The call's calldata is its transaction's calldata[CalldataOffset : +CalldataLength]
	// when the offset is set, and Calldata is nil (NULL) then; otherwise Calldata holds it.
	// Within a transaction, every call has a position or none has (migration 00043). Its
	// inputs are decoded when read (call_inputs.go), never written.
	Calldata       FeltArray `db:"calldata"`
	CalldataOffset *int16    `db:"calldata_offset"`
	CalldataLength *int16    `db:"calldata_length"`
}

// EventRow is one event of a receipt.
type EventRow struct {
	BlockNumber int64     `db:"block_number"`
	TxIndex     int       `db:"tx_index"`
	EventIndex  int       `db:"event_index"`
	FromAddress Felt      `db:"-"`
	FromID      int32     `db:"from_id"` // FromAddress's felt id, filled in when written (felt_ids.go)
	Keys        FeltArray `db:"-"`
	Data        FeltArray `db:"-"`
	// How the row stores Keys and Data, set by InsertChainRows: the first key as Key0ID,
	// its felt id (nil: no keys), in a column of its own for its index (migration 00050);
	// the other keys and the data as they are, or, for an ERC-20 Transfer event, empty,
	// TransferLayout naming how its transfer makes them (migration 00051,
	// transfer_events.go).
	Key0ID         *int32    `db:"key0_id"`
	KeysTail       FeltArray `db:"keys_tail,emptyarray"`
	DataStored     FeltArray `db:"data,emptyarray"`
	TransferLayout *int16    `db:"transfer_layout"`
}

// NFTEventRow is one row of nft_events.
type NFTEventRow struct {
	BlockNumber     int64  `db:"block_number"`
	TxIndex         int    `db:"tx_index"`
	EventIndex      int    `db:"event_index"`
	SubIndex        int    `db:"sub_index"`
	ContractAddress Felt   `db:"contract_address"`
	TokenID         string `db:"token_id"`
	FromAddress     Felt   `db:"from_address"`
	ToAddress       Felt   `db:"to_address"`
	Quantity        string `db:"quantity"`
	Type            string `db:"type"` // Mint | Transfer | Burn
	TransactionHash Felt   `db:"transaction_hash"`
	Timestamp       int64  `db:"timestamp"`
	// A sale: what the buyer paid in the transaction (in PaymentToken's smallest unit),
	// and the marketplace it called; empty for a plain transfer.
	PaymentToken  Felt   `db:"payment_token_address"`
	PaymentSymbol string `db:"payment_token_symbol,nullempty"`
	TotalPrice    string `db:"total_price,nullempty"`
	Marketplace   Felt   `db:"marketplace_contract_address"`
}

// MetaTransactionRow is one outside execution.
type MetaTransactionRow struct {
	BlockNumber     int64  `db:"block_number"`
	TxIndex         int    `db:"tx_index"`
	CallIndex       int    `db:"call_index"`
	ContractAddress Felt   `db:"contract_address"`
	CallerAddress   Felt   `db:"caller_address"`
	Version         int    `db:"version"`
	Operations      string `db:"operations"`
	Actions         JSON   `db:"actions"`
}

// BalancePoint is a wallet's ERC-20 balance after a block that changed it (a row of
// erc20_balance_changes). The block's time is not stored with it (migration 00042):
// readers join the block (b) for it.
type BalancePoint struct {
	// The token and the owner, as the indexer derives them. The row names them by their
	// felt ids (felt_ids.go), filled in when the row is written: a row read back has the
	// ids alone.
	Token       Felt   `db:"-"`
	Owner       Felt   `db:"-"`
	TokenID     int32  `db:"token_id"`
	OwnerID     int32  `db:"owner_id"`
	BlockNumber int64  `db:"block_number"`
	Balance     string `db:"balance,numeric"`
	Timestamp   int64  `db:"timestamp,from=b.timestamp"`
}

// ChainRows are the append-only rows of one or more blocks: they are removed on a reorg by
// the cascade from blocks, so they need no journal.
type ChainRows struct {
	Blocks           []BlockRow
	Transactions     []TransactionRow
	Calls            []CallRow
	Events           []EventRow
	NFTEvents        []NFTEventRow
	TokenTransfers   []TokenTransfer
	MetaTransactions []MetaTransactionRow
	BalancePoints    []BalancePoint
	Messages         []Message
	StakingActivity  []StakingOperation
	Attestations     []Attestation
	// Counts, during a bulk load, keeps the counts of the rows' keys in memory instead of
	// key_counts (bulk_derived.go); nil: key_counts.
	Counts *BulkKeyCounts
}

// chainTable is one table of ChainRows: its name, its rows' shape, and the rows.
type chainTable struct {
	name  string
	shape *rowShape
	n     int
	row   func(i int) []any
}

func chainTableOf[T any](name string, rows []T) chainTable {
	s := rowShapeOf[T]()
	return chainTable{name, s, len(rows), func(i int) []any { return s.values(reflect.ValueOf(&rows[i]).Elem()) }}
}

// tables are the rows by table, parents first.
func (r *ChainRows) tables() []chainTable {
	return append(r.ownTables(), r.besideTables()...)
}

// ownTables are the tables a batch's own transaction always writes: those a later step of
// the batch reads or updates (blocks, transactions), or whose primary key does not begin
// with the block.
func (r *ChainRows) ownTables() []chainTable {
	return []chainTable{
		chainTableOf("blocks", r.Blocks),
		chainTableOf("transactions", r.Transactions),
		chainTableOf("erc20_balance_changes", r.BalancePoints),
	}
}

// besideTables are the children of transactions (and blocks) that nothing else in a batch
// reads, each keyed by block first: a bulk load may write them beside the batch's own
// transaction (beside.go).
func (r *ChainRows) besideTables() []chainTable {
	return []chainTable{
		chainTableOf("calls", r.Calls),
		chainTableOf("events", r.Events),
		chainTableOf("nft_events", r.NFTEvents),
		chainTableOf("token_transfers", r.TokenTransfers),
		chainTableOf("meta_transactions", r.MetaTransactions),
		chainTableOf("messages", r.Messages),
		chainTableOf("staking_activity", r.StakingActivity),
		chainTableOf("attestations", r.Attestations),
	}
}

// InsertChainRows bulk-loads the rows with COPY, parents first, and counts them under their
// keys (key_positions.go).
func InsertChainRows(ctx context.Context, tx *WriteTx, r *ChainRows) error {
	if err := r.storedForms(ctx, tx); err != nil {
		return err
	}
	if err := copyTables(ctx, tx, r.tables()); err != nil {
		return err
	}
	return recordKeyPositions(ctx, tx, r)
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
func InsertChainRowsOneByOne(ctx context.Context, tx *WriteTx, r *ChainRows) error {
	if err := r.storedForms(ctx, tx); err != nil {
		return err
	}
	for _, t := range r.tables() {
		marks := make([]string, len(t.shape.written))
		for i := range marks {
			marks[i] = fmt.Sprintf("$%d", i+1)
		}
		q := "INSERT INTO " + t.name + " (" + strings.Join(t.shape.written, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
		for i := 0; i < t.n; i++ {
			if _, err := tx.ExecContext(ctx, q, cleanArgs(t.row(i))...); err != nil {
				return fmt.Errorf("insert %s: %w", t.name, err)
			}
		}
	}
	return recordKeyPositions(ctx, tx, r)
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
