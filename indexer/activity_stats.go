package indexer

import (
	"math/big"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// bucket is one row of activity_stats.
type bucket struct {
	granularity string
	startsAt    int64
}

// bucketSums are a bucket's counts over the batch, fees kept as integers until written.
type bucketSums struct {
	counts   db.ActivityStat
	wei, fri *big.Int
}

// countTransaction adds a transaction's kind and outcome to a block's counts.
func countTransaction(c *db.ActivityStat, t *rpc.Transaction) {
	switch t.Type {
	case rpc.TxInvoke:
		c.Invokes++
	case rpc.TxDeclare:
		c.Declares++
	case rpc.TxDeployAccount:
		c.DeployAccounts++
	case rpc.TxL1Handler:
		c.L1Handlers++
	}
	if t.Receipt.ExecutionStatus == rpc.ExecutionReverted {
		c.Reverted++
	}
}

// addActivity adds a block's counts and fees (per unit) to its day and its hour.
func (w *batchWriter) addActivity(ts int64, c *db.ActivityStat, wei, fri *big.Int) {
	for _, k := range []bucket{{"d", ts / db.DaySeconds * db.DaySeconds}, {"h", ts / db.HourSeconds * db.HourSeconds}} {
		s := w.buckets[k]
		if s == nil {
			s = &bucketSums{counts: db.ActivityStat{Granularity: k.granularity, StartsAt: k.startsAt}, wei: new(big.Int), fri: new(big.Int)}
			w.buckets[k] = s
		}
		a := &s.counts
		a.Blocks += c.Blocks
		a.Transactions += c.Transactions
		a.Invokes += c.Invokes
		a.Declares += c.Declares
		a.DeployAccounts += c.DeployAccounts
		a.L1Handlers += c.L1Handlers
		a.Reverted += c.Reverted
		a.Events += c.Events
		a.MessagesToL1 += c.MessagesToL1
		a.TokenTransfers += c.TokenTransfers
		s.wei.Add(s.wei, wei)
		s.fri.Add(s.fri, fri)
	}
}

// activityRows are the batch's counts per bucket, and their keys for the journal.
func (w *batchWriter) activityRows() (rows []db.ActivityStat, granularities []string, starts []int64) {
	for k, s := range w.buckets {
		row := s.counts
		row.FeesWei, row.FeesFri = s.wei.String(), s.fri.String()
		rows = append(rows, row)
		granularities, starts = append(granularities, k.granularity), append(starts, k.startsAt)
	}
	return rows, granularities, starts
}
