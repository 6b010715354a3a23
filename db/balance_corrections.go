package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// BalanceCorrection is a balance the chain's storage corrected (balance_corrections,
// migration 00057): after block BlockNumber the events gave EventBalance, the state diff
// stored StoredBalance, and the stored value was kept.
type BalanceCorrection struct {
	TokenAddress  Felt   `db:"token_address"`
	OwnerAddress  Felt   `db:"owner_address"`
	BlockNumber   int64  `db:"block_number"`
	EventBalance  string `db:"event_balance,numeric"`
	StoredBalance string `db:"stored_balance,numeric"`
}

// InsertBalanceCorrections writes correction rows (again, when a batch is written again).
func InsertBalanceCorrections(ctx context.Context, tx *sqlx.Tx, rows []BalanceCorrection) error {
	if len(rows) == 0 {
		return nil
	}
	return upsertAll(ctx, tx, "balance_corrections", 3, rows)
}

// BalanceCorrections lists the corrections of a token (every token when token is nil),
// newest block first, at most limit.
func BalanceCorrections(ctx context.Context, q sqlx.QueryerContext, token Felt, limit int) ([]BalanceCorrection, error) {
	var out []BalanceCorrection
	err := sqlx.SelectContext(ctx, q, &out, `SELECT token_address, owner_address, block_number, event_balance::text, stored_balance::text
		FROM balance_corrections WHERE ($1::bytea IS NULL OR token_address = $1)
		ORDER BY block_number DESC, token_address, owner_address LIMIT $2`, token, limit)
	if err != nil {
		return nil, fmt.Errorf("balance corrections: %w", err)
	}
	return out, nil
}

// undoBalanceCorrections forgets the corrections of the blocks above ancestor, and the
// balances read by calls at those blocks.
func undoBalanceCorrections(ctx context.Context, tx *sqlx.Tx, ancestor int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM balance_corrections WHERE block_number > $1`, ancestor); err != nil {
		return fmt.Errorf("undo balance corrections: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM call_balances WHERE read_block > $1`, ancestor); err != nil {
		return fmt.Errorf("undo call balances: %w", err)
	}
	return nil
}

// CallBalance is a balance read with starknet_call balance_of at ReadBlock (call_balances).
type CallBalance struct {
	TokenAddress Felt   `db:"token_address"`
	OwnerAddress Felt   `db:"owner_address"`
	Balance      string `db:"balance,numeric"`
	ReadBlock    int64  `db:"read_block"`
}

// UpsertCallBalances writes balances read by calls.
func UpsertCallBalances(ctx context.Context, tx *sqlx.Tx, rows []CallBalance) error {
	if len(rows) == 0 {
		return nil
	}
	return upsertAll(ctx, tx, "call_balances", 2, rows)
}

// CallBalanceOf reads the balance of owner in token read by a call, if any.
func CallBalanceOf(ctx context.Context, q sqlx.QueryerContext, token, owner Felt) (*CallBalance, error) {
	var out []CallBalance
	if err := sqlx.SelectContext(ctx, q, &out, `SELECT token_address, owner_address, balance::text AS balance, read_block
		FROM call_balances WHERE token_address = $1 AND owner_address = $2`, token, owner); err != nil {
		return nil, fmt.Errorf("call balance: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return &out[0], nil
}

// CallBalance reads the balance of owner in token read by a call (call_balances), if any.
func (s *Store) CallBalance(ctx context.Context, token, owner Felt) (*CallBalance, error) {
	var row CallBalance
	ok, err := s.getRow(ctx, &row, `SELECT token_address, owner_address, balance::text AS balance, read_block
		FROM call_balances WHERE token_address = $1 AND owner_address = $2`, token, owner)
	if err != nil || !ok {
		return nil, err
	}
	return &row, nil
}
