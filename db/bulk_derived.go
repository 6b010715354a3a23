package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// The tables a bulk load derives instead of writing them batch by batch (migration 00066).
// erc20_balances, key_counts and key_marks, sender_last_blocks and active_sender_blocks hold
// one row per owner or key that every batch rewrites: the same thousands of accounts come
// back batch after batch, and each batch read and upserted all of them. A bulk load leaves
// them at indexer_state.derived_through instead: what its batches need of them (the
// balances before the batch) the indexer keeps in memory, and DeriveDeferred writes them
// from the rows appended above that block — erc20_balance_changes (a balance after each
// block that changed it), transactions, events and token_transfers — once, when the load
// ends, or when it resumes after a stop (the indexer's memory is gone then).
//
// Crash safety: the derivation and the move of derived_through are one transaction, and the
// rows it reads are the committed batches', so a stop at any moment leaves either the
// tables at the old mark with the rows above it, or the tables at the head.

// deferDerived marks the derived tables as standing at the head, in the transaction that
// defers the constraints; a mark already set (a load resumed) stays.
func deferDerived(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE indexer_state SET derived_through = coalesce(derived_through, head_block, -1)`)
	if err != nil {
		return fmt.Errorf("defer the derived tables: %w", err)
	}
	return nil
}

// DeriveDeferred brings the derived tables from derived_through up to the indexed head, in
// tx, and leaves the mark at the head when keep is set (a bulk load goes on), or clears it.
// It reports whether there was a mark. The rows above the head that a bulk load's second
// connection may have left (beside.go) must be gone first.
func DeriveDeferred(ctx context.Context, tx *sqlx.Tx, keep bool) (bool, error) {
	var exists bool
	if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT FROM pg_attribute
		WHERE attrelid = 'indexer_state'::regclass AND attname = 'derived_through' AND NOT attisdropped)`); err != nil {
		return false, err
	}
	if !exists { // a database before migration 00066: its loads wrote everything in place
		return false, nil
	}
	var mark sql.NullInt64
	if err := tx.GetContext(ctx, &mark, `SELECT derived_through FROM indexer_state FOR UPDATE`); err != nil {
		return false, fmt.Errorf("derived tables: %w", err)
	}
	if !mark.Valid {
		return false, nil
	}
	above := mark.Int64
	steps := []struct{ what, sql string }{
		// Each pair's newest change above the mark is its balance; the block of that change
		// its last transfer (the indexer sets it so for every change, a correction too).
		{"balances", `INSERT INTO erc20_balances AS b (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
			SELECT ft.felt, fo.felt, c.balance, c.block_number, bl.timestamp
			FROM (SELECT DISTINCT ON (token_id, owner_id) token_id, owner_id, block_number, balance
				FROM erc20_balance_changes WHERE block_number > $1 ORDER BY token_id, owner_id, block_number DESC) c
			JOIN felt_ids ft ON ft.id = c.token_id JOIN felt_ids fo ON fo.id = c.owner_id JOIN blocks bl ON bl.number = c.block_number
			ON CONFLICT (token_address, owner_address) DO UPDATE SET balance = excluded.balance,
				last_transfer_block = excluded.last_transfer_block, last_transfer_time = excluded.last_transfer_time`},
		{"key positions", `SELECT extend_key_positions($1, ` + fmt.Sprint(MarkEvery) + `)`},
		{"senders' newest blocks", `INSERT INTO sender_last_blocks AS s (sender_address, block_number)
			SELECT f.felt, max(t.block_number) FROM transactions t JOIN felt_ids f ON f.id = t.sender_id
			WHERE t.block_number > $1 GROUP BY f.felt
			ON CONFLICT (sender_address) DO UPDATE SET block_number = excluded.block_number`},
		// Counted again whole: a sender that moved left its old block's count, anywhere below.
		{"active senders", `DELETE FROM active_sender_blocks`},
		{"active senders", `INSERT INTO active_sender_blocks (block_number, senders)
			SELECT block_number, count(*) FROM sender_last_blocks GROUP BY 1`},
		// The chain's figures read the active senders and the balances.
		{"chain figures", `SELECT refresh_chain_stats(), refresh_staking_figures()`},
	}
	for _, s := range steps {
		var args []any
		if strings.Contains(s.sql, "$1") {
			args = append(args, above)
		}
		if _, err := tx.ExecContext(ctx, s.sql, args...); err != nil {
			return true, fmt.Errorf("derive %s above block %d: %w", s.what, above, err)
		}
	}
	set := `UPDATE indexer_state SET derived_through = NULL`
	if keep {
		set = `UPDATE indexer_state SET derived_through = coalesce(head_block, -1)`
	}
	if _, err := tx.ExecContext(ctx, set); err != nil {
		return true, fmt.Errorf("derived tables: %w", err)
	}
	return true, nil
}

// CheckpointDerived brings the derived tables up to the head in a transaction of its own,
// keeping them deferred: a bulk load resuming without the balances it kept in memory, or
// emptying that memory, calls it.
func CheckpointDerived(ctx context.Context, conn *sqlx.DB) error {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := removeBesideRowsAboveHead(ctx, tx); err != nil {
		return err
	}
	if _, err := DeriveDeferred(ctx, tx, true); err != nil {
		return err
	}
	return tx.Commit()
}
