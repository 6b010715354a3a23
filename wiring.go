// The parts of the service that the commands (cmd_*.go) wire together: the chain a dev
// process follows, the L1 follower, NFT metadata and the REST handler. Nothing here calls
// back into the commands.

package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/analytics"
	"github.com/starkgraph/starkgraph/answercache"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/l1"
	"github.com/starkgraph/starkgraph/nftmeta"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/sim"
)

// analyticsInterval is how often the indexing processes recompute holders analytics.
const analyticsInterval = time.Minute

// chainFlags choose where `dev` takes its chain from: the simulated node by default, or a
// real node with --rpc.
type chainFlags struct {
	rpc      string
	sim      sim.Config
	l1       l1Flags
	figures  indexer.FiguresConfig
	nftMeta  nftMetaFlags
	labels   labelFlags // set by dev: the label loader runs beside the indexer
	balances balanceFlags
}

// nftMetaFlags configure the NFT metadata fetcher that `index` and `dev` run beside the
// indexer (it needs the node, for token URIs).
type nftMetaFlags struct {
	gateway      string
	allowPrivate bool
}

func (f *nftMetaFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.gateway, "ipfs-gateway", envOr("STARKGRAPH_IPFS_GATEWAY", nftmeta.DefaultGateway), "HTTP gateway that ipfs:// token URIs are read through")
	fs.BoolVar(&f.allowPrivate, "nft-metadata-private", false, "let token URIs name loopback and private addresses (off: a contract cannot make the service read its own network)")
}

// start runs the fetcher until ctx ends.
func (f nftMetaFlags) start(ctx context.Context, log *slog.Logger, conn *sqlx.DB, rpcURL string) {
	fetcher := nftmeta.New(nftmeta.Config{DB: conn, RPCURL: rpcURL, Gateway: f.gateway, AllowPrivate: f.allowPrivate,
		Logger: log.With("component", "nftmeta")})
	go fetcher.Run(ctx)
}

// balanceFlags say how the indexer checks ERC-20 balances against the chain (docs/indexer.md).
type balanceFlags struct {
	reconcile bool
	calls     float64
}

func (f *balanceFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.reconcile, "reconcile-balances", true, "compare each block's ERC-20 balances with the storage diffs of its state update, the chain's value winning (false: balances as the Transfer events tell)")
	fs.Float64Var(&f.calls, "balance-calls-per-second", 20, "the most balance_of calls a second, once caught up, reading the balances neither events nor storage show (negative: none)")
}

// apply sets f in cfg.
func (f balanceFlags) apply(cfg *indexer.Config) {
	cfg.NoReconcile = !f.reconcile
	cfg.BalanceCallsPerSecond = f.calls
	if f.calls == 0 {
		cfg.BalanceCallsPerSecond = -1 // 0 means the default to the indexer
	}
}

// registerFigureFlags adds the flags naming where `index` and `dev` read staking figures
// and prices from.
func registerFigureFlags(fs *flag.FlagSet, f *indexer.FiguresConfig) {
	fs.StringVar(&f.Staking, "staking-contract", "", "the staking contract figures are read from (default: the chain's; \"off\" for none)")
	fs.StringVar(&f.MintingCurve, "minting-curve", "", "the staking minting curve (default: the chain's; \"off\" for none)")
	fs.StringVar(&f.Oracle, "price-oracle", "", "the Pragma oracle USD prices are read from (default: the chain's; \"off\" for none)")
	fs.StringVar(&f.Prices, "price-feeds", "", "token=PAIR oracle feeds, comma-separated (default: STRK, ETH, WBTC, USDC and USDT on mainnet; \"off\" for none)")
	fs.Uint64Var(&f.Every, "figures-every", 10, "the most blocks between two readings of staking figures and prices")
}

// l1Flags configure the L1 follower of `index` and `dev` (off without --l1-rpc).
type l1Flags struct {
	rpc           string
	core          string
	fromBlock     uint64
	confirmations uint64
	poll          time.Duration // how often a caught-up follower looks again; 0: l1's default
}

