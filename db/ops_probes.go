package db

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// ReplicaLagSeconds is how far the server conn reads from is behind its primary: 0 on a
// primary, else as IndexerStatus's replica_lag_seconds measures it.
func ReplicaLagSeconds(ctx context.Context, conn sqlx.QueryerContext) (float64, error) {
	var lag float64
	err := sqlx.GetContext(ctx, conn, &lag, `SELECT coalesce(`+replicaLag+`, 0)`)
	return lag, err
}

// VerifyQueueAgeSeconds is the age of the oldest verification job no worker has claimed
// yet (status 0, Submitted), 0 when none waits (served by verification_jobs_queue).
func VerifyQueueAgeSeconds(ctx context.Context, conn sqlx.QueryerContext) (float64, error) {
	var age float64
	err := sqlx.GetContext(ctx, conn, &age,
		`SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 FROM verification_jobs WHERE status = 0`)
	return age, err
}
