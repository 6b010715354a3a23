package db

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lib/pq"
)

// Reads of blocks, transactions, calls and events.

// blockCols read a whole block; blockListCols leave its details out (Block).
var (
	blockCols     = rowShapeOf[Block]().selectList("")
	blockListCols = rowShapeOf[Block]().listSelectList("")
)

// BlockByHash returns nil when no block has that hash.
func (s *Store) BlockByHash(ctx context.Context, hash Felt) (*Block, error) {
	var b Block
	ok, err := s.getRow(ctx, &b, `SELECT `+blockCols+` FROM blocks WHERE hash = $1`, hash)
	if !ok {
		return nil, err
	}
	return &b, nil
}

// LatestBlock returns nil on an empty chain.
func (s *Store) LatestBlock(ctx context.Context) (*Block, error) {
	var b Block
	ok, err := s.getRow(ctx, &b, `SELECT `+blockCols+` FROM blocks ORDER BY number DESC LIMIT 1`)
	if !ok {
		return nil, err
	}
	return &b, nil
}

// BlocksByNumber returns the blocks that exist among numbers.
func (s *Store) BlocksByNumber(ctx context.Context, numbers []int64) ([]*Block, error) {
	var rows []*Block
	err := s.selectRows(ctx, &rows, `SELECT `+blockCols+` FROM blocks WHERE number = ANY($1)`, pq.Array(numbers))
	return rows, err
}

// BlockHash is a block's number and hash: what a row that names its block by number (a
// contract's deploy block) shows of it. (Not BlockRef: gqlgen binds the schema's input of
// that name to this package's type.)
type BlockHash struct {
	Number int64 `db:"number"`
	Hash   Felt  `db:"hash"`
}

// BlockHashesByNumber returns the hashes of the blocks among numbers. A page of 25 contracts
// showing their deploy blocks' hashes read the whole rows (BlocksByNumber) for them, and
// scanning those wide rows was a fifth of the page's CPU.
func (s *Store) BlockHashesByNumber(ctx context.Context, numbers []int64) ([]*BlockHash, error) {
	var rows []*BlockHash
	err := s.selectRows(ctx, &rows, `SELECT number, hash FROM blocks WHERE number = ANY($1)`, pq.Array(numbers))
	return rows, err
}

// Blocks lists blocks, newest first, without their details; keyset: (number).
func (s *Store) Blocks(ctx context.Context, w Window) ([]*Block, error) {
	var rows []*Block
	if w.After == nil && w.Offset > 0 {
		// A page further down seeks to its first block, without reading those above it:
		// the indexer writes blocks in order from its first one, so their numbers have no
		// gaps, and the block offset rows below the newest is numbered offset less.
		err := s.selectRows(ctx, &rows, `SELECT `+blockListCols+` FROM blocks
			WHERE number <= (SELECT max(number) FROM blocks) - $1 ORDER BY number DESC LIMIT $2`, w.Offset, w.Limit)
		return rows, err
	}
	where, tail, args := w.keyset([]string{"number"}, true, 1)
	err := s.selectRows(ctx, &rows, `SELECT `+blockListCols+` FROM blocks`+and(where)+tail, args...)
	return rows, err
}

// txListCols are the columns of a transaction that its list items show: lists read only
// these. The rest (entry point, nonce, fees asked for, resource bounds and use, DA modes,
// hashes of L1 and of declared classes, and the payload: calldata, constructor calldata,
// signature, paymaster and account deployment data) is most of a row's bytes and of the
// time spent reading it; Transaction.DetailsLoaded says which form a row has, and the
// whole row of a listed transaction comes through the request's Transaction loader when a
// client asks for one of those fields.
const txListCols = `t.block_number, t.tx_index, t.hash, t.type, t.version, t.timestamp, t.sender_id,
	t.contract_id, t.class_id, t.actual_fee::text, t.actual_fee_unit, t.execution_status,
	t.finality_status, t.revert_reason, t.event_count`

