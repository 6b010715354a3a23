// `starkgraph sim` and `starkgraph replay`: a JSON-RPC node to index, simulated or replayed
// from fixtures.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/starkgraph/starkgraph/replay"
	"github.com/starkgraph/starkgraph/sim"
)

// simConfig is the configuration of `starkgraph sim`.
type simConfig struct {
	addr string
	sim  sim.Config
}

func (c *simConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:9545", "address to serve JSON-RPC on")
	c.sim = sim.Config{Seed: 1}
	c.sim.RegisterFlags(fs)
}

func runSim(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	var c simConfig
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkPortFree("--addr", c.addr); err != nil {
		return err
	}
	return sim.Serve(ctx, c.sim, c.addr, log)
}

// replayConfig is the configuration of `starkgraph replay DIR`.
type replayConfig struct {
	dir  string // the argument
	addr string
}

func (c *replayConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "127.0.0.1:9545", "address to serve JSON-RPC on")
}

func runReplay(ctx context.Context, log *slog.Logger, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New("usage: starkgraph replay DIR --addr ADDR")
	}
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	c := replayConfig{dir: args[0]}
	c.register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if st, err := os.Stat(c.dir); err != nil || !st.IsDir() {
		return fmt.Errorf("replay %s: no such directory; give a fixture set such as ../shared/fixtures/starknet/sepolia-56377", c.dir)
	}
	if err := checkPortFree("--addr", c.addr); err != nil {
		return err
	}
	return replay.Serve(ctx, c.dir, c.addr, log)
}
