// `starkgraph index`: the indexer alone, following a node into DATABASE_URL.

package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/starkgraph/starkgraph/analytics"
	"github.com/starkgraph/starkgraph/indexer"
)

// indexConfig is the configuration of `starkgraph index`.
type indexConfig struct {
	databaseURL  string // DATABASE_URL
	rpcURL       string
	from         int64
	stopAt       int64
	maxReorg     int
	poll         time.Duration
	concurrency  int
	batch        int
	bulkFrom     int64
	bulkBalances int
	adminAddr    string
	l1           l1Flags
	figures      indexer.FiguresConfig
	nftMeta      nftMetaFlags
	labels       labelFlags
	balances     balanceFlags
}

func (c *indexConfig) register(fs *flag.FlagSet) {
	c.databaseURL = os.Getenv("DATABASE_URL")
	fs.StringVar(&c.rpcURL, "rpc", os.Getenv("STARKNET_RPC_URL"), "JSON-RPC URL of the node, e.g. http://localhost:9545/rpc/v0_8")
	fs.Int64Var(&c.from, "from-block", 0, "first block to index into an empty database")
	fs.Int64Var(&c.stopAt, "stop-at", -1, "exit 0 once this block is written (-1: follow forever)")
	fs.IntVar(&c.maxReorg, "max-reorg-depth", 64, "deepest reorg to follow")
	fs.DurationVar(&c.poll, "poll-interval", 2*time.Second, "how often the node is asked for new blocks once caught up")
	fs.IntVar(&c.concurrency, "concurrency", 4, "block ranges fetched at once")
	fs.IntVar(&c.batch, "batch-size", 20, "blocks per JSON-RPC batch and per SQL transaction while catching up")
	fs.Int64Var(&c.bulkFrom, "bulk-load-min-blocks", 1000, "catch up at least this many blocks (and at least as many as are indexed) as a bulk load: secondary indexes and foreign keys rebuilt once at the end (-1: never)")
	fs.IntVar(&c.bulkBalances, "bulk-load-balances", 2_000_000, "ERC-20 balances and key counts a bulk load keeps in memory between batches, about 200 bytes each; past it, the tables it defers are written up to the head and the memory emptied")
	fs.StringVar(&c.adminAddr, "admin-addr", envOr("STARKGRAPH_INDEX_ADMIN_ADDR", "127.0.0.1:9091"), "admin address for the indexer's /metrics (empty: off)")
	c.l1.register(fs)
	registerFigureFlags(fs, &c.figures)
	c.nftMeta.register(fs)
	c.labels.register(fs)
	c.balances.register(fs)
}

func runIndex(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	var c indexConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.rpcURL == "" {
		return errors.New("--rpc URL is required (or STARKNET_RPC_URL)")
	}
	if _, err := requireDatabaseURL(c.databaseURL); err != nil {
		return err
	}
	if err := c.l1.check(); err != nil {
		return err
	}
	// The node may start after the indexer: Run waits for it (retrying with backoff, each
	// failure logged and indexer_node_up at 0 on /metrics), so only the URL's form is checked.
	if err := checkHTTPURL("--rpc", c.rpcURL); err != nil {
		return err
	}
	var adminLn net.Listener
	if c.adminAddr != "" {
		ln, err := listenChecked("--admin-addr", "STARKGRAPH_INDEX_ADMIN_ADDR", c.adminAddr)
		if err != nil {
			return err
		}
		adminLn = ln
		defer adminLn.Close()
	}
	logStart(log, "index")
	conn, err := openDatabaseURLMigrated(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	cfg := indexer.Config{
		RPCURL: c.rpcURL, DB: conn, FromBlock: c.from, StopAt: c.stopAt, MaxReorgDepth: c.maxReorg,
		PollInterval: c.poll,
		Concurrency:  c.concurrency, BatchSize: c.batch, BulkLoadMinBlocks: c.bulkFrom, BulkLoadBalances: c.bulkBalances, Logger: log, Figures: c.figures,
		Progress: term.IsTerminal(int(os.Stderr.Fd())),
	}
	c.balances.apply(&cfg)
	ix, err := indexer.New(cfg)
	if err != nil {
		return err
	}
	if err := c.l1.start(ctx, log, conn); err != nil {
		return err
	}
	if c.stopAt < 0 {
		c.labels.start(ctx, log, conn)
		go analytics.Run(ctx, conn, analyticsInterval, log)
		c.nftMeta.start(ctx, log, conn, c.rpcURL)
	}
	if adminLn != nil {
		admin := adminServer(c.adminAddr)
		go func() { _ = admin.Serve(adminLn) }()
		defer admin.Close()
	}
	if err := ix.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