// txCols are every column of a transaction, for lookups of single transactions.
const txCols = txListCols + `, t.entry_point_selector, t.nonce::text, t.max_fee::text, t.tip::text,
	t.compiled_class_hash, t.contract_address_salt, t.nonce_da_mode, t.fee_da_mode,
	t.message_hash, t.l1_transaction_hash, t.partial_calls_parsing,
	t.max_l1_gas::text, t.max_l1_gas_price::text, t.max_l2_gas::text, t.max_l2_gas_price::text,
	t.max_l1_data_gas::text, t.max_l1_data_gas_price::text, t.l1_gas_used::text, t.l2_gas_used::text, t.l1_data_gas_used::text,
	t.calldata, t.constructor_calldata, t.signature, t.paymaster_data, t.account_deployment_data,
	true AS details_loaded`

// TxKey names a transaction by its position.
type TxKey struct {
	Block int64
	Index int
}

// TransactionsByHash returns the transactions that exist among hashes, each with its
// block (whole, as BlocksByNumber reads it): a transaction looked up by its hash is shown
// with its block's hash (REST's details, GraphQL's block), and the two rows cost one
// statement instead of three. Each hash is looked up in transactions_hash, the index of the
// hashes' first six bytes (migration 00049): one probe in each partition, then the whole
// hash compared in the row.
func (s *Store) TransactionsByHash(ctx context.Context, hashes []Felt) ([]*Transaction, []*Block, error) {
	var rows []struct {
		Transaction
		Block Block `db:"b"`
	}
	if err := s.selectRows(ctx, &rows, `SELECT `+txCols+`, `+txBlockCols+` FROM unnest($1::bytea[]) AS h(hash)
		JOIN transactions t ON `+txHashMatches("h.hash")+`
		JOIN blocks b ON b.number = t.block_number`, feltList(hashes)); err != nil {
		return nil, nil, err
	}
	txs, blocks := make([]*Transaction, len(rows)), make([]*Block, len(rows))
	for i := range rows {
		txs[i], blocks[i] = &rows[i].Transaction, &rows[i].Block
	}
	return txs, blocks, s.nameTransactions(ctx, txs)
}

// hashPrefix is the expression transactions_hash indexes (migration 00049), of a hash expr:
// its first six bytes, which keep the hashes' order.
func hashPrefix(expr string) string { return "substring(" + expr + ", 1, 6)" }

// txHashMatches is the condition that transactions t has the hash of expr, written so that
// it is looked up in transactions_hash.
func txHashMatches(expr string) string {
	return hashPrefix("t.hash") + " = " + hashPrefix(expr) + " AND t.hash = " + expr
}

// txBlockCols read a transaction's whole block beside it, as the field tagged `db:"b"`.
var txBlockCols = rowShapeOf[Block]().nestedSelectList("b", "b")

// TransactionsByKey returns the transactions at the given positions. The blocks' span is
// given apart too, so that the plan opens only their partitions (CallsByTx).
func (s *Store) TransactionsByKey(ctx context.Context, keys []TxKey) ([]*Transaction, error) {
	blocks, idx := txKeyArrays(keys)
	lo, hi := blockSpan(blocks)
	var rows []*Transaction
	err := s.selectRows(ctx, &rows, `SELECT `+txCols+` FROM transactions t
		JOIN unnest($1::bigint[], $2::int[]) AS k(b, i) ON t.block_number = k.b AND t.tx_index = k.i
		WHERE t.block_number BETWEEN $3 AND $4`,
		blocks, idx, lo, hi)
	if err != nil {
		return nil, err
	}
	return rows, s.nameTransactions(ctx, rows)
}

// TxFilter narrows a transaction list; zero fields do not filter.
type TxFilter struct {
	Sender    Felt
	Contract  Felt
	Type      TxType
	FromBlock *int64
	ToBlock   *int64
	Block     *int64
}

