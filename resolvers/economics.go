package resolvers

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// The APRs of staking (see migration 00009 for the STRK side, computed in SQL so that lists
// can be sorted by them). A BTC pool's delegators are paid in STRK for BTC, so their APR
// needs both prices: btcRewardShare * yearlyMint * (1 - commission) STRK a year, in USD,
// over the USD value of all BTC stake.

var validatorOrders = map[model.ValidatorOrder]string{
	model.ValidatorOrderRank: "rank", model.ValidatorOrderApr: "apr", model.ValidatorOrderStake: "stake",
	model.ValidatorOrderStakeBtc: "stake_btc", model.ValidatorOrderCommission: "commission",
	model.ValidatorOrderDelegators: "delegators",
}

func validatorOrder(o *model.ValidatorOrder) string {
	if o == nil {
		return "rank"
	}
	return validatorOrders[*o]
}

func roundPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := round2(*v)
	return &r
}

// poolAPR is the delegators' APR of a pool.
func (r *Resolver) poolAPR(ctx context.Context, p *db.Pool) (*float64, error) {
	ov, err := loaders.For(ctx).StakingOverview.Load(ctx, struct{}{})()
	if err != nil {
		return nil, err
	}
	if ov.StrkTokenAddress == nil || p.TokenAddress.Equal(ov.StrkTokenAddress) {
		e, err := loaders.For(ctx).ValidatorEconomics.Load(ctx, string(p.StakerAddress))()
		if err != nil || e == nil {
			return nil, err
		}
		return roundPtr(e.PoolAprStrk), nil
	}
	v, err := loaders.For(ctx).Validator.Load(ctx, string(p.StakerAddress))()
	if err != nil || v == nil {
		return nil, err
	}
	return r.btcPoolAPR(ctx, ov, int64(v.RevenueShareBps))
}

// btcPoolAPR is the APR of a BTC pool with the given commission, in USD terms; nil without
// BTC stake, a yearly mint or the prices of STRK and the BTC token.
func (r *Resolver) btcPoolAPR(ctx context.Context, ov *db.StakingOverview, commissionBps int64) (*float64, error) {
	if ov.BtcTokenAddress == nil || ov.StrkTokenAddress == nil || ov.BtcShare == 0 {
		return nil, nil
	}
	strk, err := loaders.For(ctx).Token.Load(ctx, string(ov.StrkTokenAddress))()
	if err != nil {
		return nil, err
	}
	btc, err := loaders.For(ctx).Token.Load(ctx, string(ov.BtcTokenAddress))()
	if err != nil {
		return nil, err
	}
	return roundPtr(BTCPoolAPR(ov.YearlyMint, ov.TotalStakeBtc, ov.BtcShare, commissionBps, strk, btc)), nil
}

// BTCPoolAPR computes a BTC pool's APR in percent from the yearly mint (STRK base units),
// the total BTC stake (the BTC token's base units), the BTC share of rewards, the pool's
// commission and the two tokens (for their prices and decimals).
func BTCPoolAPR(yearlyMint, totalStakeBtc string, btcShare float64, commissionBps int64, strk, btc *db.Token) *float64 {
	if strk == nil || btc == nil || strk.UsdPrice == nil || btc.UsdPrice == nil || strk.Decimals == nil || btc.Decimals == nil {
		return nil
	}
	mint, ok1 := new(big.Float).SetString(yearlyMint)
	stake, ok2 := new(big.Float).SetString(totalStakeBtc)
	if !ok1 || !ok2 || stake.Sign() == 0 {
		return nil
	}
	m, _ := mint.Float64()
	s, _ := stake.Float64()
	rewardsUsd := btcShare * m / math.Pow10(*strk.Decimals) * (1 - float64(commissionBps)/10000) * *strk.UsdPrice
	stakeUsd := s / math.Pow10(*btc.Decimals) * *btc.UsdPrice
	apr := 100 * rewardsUsd / stakeUsd
	return &apr
}

// transferUsdValue is amount / 10^token decimals * price / 10^feed decimals, at the newest
// price reading at or before the transfer's block (nil: no reading, or no decimals).
func transferUsdValue(t *db.TokenTransfer, token *db.Token, price *db.PriceAt) (*float64, error) {
	if price == nil || token == nil || token.Decimals == nil {
		return nil, nil
	}
	amount, ok1 := new(big.Float).SetString(t.Amount)
	p, ok2 := new(big.Float).SetString(price.Price)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("transfer %d/%d/%d: unreadable amount %q or price %q", t.BlockNumber, t.TxIndex, t.EventIndex, t.Amount, price.Price)
	}
	v, _ := amount.Mul(amount, p).Float64()
	v /= math.Pow10(int(*token.Decimals) + price.Decimals)
	return &v, nil
}

// FormatUnits writes an amount of a token's smallest unit in whole tokens, exactly:
// "1500000000000000000" with 18 decimals is "1.5".
func FormatUnits(amount string, decimals int) (string, error) {
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || v.Sign() < 0 || decimals < 0 || decimals > 255 {
		return "", fmt.Errorf("unreadable amount %q with %d decimals", amount, decimals)
	}
	whole, frac := new(big.Int).QuoRem(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil), new(big.Int))
	if frac.Sign() == 0 {
		return whole.String(), nil
	}
	digits := fmt.Sprintf("%0*s", decimals, frac.String())
	return whole.String() + "." + strings.TrimRight(digits, "0"), nil
}

// balanceUsdValue is balance / 10^decimals * the token's current price; nil without either.
func balanceUsdValue(token *db.Token, balance string) *float64 {
	if token.UsdPrice == nil || token.Decimals == nil {
		return nil
	}
	b, ok := new(big.Float).SetString(balance)
	if !ok {
		return nil
	}
	v, _ := b.Float64()
	v = v / math.Pow10(*token.Decimals) * *token.UsdPrice
	return &v
}

// primeValidators gives the request's loaders the validators a list read, with their
// economics: what the list's items then ask of them (a pool's validator, an APR, a rank)
// costs no statement.
func primeValidators(ctx context.Context, validators []*db.Validator, economics []*db.ValidatorEconomics) {
	l := loaders.For(ctx)
	for i, v := range validators {
		key := string(v.StakerAddress)
		l.Validator.Prime(ctx, key, v)
		l.ValidatorEconomics.Prime(ctx, key, economics[i])
	}
}
