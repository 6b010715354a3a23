package db

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Staking rows the indexer derives from the staking contract's and the pools' events. Only
// the columns events determine are written; the others (names, liveness, ...) are left
// to whoever fills them.

// ValidatorRow is the indexer's part of a validators row.
type ValidatorRow struct {
	Staker             Felt   `db:"staker_address"`
	RewardAddress      Felt   `db:"reward_address"`
	OperationalAddress Felt   `db:"operational_address"`
	SelfStake          string `db:"self_stake"`
	DelegatedStakeSTRK string `db:"delegated_stake_strk"`
	DelegatedStakeBTC  string `db:"delegated_stake_btc"` // BTC tokens' pools, in the tokens' units
	RevenueShareBps    int64  `db:"revenue_share_bps"`
	State              string `db:"state"`
	StartTime          *int64 `db:"start_time"`
	TotalDelegators    int64  `db:"total_delegators"`
	CreatedBlock       *int64 `db:"created_block"`
}

var validatorColumns = []string{"staker_address", "reward_address", "operational_address", "self_stake",
	"delegated_stake_strk", "delegated_stake_btc", "revenue_share_bps", "state", "start_time", "total_delegators", "created_block"}

// UpsertValidators writes validator rows.
func UpsertValidators(ctx context.Context, tx *sqlx.Tx, rows []ValidatorRow) error {
	vals := make([][]any, len(rows))
	for i, v := range rows {
		vals[i] = []any{v.Staker, v.RewardAddress, v.OperationalAddress, v.SelfStake, v.DelegatedStakeSTRK, v.DelegatedStakeBTC,
			v.RevenueShareBps, v.State, nullInt(v.StartTime), v.TotalDelegators, nullInt(v.CreatedBlock)}
	}
	return upsertRows(ctx, tx, "validators", validatorColumns, updateAll(validatorColumns[:1], validatorColumns), vals)
}

// LoadValidators reads validators by staker address.
func LoadValidators(ctx context.Context, q sqlx.QueryerContext, stakers []Felt) ([]ValidatorRow, error) {
	var rows []ValidatorRow
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT staker_address, reward_address, operational_address,
		self_stake::text AS self_stake, delegated_stake_strk::text AS delegated_stake_strk,
		delegated_stake_btc::text AS delegated_stake_btc, revenue_share_bps, state,
		start_time, total_delegators, created_block FROM validators WHERE staker_address = ANY($1)`, ByteaKeys(stakers))
	return rows, err
}

// PoolRow is a pools row.
type PoolRow struct {
	Pool           Felt   `db:"pool_contract"`
	Staker         Felt   `db:"staker_address"`
	Token          Felt   `db:"token_address"`
	TotalDelegated string `db:"total_delegated"`
	DelegatorCount int64  `db:"delegator_count"`
	CreatedBlock   *int64 `db:"created_block"`
}

var poolColumns = []string{"pool_contract", "staker_address", "token_address", "total_delegated", "delegator_count", "created_block"}

// UpsertPools writes pool rows.
func UpsertPools(ctx context.Context, tx *sqlx.Tx, rows []PoolRow) error {
	vals := make([][]any, len(rows))
	for i, p := range rows {
		vals[i] = []any{p.Pool, p.Staker, p.Token, p.TotalDelegated, p.DelegatorCount, nullInt(p.CreatedBlock)}
	}
	return upsertRows(ctx, tx, "pools", poolColumns, updateAll(poolColumns[:1], poolColumns), vals)
}

// LoadPools reads pools by contract address.
func LoadPools(ctx context.Context, q sqlx.QueryerContext, pools []Felt) ([]PoolRow, error) {
	var rows []PoolRow
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT pool_contract, staker_address, token_address,
		total_delegated::text AS total_delegated, delegator_count, created_block
		FROM pools WHERE pool_contract = ANY($1)`, ByteaKeys(pools))
	return rows, err
}