func (f TxFilter) where(args *[]any) []string {
	var conds []string
	if f.Sender != nil {
		conds = append(conds, "t.sender_id = "+feltID(arg(args, f.Sender)))
	}
	if f.Contract != nil {
		conds = append(conds, "t.contract_id = "+feltID(arg(args, f.Contract)))
	}
	if f.Type != "" {
		conds = append(conds, "t.type = "+arg(args, f.Type))
	}
	if f.FromBlock != nil {
		conds = append(conds, "t.block_number >= "+arg(args, *f.FromBlock))
	}
	if f.ToBlock != nil {
		conds = append(conds, "t.block_number <= "+arg(args, *f.ToBlock))
	}
	if f.Block != nil {
		conds = append(conds, "t.block_number = "+arg(args, *f.Block))
	}
	return conds
}

// Transactions lists transactions in chain order (desc: newest first); keyset:
// (block_number, tx_index).
func (s *Store) Transactions(ctx context.Context, f TxFilter, desc bool, w Window) ([]*Transaction, error) {
	rows, err := transactionList(ctx, s, `SELECT `+txListCols+` FROM transactions t`, f, desc, w,
		func(t *Transaction) []any { return []any{t.BlockNumber, t.Index} })
	if err != nil {
		return nil, err
	}
	return rows, s.nameTransactions(ctx, rows)
}

// txActivityCols are what an item of REST's tx-activity shows of its transaction: the
// list's columns, of its details the entry point, nonce, fee asked for, L1 transaction,
// whether its calls were parsed in part and its calldata (its calls are cut from it) and
// constructor calldata, and its block's hash and L1 gas prices (txActivityFrom). Not
// its signature, paymaster and account deployment data, resource bounds and use, DA modes
// and hashes of declared classes, which the item does not show: read whole, a page's
// 26 rows were 41 columns each, which the service scanned for a third of its time.
const txActivityCols = txListCols + `, t.entry_point_selector, t.nonce::text, t.max_fee::text,
	t.l1_transaction_hash, t.partial_calls_parsing, t.calldata, t.constructor_calldata,
	b.hash AS block_hash, b.l1_gas_price_wei::text AS block_gas_price_wei, b.l1_gas_price_fri::text AS block_gas_price_fri`

// txActivityFrom joins each transaction of a page to its block, for the block's hash and
// gas prices: an index probe per row of the page (3 buffers each, about 0.04 ms of
// PostgreSQL's time for 26 rows on the 1M bench), where reading the page's blocks by
// their numbers was a statement of its own, a round trip each way. LIMIT 1 keeps the
// block a nested loop's inner side, probed once per row: joined plainly, the whole chain's
// page by position (transactionsAt), whose generic plan expects a tenth of the table
// under its LIMIT, merged blocks_pkey from the chain's first block with the page (4,626
// blocks and 200 buffers for a page a million rows down the 10M bench, 0.9 ms).
const txActivityFrom = ` FROM transactions t LEFT JOIN LATERAL (SELECT hash, l1_gas_price_wei, l1_gas_price_fri FROM blocks
	WHERE number = t.block_number LIMIT 1) b ON true`

// TransactionActivity lists transactions as Transactions does, each with what an item of
// REST's tx-activity shows of it and its block in the same statement (TxActivity).
//
// A sender's list is counted (its total, the last page's number) in the same statement
// too: the rows carry it (TxActivity.KeyCount), and the request's KeyCounts keep it, so
// that the list's total is not a statement of its own. A page deeper than marksFrom finds
// its mark in that statement as well (activityFromMark), instead of a statement before it
// (markedWindow): a page of the busiest sender is one statement at any depth. An empty
// page carries no count and is counted apart.
func (s *Store) TransactionActivity(ctx context.Context, f TxFilter, desc bool, w Window) ([]*TxActivity, error) {
	rows, err := s.transactionActivity(ctx, f, desc, w)
	if err != nil {
		return nil, err
	}
	txs := make([]*Transaction, len(rows))
	for i, r := range rows {
		txs[i] = &r.Transaction
	}
	return rows, s.nameTransactions(ctx, txs)
}

