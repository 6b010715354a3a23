package db

import (
	"context"

	"github.com/jmoiron/sqlx"
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

// SetStakingFigures records a reading in the staking overview row.
func SetStakingFigures(ctx context.Context, tx *sqlx.Tx, f StakingFigures) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO staking_overview (id, staking_contract, figures_block)
		VALUES (1, $1, $2) ON CONFLICT (id) DO UPDATE SET
		staking_contract = EXCLUDED.staking_contract, figures_block = EXCLUDED.figures_block;
		`, f.StakingContract, f.Block)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE staking_overview SET
		strk_token_address = coalesce($1, strk_token_address),
		btc_token_address = coalesce($2, btc_token_address),
		reward_supplier = coalesce($3, reward_supplier),
		minimum_stake = coalesce($4::numeric, minimum_stake),
		security_lockup_seconds = coalesce($5, security_lockup_seconds),
		epoch_id = coalesce($6, epoch_id),
		epoch_starting_block = coalesce($7, epoch_starting_block),
		epoch_length_blocks = coalesce($8, epoch_length_blocks),
		minting_curve_contract = coalesce($9, minting_curve_contract),
		minting_curve = coalesce($10, minting_curve),
		minting_c_denom = coalesce($11, minting_c_denom),
		total_supply = coalesce($12::numeric, total_supply)
		WHERE id = 1`,
		f.StrkToken, f.BtcToken, f.RewardSupplier, f.MinimumStake, f.ExitWaitSeconds, f.EpochID,
		f.EpochStartingBlock, f.EpochLengthBlocks, f.MintingCurveContract, f.MintingCNum, f.MintingCDenom, f.L1TotalSupply)
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
	for _, p := range prices {
		if _, err := tx.ExecContext(ctx, `INSERT INTO token_prices (token_address, block_number, pair, price, decimals)
			VALUES ($1, $2, $3, $4::numeric, $5) ON CONFLICT (token_address, block_number) DO UPDATE
			SET pair = EXCLUDED.pair, price = EXCLUDED.price, decimals = EXCLUDED.decimals`,
			p.Token, block, p.Pair, p.Price, p.Decimals); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tokens SET usd_price = ($2::numeric / 10::numeric ^ $3)::float8
			WHERE address = $1`, p.Token, p.Price, p.Decimals); err != nil {
			return err
		}
	}
	return nil
}
