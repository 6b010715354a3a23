package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// The tables a bulk load writes once instead of batch by batch (migration 00066).
// erc20_balances, key_counts, sender_last_blocks and active_sender_blocks hold one row per
// owner or key that every batch rewrote: the same thousands of accounts come back batch
// after batch, and each batch read and upserted all of them. A bulk load leaves them at
// indexer_state.derived_through instead. What its batches need of them (each balance and
// key count before the batch) the indexer keeps in memory (BulkKept), and DeriveDeferred
// writes them once, when the load ends or its memory is full. A load resumed by a new
// process has lost that memory: DeriveDeferred then derives the tables from the rows
// appended above the mark — erc20_balance_changes (a balance after each block that changed
// it), transactions, events and token_transfers. The sender activity is derived from the
// transactions either way (one statement, no memory needed), and the key marks are written
// batch by batch from the counts in memory.
//
// Crash safety: the writes and the move of derived_through are one transaction, and the
// rows it reads are the committed batches', so a stop at any moment leaves either the
// tables at the old mark with the rows above it, or the tables at the head.

// BulkKept is what a bulk load kept in memory of the tables it defers, since their mark.
type BulkKept struct {
	Counts   *BulkKeyCounts // emptied once written
	Balances []TokenBalance // every balance changed since the mark
}

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
// The balances and key counts are what the load kept (kept), or, nil, derived from the rows
// above the mark. It reports whether there was a mark. The rows above the head that a bulk
// load's second connection may have left (beside.go) must be gone first.
func DeriveDeferred(ctx context.Context, tx *sqlx.Tx, keep bool, kept *BulkKept) (bool, error) {
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
	if kept != nil {
		if err := UpsertERC20Balances(ctx, tx, kept.Balances); err != nil {
			return true, fmt.Errorf("write the balances: %w", err)
		}
		if err := kept.Counts.write(ctx, tx); err != nil {
			return true, fmt.Errorf("write the key counts: %w", err)
		}
	} else {
		// Each pair's newest change above the mark is its balance, and the block of that
		// change its last transfer (the indexer sets it so for every change, a correction too).
		if _, err := tx.ExecContext(ctx, `INSERT INTO erc20_balances AS b (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
			SELECT ft.felt, fo.felt, c.balance, c.block_number, bl.timestamp
			FROM (SELECT DISTINCT ON (token_id, owner_id) token_id, owner_id, block_number, balance
				FROM erc20_balance_changes WHERE block_number > $1 ORDER BY token_id, owner_id, block_number DESC) c
			JOIN felt_ids ft ON ft.id = c.token_id JOIN felt_ids fo ON fo.id = c.owner_id JOIN blocks bl ON bl.number = c.block_number
			ON CONFLICT (token_address, owner_address) DO UPDATE SET balance = excluded.balance,
				last_transfer_block = excluded.last_transfer_block, last_transfer_time = excluded.last_transfer_time`, above); err != nil {
			return true, fmt.Errorf("derive the balances above block %d: %w", above, err)
		}
		if err := countKeysAbove(ctx, tx, above); err != nil {
			return true, fmt.Errorf("count the keys above block %d: %w", above, err)
		}
	}
	steps := []struct{ what, sql string }{
		{"senders' newest blocks", `INSERT INTO sender_last_blocks AS s (sender_address, block_number)
			SELECT f.felt, s.block_number FROM (SELECT sender_id, max(block_number) AS block_number FROM transactions
				WHERE block_number > $1 AND sender_id IS NOT NULL GROUP BY sender_id) s JOIN felt_ids f ON f.id = s.sender_id
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
// keeping them deferred: a bulk load resuming without what it kept in memory (kept nil), or
// emptying that memory, calls it.
func CheckpointDerived(ctx context.Context, conn *sqlx.DB, kept *BulkKept) error {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := removeBesideRowsAboveHead(ctx, tx); err != nil {
		return err
	}
	if _, err := DeriveDeferred(ctx, tx, true, kept); err != nil {
		return err
	}
	return tx.Commit()
}