func (s *Store) transactionActivity(ctx context.Context, f TxFilter, desc bool, w Window) ([]*TxActivity, error) {
	from := `SELECT ` + txActivityCols + txActivityFrom
	keyOf := func(t *TxActivity) []any { return []any{t.BlockNumber, t.Index} }
	m, counts := f.marked(), keyCountsOf(ctx)
	if m.list != txsBySender || counts == nil {
		return transactionList(ctx, s, from, f, desc, w, keyOf)
	}
	var args []any
	conds := f.where(&args) // the sender alone: its argument is $1
	q := keysetQuery{name: "transactions", from: from,
		conds: conds, args: args, keyCols: []string{"t.block_number", "t.tx_index"}, desc: desc, keysFrom: "transactions t", marked: m}
	counted := strings.Replace(from, txActivityFrom,
		fmt.Sprintf(`, (SELECT n FROM key_counts WHERE list = %d AND key = $1) AS key_count`, m.list)+txActivityFrom, 1)
	read := func(w Window) ([]*TxActivity, error) {
		var rows []*TxActivity
		var err error
		if w.After == nil && w.Offset >= marksFrom {
			err = s.selectRows(ctx, &rows, activityFromMark(m.list, desc), f.Sender, int64(w.Offset), w.Limit)
		} else {
			q := q
			if _, known := counts.get(m); !known {
				q.from = counted
			}
			rows, err = readKeyset[*TxActivity](ctx, s, q, w)
		}
		if err == nil && len(rows) > 0 && rows[0].KeyCount != nil {
			counts.put(m, *rows[0].KeyCount)
		}
		return rows, err
	}
	// As keysetList, which reads its pages the same way but for the count and the mark.
	return listPage(s, q.listName(), w, keyOf, read)
}

// activityFromMark is the statement of a page of a sender's activity ($1) by its position
// ($2, at least marksFrom) and length ($3): markedWindow and the page's statement in one.
// The mark nearest above the page (mk) gives the key the page's walk starts after and the
// rows it skips from there, fewer than MarkEvery; without a mark (a key without positions,
// as tests write them), the walk starts at the list's end and skips the offset. Past the
// list's end, the first key is NULL and the page is empty, as markedWindow's.
func activityFromMark(list keyList, desc bool) string {
	// Oldest first: the mark of the greatest ordinal below the page's first, $2; the
	// rows after it from there.
	marks := `mk AS MATERIALIZED (SELECT ordinal, block_number, tx_index FROM key_marks
			WHERE list = %[1]d AND key = $1 AND ordinal < $2 ORDER BY ordinal DESC LIMIT 1)`
	after, dir, cmp, first := `(coalesce((SELECT block_number FROM mk), -1), coalesce((SELECT tx_index FROM mk), -1))`, "ASC", ">", ">="
	skip := `$2 - coalesce((SELECT ordinal FROM mk) + 1, 0)`
	if desc {
		// Newest first: the page's first row has ordinal n-1-$2; the mark of the least
		// ordinal above it, and the rows before it from there.
		marks = `mk AS MATERIALIZED (SELECT ordinal, block_number, tx_index FROM key_marks
			WHERE list = %[1]d AND key = $1 AND ordinal > (SELECT n FROM key_counts WHERE list = %[1]d AND key = $1) - 1 - $2
			ORDER BY ordinal ASC LIMIT 1)`
		after, dir, cmp, first = `(coalesce((SELECT block_number FROM mk), 9223372036854775807), coalesce((SELECT tx_index FROM mk), 2147483647))`, "DESC", "<", "<="
		skip = `coalesce((SELECT ordinal FROM mk) - (SELECT n FROM key_counts WHERE list = %[1]d AND key = $1), 0) + $2`
	}
	order := ` ORDER BY t.block_number ` + dir + `, t.tx_index ` + dir
	return fmt.Sprintf(`WITH `+marks+`
		SELECT `+txActivityCols+`, (SELECT n FROM key_counts WHERE list = %[1]d AND key = $1) AS key_count
		FROM (SELECT t.* FROM transactions t WHERE t.sender_id = `+feltID("$1")+` AND (t.block_number, t.tx_index) `+first+` (
			SELECT t.block_number, t.tx_index FROM transactions t WHERE t.sender_id = `+feltID("$1")+` AND (t.block_number, t.tx_index) `+cmp+` `+after+
		order+` LIMIT 1 OFFSET `+skip+`)`+order+` LIMIT $3) t
		LEFT JOIN blocks b ON b.number = t.block_number`+order, list)
}

