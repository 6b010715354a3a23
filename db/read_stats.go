package db

import (
	"context"
)

// Reads of network statistics and of holders-analytics snapshots.

// ChainTotals are the maintained counters, the recorded peaks of the chain and the figures
// of its recent blocks, as the indexer keeps them (refresh_chain_stats, migration 00013).
type ChainTotals struct {
	Blocks          int64    `db:"blocks"`
	Transactions    int64    `db:"transactions"`
	Events          int64    `db:"events"`
	Contracts       int64    `db:"contracts"`
	Classes         int64    `db:"classes"`
	MaxTps          float64  `db:"max_tps"`
	MaxTpsBlockHash Felt     `db:"max_tps_block_hash"`
	TvlUsd          *float64 `db:"tvl_usd"`
	// RecentTxs are the transactions of the newest 100 blocks but the first, which came in
	// the RecentSeconds between the first and the last.
	RecentTxs     int64 `db:"recent_txs"`
	RecentSeconds int64 `db:"recent_seconds"`
	// AvgFeeWei and AvgFeeFri are the mean actual fee of those blocks' transactions per fee
	// unit, rounded; nil when none paid in the unit.
	AvgFeeWei *string `db:"avg_fee_wei"`
	AvgFeeFri *string `db:"avg_fee_fri"`
	// ActiveAccounts counts the distinct senders of the last day of block time.
	ActiveAccounts int64 `db:"active_accounts"`
	// NewAccounts and NewAccountsPrevious count the accounts deployed in that day and the day before.
	NewAccounts         int64 `db:"new_accounts"`
	NewAccountsPrevious int64 `db:"new_accounts_previous"`
}

// ChainTotals reads the list_counts totals and the chain_stats row in one statement.
func (s *Store) ChainTotals(ctx context.Context) (*ChainTotals, error) {
	var t ChainTotals
	_, err := s.getRow(ctx, &t, `SELECT
		coalesce((SELECT count FROM list_counts WHERE name = 'blocks'), 0) AS blocks,
		coalesce((SELECT count FROM list_counts WHERE name = 'transactions'), 0) AS transactions,
		coalesce((SELECT count FROM list_counts WHERE name = 'events'), 0) AS events,
		coalesce((SELECT count FROM list_counts WHERE name = 'contracts'), 0) AS contracts,
		coalesce((SELECT count FROM list_counts WHERE name = 'classes'), 0) AS classes,
		coalesce(c.max_tps, 0) AS max_tps, c.max_tps_block_hash, c.tvl_usd,
		coalesce(c.recent_txs, 0) AS recent_txs, coalesce(c.recent_seconds, 0) AS recent_seconds,
		c.avg_fee_wei::text AS avg_fee_wei, c.avg_fee_fri::text AS avg_fee_fri,
		coalesce(c.active_accounts, 0) AS active_accounts, coalesce(c.new_accounts, 0) AS new_accounts,
		coalesce(c.new_accounts_previous, 0) AS new_accounts_previous
		FROM (SELECT 1) one LEFT JOIN chain_stats c ON c.id = 1`)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

var holdersOverviewCols = rowShapeOf[HoldersOverview]().selectList("")

// HoldersOverviewsOf returns the newest holders snapshot of each token that has one.
func (s *Store) HoldersOverviewsOf(ctx context.Context, tokens []Felt) ([]*HoldersOverview, error) {
	var rows []*HoldersOverview
	err := s.selectRows(ctx, &rows, `SELECT DISTINCT ON (token_address) `+holdersOverviewCols+`
		FROM holders_snapshots WHERE token_address = ANY($1)
		ORDER BY token_address, computed_at DESC`, feltList(tokens))
	return rows, err
}
