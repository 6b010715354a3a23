package main

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/labels"
	"github.com/starkgraph/starkgraph/sim"
)

// Names (docs/names.md): the operator's label file, the labels command and the logos of
// the simulated chain.

// labelFlags are the label file of the processes that run the indexer (dev, index): the
// loader writes the aliases table, which API replicas only read.
type labelFlags struct {
	file  string
	extra []labels.Entry // dev: the simulated chain's labels
}

func (f *labelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.file, "labels", os.Getenv("STARKGRAPH_LABELS"), "label file (YAML, docs/names.md), loaded at start and on SIGHUP")
}

// start keeps the aliases table in step with the default list of the indexed chain and
// the label file, in the background until ctx ends.
func (f labelFlags) start(ctx context.Context, log *slog.Logger, conn *sqlx.DB) {
	l := &labels.Loader{Conn: conn, File: f.file, Extra: f.extra, Log: log}
	go l.Run(ctx)
}

// simLabels are the simulated chain's labels, with logos served by this process at addr.
func simLabels(cfg sim.Config, addr string) []labels.Entry {
	var out []labels.Entry
	for _, l := range cfg.Labels("http://" + displayAddr(addr) + labels.LogoPath) {
		out = append(out, labels.Entry{Address: l.Address, Name: l.Name, Kind: l.Kind, Logo: l.Logo, Verified: l.Verified,
			Source: "the simulated chain (sim.Config.Labels)"})
	}
	return out
}

// withLogos serves the generated logos beside the API.
func withLogos(next http.Handler) http.Handler {
	logos := labels.LogoHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, labels.LogoPath) && r.Method == http.MethodGet {
			logos.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func runLabels(ctx context.Context, _ *slog.Logger, args []string) error {
	conn, err := openDatabaseURLMigrated(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer conn.Close()
	return labels.RunCommand(ctx, conn, args, os.Stdout)
}
