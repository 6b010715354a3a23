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

// addActivity adds a block's counts to its day and its hour. transfers is how many ERC-20
// transfers the block made.
func (w *batchWriter) addActivity(b *rpc.Block, transfers int) {
	ts := int64(b.Timestamp)
	var delta db.ActivityStat
	delta.Blocks = 1
	fees := map[string]*big.Int{"WEI": new(big.Int), "FRI": new(big.Int)}
	for i := range b.Transactions {
		t := &b.Transactions[i]
		delta.Transactions++
		switch t.Type {
		case rpc.TxInvoke:
			delta.Invokes++
		case rpc.TxDeclare:
			delta.Declares++
		case rpc.TxDeployAccount:
			delta.DeployAccounts++
		case rpc.TxL1Handler:
			delta.L1Handlers++
		}
		if t.Receipt.ExecutionStatus == rpc.ExecutionReverted {
			delta.Reverted++
		}
		delta.Events += int64(len(t.Receipt.Events))
		delta.MessagesToL1 += int64(len(t.Receipt.MessagesSent))
		if sum := fees[t.Receipt.ActualFee.Unit]; sum != nil {
			sum.Add(sum, t.Receipt.ActualFee.Amount.Big())
		}
	}
	delta.TokenTransfers = int64(transfers)
	for _, k := range []bucket{{"d", ts / db.DaySeconds * db.DaySeconds}, {"h", ts / db.HourSeconds * db.HourSeconds}} {
		a := w.buckets[k]
		if a == nil {
			a = &db.ActivityStat{Granularity: k.granularity, StartsAt: k.startsAt, FeesWei: "0", FeesFri: "0"}
			w.buckets[k] = a
		}
		a.Blocks += delta.Blocks
		a.Transactions += delta.Transactions
		a.Invokes += delta.Invokes
		a.Declares += delta.Declares
		a.DeployAccounts += delta.DeployAccounts
		a.L1Handlers += delta.L1Handlers
		a.Reverted += delta.Reverted
		a.Events += delta.Events
		a.MessagesToL1 += delta.MessagesToL1
		a.TokenTransfers += delta.TokenTransfers
		a.FeesWei = addDecimal(a.FeesWei, fees["WEI"])
		a.FeesFri = addDecimal(a.FeesFri, fees["FRI"])
	}
}

func addDecimal(sum string, v *big.Int) string {
	s, _ := new(big.Int).SetString(sum, 10)
	return s.Add(s, v).String()
}

// activityRows are the batch's counts per bucket, and their keys for the journal.
func (w *batchWriter) activityRows() (rows []db.ActivityStat, granularities []string, starts []int64) {
	for k, a := range w.buckets {
		rows = append(rows, *a)
		granularities, starts = append(granularities, k.granularity), append(starts, k.startsAt)
	}
	return rows, granularities, starts
}
