package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// ActivityStat is the chain's activity over one UTC day or hour (a row of activity_stats).
type ActivityStat struct {
	Granularity    string `db:"granularity"` // "d" or "h"
	StartsAt       int64  `db:"starts_at"`   // Unix seconds
	Blocks         int64  `db:"blocks"`
	Transactions   int64  `db:"transactions"`
	Invokes        int64  `db:"invokes"`
	Declares       int64  `db:"declares"`
	DeployAccounts int64  `db:"deploy_accounts"`
	L1Handlers     int64  `db:"l1_handlers"`
	Reverted       int64  `db:"reverted"`
	Events         int64  `db:"events"`
	MessagesToL1   int64  `db:"messages_to_l1"`
	TokenTransfers int64  `db:"token_transfers"`
	FeesWei        string `db:"fees_wei,numeric,zeroempty"`
	FeesFri        string `db:"fees_fri,numeric,zeroempty"`
}

// The widths of the buckets, in seconds.
const (
	DaySeconds  = 86400
	HourSeconds = 3600
)

var activityCols = rowShapeOf[ActivityStat]().selectList("a")

// AddActivity adds counts to their buckets (rows keyed by granularity and start).
func AddActivity(ctx context.Context, tx *sqlx.Tx, rows []ActivityStat) error {
	cols := columnsOf[ActivityStat]()
	var set []string
	for _, c := range cols[2:] {
		set = append(set, fmt.Sprintf("%[1]s = activity_stats.%[1]s + EXCLUDED.%[1]s", c))
	}
	return upsertRows(ctx, tx, "activity_stats", cols, "ON CONFLICT (granularity, starts_at) DO UPDATE SET "+strings.Join(set, ", "), rowValues(rows))
}

// ActivityStats lists the buckets of a granularity starting at or after from, newest
// first; keyset: starts_at.
func (s *Store) ActivityStats(ctx context.Context, granularity string, from int64, w Window) ([]*ActivityStat, error) {
	where, tail, kargs := w.keyset([]string{"a.starts_at"}, true, 3)
	var rows []*ActivityStat
	err := s.selectRows(ctx, &rows, `SELECT `+activityCols+` FROM activity_stats a`+
		and("a.granularity = $1 AND a.starts_at >= $2", where)+tail, append([]any{granularity, from}, kargs...)...)
	return rows, err
}

// CountActivityStats counts them (capped).
func (s *Store) CountActivityStats(ctx context.Context, granularity string, from int64) (int64, error) {
	return s.cappedCount(ctx, "activity_stats WHERE granularity = $1 AND starts_at >= $2", granularity, from)
}

// activitySums is the select list of SumActivity: each count's sum over the buckets.
var activitySums = func() string {
	var sums []string
	for _, c := range columnsOf[ActivityStat]()[2:] {
		sums = append(sums, fmt.Sprintf("coalesce(sum(a.%[1]s), 0)::text AS %[1]s", c))
	}
	return strings.Join(sums, ", ")
}()

// SumActivity adds up the buckets of a granularity from from to to (starts, inclusive).
func (s *Store) SumActivity(ctx context.Context, granularity string, from, to int64) (*ActivityStat, error) {
	var out ActivityStat
	_, err := s.getRow(ctx, &out, `SELECT $1 AS granularity, $2::bigint AS starts_at, `+activitySums+`
		FROM activity_stats a WHERE a.granularity = $1 AND a.starts_at BETWEEN $2 AND $3`, granularity, from, to)
	return &out, err
}

// Date is the UTC day of StartsAt, YYYY-MM-DD.
func (a *ActivityStat) Date() string { return time.Unix(a.StartsAt, 0).UTC().Format(time.DateOnly) }
