package db

import (
	"context"
	"fmt"
)

// Reads of network statistics and of holders-analytics snapshots.

// ChainTotals are the maintained counters and the recorded peaks of the chain.
type ChainTotals struct {
	Blocks          int64    `db:"blocks"`
	Transactions    int64    `db:"transactions"`
	Events          int64    `db:"events"`
	Contracts       int64    `db:"contracts"`
	Classes         int64    `db:"classes"`
	MaxTps          float64  `db:"max_tps"`
	MaxTpsBlockHash Felt     `db:"max_tps_block_hash"`
	TvlUsd          *float64 `db:"tvl_usd"`
}

// ChainTotals reads the list_counts totals and chain_stats in one statement.
func (s *Store) ChainTotals(ctx context.Context) (*ChainTotals, error) {
	var t ChainTotals
	_, err := s.getRow(ctx, &t, `SELECT
		coalesce((SELECT count FROM list_counts WHERE name = 'blocks'), 0) AS blocks,
		coalesce((SELECT count FROM list_counts WHERE name = 'transactions'), 0) AS transactions,
		coalesce((SELECT count FROM list_counts WHERE name = 'events'), 0) AS events,
		coalesce((SELECT count FROM list_counts WHERE name = 'contracts'), 0) AS contracts,
		coalesce((SELECT count FROM list_counts WHERE name = 'classes'), 0) AS classes,
		coalesce(c.max_tps, 0) AS max_tps, c.max_tps_block_hash,
		-- TVL: the USD value of what the staking contract and the delegation pools hold, in
		-- the tokens that have a price.
		(SELECT sum(b.balance / 10::numeric ^ t.decimals * t.usd_price::numeric)::float8
			FROM erc20_balances b JOIN tokens t ON t.address = b.token_address
			WHERE t.usd_price IS NOT NULL AND t.decimals IS NOT NULL AND b.balance > 0
			AND (b.owner_address = (SELECT staking_contract FROM staking_overview WHERE id = 1)
				OR b.owner_address IN (SELECT pool_contract FROM pools))) AS tvl_usd
		FROM (SELECT 1) one LEFT JOIN chain_stats c ON c.id = 1`)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// StatsWindow is the number of newest blocks over which tps and average fees are taken.
const StatsWindow = 100

// RecentThroughput reads, over the newest StatsWindow blocks, the seconds between the
// first and the last of them and the transactions of all but the first (those that
// happened within that span).
func (s *Store) RecentThroughput(ctx context.Context) (txs, seconds int64, err error) {
	var row struct {
		Txs     int64 `db:"txs"`
		Seconds int64 `db:"seconds"`
	}
	_, err = s.getRow(ctx, &row, fmt.Sprintf(`WITH recent AS (
			SELECT number, timestamp, tx_count FROM blocks ORDER BY number DESC LIMIT %d)
		SELECT coalesce(sum(tx_count) - (SELECT tx_count FROM recent ORDER BY number LIMIT 1), 0) AS txs,
			coalesce(max(timestamp) - min(timestamp), 0) AS seconds
		FROM recent`, StatsWindow))
	return row.Txs, row.Seconds, err
}

// FeeAverage is the mean actual fee of recent transactions paid in one unit.
type FeeAverage struct {
	Unit   string `db:"unit"`
	AvgFee string `db:"avg_fee"`
}

// RecentFeeAverages averages the actual fees of the newest StatsWindow blocks'
// transactions per fee unit (WEI, FRI), rounded to an integer, from the blocks' fee sums.
func (s *Store) RecentFeeAverages(ctx context.Context) ([]*FeeAverage, error) {
	var rows []*FeeAverage
	err := s.selectRows(ctx, &rows, fmt.Sprintf(`SELECT u.unit, round(u.fees / u.txs)::text AS avg_fee
		FROM (SELECT sum(fees_wei) AS wei, sum(fee_txs_wei) AS txs_wei, sum(fees_fri) AS fri, sum(fee_txs_fri) AS txs_fri
			FROM (SELECT fees_wei, fee_txs_wei, fees_fri, fee_txs_fri FROM blocks ORDER BY number DESC LIMIT %d) b) s
		CROSS JOIN LATERAL (VALUES ('FRI', s.fri, s.txs_fri), ('WEI', s.wei, s.txs_wei)) AS u(unit, fees, txs)
		WHERE u.txs > 0 ORDER BY u.unit`, StatsWindow))
	return rows, err
}

// ActiveDay is the window of activeAccounts, in seconds of block time.
const ActiveDay = 24 * 60 * 60

// ActiveSenders counts the distinct senders of the transactions in the blocks of the last
// day of block time (up to the newest block's timestamp); the count stops at CountCap.
func (s *Store) ActiveSenders(ctx context.Context) (int64, error) {
	var n int64
	_, err := s.getRow(ctx, &n, dayBounds+fmt.Sprintf(`SELECT count(*) FROM (SELECT DISTINCT t.sender_address
		FROM transactions t, bounds b WHERE t.block_number >= b.cur_from AND t.sender_address IS NOT NULL LIMIT %d) x`, CountCap))
	return n, err
}

// dayBounds names, as bounds(cur_from, prev_from), the first blocks of the last ActiveDay
// of block time and of the ActiveDay before it.
var dayBounds = fmt.Sprintf(`WITH head AS (SELECT max(timestamp) AS ts FROM blocks),
	bounds AS (SELECT (SELECT min(number) FROM blocks, head WHERE timestamp > head.ts - %[1]d) AS cur_from,
		(SELECT min(number) FROM blocks, head WHERE timestamp > head.ts - 2 * %[1]d) AS prev_from) `, ActiveDay)

const holdersOverviewCols = `token_address, computed_at, total_supply::text, burned_supply::text,
	circulating_supply::text, holder_count, holders_over_1pct, top_n_concentration, concentration_buckets,
	tier_distribution, wallet_depth_usd, gini_top_10k, token_usd_price, is_stale, is_recomputing`

// HoldersOverviewsOf returns the newest holders snapshot of each token that has one.
func (s *Store) HoldersOverviewsOf(ctx context.Context, tokens []Felt) ([]*HoldersOverview, error) {
	var rows []*HoldersOverview
	err := s.selectRows(ctx, &rows, `SELECT DISTINCT ON (token_address) `+holdersOverviewCols+`
		FROM holders_snapshots WHERE token_address = ANY($1)
		ORDER BY token_address, computed_at DESC`, feltList(tokens))
	return rows, err
}

// NewAccounts counts the account contracts deployed in the last ActiveDay seconds of block
// time and in the ActiveDay seconds before.
func (s *Store) NewAccounts(ctx context.Context) (current, previous int64, err error) {
	var row struct {
		Current  int64 `db:"current"`
		Previous int64 `db:"previous"`
	}
	_, err = s.getRow(ctx, &row, dayBounds+`SELECT
		(SELECT count(*) FROM contracts c, bounds b WHERE c.type = 'account' AND c.deployed_block >= b.cur_from) AS current,
		(SELECT count(*) FROM contracts c, bounds b WHERE c.type = 'account'
			AND c.deployed_block >= b.prev_from AND c.deployed_block < b.cur_from) AS previous`)
	return row.Current, row.Previous, err
}
