// `starkgraph version` (and --version): the release and the revision it was built from.

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

func runVersion(_ context.Context, _ *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	printVersion(os.Stdout)
	return nil
}

// printVersion writes the line `starkgraph version` prints, e.g.
// "starkgraph 0.1.0 (rev abc1234, 2026-11-29, modified)".
func printVersion(w io.Writer) { fmt.Fprintln(w, buildinfo.String()) }

// logStart logs the release and revision a serving or indexing process runs, first thing,
// so that a log names the build that wrote it.
func logStart(log *slog.Logger, command string) {
	info := buildinfo.Get()
	log.Info("starkgraph "+command, "version", info.Version, "revision", buildinfo.Revision(),
		"modified", info.Modified, "go", info.GoVersion)
}
