package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/starkgraph/starkgraph/audit"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// runAudit is `starkgraph audit`: it compares balances and NFT owners in DATABASE_URL with
// what the node answers at the indexed head (package audit), prints each difference, and
// fails (exit 1) when there is any. Operators can run it on a schedule.
func runAudit(ctx context.Context, log *slog.Logger, args []string) error {
	return auditCommand(ctx, log, args, os.Stdout)
}

func auditCommand(ctx context.Context, log *slog.Logger, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	rpcURL := fs.String("rpc", os.Getenv("STARKNET_RPC_URL"), "JSON-RPC URL of the node the database was indexed from")
	token := fs.String("token", "", "audit this token's holders (with --sample, a sample of them)")
	holder := fs.String("holder", "", "audit this holder's balances")
	sample := fs.Int("sample", 200, "balances to check (0: all that --token and --holder select)")
	nfts := fs.Int("nft-sample", 50, "ERC-721 owners to check (0: none)")
	skip := fs.String("skip", "", "comma-separated tokens left out (tokens known by calls are compared at the blocks their balances were read at)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *rpcURL == "" {
		return errors.New("--rpc URL is required (or STARKNET_RPC_URL)")
	}
	if err := checkHTTPURL("--rpc", *rpcURL); err != nil {
		return err
	}
	o := audit.Options{Sample: *sample, NFTSample: *nfts}
	for _, f := range []struct {
		name, value string
		dst         **starknet.Felt
	}{{"--token", *token, &o.Token}, {"--holder", *holder, &o.Holder}} {
		if f.value == "" {
			continue
		}
		v, err := starknet.ParseFelt(f.value)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = &v
	}
	for _, s := range strings.Split(*skip, ",") {
		if s = strings.TrimSpace(s); s != "" {
			v, err := starknet.ParseFelt(s)
			if err != nil {
				return fmt.Errorf("--skip: %w", err)
			}
			o.Skip = append(o.Skip, v)
		}
	}
	conn, err := openDatabaseURL(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer conn.Close()
	rep, err := audit.Run(ctx, conn, rpc.NewClient(*rpcURL), o)
	if err != nil {
		return err
	}
	for _, d := range rep.Differences {
		fmt.Fprintln(out, "DIFFERENCE", d)
	}
	fmt.Fprintf(out, "audited %d balances and %d NFT owners at block %d (%d balances of tokens known by calls not read yet): %d differences\n",
		rep.Balances, rep.Owners, rep.Block, rep.NotRead, len(rep.Differences))
	if len(rep.Differences) > 0 {
		return fmt.Errorf("%d differences with the node at block %d", len(rep.Differences), rep.Block)
	}
	log.Info("audit: no difference", "balances", rep.Balances, "owners", rep.Owners, "block", rep.Block)
	return nil
}