// DelegationRow is the indexer's part of a delegations row.
type DelegationRow struct {
	Pool             Felt   `db:"pool_contract"`
	Delegator        Felt   `db:"delegator_address"`
	RewardAddress    Felt   `db:"reward_address"`
	Amount           string `db:"amount"`
	ActivatedAt      *int64 `db:"activated_at"`
	LastDelegationAt *int64 `db:"last_delegation_at"`
	Status           string `db:"status"`
}

var delegationColumns = []string{"pool_contract", "delegator_address", "reward_address", "amount", "activated_at",
	"last_delegation_at", "status"}

// UpsertDelegations writes delegation rows.
func UpsertDelegations(ctx context.Context, tx *sqlx.Tx, rows []DelegationRow) error {
	vals := make([][]any, len(rows))
	for i, d := range rows {
		vals[i] = []any{d.Pool, d.Delegator, d.RewardAddress, d.Amount, nullInt(d.ActivatedAt), nullInt(d.LastDelegationAt), d.Status}
	}
	return upsertRows(ctx, tx, "delegations", delegationColumns, updateAll(delegationColumns[:2], delegationColumns), vals)
}

// LoadDelegations reads delegations of (pools[i], delegators[i]).
func LoadDelegations(ctx context.Context, q sqlx.QueryerContext, pools, delegators []Felt) ([]DelegationRow, error) {
	var rows []DelegationRow
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT d.pool_contract, d.delegator_address, d.reward_address,
		d.amount::text AS amount, d.activated_at, d.last_delegation_at, d.status
		FROM unnest($1::bytea[], $2::bytea[]) AS k(p, m)
		JOIN delegations d ON d.pool_contract = k.p AND d.delegator_address = k.m`, ByteaKeys(pools), ByteaKeys(delegators))
	return rows, err
}

// StakePointRow is a stake_points row; Day is an ISO date (YYYY-MM-DD).
type StakePointRow struct {
	Wallet      Felt   `db:"wallet_address"`
	Token       Felt   `db:"token_address"`
	Day         string `db:"day"`
	Change      string `db:"change"`
	Total       string `db:"total"`
	BlockNumber int64  `db:"block_number"`
}

var stakePointColumns = []string{"wallet_address", "token_address", "day", "change", "total", "block_number"}

// UpsertStakePoints writes stake points.
func UpsertStakePoints(ctx context.Context, tx *sqlx.Tx, rows []StakePointRow) error {
	vals := make([][]any, len(rows))
	for i, p := range rows {
		vals[i] = []any{p.Wallet, p.Token, p.Day, p.Change, p.Total, p.BlockNumber}
	}
	return upsertRows(ctx, tx, "stake_points", stakePointColumns, updateAll(stakePointColumns[:3], stakePointColumns), vals)
}

// LoadStakePoints reads stake points of (wallets[i], tokens[i], days[i]).
func LoadStakePoints(ctx context.Context, q sqlx.QueryerContext, wallets, tokens []Felt, days []string) ([]StakePointRow, error) {
	var rows []StakePointRow
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT s.wallet_address, s.token_address, to_char(s.day, 'YYYY-MM-DD') AS day,
		s.change::text AS change, s.total::text AS total, s.block_number
		FROM unnest($1::bytea[], $2::bytea[], $3::date[]) AS k(w, t, d)
		JOIN stake_points s ON s.wallet_address = k.w AND s.token_address = k.t AND s.day = k.d`,
		ByteaKeys(wallets), ByteaKeys(tokens), pq.StringArray(days))
	return rows, err
}

// SetStakingContract records the staking contract, the token its pools hold and when the
// staking state last changed (Unix ms), leaving the other overview figures alone.
func SetStakingContract(ctx context.Context, tx *sqlx.Tx, staking, strk Felt, updatedAtMs int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO staking_overview (id, staking_contract, strk_token_address, updated_at)
		VALUES (1, $1, $2, $3) ON CONFLICT (id) DO UPDATE SET staking_contract = EXCLUDED.staking_contract,
		strk_token_address = EXCLUDED.strk_token_address, updated_at = EXCLUDED.updated_at`, staking, strk, updatedAtMs)
	return err
}
