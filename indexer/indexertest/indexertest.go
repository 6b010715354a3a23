// Package indexertest runs the indexer for the tests of other packages, which need an
// indexed chain to read (a replayed fixture set or the simulated node).
package indexertest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/indexer"
)

// Run indexes the node at url into conn from block from until block stopAt is written;
// the test fails if that takes over two minutes or the indexer stops with an error.
func Run(t testing.TB, conn *sqlx.DB, url string, from, stopAt int64) {
	t.Helper()
	ix, err := indexer.New(indexer.Config{RPCURL: url, DB: conn, FromBlock: from, StopAt: stopAt,
		PollInterval: 20 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the indexer did not reach block %d in time", stopAt)
	}
}
