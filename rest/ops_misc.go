package rest

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// networkStats is the answer of GET /beta/stats: every quantity is a string.
type networkStats struct {
	BlocksCount       string       `json:"blocksCount"`
	ContractsCount    string       `json:"contractsCount"`
	ClassesCount      string       `json:"classesCount"`
	TransactionsCount string       `json:"transactionsCount"`
	TpsAtBlockHash    string       `json:"tpsAtBlockHash"`
	Tps               string       `json:"tps"`
	MaxRecordedTps    string       `json:"maxRecordedTps"`
	LatestAvgFee      []averageFee `json:"latestAvgFee"`
	ActiveAccounts    string       `json:"activeAccounts"`
	AccountsGrowth    string       `json:"accountsGrowth"`
	TotalTvl          tvl          `json:"totalTvl"`
}

type averageFee struct {
	AvgFee string `json:"avgFee"`
	Unit   string `json:"unit"`
}

type tvl struct {
	Value string `json:"value"`
	Unit  string `json:"unit"`
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func statsOp(ctx context.Context, s *server, _ *args, _ *http.Request) (any, error) {
	st, err := s.res.Query().NetworkStats(ctx)
	if err != nil {
		return nil, err
	}
	out := networkStats{
		BlocksCount: st.BlocksCount, ContractsCount: st.ContractsCount, ClassesCount: st.ClassesCount,
		TransactionsCount: st.TransactionsCount, TpsAtBlockHash: hexOrEmpty(st.TpsAtBlockHash),
		Tps: formatFloat(st.Tps), MaxRecordedTps: formatFloat(st.MaxRecordedTps),
		ActiveAccounts: st.ActiveAccounts, AccountsGrowth: strconv.Itoa(st.AccountsGrowth),
		LatestAvgFee: []averageFee{}, TotalTvl: tvl{Value: "0", Unit: "USD"},
	}
	for _, f := range st.LatestAvgFee {
		// The node's fee units are WEI and FRI; the reference shows whole ETH (and STRK).
		unit, ok := feeUnitNames[f.Unit]
		if !ok {
			unit = f.Unit
		}
		out.LatestAvgFee = append(out.LatestAvgFee, averageFee{AvgFee: formatUnits(f.AvgFee, 18), Unit: unit})
	}
	if st.TotalTvlUsd != nil {
		out.TotalTvl.Value = strconv.FormatFloat(*st.TotalTvlUsd, 'f', 0, 64)
	}
	return out, nil
}

// apiStatusBody is the answer of GET /beta/api-status: how far behind the chain each API
// answers. Both read the same index, so they lag alike.
type apiStatusBody struct {
	Apis      map[string]apiStatus `json:"apis"`
	Timestamp int64                `json:"timestamp"`
}

// apiStatus of one API. lagSeconds is the time since the indexer last heard from the node
// (it polls every few seconds when healthy); lagBlocks is how many blocks the node is ahead;
// replicaLagSeconds is how far the database replica the API reads is behind its primary
// (null when it reads the primary).
type apiStatus struct {
	Status            string   `json:"status" enum:"ok,lagging,down"`
	LagSeconds        *int64   `json:"lagSeconds"`
	LagBlocks         *int     `json:"lagBlocks"`
	HeadBlock         *int64   `json:"headBlock"`
	ReplicaLagSeconds *float64 `json:"replicaLagSeconds"`
}

// Thresholds of api-status.
const (
	laggingAfter  = 2 * time.Minute
	downAfter     = 15 * time.Minute
	laggingBlocks = 10
)

func apiStatusOp(ctx context.Context, s *server, _ *args, _ *http.Request) (any, error) {
	st, err := s.res.Query().IndexerStatus(ctx)
	if err != nil {
		return nil, err
	}
	lagBlocks, err := s.res.IndexerStatus().Lag(ctx, st)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	lag := max(now.Sub(st.UpdatedTime), 0)
	status := apiStatus{Status: "ok", HeadBlock: st.HeadBlock, LagBlocks: lagBlocks, LagSeconds: ptr(int64(lag / time.Second)),
		ReplicaLagSeconds: st.ReplicaLagSeconds}
	replicaLag := time.Duration(0)
	if st.ReplicaLagSeconds != nil {
		replicaLag = time.Duration(*st.ReplicaLagSeconds * float64(time.Second))
	}
	switch {
	case st.HeadBlock == nil || lag > downAfter:
		status.Status = "down"
	case lag > laggingAfter || replicaLag > laggingAfter || (lagBlocks != nil && *lagBlocks > laggingBlocks):
		status.Status = "lagging"
	}
	return apiStatusBody{Apis: map[string]apiStatus{"rest": status, "graphql": status}, Timestamp: now.Unix()}, nil
}
