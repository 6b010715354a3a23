package db

import (
	"context"
	"fmt"
	"math/big"
	"slices"
)

// Reads of staking: validators (stakers), their delegation pools, delegations, the
// network-wide overview and a wallet's stake history.

var validatorCols = rowShapeOf[Validator]().selectList("v")

// ValidatorsByAddress returns the validators among staker addresses.
func (s *Store) ValidatorsByAddress(ctx context.Context, stakers []Felt) ([]*Validator, error) {
	var rows []*Validator
	err := s.selectRows(ctx, &rows, `SELECT `+validatorCols+` FROM validators v WHERE v.staker_address = ANY($1)`, feltList(stakers))
	return rows, err
}

// ValidatorByAddress finds a validator by its staker address or by one of its pool
// contracts; nil when neither matches.
func (s *Store) ValidatorByAddress(ctx context.Context, addr Felt) (*Validator, error) {
	var v Validator
	ok, err := s.getRow(ctx, &v, `SELECT `+validatorCols+` FROM validators v
		WHERE v.staker_address = $1 OR v.staker_address = (SELECT staker_address FROM pools WHERE pool_contract = $1)
		LIMIT 1`, addr)
	if !ok {
		return nil, err
	}
	return &v, nil
}

var poolCols = rowShapeOf[Pool]().selectList("p")

// PoolsByAddress returns the pools among pool contract addresses.
func (s *Store) PoolsByAddress(ctx context.Context, addrs []Felt) ([]*Pool, error) {
	var rows []*Pool
	err := s.selectRows(ctx, &rows, `SELECT `+poolCols+` FROM pools p WHERE p.pool_contract = ANY($1)`, feltList(addrs))
	return rows, err
}

// PoolsOfValidators returns the pools of each staker: the STRK pool first, then the others
// by token address.
func (s *Store) PoolsOfValidators(ctx context.Context, stakers []Felt) ([]*Pool, error) {
	var rows []*Pool
	err := s.selectRows(ctx, &rows, `SELECT `+poolCols+` FROM pools p WHERE p.staker_address = ANY($1)
		ORDER BY p.staker_address,
			coalesce(p.token_address = (SELECT strk_token_address FROM staking_overview WHERE id = 1), false) DESC,
			p.token_address, p.pool_contract`, feltList(stakers))
	return rows, err
}

var delegationCols = rowShapeOf[Delegation]().selectList("d")

// DelegationsOfPools lists, for each pool, limit of its delegations after offset, largest
// amount first: the batched form of Pool.delegations.
func (s *Store) DelegationsOfPools(ctx context.Context, pools []Felt, limit, offset int) ([]*Delegation, error) {
	var rows []*Delegation
	err := s.selectRows(ctx, &rows, `SELECT x.* FROM unnest($1::bytea[]) AS k(pool)
		CROSS JOIN LATERAL (SELECT `+delegationCols+` FROM delegations d WHERE d.pool_contract = k.pool
			ORDER BY d.amount DESC, d.delegator_address LIMIT $2 OFFSET $3) x`, feltList(pools), limit, offset)
	return rows, err
}

// StakedPosition is a delegation with its pool's token, and whether that token is STRK
// (the staking overview names the STRK token; every other pool token counts as BTC).
type StakedPosition struct {
	Delegation
	TokenAddress Felt `db:"token_address"`
	IsStrk       bool `db:"is_strk"`
}

// PositionsOf returns the delegations of each delegator, newest delegation first.
func (s *Store) PositionsOf(ctx context.Context, delegators []Felt) ([]*StakedPosition, error) {
	var rows []*StakedPosition
	err := s.selectRows(ctx, &rows, `SELECT `+delegationCols+`, p.token_address,
			coalesce(p.token_address = (SELECT strk_token_address FROM staking_overview WHERE id = 1), false) AS is_strk
		FROM delegations d JOIN pools p ON p.pool_contract = d.pool_contract
		WHERE d.delegator_address = ANY($1)
		ORDER BY d.delegator_address, d.last_delegation_at DESC NULLS LAST, d.pool_contract`, feltList(delegators))
	return rows, err
}

