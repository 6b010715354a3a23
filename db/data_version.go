package db

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// DataChannel is the NOTIFY channel on which every transaction that writes a table the APIs
// read announces the data version it made (migration 00058, bump_data_version): the
// indexer's batches, finality and L1 acceptance, reorgs, labels, figures and analytics
// passes, verification results. The answer cache keeps an answer for one data version.
const DataChannel = "starkgraph_data"

// DataVersion is the database's data version as q sees it: on a replica, the version of
// the transactions it has replayed.
func DataVersion(ctx context.Context, q sqlx.QueryerContext) (int64, error) {
	var v int64
	err := sqlx.GetContext(ctx, q, &v, `SELECT v FROM data_version WHERE id = 1`)
	return v, err
}