// transactionList reads a window of the transactions f selects, with from, the statement
// up to its conditions: "SELECT ... FROM transactions t", and tables joined to t after it.
func transactionList[T any](ctx context.Context, s *Store, from string, f TxFilter, desc bool, w Window, keyOf func(T) []any) ([]T, error) {
	var args []any
	conds := f.where(&args)
	q := keysetQuery{name: "transactions", from: from,
		conds: conds, args: args, keyCols: []string{"t.block_number", "t.tx_index"}, desc: desc, keysFrom: "transactions t", marked: f.marked()}
	if len(conds) == 0 {
		// The whole chain's list seeks to a page by its position (transactionsAt).
		if w.After == nil && w.Offset > 0 {
			return transactionsAt[T](ctx, s, from, desc, w)
		}
		return readKeyset[T](ctx, s, q, w)
	}
	// A filtered list has no position to seek to: a page that starts where one served
	// lately ended continues from its last row (page_ends.go).
	return keysetList(ctx, s, q, w, keyOf)
}

// transactionsAt lists the chain's transactions from position w.Offset on (counted from the
// newest when desc), seeking to it instead of reading every row before it: the
// transaction k places from the oldest is in the block with the greatest txs_before <= k
// (of blocks with as many before them, the last: those before it have none), at index
// k - txs_before. Past either end, the position has no block and the list is empty. from
// is the statement up to its conditions (transactionList).
func transactionsAt[T any](ctx context.Context, s *Store, from string, desc bool, w Window) ([]T, error) {
	pos, cmp, dir := `$1::bigint`, ">=", "ASC"
	if desc {
		pos, cmp, dir = `(SELECT txs_before + tx_count - 1 FROM blocks ORDER BY number DESC LIMIT 1) - $1`, "<=", "DESC"
	}
	var rows []T
	err := s.selectRows(ctx, &rows, from+`
		WHERE (t.block_number, t.tx_index) `+cmp+` (SELECT at.number, p.pos - at.txs_before FROM (SELECT `+pos+` AS pos) p
			CROSS JOIN LATERAL (SELECT number, txs_before FROM blocks WHERE txs_before <= p.pos
				ORDER BY txs_before DESC, number DESC LIMIT 1) at)
		ORDER BY t.block_number `+dir+`, t.tx_index `+dir+` LIMIT $2`, w.Offset, w.Limit)
	return rows, err
}

// CountTransactions is exact for the whole chain and for one block, and capped otherwise.
func (s *Store) CountTransactions(ctx context.Context, f TxFilter) (int64, error) {
	if f.Sender == nil && f.Contract == nil && f.Type == "" && f.FromBlock == nil && f.ToBlock == nil && f.Block == nil {
		return s.ListCount(ctx, "transactions")
	}
	if n, ok, err := s.keyCount(ctx, f.marked()); ok || err != nil {
		return n, err
	}
	var args []any
	conds := f.where(&args)
	return s.cappedCount(ctx, "transactions t"+and(conds...), args...)
}

// CallsByTx returns the decoded calls of the given transactions, in call order, with
// their calldata, and with what their inputs are decoded with (Call.DecodedInputs).
//
// A call written since migration 00043 keeps its calldata as a position in its
// transaction's: the statement gives the transaction's calldata with the first call of
// each transaction whose calls keep positions (a subquery run for those rows alone), and
// each call of the transaction is cut from it here, so that a transaction's calldata is
// read and sent once however many calls it has. A call written before keeps its own
// calldata and inputs.
//
// Here and in the other reads that join a partitioned table (db/partitions.go) to a list of
// keys, "block_number BETWEEN lo AND hi" (the keys' lowest and highest block) repeats what
// the join says in a form that prunes partitions when the statement starts, in its generic
// plan too (an array parameter, "= ANY($1)", prunes only a plan made for its value):
// without it, each execution opened every partition (with 51 partitions, CallsByTx planned
// in 1.8 ms and ran in 0.48 ms, against 0.13 and 0.03).
func (s *Store) CallsByTx(ctx context.Context, keys []TxKey) ([]*Call, error) {
	return s.callsByTx(ctx, keys, nil)
}

