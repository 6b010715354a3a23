package resolvers

import (
	"math"
	"strconv"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// networkStats builds NetworkStats from the chain_stats row, which the indexer keeps with
// every batch of blocks: nothing here scans recent blocks per request.
func networkStats(t *db.ChainTotals) *model.NetworkStats {
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	stats := &model.NetworkStats{
		BlocksCount:       itoa(t.Blocks),
		TransactionsCount: itoa(t.Transactions),
		EventsCount:       itoa(t.Events),
		ContractsCount:    itoa(t.Contracts),
		ClassesCount:      itoa(t.Classes),
		MaxRecordedTps:    t.MaxTps,
		TpsAtBlockHash:    t.MaxTpsBlockHash,
		TotalTvlUsd:       t.TvlUsd,
		ActiveAccounts:    itoa(t.ActiveAccounts),
		AccountsGrowth:    int(t.NewAccounts - t.NewAccountsPrevious),
		LatestAvgFee:      []*model.AverageFee{},
	}
	if t.RecentSeconds > 0 {
		stats.Tps = round2(float64(t.RecentTxs) / float64(t.RecentSeconds))
	}
	// Units in alphabetical order, as before: FRI, then WEI.
	for _, f := range []struct {
		unit string
		avg  *string
	}{{"FRI", t.AvgFeeFri}, {"WEI", t.AvgFeeWei}} {
		if f.avg != nil {
			stats.LatestAvgFee = append(stats.LatestAvgFee, &model.AverageFee{Unit: f.unit, AvgFee: *f.avg})
		}
	}
	return stats
}

// round2 keeps two decimals: rates are shown, not computed with.
func round2(v float64) float64 { return math.Round(v*100) / 100 }