// StakingOverview reads the network-wide staking figures; totals over validators are
// summed here, counts come from list_counts when the indexer keeps them. Before the
// indexer has seen the staking contract every figure is zero.
func (s *Store) StakingOverview(ctx context.Context) (*StakingOverview, error) {
	var o StakingOverview
	_, err := s.getRow(ctx, &o, `SELECT o.staking_contract, o.strk_token_address, o.btc_token_address,
		coalesce(o.total_supply, 0)::text AS total_supply,
		coalesce(o.minimum_stake, 0)::text AS minimum_stake,
		(SELECT coalesce(sum(self_stake + delegated_stake_strk), 0) FROM validators)::text AS total_stake_strk,
		(SELECT coalesce(sum(delegated_stake_btc), 0) FROM validators)::text AS total_stake_btc,
		coalesce(o.total_pending_unstake_strk, 0)::text AS total_pending_unstake_strk,
		coalesce(o.total_pending_unstake_btc, 0)::text AS total_pending_unstake_btc,
		coalesce((SELECT count FROM list_counts WHERE name = 'validators'),
			(SELECT count(*) FROM validators))::int AS total_validators,
		coalesce((SELECT count FROM list_counts WHERE name = 'delegators'),
			(SELECT count(DISTINCT delegator_address) FROM delegations WHERE amount > 0))::int AS total_delegators,
		coalesce(o.minting_curve, 0) AS minting_curve,
		coalesce(o.security_lockup_seconds, 0) AS security_lockup_seconds,
		coalesce(e.average_commission, 0) AS average_commission,
		coalesce(o.minting_c_denom, 0) AS minting_c_denom,
		coalesce(e.yearly_mint, 0)::text AS yearly_mint,
		e.btc_share::float8 AS btc_share,
		e.max_apr_strk, e.min_btc_commission_bps,
		coalesce(o.epoch_id, 0) AS epoch_id,
		coalesce(o.epoch_starting_block, 0) AS epoch_starting_block,
		coalesce(o.epoch_length_blocks, 0) AS epoch_length_blocks,
		(SELECT timestamp FROM blocks WHERE number = o.epoch_starting_block) AS epoch_start_time,
		e.mean_block_seconds,
		(SELECT max(number) FROM blocks) AS head_block,
		o.figures_block,
		coalesce(o.updated_at, 0) AS updated_at
		FROM (SELECT 1) one LEFT JOIN staking_overview o ON o.id = 1 LEFT JOIN staking_figures e ON e.id = 1`)
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// StakeChange is one stake_points row of a wallet, as StakePointsFrom needs it.
type StakeChange struct {
	Wallet  Felt   `db:"wallet_address"`
	Day     string `db:"day"`
	Token   Felt   `db:"token_address"`
	IsStrk  bool   `db:"is_strk"`
	Change  string `db:"change"`
	Total   string `db:"total"`
	InRange bool   `db:"in_range"`
}

// StakeChangesOf returns the stake points of wallets on the days within the window that
// ends at the newest block (`interval` back from it, a PostgreSQL interval such as
// '1 month'; nil for all time), plus, per wallet and token, the last point before the
// window, which carries the total the window starts from. Rows come by wallet, then day.
func (s *Store) StakeChangesOf(ctx context.Context, wallets []Felt, interval *string) ([]*StakeChange, error) {
	var rows []*StakeChange
	err := s.selectRows(ctx, &rows, `WITH `+windowStartDay("$2")+`
		SELECT p.wallet_address, p.day::text AS day, p.token_address,
			coalesce(p.token_address = (SELECT strk_token_address FROM staking_overview WHERE id = 1), false) AS is_strk,
			p.change::text, p.total::text, (s.day IS NULL OR p.day >= s.day) AS in_range
		FROM stake_points p CROSS JOIN since s
		WHERE p.wallet_address = ANY($1) AND (s.day IS NULL OR p.day >= s.day OR p.day = (
			SELECT max(q.day) FROM stake_points q
			WHERE q.wallet_address = p.wallet_address AND q.token_address = p.token_address AND q.day < s.day))
		ORDER BY p.wallet_address, p.day, p.token_address`, feltList(wallets), interval)
	return rows, err
}

// windowStartDay is the CTE `since(day)`: the UTC day `interval` (the placeholder of a
// PostgreSQL interval; NULL for all time, which makes day NULL) before the newest block.
func windowStartDay(interval string) string {
	return `since AS (
			SELECT CASE WHEN ` + interval + `::interval IS NULL THEN NULL ELSE
				(coalesce((SELECT to_timestamp(timestamp) FROM blocks ORDER BY number DESC LIMIT 1), now())
					AT TIME ZONE 'UTC' - ` + interval + `::interval)::date END AS day
		)`
}

// StakePointsFrom folds one wallet's stake changes (ordered by day) into one point per day
// within the window: the day's changes and the running totals, STRK apart from every
// other token (BTC).
func StakePointsFrom(changes []*StakeChange) []*StakePoint {
	totals := map[string]*big.Int{} // token -> its latest total
	strk := map[string]bool{}
	var points []*StakePoint
	for i := 0; i < len(changes); {
		day := changes[i].Day
		changeStrk, changeBtc := new(big.Int), new(big.Int)
		inRange := false
		for ; i < len(changes) && changes[i].Day == day; i++ {
			c := changes[i]
			token := string(c.Token)
			strk[token] = c.IsStrk
			totals[token] = parseBig(c.Total)
			inRange = inRange || c.InRange
			if c.IsStrk {
				changeStrk.Add(changeStrk, parseBig(c.Change))
			} else {
				changeBtc.Add(changeBtc, parseBig(c.Change))
			}
		}
		if !inRange {
			continue
		}
		totalStrk, totalBtc := new(big.Int), new(big.Int)
		for token, t := range totals {
			if strk[token] {
				totalStrk.Add(totalStrk, t)
			} else {
				totalBtc.Add(totalBtc, t)
			}
		}
		points = append(points, &StakePoint{
			Date:                 day,
			TotalStakeChangeStrk: changeStrk.String(),
			TotalStakeChangeBtc:  changeBtc.String(),
			TotalStakeStrk:       totalStrk.String(),
			TotalStakeBtc:        totalBtc.String(),
		})
	}
	return points
}

// parseBig reads a decimal from a numeric column; the store only ever gives valid ones.
func parseBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

// ValidatorEconomics is a validator's rank by total STRK stake and its APRs, in percent
// (kept in validator_figures from the view validator_economics, migrations 00009 and 00015); the APRs are null before the staking
// figures are known.
type ValidatorEconomics struct {
	Staker      Felt     `db:"staker_address"`
	Rank        int64    `db:"rank"`
	Apr         *float64 `db:"apr"`           // on its own stake, commission included
	PoolAprStrk *float64 `db:"pool_apr_strk"` // of its STRK pool's delegators
}

// ValidatorEconomicsOf reads rank and APRs of validators.
func (s *Store) ValidatorEconomicsOf(ctx context.Context, stakers []Felt) ([]*ValidatorEconomics, error) {
	var rows []*ValidatorEconomics
	err := s.selectRows(ctx, &rows, `SELECT staker_address, rank, apr::float8 AS apr, pool_apr_strk::float8 AS pool_apr_strk
		FROM validator_figures WHERE staker_address = ANY($1)`, feltList(stakers))
	return rows, err
}

// ValidatorOrders are the orders validators can be listed in, each with a direction; ties
// go by rank. The reference's sortBy names them (rank, stakeStrk, stakeBtc, delegators,
// commission, stakingPower, liveness, liveness90d); apr is ours.
var ValidatorOrders = map[string]string{
	"rank":       "x.rank", // by total STRK stake
	"apr":        "x.apr",
	"stake":      "(v.self_stake + v.delegated_stake_strk)",
	"stake_btc":  "v.delegated_stake_btc",
	"commission": "v.revenue_share_bps",
	"delegators": "v.total_delegators",
	// Staking power: the share of the consensus weight, the STRK share of all STRK stake
	// and the BTC share of all BTC stake weighted as rewards are (btc_share to BTC, the
	// rest to STRK; a network without BTC stake gives STRK all of it).
	"staking_power": `(coalesce((1 - f.btc_share) * (v.self_stake + v.delegated_stake_strk) / nullif(f.total_stake_strk, 0), 0)
		+ coalesce(f.btc_share * v.delegated_stake_btc / nullif(f.total_stake_btc, 0), 0))`,
	// Liveness: epochs attested over epochs from the first attested one to the last (the
	// indexer's counters); null (last) before any attestation.
	"liveness": "(v.liveness_attested_epochs::float8 / nullif(v.liveness_total_epochs, 0))",
	// The same over the attestations of the 90 days of block time up to the newest block:
	// the data has no other record of missed epochs, so the epochs counted are those from
	// the validator's first attested epoch in the window to its last (its last of all, as
	// epochs grow with blocks). A validator attests an epoch once (the attestation contract
	// refuses a second), so its rows in the window are its epochs attested there: counted
	// off the index, without reading the rows.
	"liveness_90d": "(n90.attested::float8 / nullif(v.liveness_last_epoch - f90.epoch + 1, 0))",
}

// validatorOrderJoins are the joins an order of ValidatorOrders needs beyond the
// validator's figures.
var validatorOrderJoins = map[string]string{
	"staking_power": `LEFT JOIN staking_figures f ON f.id = 1`,
	"liveness_90d": `LEFT JOIN LATERAL (SELECT count(*) AS attested FROM attestations a
			WHERE a.staker_address = v.staker_address AND a.block_number >= (` + livenessWindowStart + `)) n90 ON true
		LEFT JOIN LATERAL (SELECT a.epoch FROM attestations a WHERE a.staker_address = v.staker_address AND a.block_number >= (` + livenessWindowStart + `)
			ORDER BY a.block_number, a.tx_index, a.event_index LIMIT 1) f90 ON true`,
}

// livenessWindowStart is the first block of the 90 days (by block time) up to the newest
// block, the window of a validator's 90-day liveness.
const livenessWindowStart = `SELECT coalesce((SELECT b.number FROM blocks b
		WHERE b.timestamp >= (SELECT h.timestamp FROM blocks h ORDER BY h.number DESC LIMIT 1) - 90 * 86400
		ORDER BY b.timestamp, b.number LIMIT 1), 0)`

// ValidatorsBy lists validators in one of ValidatorOrders, ascending or not (rank 1, the
// largest stake, comes first in ascending order), optionally only those whose address or
// name contains search. Each validator's rank and APRs, which the list joins to sort by,
// come with it.
func (s *Store) ValidatorsBy(ctx context.Context, order string, asc bool, search string, w Window) ([]*Validator, []*ValidatorEconomics, error) {
	expr, ok := ValidatorOrders[order]
	if !ok {
		return nil, nil, fmt.Errorf("validators: unknown order %q", order)
	}
	dir, nulls := "DESC", "NULLS LAST"
	if asc {
		dir = "ASC"
	}
	var rows []*struct {
		Validator
		Rank        int64    `db:"x_rank"`
		Apr         *float64 `db:"x_apr"`
		PoolAprStrk *float64 `db:"x_pool_apr_strk"`
	}
	err := s.selectRows(ctx, &rows, fmt.Sprintf(`SELECT `+validatorCols+`,
		x.rank AS x_rank, x.apr::float8 AS x_apr, x.pool_apr_strk::float8 AS x_pool_apr_strk
		FROM validators v JOIN validator_figures x USING (staker_address) %s
		WHERE %s
		ORDER BY %s %s %s, x.rank LIMIT $2 OFFSET $3`, validatorOrderJoins[order], validatorSearch, expr, dir, nulls), search, w.Limit, w.Offset)
	validators, economics := make([]*Validator, len(rows)), make([]*ValidatorEconomics, len(rows))
	for i, r := range rows {
		validators[i] = &r.Validator
		economics[i] = &ValidatorEconomics{Staker: r.StakerAddress, Rank: r.Rank, Apr: r.Apr, PoolAprStrk: r.PoolAprStrk}
	}
	return validators, economics, err
}

// validatorSearch keeps the validators whose name or address ($1, hex, 0x optional)
// contains $1; an empty $1 keeps all.
const validatorSearch = `($1 = '' OR v.name ILIKE '%' || $1 || '%'
	OR encode(v.staker_address, 'hex') LIKE '%' || lower(regexp_replace($1, '^0[xX]', '')) || '%')`

// CountValidatorsMatching counts the validators ValidatorsBy lists for search.
func (s *Store) CountValidatorsMatching(ctx context.Context, search string) (int64, error) {
	var n int64
	_, err := s.getRow(ctx, &n, `SELECT count(*) FROM validators v WHERE `+validatorSearch, search)
	return n, err
}

// ValidatorDelegationFilter narrows the delegations of a validator's pools.
type ValidatorDelegationFilter struct {
	Staker    Felt
	Delegator Felt  // nil: every delegator
	Strk      *bool // true: the STRK pool; false: the other (BTC) pools; nil: every pool
}

func (f ValidatorDelegationFilter) where(args *[]any) (pools, delegations string) {
	pools = "p.staker_address = " + arg(args, f.Staker)
	if f.Strk != nil {
		pools += " AND coalesce(p.token_address = (SELECT strk_token_address FROM staking_overview WHERE id = 1), false) = " + arg(args, *f.Strk)
	}
	if f.Delegator != nil {
		delegations = " AND d.delegator_address = " + arg(args, f.Delegator)
	}
	return pools, delegations
}

// DelegationsOfValidator lists the delegations of a validator's pools by amount, largest
// first (then pool, delegator); keyset: (amount, pool, delegator), the amount descending and
// the rest ascending. Each pool is read in its index order up to the window's end, and only
// those rows are merged.
func (s *Store) DelegationsOfValidator(ctx context.Context, f ValidatorDelegationFilter, w Window) ([]*Delegation, error) {
	var args []any
	pools, delegations := f.where(&args)
	read := func(w Window) ([]*Delegation, error) {
		after, _, kargs := w.keysetFlipped([]string{"d.amount", "d.pool_contract", "d.delegator_address"}, false, true, len(args)+1)
		// kargs ends with the window's limit and offset; each pool reads up to their sum.
		n := len(args) + len(kargs)
		if after != "" {
			after = " AND " + after
		}
		var rows []*Delegation
		err := s.selectRows(ctx, &rows, `SELECT x.* FROM pools p CROSS JOIN LATERAL (SELECT `+delegationCols+`
				FROM delegations d WHERE d.pool_contract = p.pool_contract`+delegations+after+fmt.Sprintf(`
				ORDER BY d.amount DESC, d.delegator_address LIMIT $%[1]d::bigint + $%[2]d::bigint) x
			WHERE `, n-1, n)+pools+fmt.Sprintf(`
			ORDER BY x.amount::numeric DESC, x.pool_contract, x.delegator_address LIMIT $%d OFFSET $%d`, n-1, n), slices.Concat(args, kargs)...)
		return rows, err
	}
	return listPage(s, listName("validator delegations "+pools+delegations, args), w,
		func(d *Delegation) []any { return []any{d.Amount, d.PoolAddress, d.DelegatorAddress} }, read)
}

// CountDelegationsOfValidator counts them (capped).
func (s *Store) CountDelegationsOfValidator(ctx context.Context, f ValidatorDelegationFilter) (int64, error) {
	var args []any
	pools, delegations := f.where(&args)
	return s.cappedCount(ctx, "pools p JOIN delegations d ON d.pool_contract = p.pool_contract WHERE "+pools+delegations, args...)
}
