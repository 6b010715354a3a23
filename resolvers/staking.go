package resolvers

import (
	"context"
	"fmt"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// walletStaking sums a wallet's positions by pool token: STRK (as the staking overview
// names it) apart from every other token, which counts as BTC.
func walletStaking(positions []*db.StakedPosition) *model.WalletStaking {
	var staked, claimed, unclaimed [2][]string // [0] STRK, [1] BTC
	out := &model.WalletStaking{Positions: []*db.Delegation{}}
	for _, p := range positions {
		i := 1
		if p.IsStrk {
			i = 0
		}
		staked[i] = append(staked[i], p.Amount)
		claimed[i] = append(claimed[i], p.RewardsClaimed)
		unclaimed[i] = append(unclaimed[i], p.RewardsUnclaimed)
		out.Positions = append(out.Positions, &p.Delegation)
	}
	out.TotalStakedStrk, out.TotalStakedBtc = db.AddDecimals(staked[0]...), db.AddDecimals(staked[1]...)
	out.TotalRewardsClaimedStrk, out.TotalRewardsClaimedBtc = db.AddDecimals(claimed[0]...), db.AddDecimals(claimed[1]...)
	out.TotalRewardsUnclaimedStrk, out.TotalRewardsUnclaimedBtc = db.AddDecimals(unclaimed[0]...), db.AddDecimals(unclaimed[1]...)
	return out
}

// stakeIntervals are the windows of TimeRange as PostgreSQL intervals ("" is all time).
var stakeIntervals = map[model.TimeRange]string{
	model.TimeRangeOneWeek:     "7 days",
	model.TimeRangeOneMonth:    "1 month",
	model.TimeRangeThreeMonths: "3 months",
	model.TimeRangeSixMonths:   "6 months",
	model.TimeRangeOneYear:     "1 year",
	model.TimeRangeMax:         "",
}

// stakeInterval is the window of a TimeRange (ONE_MONTH when nil) as a PostgreSQL
// interval, nil for all time.
func stakeInterval(r *model.TimeRange) (*string, error) {
	tr := model.TimeRangeOneMonth
	if r != nil {
		tr = *r
	}
	interval, ok := stakeIntervals[tr]
	if !ok {
		return nil, badInput("range", "is not a time range")
	}
	if interval == "" {
		return nil, nil
	}
	return &interval, nil
}

// stakingLogFilter reads the staking log's filter and order.
func stakingLogFilter(in *model.StakingActivityFilter, order *model.SortDirection) (db.StakingLogFilter, error) {
	f := db.StakingLogFilter{Ascending: order != nil && *order == model.SortDirectionAsc}
	if in == nil {
		return f, nil
	}
	f.Wallet, f.Staker, f.Pool, f.TransactionHash = in.Wallet, in.Validator, in.Pool, in.TransactionHash
	if in.Operation != nil { // gqlgen has checked the enum
		f.Operation = strings.ToLower(string(*in.Operation))
	}
	for _, ts := range []struct {
		name string
		in   *int
		out  **int64
	}{{"fromTimestamp", in.FromTimestamp, &f.From}, {"toTimestamp", in.ToTimestamp, &f.To}} {
		if ts.in != nil {
			if *ts.in < 0 {
				return f, badInput(ts.name, "must not be negative")
			}
			v := int64(*ts.in)
			*ts.out = &v
		}
	}
	if f.From != nil && f.To != nil && *f.From > *f.To {
		return f, badInput("fromTimestamp", fmt.Sprintf("%d is after the end of the range, %d", *f.From, *f.To))
	}
	return f, nil
}

// ValidatorsOrdered is the validators connection in one of db.ValidatorOrders (by name:
// REST's sortBy offers orders GraphQL's ValidatorOrder does not), ascending or not,
// optionally only those whose name or address contains search.
func (r *Resolver) ValidatorsOrdered(ctx context.Context, first *int, after *string, order string, asc bool, search string) (*model.ValidatorConnection, error) {
	search = strings.TrimSpace(search)
	pg, err := fetchPage(ctx, first, after, listSpec[*db.Validator]{
		name: "validators",
		fetch: func(w db.Window) ([]*db.Validator, error) {
			validators, economics, err := r.Store.ValidatorsBy(ctx, order, asc, search, w)
			primeValidators(ctx, validators, economics)
			return validators, err
		},
		count: func() (int64, error) { return r.Store.CountValidatorsMatching(ctx, search) },
	}, func(c string, v *db.Validator) *model.ValidatorEdge { return &model.ValidatorEdge{Cursor: c, Node: v} })
	if err != nil {
		return nil, err
	}
	return &model.ValidatorConnection{Edges: pg.edges, PageInfo: pg.info, TotalCount: pg.total}, nil
}
