// `starkgraph` and `starkgraph dev`: everything on one machine, a private PostgreSQL (or
// DATABASE_URL), the simulated node (or --rpc), the indexer, the verification workers and the
// APIs.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db/pglocal"
)

// devConfig is the configuration of `starkgraph dev`.
type devConfig struct {
	databaseURL string // DATABASE_URL (empty: the private cluster in dataDir)
	dataDir     string
	devKey      string
	server      serverFlags
	chain       chainFlags
	verify      verifyFlags
}

func (c *devConfig) register(fs *flag.FlagSet) {
	c.databaseURL = os.Getenv("DATABASE_URL")
	c.server.register(fs)
	fs.StringVar(&c.dataDir, "data-dir", envOr("STARKGRAPH_DATA_DIR", ".starkgraph"), "where the private PostgreSQL cluster lives")
	fs.StringVar(&c.devKey, "dev-key", os.Getenv("STARKGRAPH_DEV_KEY"), "value of the development API key (default: a new random key)")
	c.chain.register(fs)
	c.chain.labels.register(fs)
	c.verify.register(fs)
}

// startLocalPostgres starts (or reuses) the private cluster of `dev` and returns the URL
// of its starkgraph database.
func startLocalPostgres(ctx context.Context, log *slog.Logger, dataDir string) (*pglocal.Cluster, string, error) {
	if _, err := pglocal.Find(); err != nil {
		return nil, "", err
	}
	cluster, err := pglocal.Start(ctx, pglocal.Options{DataDir: dataDir, Logger: log})
	if err != nil {
		return nil, "", err
	}
	if err := cluster.CreateDatabase(ctx, "starkgraph"); err != nil {
		_ = cluster.Stop(context.WithoutCancel(ctx))
		return nil, "", err
	}
	return cluster, cluster.URL("starkgraph"), nil
}

func runDev(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	var c devConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.verify.checkSandbox(ctx); err != nil {
		return err
	}
	// Everything that can be checked is, before PostgreSQL starts.
	if err := checkServerSettings(&c.server, c.databaseURL); err != nil {
		return err
	}
	if err := c.chain.check(ctx); err != nil {
		return err
	}
	if c.devKey != "" {
		if err := auth.ValidateKeyText(c.devKey); err != nil {
			return fmt.Errorf("--dev-key (or STARKGRAPH_DEV_KEY): %v; choose another value", err)
		}
	}
	if c.databaseURL == "" {
		if err := checkDataDir(c.dataDir, c.databaseURL); err != nil {
			return err
		}
		if _, err := pglocal.Find(); err != nil {
			return err
		}
	}
	if err := c.server.bindEarly(); err != nil {
		return err
	}
	defer c.server.closeBound()
	logStart(log, "dev")
	// The labels load beside the indexer, the one writer; API replicas only read them.
	if c.chain.rpc == "" {
		c.chain.labels.extra = simLabels(c.chain.sim, c.server.addr)
	}

	url, banner := c.databaseURL, ""
	if url == "" {
		cluster, localURL, err := startLocalPostgres(ctx, log, filepath.Join(c.dataDir, "pgdata"))
		if err != nil {
			return err
		}
		// Stop the cluster however dev ends; a later start reuses its data.
		defer func() {
			if err := cluster.Stop(context.WithoutCancel(ctx)); err != nil {
				log.Warn("stopping PostgreSQL", "err", err)
			}
		}()
		url = localURL
		// The private cluster trusts local connections: its URL holds no secret to hide.
		banner = fmt.Sprintf("  database:   DATABASE_URL='%s' (for serve, keys, index)\n", url)
	}
	conn, err := openMigrated(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close()
	key, err := auth.DevKey(ctx, auth.NewStore(conn), c.devKey)
	if err != nil {
		return fmt.Errorf("development key: %w", err)
	}
	fmt.Fprintf(os.Stderr, "\n  starkgraph dev\n  playground: http://%s/\n  GraphQL:    http://%s/graphql\n  REST:       http://%s/beta/\n  API key:    %s\n%s\n",
		displayAddr(c.server.addr), displayAddr(c.server.addr), displayAddr(c.server.addr), key, banner)

	followErr := make(chan error, 1)
	go func() { followErr <- followChain(ctx, log, conn, c.chain) }()
	stopWorkers := startVerifyWorkers(ctx, log, conn, c.verify)
	defer stopWorkers()
	serveErr := serveAPI(ctx, log, conn, url, c.server, key)
	if serveErr != nil {
		return serveErr
	}
	select {
	case err := <-followErr:
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	case <-time.After(5 * time.Second):
	}
	return nil
}