// CallsOfTransactions is CallsByTx for transactions read whole (DetailsLoaded): their
// calldata is at hand, so the statement does not read it again with their first calls.
// For the 25 transactions of a page of /beta/tx-activity that was half the statement's
// buffers (100 of 200 on the 1M bench). A transaction not read whole is an error.
func (s *Store) CallsOfTransactions(ctx context.Context, txs []*Transaction) ([]*Call, error) {
	for _, tx := range txs {
		if !tx.DetailsLoaded {
			return nil, &StoreError{Query: "CallsOfTransactions", Err: fmt.Errorf("transaction %d/%d was not read whole", tx.BlockNumber, tx.Index)}
		}
	}
	return s.callsWithCalldata(ctx, txs)
}

// CallsOfActivity is CallsOfTransactions for the rows of TransactionActivity, which read
// the transactions' calldata.
func (s *Store) CallsOfActivity(ctx context.Context, acts []*TxActivity) ([]*Call, error) {
	txs := make([]*Transaction, len(acts))
	for i, a := range acts {
		txs[i] = &a.Transaction
	}
	return s.callsWithCalldata(ctx, txs)
}

// callsWithCalldata reads the calls of txs, whose calldata was read with them.
func (s *Store) callsWithCalldata(ctx context.Context, txs []*Transaction) ([]*Call, error) {
	keys := make([]TxKey, len(txs))
	calldata := make(map[TxKey]FeltArray, len(txs))
	for i, tx := range txs {
		keys[i] = TxKey{Block: tx.BlockNumber, Index: tx.Index}
		calldata[keys[i]] = tx.Calldata
	}
	return s.callsByTx(ctx, keys, calldata)
}

// callsByTx reads the calls of keys; a transaction's calldata comes from given when it is
// not nil, else with its first call.
func (s *Store) callsByTx(ctx context.Context, keys []TxKey, given map[TxKey]FeltArray) ([]*Call, error) {
	blocks, idx := txKeyArrays(keys)
	lo, hi := blockSpan(blocks)
	ofTx := `CASE WHEN c.call_index = 0 AND c.calldata IS NULL THEN (SELECT t.calldata FROM transactions t
			WHERE t.block_number = c.block_number AND t.tx_index = c.tx_index AND t.block_number BETWEEN $3 AND $4) END`
	if given != nil {
		ofTx = `NULL::bytea`
	}
	var rows []callRead
	if err := s.selectRows(ctx, &rows, `SELECT c.block_number, c.tx_index, c.call_index, c.contract_id,
		c.selector_id, c.entrypoint, c.entrypoint_type, c.call_type, c.class_id, c.calldata, c.inputs, c.outputs,
		c.calldata_offset, c.calldata_length,
		`+ofTx+` AS tx_calldata
		FROM calls c JOIN unnest($1::bigint[], $2::int[]) AS k(b, i) ON c.block_number = k.b AND c.tx_index = k.i
		WHERE c.block_number BETWEEN $3 AND $4
		ORDER BY c.block_number, c.tx_index, c.call_index`, blocks, idx, lo, hi); err != nil {
		return nil, err
	}
	if given != nil {
		for i := range rows {
			if r := &rows[i]; r.Index == 0 && r.Calldata == nil {
				r.TxCalldata = given[TxKey{Block: r.BlockNumber, Index: r.TxIndex}]
			}
		}
	}
	calls := make([]*Call, len(rows))
	var (
		txCalldata FeltArray // of the transaction of the calls read last, from its first call
		tx         TxKey
	)
	for i := range rows {
		r := &rows[i]
		if k := (TxKey{Block: r.BlockNumber, Index: r.TxIndex}); k != tx {
			tx, txCalldata = k, nil
		}
		if r.Index == 0 {
			txCalldata = r.TxCalldata
		}
		if r.Calldata == nil && r.Offset != nil && r.Length != nil {
			from, to := int(*r.Offset), int(*r.Offset)+int(*r.Length)
			if from < 0 || from > to || to > len(txCalldata) {
				return nil, &StoreError{Query: "CallsByTx", Err: fmt.Errorf("call %d of transaction %d/%d: calldata [%d:%d] is out of its transaction's %d felts",
					r.Index, r.BlockNumber, r.TxIndex, from, to, len(txCalldata))}
			}
			r.Calldata = txCalldata[from:to:to]
		}
		if r.Calldata == nil {
			r.Calldata = FeltArray{}
		}
		calls[i] = &r.Call
	}
	if err := s.nameCalls(ctx, calls); err != nil {
		return nil, err
	}
	if err := s.withABIs(ctx, calls); err != nil {
		return nil, err
	}
	return calls, nil
}

