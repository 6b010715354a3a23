package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// RefreshChainStats recomputes the figures of the newest blocks kept in chain_stats
// (migration 00013) from the rows written so far in tx: the indexer calls it after every
// batch of blocks, and UndoAbove after a reorg.
func RefreshChainStats(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `SELECT refresh_chain_stats()`); err != nil {
		return fmt.Errorf("refresh chain stats: %w", err)
	}
	return nil
}
