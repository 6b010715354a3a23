package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net/http"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
)

// chainFlags choose where `dev` takes its chain from.
type chainFlags struct {
	rpc string
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.rpc, "rpc", "", "index this JSON-RPC node instead of the simulated one")
}

// followChain runs the simulated node and the indexer for `dev`.
func followChain(ctx context.Context, log *slog.Logger, conn *sqlx.DB, c chainFlags) error {
	log.Warn("the indexer is not wired yet: the database stays as it is")
	<-ctx.Done()
	return ctx.Err()
}

func runIndex(ctx context.Context, log *slog.Logger, args []string) error {
	return errors.New("index: not wired yet")
}

func runSim(ctx context.Context, log *slog.Logger, args []string) error {
	return errors.New("sim: not wired yet")
}

func restHandler(store *db.Store) http.Handler { return nil }