// callRead is a row of CallsByTx: a call, its calldata's position in its transaction's,
// and, with its first call, the transaction's calldata.
type callRead struct {
	Call
	Offset     *int16    `db:"calldata_offset"`
	Length     *int16    `db:"calldata_length"`
	TxCalldata FeltArray `db:"tx_calldata"`
}

// blockSpan is the lowest and the highest of blocks (0 and -1, which select nothing, when
// there are none).
func blockSpan(blocks []int64) (lo, hi int64) {
	if len(blocks) == 0 {
		return 0, -1
	}
	return slices.Min(blocks), slices.Max(blocks)
}

// EventsFilter narrows an event list.
type EventsFilter struct {
	From      Felt
	Key       Felt
	FromBlock *int64
	ToBlock   *int64
	Tx        *TxKey
}

var eventCols = rowShapeOf[Event]().selectList("e")

func (f EventsFilter) where(args *[]any) []string {
	var conds []string
	if f.From != nil {
		conds = append(conds, "e.from_id = "+feltID(arg(args, f.From)))
	}
	if f.Key != nil {
		conds = append(conds, "e.key0_id = "+feltID(arg(args, f.Key)))
	}
	if f.FromBlock != nil {
		conds = append(conds, "e.block_number >= "+arg(args, *f.FromBlock))
	}
	if f.ToBlock != nil {
		conds = append(conds, "e.block_number <= "+arg(args, *f.ToBlock))
	}
	if f.Tx != nil {
		conds = append(conds, "e.block_number = "+arg(args, f.Tx.Block), "e.tx_index = "+arg(args, f.Tx.Index))
	}
	return conds
}

// Events lists events in chain order (desc: newest first); keyset: (block, tx, event index).
func (s *Store) Events(ctx context.Context, f EventsFilter, desc bool, w Window) ([]*Event, error) {
	var args []any
	conds := f.where(&args)
	rows, err := keysetList(ctx, s, keysetQuery{name: "events", from: `SELECT ` + eventCols + ` FROM events e
		JOIN transactions t ON t.block_number = e.block_number AND t.tx_index = e.tx_index` + eventTransferJoin(""),
		conds: conds, args: args, keyCols: []string{"e.block_number", "e.tx_index", "e.event_index"}, desc: desc, keysFrom: "events e",
		marked: f.marked()},
		w, func(e *Event) []any { return []any{e.BlockNumber, e.TxIndex, e.Index} })
	if err != nil {
		return nil, err
	}
	return rows, s.nameEvents(ctx, rows)
}

// CountEvents is exact for the whole chain and capped for filters.
func (s *Store) CountEvents(ctx context.Context, f EventsFilter) (int64, error) {
	if n, ok, err := s.keyCount(ctx, f.marked()); ok || err != nil {
		return n, err
	}
	var args []any
	conds := f.where(&args)
	return s.countFiltered(ctx, "events", "events e", conds, args)
}