func (f *l1Flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.rpc, "l1-rpc", os.Getenv("STARKGRAPH_L1_RPC_URL"), "Ethereum JSON-RPC URL: gives L1_HANDLER transactions the hash of the L1 transaction that sent their message (off when empty)")
	fs.StringVar(&f.core, "l1-core", l1.MainnetCore.Hex(), "the Starknet core contract on L1 (Sepolia: "+l1.SepoliaCore.Hex()+")")
	fs.Uint64Var(&f.fromBlock, "l1-from-block", 0, "the first L1 block to read on the first run (later runs resume); set it to the core contract's deployment block, or reading starts from Ethereum's genesis")
	fs.Uint64Var(&f.confirmations, "l1-confirmations", 12, "L1 blocks below the head that are read")
}

// check checks the L1 flags' forms.
func (f l1Flags) check() error {
	if f.rpc == "" {
		return nil
	}
	if err := checkHTTPURL("--l1-rpc", f.rpc); err != nil {
		return err
	}
	if !common.IsHexAddress(f.core) {
		return fmt.Errorf("--l1-core %q is not an Ethereum address (0x and 40 hex digits)", f.core)
	}
	return nil
}

// check checks what dev's chain flags name: a --rpc node must answer.
func (c chainFlags) check(ctx context.Context) error {
	if err := c.l1.check(); err != nil {
		return err
	}
	if c.rpc == "" {
		return nil
	}
	return checkNode(ctx, "--rpc", c.rpc)
}

// start runs the L1 follower in the background when --l1-rpc is set.
func (f l1Flags) start(ctx context.Context, log *slog.Logger, conn *sqlx.DB) error {
	if f.rpc == "" {
		return nil
	}
	if !common.IsHexAddress(f.core) {
		return fmt.Errorf("--l1-core %q is not an Ethereum address", f.core)
	}
	go func() {
		if err := l1.Run(ctx, l1.Config{RPCURL: f.rpc, Core: common.HexToAddress(f.core), FromBlock: f.fromBlock,
			Confirmations: f.confirmations, Poll: f.poll, DB: conn, Logger: log}); err != nil {
			log.Error("L1 follower stopped", "err", err)
		}
	}()
	return nil
}

func (c *chainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.rpc, "rpc", "", "index this JSON-RPC node instead of the simulated one")
	c.sim = sim.Config{Seed: 1, Blocks: 200, BlockTime: 2 * time.Second}
	c.sim.RegisterFlags(fs)
	c.l1.register(fs)
	registerFigureFlags(fs, &c.figures)
	c.nftMeta.register(fs)
	c.balances.register(fs)
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
		srv := &http.Server{Handler: chain.Handlers(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		go chain.Run(ctx)
		url = "http://" + ln.Addr().String() + "/rpc/v0_8"
		if c.l1.rpc == "" { // the simulated chain's deposits come from its own L1, read once per block
			c.l1.rpc, c.l1.poll = "http://"+ln.Addr().String()+sim.L1Path, c.sim.BlockTime
		}
		log.Info("simulated Starknet node", "url", url, "seed", c.sim.Seed, "block_time", c.sim.BlockTime, "l1_url", c.l1.rpc)
	}
	cfg := indexer.Config{RPCURL: url, DB: conn, StopAt: -1, Logger: log, Figures: c.figures}
	c.balances.apply(&cfg)
	ix, err := indexer.New(cfg)
	if err != nil {
		return err
	}
	if err := c.l1.start(ctx, log, conn); err != nil {
		return err
	}
	if c.rpc == "" && c.labels.extra == nil {
		c.labels.extra = simLabels(c.sim, ":8080")
	}
	c.labels.start(ctx, log, conn)
	go analytics.Run(ctx, conn, analyticsInterval, log)
	c.nftMeta.start(ctx, log, conn, url)
	return ix.Run(ctx)
}

// restHandler is the /beta handler over store; writes is the primary when store reads a
// replica (nil: store); answers, when not nil, keeps its answers between data versions.
func restHandler(store, writes *db.Store, answers *answercache.Cache) http.Handler {
	opts := rest.Options{Logger: slog.Default()}
	if answers != nil {
		opts.Answers = answers.Handler
	}
	return rest.NewHandler(&resolvers.Resolver{Store: store, Writes: writes}, opts)
}
