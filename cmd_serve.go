// `starkgraph serve`: the APIs alone, against DATABASE_URL.

package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"github.com/starkgraph/starkgraph/db"
)

// serveConfig is the configuration of `starkgraph serve`.
type serveConfig struct {
	databaseURL string // DATABASE_URL
	server      serverFlags
	verify      verifyFlags
}

func (c *serveConfig) register(fs *flag.FlagSet) {
	c.databaseURL = os.Getenv("DATABASE_URL")
	c.server.register(fs)
	c.verify.register(fs)
}

func runServe(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c serveConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.verify.checkSandbox(ctx); err != nil {
		return err
	}
	if _, err := requireDatabaseURL(c.databaseURL); err != nil {
		return err
	}
	if err := checkServerSettings(&c.server, c.databaseURL); err != nil {
		return err
	}
	if err := c.server.bindEarly(); err != nil {
		return err
	}
	defer c.server.closeBound()
	conn, err := openDatabaseURL(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	// serve does not migrate: a newer schema stops it, an older one is said once (and
	// /readyz answers 503 until migrate has run).
	behind, err := db.CheckSchemaVersion(ctx, conn.DB)
	if err != nil {
		return err
	}
	logStart(log, "serve")
	if behind {
		log.Warn("the database lacks migrations this starkgraph needs: run starkgraph migrate (/readyz answers 503 until then)")
	}
	stopWorkers := startVerifyWorkers(ctx, log, conn, c.verify)
	defer stopWorkers()
	return serveAPI(ctx, log, conn, c.databaseURL, c.server, "")
}
