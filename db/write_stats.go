package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// RefreshFigures recomputes, from the rows written so far in tx, the figures kept for
// reads: those of the newest blocks in chain_stats (migration 00013) and the staking
// figures (migration 00015). The indexer calls it after every batch of blocks, and
// UndoAbove after a reorg; neither set is journaled.
func RefreshFigures(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `SELECT refresh_chain_stats(), refresh_staking_figures()`); err != nil {
		return fmt.Errorf("refresh figures: %w", err)
	}
	return nil
}
