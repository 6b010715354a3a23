package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/term"

	"github.com/starkgraph/starkgraph/analytics"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/sim"
)

// analyticsInterval is how often the indexing processes recompute holders analytics.
const analyticsInterval = time.Minute

// chainFlags choose where `dev` takes its chain from: the simulated node by default, or a
// real node with --rpc.
type chainFlags struct {
	rpc string
	sim sim.Config
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.rpc, "rpc", "", "index this JSON-RPC node instead of the simulated one")
	c.sim = sim.Config{Seed: 1, Blocks: 200, BlockTime: 2 * time.Second}
	c.sim.RegisterFlags(fs)
}

// followChain runs the simulated node (unless --rpc names a real one) and the indexer for
// `dev`, until ctx ends.
func followChain(ctx context.Context, log *slog.Logger, conn *sqlx.DB, c chainFlags) error {
	url := c.rpc
	if url == "" {
		// The simulated chain is a function of its seed: restarted, it must reach at least
		// the head already indexed, or the database would be ahead of its node.
		cfg := c.sim
		if head, _, ok, err := db.IndexedHead(ctx, conn); err == nil && ok && uint64(head+1) > cfg.Blocks {
			cfg.Blocks = uint64(head + 1)
		}
		chain := sim.New(cfg)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("simulated node: %w", err)
		}
		srv := &http.Server{Handler: chain.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		go chain.Run(ctx)
		url = "http://" + ln.Addr().String() + "/rpc/v0_8"
		log.Info("simulated Starknet node", "url", url, "seed", c.sim.Seed, "block_time", c.sim.BlockTime)
	}
	ix, err := indexer.New(indexer.Config{RPCURL: url, DB: conn, StopAt: -1, Logger: log})
	if err != nil {
		return err
	}
	go analytics.Run(ctx, conn, analyticsInterval, log)
	return ix.Run(ctx)
}

func runIndex(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	rpcURL := fs.String("rpc", os.Getenv("STARKNET_RPC_URL"), "JSON-RPC URL of the node, e.g. http://localhost:9545/rpc/v0_8")
	from := fs.Int64("from-block", 0, "first block to index into an empty database")
	stopAt := fs.Int64("stop-at", -1, "exit 0 once this block is written (-1: follow forever)")
	maxReorg := fs.Int("max-reorg-depth", 64, "deepest reorg to follow")
	concurrency := fs.Int("concurrency", 4, "block ranges fetched at once")
	batch := fs.Int("batch-size", 20, "blocks per JSON-RPC batch and per SQL transaction while catching up")
	adminAddr := fs.String("admin-addr", envOr("STARKGRAPH_INDEX_ADMIN_ADDR", "127.0.0.1:9091"), "admin address for the indexer's /metrics (empty: off)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rpcURL == "" {
		return errors.New("--rpc URL is required (or STARKNET_RPC_URL)")
	}
	conn, err := openDatabaseURL(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := db.Migrate(ctx, conn.DB); err != nil {
		return err
	}
	ix, err := indexer.New(indexer.Config{
		RPCURL: *rpcURL, DB: conn, FromBlock: *from, StopAt: *stopAt, MaxReorgDepth: *maxReorg,
		Concurrency: *concurrency, BatchSize: *batch, Logger: log,
		Progress: term.IsTerminal(int(os.Stderr.Fd())),
	})
	if err != nil {
		return err
	}
	if *stopAt < 0 {
		go analytics.Run(ctx, conn, analyticsInterval, log)
	}
	if *adminAddr != "" {
		admin := adminServer(*adminAddr)
		ln, err := net.Listen("tcp", admin.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", admin.Addr, err)
		}
		go func() { _ = admin.Serve(ln) }()
		defer admin.Close()
	}
	if err := ix.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func runSim(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:9545", "address to serve JSON-RPC on")
	cfg := sim.Config{Seed: 1}
	cfg.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return sim.Serve(ctx, cfg, *addr, log)
}

// restHandler builds the /beta interface over the same resolvers as GraphQL.
func restHandler(store *db.Store) http.Handler {
	return rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: slog.Default()})
}