// TransactionsOfBlocks lists, for each block, limit of its transactions after offset, in
// block order: the batched form of Block.transactions.
//
// The block is named by a range of one block, not "t.block_number = k.b": with the
// equality, PostgreSQL drops block_number from the order (it is fixed), cannot take the
// partitions' (block_number, tx_index) index order for "ORDER BY tx_index" through their
// Append, and reads and sorts every transaction of the block for a page of 25 (301 rows
// and 42 buffers for a block of 301, against 26 rows and 6 buffers).
func (s *Store) TransactionsOfBlocks(ctx context.Context, blocks []int64, limit, offset int) ([]*Transaction, error) {
	lo, hi := blockSpan(blocks)
	var rows []*Transaction
	err := s.selectRows(ctx, &rows, `SELECT x.* FROM unnest($1::bigint[]) AS k(b)
		CROSS JOIN LATERAL (SELECT `+txListCols+` FROM transactions t
			WHERE t.block_number >= k.b AND t.block_number <= k.b AND t.block_number BETWEEN $4 AND $5
			ORDER BY t.block_number, t.tx_index LIMIT $2 OFFSET $3) x`, pq.Array(blocks), limit, offset, lo, hi)
	if err != nil {
		return nil, err
	}
	return rows, s.nameTransactions(ctx, rows)
}

// EventsOfTxs lists, for each transaction, limit of its events after offset, in receipt
// order: the batched form of Transaction.events.
func (s *Store) EventsOfTxs(ctx context.Context, keys []TxKey, limit, offset int) ([]*Event, error) {
	blocks, idx := txKeyArrays(keys)
	lo, hi := blockSpan(blocks)
	var rows []*Event
	err := s.selectRows(ctx, &rows, `SELECT x.* FROM unnest($1::bigint[], $2::int[]) AS k(b, i)
		CROSS JOIN LATERAL (SELECT `+eventCols+` FROM events e
			JOIN transactions t ON t.block_number = e.block_number AND t.tx_index = e.tx_index`+eventTransferJoin("BETWEEN $5 AND $6")+`
			WHERE e.block_number = k.b AND e.tx_index = k.i AND e.block_number BETWEEN $5 AND $6 AND t.block_number BETWEEN $5 AND $6
			ORDER BY e.event_index LIMIT $3 OFFSET $4) x`, blocks, idx, limit, offset, lo, hi)
	if err != nil {
		return nil, err
	}
	return rows, s.nameEvents(ctx, rows)
}

// txKeyArrays passes transaction keys as two array parameters (blocks, indexes).
func txKeyArrays(keys []TxKey) (blocks, idx pq.Int64Array) {
	blocks, idx = make(pq.Int64Array, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		blocks[i], idx[i] = k.Block, int64(k.Index)
	}
	return blocks, idx
}

// EventKey is an event's position: block, transaction and event index.
type EventKey struct {
	Block     int64
	Tx, Event int
}

// EventsByKey returns the events that exist at the given positions.
func (s *Store) EventsByKey(ctx context.Context, keys []EventKey) ([]*Event, error) {
	blocks, txs, events := make(pq.Int64Array, len(keys)), make(pq.Int64Array, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		blocks[i], txs[i], events[i] = k.Block, int64(k.Tx), int64(k.Event)
	}
	lo, hi := blockSpan(blocks)
	var rows []*Event
	err := s.selectRows(ctx, &rows, `SELECT `+eventCols+` FROM unnest($1::bigint[], $2::int[], $3::int[]) AS k(b, i, x)
		JOIN events e ON e.block_number = k.b AND e.tx_index = k.i AND e.event_index = k.x
		JOIN transactions t ON t.block_number = e.block_number AND t.tx_index = e.tx_index`+eventTransferJoin("BETWEEN $4 AND $5")+`
		WHERE e.block_number BETWEEN $4 AND $5 AND t.block_number BETWEEN $4 AND $5`, blocks, txs, events, lo, hi)
	if err != nil {
		return nil, err
	}
	return rows, s.nameEvents(ctx, rows)
}

// BlocksByHash returns the blocks that exist among hashes.
func (s *Store) BlocksByHash(ctx context.Context, hashes []Felt) ([]*Block, error) {
	var rows []*Block
	err := s.selectRows(ctx, &rows, `SELECT `+blockCols+` FROM blocks WHERE hash = ANY($1)`, feltList(hashes))
	return rows, err
}
