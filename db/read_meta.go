package db

import (
	"context"
	"fmt"
)

// Reads of meta-transactions (SNIP-9 outside executions).

var metaTxCols = rowShapeOf[MetaTransaction]().selectList("m")

const metaTxFrom = ` FROM meta_transactions m
	JOIN transactions t ON t.block_number = m.block_number AND t.tx_index = m.tx_index`

// MetaTransactions lists outside executions, newest first, optionally of one signing
// account; keyset: (block_number, tx_index, call_index).
func (s *Store) MetaTransactions(ctx context.Context, contract Felt, w Window) ([]*MetaTransaction, error) {
	var args []any
	var conds []string
	if contract != nil {
		args = append(args, contract)
		conds = append(conds, "m.contract_address = $1")
	}
	// Unfiltered, a page's first key is found by skipping the offset in the primary key's
	// index alone, and the page read from there (keysFrom): read in one step, every row
	// skipped was fetched and joined to its transaction first (5,000 rows deep on the 1M
	// bench: 554 ms at p99). By account, meta_transactions_contract has no call index, so
	// the page is read as before.
	keysFrom := ""
	if contract == nil {
		keysFrom = "meta_transactions m"
	}
	return keysetList(ctx, s, keysetQuery{name: "meta_transactions", from: `SELECT ` + metaTxCols + metaTxFrom,
		conds: conds, args: args, keyCols: []string{"m.block_number", "m.tx_index", "m.call_index"}, desc: true, keysFrom: keysFrom},
		w, func(m *MetaTransaction) []any { return []any{m.BlockNumber, m.Index, m.CallIndex} })
}

// CountMetaTransactions is the maintained total ('meta_transactions'), capped per account.
func (s *Store) CountMetaTransactions(ctx context.Context, contract Felt) (int64, error) {
	if contract == nil {
		return s.ListCount(ctx, "meta_transactions")
	}
	return s.cappedCount(ctx, "meta_transactions WHERE contract_address = $1", contract)
}

// MetaTransactionsOfTxs returns, for each transaction that runs an outside execution, its
// first one (the lowest call index).
func (s *Store) MetaTransactionsOfTxs(ctx context.Context, keys []TxKey) ([]*MetaTransaction, error) {
	blocks, idx := txKeyArrays(keys)
	var rows []*MetaTransaction
	err := s.selectRows(ctx, &rows, fmt.Sprintf(`SELECT DISTINCT ON (m.block_number, m.tx_index) %s%s
		JOIN unnest($1::bigint[], $2::int[]) AS k(b, i) ON m.block_number = k.b AND m.tx_index = k.i
		ORDER BY m.block_number, m.tx_index, m.call_index`, metaTxCols, metaTxFrom),
		blocks, idx)
	return rows, err
}
