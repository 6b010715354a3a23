package resolvers

import (
	"context"
	"math"
	"strconv"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// networkStats builds the part of NetworkStats that comes from maintained counters; the
// fields that scan recent blocks have resolvers of their own.
func networkStats(t *db.ChainTotals) *model.NetworkStats {
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	return &model.NetworkStats{
		BlocksCount:       itoa(t.Blocks),
		TransactionsCount: itoa(t.Transactions),
		EventsCount:       itoa(t.Events),
		ContractsCount:    itoa(t.Contracts),
		ClassesCount:      itoa(t.Classes),
		MaxRecordedTps:    t.MaxTps,
		TpsAtBlockHash:    t.MaxTpsBlockHash,
		TotalTvlUsd:       t.TvlUsd,
		LatestAvgFee:      []*model.AverageFee{},
	}
}

// FullNetworkStats returns NetworkStats with every field filled, for callers outside a
// GraphQL operation (the REST handler): Query.networkStats leaves tps, activeAccounts,
// accountsGrowth and latestAvgFee to their field resolvers.
func (r *Resolver) FullNetworkStats(ctx context.Context) (*model.NetworkStats, error) {
	stats, err := r.Query().NetworkStats(ctx)
	if err != nil {
		return nil, err
	}
	f := r.NetworkStats()
	if stats.Tps, err = f.Tps(ctx, stats); err != nil {
		return nil, err
	}
	if stats.ActiveAccounts, err = f.ActiveAccounts(ctx, stats); err != nil {
		return nil, err
	}
	if stats.AccountsGrowth, err = f.AccountsGrowth(ctx, stats); err != nil {
		return nil, err
	}
	if stats.LatestAvgFee, err = f.LatestAvgFee(ctx, stats); err != nil {
		return nil, err
	}
	return stats, nil
}

// round2 keeps two decimals: rates are shown, not computed with.
func round2(v float64) float64 { return math.Round(v*100) / 100 }
