package db

import (
	"context"
	"fmt"

	"github.com/lib/pq"
)

// TokenTransfer is one ERC-20 transfer, a row of token_transfers: the indexer writes it
// and the APIs read it.
type TokenTransfer struct {
	BlockNumber     int64  `db:"block_number"`
	TxIndex         int    `db:"tx_index"`
	EventIndex      int    `db:"event_index"`
	TokenAddress    Felt   `db:"token_address"`
	FromAddress     Felt   `db:"from_address"`
	ToAddress       Felt   `db:"to_address"`
	Amount          string `db:"amount,numeric"`
	TransactionHash Felt   `db:"transaction_hash"`
	Timestamp       int64  `db:"timestamp"`
	// IsFee marks the transfer that pays the transaction's fee: from its sender to its
	// block's sequencer.
	IsFee bool `db:"is_fee"`
}

var tokenTransferCols = rowShapeOf[TokenTransfer]().selectList("e")

// tokenTransferKeyColumns is the sort key of transfer lists, newest first.
var tokenTransferKeyColumns = []string{"e.block_number", "e.tx_index", "e.event_index"}

// TokenTransferFilter narrows a transfer list to one token, one wallet (either side), or both.
type TokenTransferFilter struct {
	Token  Felt
	Wallet Felt
}

// TokenTransfers lists ERC-20 transfers, newest first; keyset: (block, tx, event). A
// wallet's list is the union of its two index ranges (sent, received), each cut to the
// page before they are merged.
func (s *Store) TokenTransfers(ctx context.Context, f TokenTransferFilter, w Window) ([]*TokenTransfer, error) {
	var args []any
	var conds []string
	if f.Token != nil {
		args = append(args, f.Token)
		conds = append(conds, fmt.Sprintf("e.token_address = $%d", len(args)))
	}
	where, tail, kargs := w.keyset(tokenTransferKeyColumns, true, len(args)+1)
	args = append(args, kargs...)
	conds = append(conds, where)
	var rows []*TokenTransfer
	if f.Wallet == nil {
		err := s.selectRows(ctx, &rows, `SELECT `+tokenTransferCols+` FROM token_transfers e`+and(conds...)+tail, args...)
		return rows, err
	}
	args = append(args, f.Wallet)
	wallet := fmt.Sprintf("$%d", len(args))
	side := func(cond string) string {
		return `(SELECT ` + tokenTransferCols + ` FROM token_transfers e` + and(append(conds, cond)...) +
			fmt.Sprintf(` ORDER BY e.block_number DESC, e.tx_index DESC, e.event_index DESC LIMIT %d)`, w.Limit+w.Offset)
	}
	err := s.selectRows(ctx, &rows, `SELECT e.* FROM (`+side("e.from_address = "+wallet)+` UNION ALL `+
		side("e.to_address = "+wallet+" AND e.from_address <> "+wallet)+`) e`+tail, args...)
	return rows, err
}

// CountTokenTransfers is the maintained total without a filter, capped with one.
func (s *Store) CountTokenTransfers(ctx context.Context, f TokenTransferFilter) (int64, error) {
	var conds []string
	var args []any
	if f.Token != nil {
		args = append(args, f.Token)
		conds = append(conds, fmt.Sprintf("token_address = $%d", len(args)))
	}
	switch {
	case f.Wallet != nil:
		args = append(args, f.Wallet)
		n := len(args)
		from := fmt.Sprintf(`(SELECT 1 FROM token_transfers%s UNION ALL SELECT 1 FROM token_transfers%s) t`,
			and(append(conds, fmt.Sprintf("from_address = $%d", n))...),
			and(append(conds, fmt.Sprintf("to_address = $%d AND from_address <> $%d", n, n))...))
		return s.cappedCount(ctx, from, args...)
	case len(conds) == 0:
		return s.ListCount(ctx, "token_transfers")
	}
	return s.cappedCount(ctx, "token_transfers"+and(conds...), args...)
}

// TransfersOfTxs lists the ERC-20 transfers of each transaction, in receipt order.
func (s *Store) TransfersOfTxs(ctx context.Context, keys []TxKey) ([]*TokenTransfer, error) {
	blocks, idx := txKeyArrays(keys)
	var rows []*TokenTransfer
	err := s.selectRows(ctx, &rows, `SELECT `+tokenTransferCols+` FROM unnest($1::bigint[], $2::int[]) AS k(b, i)
		JOIN token_transfers e ON e.block_number = k.b AND e.tx_index = k.i
		ORDER BY e.block_number, e.tx_index, e.event_index`, blocks, idx)
	return rows, err
}

// PriceKey asks for a token's USD price as of a block.
type PriceKey struct {
	Token string // Felt bytes
	Block int64
}

// PriceAt is a token's newest oracle reading at or before Block.
type PriceAt struct {
	Token    Felt   `db:"token_address"`
	Block    int64  `db:"block_number"` // the block asked about, not the reading's
	Price    string `db:"price"`        // in units of 10^-Decimals USD
	Decimals int    `db:"decimals"`
}

// PricesAt reads each key's price (keys without a reading have no row).
func (s *Store) PricesAt(ctx context.Context, keys []PriceKey) ([]*PriceAt, error) {
	tokens, blocks := make(pq.ByteaArray, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		tokens[i], blocks[i] = []byte(Normalize(Felt(k.Token))), k.Block
	}
	var rows []*PriceAt
	err := s.selectRows(ctx, &rows, `SELECT k.t AS token_address, k.b AS block_number, p.price::text AS price, p.decimals
		FROM unnest($1::bytea[], $2::bigint[]) AS k(t, b)
		CROSS JOIN LATERAL (SELECT price, decimals FROM token_prices
			WHERE token_address = k.t AND block_number <= k.b ORDER BY block_number DESC LIMIT 1) p`, tokens, blocks)
	return rows, err
}
