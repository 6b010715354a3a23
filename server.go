// Command starkgraph follows a Starknet JSON-RPC node, indexes the chain into PostgreSQL and
// serves it as GraphQL and as the /beta REST interface of the explorer API.
//
//	starkgraph [dev]        private PostgreSQL, simulated node, indexer and API (the default)
//	starkgraph serve        API only, against DATABASE_URL
//	starkgraph index        indexer only, against DATABASE_URL
//	starkgraph migrate      apply migrations to DATABASE_URL
//	starkgraph keys ...     create, list, revoke API keys and show their usage
//	starkgraph labels ...   import, list, remove the names of addresses
//	starkgraph webhooks ... list every key's webhooks, pause, resume, replay, delete them
//	starkgraph sim          the simulated Starknet node alone
//	starkgraph replay DIR   serve a fixture set as a JSON-RPC node
//	starkgraph verify-worker  class-verification workers alone, against DATABASE_URL
//	starkgraph bench        the APIs measured against their own SQL, on a database built from the simulator
//	starkgraph hostile      hostile requests against a running server
//	starkgraph version      the release and the revision it was built from (also --version)
//
// This file dispatches the commands; each lives in a file of its own with its configuration
// (cmd_*.go, benchcmd.go, names.go, hostile/), flags and environment together (config.go):
//
//	config.go    environment helpers and the serving settings of dev, serve and bench
//	database.go  connections to PostgreSQL and the API's read pool
//	serving.go   the public and admin servers
//	wiring.go    the chain dev follows, the L1 follower, NFT metadata, the REST handler
//	preflight.go the checks every command makes before it starts anything
//	gc.go        the collector's settings and the log level
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/starkgraph/starkgraph/hostile"
)

// command is one subcommand: its name, a line of help, and what it runs.
type command struct {
	name string
	help string
	run  func(ctx context.Context, log *slog.Logger, args []string) error
}

func commands() []command {
	return []command{
		{"dev", "run everything locally: private PostgreSQL, simulated node, indexer, API (default)", runDev},
		{"serve", "serve the APIs from DATABASE_URL", runServe},
		{"index", "index a node into DATABASE_URL: --rpc URL [--from-block N] [--stop-at N]", runIndex},
		{"migrate", "apply database migrations to DATABASE_URL", runMigrate},
		{"keys", "manage API keys: create --plan NAME [--label TEXT] | list | revoke ID | usage KEY", runKeys},
		{"webhooks", "every key's webhooks for operators: list [--key ID] [--json] | pause ID | resume ID | replay ID --from-block N | delete ID", runWebhooks},
		{"labels", "manage the names of addresses (docs/names.md): import FILE | list [--json] | rm ADDRESS", runLabels},
		{"sim", "serve the simulated Starknet node: --addr ADDR [--seed N] [--blocks N] [--block-time D]", runSim},
		{"replay", "serve a fixture set as a JSON-RPC node: replay DIR --addr ADDR", runReplay},
		{"bench", "measure the APIs against their own SQL: [--txs N] [--concurrency C] [--duration D]", runBench},
		{"hostile", "send hostile requests to a server and report 5xx, leaks, broken connections, hangs, memory: --url URL --key KEY [--requests N] [--concurrency C]", hostile.Command},
		{"audit", "check balances and NFT owners against the node at the indexed head: --rpc URL [--token T] [--holder H] [--sample N]", runAudit},
		{"verify-worker", "run class-verification workers against DATABASE_URL: [--verify-workers N] [--scarb-dir DIR] [--verify-sandbox on|off]", runVerifyWorker},
		{"version", "print the version and the revision it was built from (also --version)", runVersion},
	}
}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))
	slog.SetDefault(log)
	tuneGC(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	name, args := "dev", os.Args[1:]
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		name, args = "version", args[1:]
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	for _, c := range commands() {
		if c.name == name {
			if err := c.run(ctx, log, args); err != nil && !errors.Is(err, flag.ErrHelp) {
				log.Error(name+" failed", "err", err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "unknown command %q\n\nusage: starkgraph [command] [flags]\n\n", name)
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", c.name, c.help)
	}
	os.Exit(2)
}
