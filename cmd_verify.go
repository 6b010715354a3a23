// `starkgraph verify-worker`, and the class-verification workers that serve and dev run too.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/verify"
)

// verifyFlags configure the class-verification workers of serve, dev and verify-worker.
type verifyFlags struct {
	workers   int
	scarbDir  string
	timeout   time.Duration
	memoryMiB int
	lease     time.Duration
	sandbox   string
}

func (f *verifyFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "verify-workers", envInt("STARKGRAPH_VERIFY_WORKERS", verify.DefaultWorkers), "class-verification jobs compiled at once (0: none in this process)")
	fs.StringVar(&f.scarbDir, "scarb-dir", envOr("STARKGRAPH_SCARB_DIR", verify.DefaultScarbDir()), "installed scarb versions, as DIR/<version>/bin/scarb (asdf layout); a scarb on PATH counts too")
	fs.DurationVar(&f.timeout, "verify-timeout", verify.DefaultTimeout, "longest scarb build of one job")
	fs.IntVar(&f.memoryMiB, "verify-memory", verify.DefaultMemoryMiB, "address-space cap of one scarb build, in MiB (0: none)")
	fs.DurationVar(&f.lease, "verify-lease", verify.DefaultLease, "how long a worker's claim on a job holds without renewal; a dead worker's job is retried after it")
	fs.StringVar(&f.sandbox, "verify-sandbox", envOr("STARKGRAPH_VERIFY_SANDBOX", "on"), "on: each scarb build runs in a bubblewrap sandbox (docs/verification-sandbox.md); off: builds run unisolated as this user (unsafe)")
}

// checkSandbox refuses to start workers whose builds could not be sandboxed, unless the
// operator turned the sandbox off (verify.Run then says so loudly).
func (f verifyFlags) checkSandbox(ctx context.Context) error {
	if f.sandbox != "on" && f.sandbox != "off" {
		return fmt.Errorf("--verify-sandbox must be on or off, not %q", f.sandbox)
	}
	if f.workers < 1 || f.sandbox == "off" {
		return nil
	}
	return verify.CheckSandbox(ctx)
}

// run runs the workers until ctx ends.
func (f verifyFlags) run(ctx context.Context, log *slog.Logger, conn *sqlx.DB) {
	verify.Run(ctx, verify.Config{
		DB: conn, Workers: f.workers, Lease: f.lease, Logger: log,
		Toolchains: verify.Toolchains{Dir: f.scarbDir, UsePATH: true},
		Limits:     verify.BuildLimits{Timeout: f.timeout, MemoryMiB: f.memoryMiB, NoSandbox: f.sandbox == "off"},
	})
}

// startVerifyWorkers runs the in-process verification workers (none with
// --verify-workers 0) and returns a function that stops them and waits until they have
// (a job in progress is given back to the queue).
func startVerifyWorkers(ctx context.Context, log *slog.Logger, conn *sqlx.DB, vf verifyFlags) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		vf.run(ctx, log, conn)
	}()
	return func() {
		cancel()
		<-done
	}
}

// verifyWorkerConfig is the configuration of `starkgraph verify-worker`.
type verifyWorkerConfig struct {
	databaseURL string // DATABASE_URL
	verify      verifyFlags
}

func (c *verifyWorkerConfig) register(fs *flag.FlagSet) {
	c.databaseURL = os.Getenv("DATABASE_URL")
	c.verify.register(fs)
}

func runVerifyWorker(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("verify-worker", flag.ContinueOnError)
	var c verifyWorkerConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.verify.workers < 1 {
		return errors.New("--verify-workers must be at least 1")
	}
	if err := c.verify.checkSandbox(ctx); err != nil {
		return err
	}
	conn, err := openDatabaseURL(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close()
	behind, err := db.CheckSchemaVersion(ctx, conn.DB)
	if err != nil {
		return err
	}
	pending, err := db.MigrationsPending(ctx, conn.DB)
	if err != nil {
		return err
	}
	if behind || pending {
		return errors.New("the database lacks migrations: run starkgraph migrate first")
	}
	c.verify.run(ctx, log, conn)
	return nil
}
