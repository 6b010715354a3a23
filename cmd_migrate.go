// `starkgraph migrate` and `starkgraph keys`: the database's schema and its API keys.

package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
)

// migrateConfig is the configuration of `starkgraph migrate`.
type migrateConfig struct {
	databaseURL string // DATABASE_URL
}

func (c *migrateConfig) register(*flag.FlagSet) { c.databaseURL = os.Getenv("DATABASE_URL") }

func runMigrate(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var c migrateConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	conn, err := openDatabaseURLMigrated(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	version, err := db.SchemaVersion(ctx, conn.DB)
	if err != nil {
		return err
	}
	log.Info("migrations applied", "schema_version", version)
	return nil
}

// runKeys runs `starkgraph keys ...` against DATABASE_URL; package auth parses the rest.
func runKeys(ctx context.Context, _ *slog.Logger, args []string) error {
	conn, err := openDatabaseURL(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer conn.Close()
	return auth.RunKeysCommand(ctx, conn, args, os.Stdout)
}
