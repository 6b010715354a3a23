package db

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Staking rows the indexer derives from the staking contract's, the pools' and the
// attestation contract's events. Only the columns events determine are written; the
// others (names, verification, ...) are left to whoever fills them.

// ValidatorRow is the indexer's part of a validators row.
type ValidatorRow struct {
	Staker             Felt   `db:"staker_address"`
	RewardAddress      Felt   `db:"reward_address"`
	OperationalAddress Felt   `db:"operational_address"`
	SelfStake          string `db:"self_stake,numeric"`
	DelegatedStakeSTRK string `db:"delegated_stake_strk,numeric"`
	DelegatedStakeBTC  string `db:"delegated_stake_btc,numeric"` // BTC tokens' pools, in the tokens' units
	RevenueShareBps    int64  `db:"revenue_share_bps"`
	State              string `db:"state"`
	StartTime          *int64 `db:"start_time"`
	TotalDelegators    int64  `db:"total_delegators"`
	CreatedBlock       *int64 `db:"created_block"`
	// From the attestation contract's events: epochs attested, epochs from the first
	// attested to the last, and the last.
	LivenessAttestedEpochs int64  `db:"liveness_attested_epochs"`
	LivenessTotalEpochs    int64  `db:"liveness_total_epochs"`
	LivenessLastEpoch      *int64 `db:"liveness_last_epoch"`
	// From the staker's exit: when it asked to leave, and from when it may withdraw.
	UnstakeTime    *int64 `db:"unstake_time"`
	WithdrawalTime *int64 `db:"withdrawal_time"`
}

// UpsertValidators writes validator rows.
func UpsertValidators(ctx context.Context, tx *sqlx.Tx, rows []ValidatorRow) error {
	return upsertAll(ctx, tx, "validators", 1, rows)
}

// LoadValidators reads validators by staker address.
func LoadValidators(ctx context.Context, q sqlx.QueryerContext, stakers []Felt) ([]ValidatorRow, error) {
	return loadAll[ValidatorRow](ctx, q, "validators", ByteaKeys(stakers))
}

// UpsertPools writes pool rows.
func UpsertPools(ctx context.Context, tx *sqlx.Tx, rows []Pool) error {
	return upsertAll(ctx, tx, "pools", 1, rows)
}

// LoadPools reads pools by contract address.
func LoadPools(ctx context.Context, q sqlx.QueryerContext, pools []Felt) ([]Pool, error) {
	return loadAll[Pool](ctx, q, "pools", ByteaKeys(pools))
}

// DelegationRow is the indexer's part of a delegations row.
type DelegationRow struct {
	Pool             Felt   `db:"pool_contract"`
	Delegator        Felt   `db:"delegator_address"`
	RewardAddress    Felt   `db:"reward_address"`
	Amount           string `db:"amount,numeric"`
	ActivatedAt      *int64 `db:"activated_at"`
	LastDelegationAt *int64 `db:"last_delegation_at"`
	Status           string `db:"status"`
}

// UpsertDelegations writes delegation rows.
func UpsertDelegations(ctx context.Context, tx *sqlx.Tx, rows []DelegationRow) error {
	return upsertAll(ctx, tx, "delegations", 2, rows)
}

// LoadDelegations reads delegations of (pools[i], delegators[i]).
func LoadDelegations(ctx context.Context, q sqlx.QueryerContext, pools, delegators []Felt) ([]DelegationRow, error) {
	return loadAll[DelegationRow](ctx, q, "delegations", ByteaKeys(pools), ByteaKeys(delegators))
}

// ValidatorDayRow is a validator_days row: a validator's stake and delegators at the end of
// a UTC day (Day, YYYY-MM-DD), or the network's when Staker is NetworkScope.
type ValidatorDayRow struct {
	Staker      Felt   `db:"staker_address"`
	Day         string `db:"day,date"`
	StakeSTRK   string `db:"stake_strk,numeric"`
	StakeBTC    string `db:"stake_btc,numeric"`
	Delegators  int64  `db:"delegators"`
	BlockNumber int64  `db:"block_number"`
}

// NetworkScope is the staker_address of the network's validator_days rows: empty, not NULL.
var NetworkScope = Felt{}

// UpsertValidatorDays writes validator_days rows.
func UpsertValidatorDays(ctx context.Context, tx *sqlx.Tx, rows []ValidatorDayRow) error {
	return upsertAll(ctx, tx, "validator_days", 2, rows)
}

// StakingTotals are the network's stake and delegators, summed over its validators.
type StakingTotals struct {
	StakeSTRK  string `db:"stake_strk"`
	StakeBTC   string `db:"stake_btc"`
	Delegators int64  `db:"delegators"`
}

// LoadStakingTotals sums the validators' stakes and delegators.
func LoadStakingTotals(ctx context.Context, q sqlx.QueryerContext) (StakingTotals, error) {
	var t StakingTotals
	err := sqlx.GetContext(ctx, q, &t, `SELECT coalesce(sum(self_stake + delegated_stake_strk), 0)::text AS stake_strk,
		coalesce(sum(delegated_stake_btc), 0)::text AS stake_btc, coalesce(sum(total_delegators), 0) AS delegators FROM validators`)
	return t, err
}

// StakePointRow is a stake_points row; Day is an ISO date (YYYY-MM-DD).
type StakePointRow struct {
	Wallet      Felt   `db:"wallet_address"`
	Token       Felt   `db:"token_address"`
	Day         string `db:"day,date"`
	Change      string `db:"change,numeric"`
	Total       string `db:"total,numeric"`
	BlockNumber int64  `db:"block_number"`
}

// UpsertStakePoints writes stake points.
func UpsertStakePoints(ctx context.Context, tx *sqlx.Tx, rows []StakePointRow) error {
	return upsertAll(ctx, tx, "stake_points", 3, rows)
}

// LoadStakePoints reads stake points of (wallets[i], tokens[i], days[i]).
func LoadStakePoints(ctx context.Context, q sqlx.QueryerContext, wallets, tokens []Felt, days []string) ([]StakePointRow, error) {
	return loadAll[StakePointRow](ctx, q, "stake_points", ByteaKeys(wallets), ByteaKeys(tokens), pq.StringArray(days))
}

// SetStakingContract records the staking contract, the token its pools hold and when the
// staking state last changed (Unix ms), leaving the other overview figures alone.
func SetStakingContract(ctx context.Context, tx *sqlx.Tx, staking, strk Felt, updatedAtMs int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO staking_overview (id, staking_contract, strk_token_address, updated_at)
		VALUES (1, $1, $2, $3) ON CONFLICT (id) DO UPDATE SET staking_contract = EXCLUDED.staking_contract,
		strk_token_address = EXCLUDED.strk_token_address, updated_at = EXCLUDED.updated_at`, staking, strk, updatedAtMs)
	return err
}
