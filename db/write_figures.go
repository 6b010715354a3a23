package db

import (
	"context"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// StakingFigures is what the indexer read from the staking contract and the minting curve
// at one block (indexer/figures.go). Nil fields were not answered and are left as they were.
type StakingFigures struct {
	Block                int64
	StakingContract      Felt
	StrkToken            Felt
	BtcToken             Felt
	RewardSupplier       Felt
	MinimumStake         *string // base units
	ExitWaitSeconds      *int64
	EpochID              *int64
	EpochStartingBlock   *int64
	EpochLengthBlocks    *int64
	MintingCurveContract Felt
	MintingCNum          *int64
	MintingCDenom        *int64
	L1TotalSupply        *string // base units
}

// SetStakingFigures records a reading in the staking overview row, in one statement.
func SetStakingFigures(ctx context.Context, tx *sqlx.Tx, f StakingFigures) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO staking_overview AS o (id, staking_contract, figures_block,
			strk_token_address, btc_token_address, reward_supplier, minimum_stake, security_lockup_seconds,
			epoch_id, epoch_starting_block, epoch_length_blocks, minting_curve_contract, minting_curve,
			minting_c_denom, total_supply)
		VALUES (1, $1, $2, $3, $4, $5, coalesce($6::numeric, 0), coalesce($7, 0), coalesce($8, 0), coalesce($9, 0),
			coalesce($10, 0), $11, coalesce($12, 0), coalesce($13, 0), coalesce($14::numeric, 0))
		ON CONFLICT (id) DO UPDATE SET staking_contract = EXCLUDED.staking_contract, figures_block = EXCLUDED.figures_block,
			strk_token_address = coalesce($3, o.strk_token_address),
			btc_token_address = coalesce($4, o.btc_token_address),
			reward_supplier = coalesce($5, o.reward_supplier),
			minimum_stake = coalesce($6::numeric, o.minimum_stake),
			security_lockup_seconds = coalesce($7, o.security_lockup_seconds),
			epoch_id = coalesce($8, o.epoch_id),
			epoch_starting_block = coalesce($9, o.epoch_starting_block),
			epoch_length_blocks = coalesce($10, o.epoch_length_blocks),
			minting_curve_contract = coalesce($11, o.minting_curve_contract),
			minting_curve = coalesce($12, o.minting_curve),
			minting_c_denom = coalesce($13, o.minting_c_denom),
			total_supply = coalesce($14::numeric, o.total_supply)`,
		f.StakingContract, f.Block, f.StrkToken, f.BtcToken, f.RewardSupplier, f.MinimumStake, f.ExitWaitSeconds,
		f.EpochID, f.EpochStartingBlock, f.EpochLengthBlocks, f.MintingCurveContract, f.MintingCNum, f.MintingCDenom,
		f.L1TotalSupply)
	return err
}

// TokenPrice is one oracle reading: price * 10^-decimals USD per whole token.
type TokenPrice struct {
	Token    Felt
	Pair     string
	Price    string // integer
	Decimals int
}

// RecordTokenPrices keeps the readings of block in token_prices and sets the tokens'
// current USD price (their market cap follows, by the trigger of migration 00009). The
// tokens rows are journaled by the caller.
func RecordTokenPrices(ctx context.Context, tx *sqlx.Tx, block int64, prices []TokenPrice) error {
	if len(prices) == 0 {
		return nil
	}
	tokens, pairs, values, decimals := make([]Felt, len(prices)), make([]string, len(prices)), make([]string, len(prices)), make([]int64, len(prices))
	for i, p := range prices {
		tokens[i], pairs[i], values[i], decimals[i] = p.Token, p.Pair, p.Price, int64(p.Decimals)
	}
	_, err := tx.ExecContext(ctx, `WITH p AS (
			SELECT * FROM unnest($2::bytea[], $3::text[], $4::numeric[], $5::smallint[]) AS p(token, pair, price, decimals)),
		recorded AS (
			INSERT INTO token_prices (token_address, block_number, pair, price, decimals)
			SELECT token, $1, pair, price, decimals FROM p
			ON CONFLICT (token_address, block_number) DO UPDATE
			SET pair = EXCLUDED.pair, price = EXCLUDED.price, decimals = EXCLUDED.decimals)
		UPDATE tokens t SET usd_price = (p.price / 10::numeric ^ p.decimals)::float8 FROM p WHERE t.address = p.token`,
		block, ByteaKeys(tokens), pq.StringArray(pairs), pq.StringArray(values), pq.Int64Array(decimals))
	return err
}
