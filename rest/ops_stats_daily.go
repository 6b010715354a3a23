package rest

import (
	"context"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// activityMetrics are the metrics of GET /beta/daily-stats and /daily-stats/today; a
// request for one metric leaves the others out.
type activityMetrics struct {
	Blocks         *int64  `json:"blocks,omitempty"`
	Transactions   *int64  `json:"transactions,omitempty"`
	Invokes        *int64  `json:"invokes,omitempty"`
	Declares       *int64  `json:"declares,omitempty"`
	DeployAccounts *int64  `json:"deployAccounts,omitempty"`
	L1Handlers     *int64  `json:"l1Handlers,omitempty"`
	Reverted       *int64  `json:"reverted,omitempty"`
	Events         *int64  `json:"events,omitempty"`
	MessagesToL1   *int64  `json:"messagesToL1,omitempty"`
	TokenTransfers *int64  `json:"tokenTransfers,omitempty"`
	FeesWei        *string `json:"feesWei,omitempty"`
	FeesFri        *string `json:"feesFri,omitempty"`
}

// metricNames are the names `metrics` takes (besides "*"), lowercased, to their JSON names.
var metricNames = func() map[string]string {
	out := map[string]string{}
	t := reflect.TypeFor[activityMetrics]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[strings.ToLower(name)] = name
	}
	return out
}()

// metricsOf is a bucket's metrics: all for "*", else the one named.
func metricsOf(a *db.ActivityStat, only string) activityMetrics {
	m := activityMetrics{&a.Blocks, &a.Transactions, &a.Invokes, &a.Declares, &a.DeployAccounts, &a.L1Handlers,
		&a.Reverted, &a.Events, &a.MessagesToL1, &a.TokenTransfers, &a.FeesWei, &a.FeesFri}
	if only == "*" {
		return m
	}
	v := reflect.ValueOf(&m).Elem()
	for i := range v.NumField() {
		if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); name != only {
			v.Field(i).SetZero()
		}
	}
	return m
}

// metricParam reads `metrics`: "*" or one metric name, in any case.
func metricParam(a *args) (string, error) {
	raw := a.str("metrics")
	if raw == "" || raw == "*" {
		return "*", nil
	}
	if name, ok := metricNames[strings.ToLower(raw)]; ok {
		return name, nil
	}
	names := make([]string, 0, len(metricNames))
	for _, n := range metricNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return "", badRequest("metrics: %q is not * or one of %s", short(raw), strings.Join(names, ", "))
}

// dailyStat is an item of GET /beta/daily-stats.
type dailyStat struct {
	Date string `json:"date"` // YYYY-MM-DD, UTC
	activityMetrics
}

// timerangeDays is how many days each `timerange` of /daily-stats covers (0: all).
var timerangeDays = map[string]int{"1d": 1, "1w": 7, "1m": 30, "1y": 365, "max": 0}

func dailyStatsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	only, err := metricParam(a)
	if err != nil {
		return nil, err
	}
	var days *int
	if n := timerangeDays[a.str("timerange")]; n > 0 {
		days = &n
	}
	pg := pageOf(a)
	conn, err := s.res.Query().DailyStats(ctx, &pg.first, pg.after, days)
	if err != nil {
		return nil, err
	}
	return pageRows(pg, conn.Edges, conn.TotalCount, func(e *model.ActivityStatEdge) dailyStat {
		return dailyStat{Date: e.Node.Date(), activityMetrics: metricsOf(e.Node, only)}
	}), nil
}

// todayStats is the answer of GET /beta/daily-stats/today.
type todayStats struct {
	Hours int   `json:"hours"`
	From  int64 `json:"from"` // Unix seconds: the first hour's start
	To    int64 `json:"to"`   // the last second covered
	activityMetrics
}

var todayHours = map[string]int{"1h": 1, "4h": 4, "24h": 24}

func todayStatsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	hours := todayHours[a.str("hours")]
	sum, err := s.res.Query().RecentActivity(ctx, hours)
	if err != nil {
		return nil, err
	}
	return todayStats{Hours: hours, From: sum.StartsAt, To: sum.StartsAt + int64(hours)*db.HourSeconds - 1,
		activityMetrics: metricsOf(sum, "*")}, nil
}
