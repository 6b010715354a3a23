package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
)

// TestAuditCommand: `starkgraph audit` exits 0 on a clean database and 1 on one with a
// planted wrong balance, naming it.
func TestAuditCommand(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 23, Blocks: 60, TxPerBlock: 6})
	srv := httptest.NewServer(chain.Handler())
	defer srv.Close()
	dbURL := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head, _ := chain.Head()
	ix, err := indexer.New(indexer.Config{RPCURL: srv.URL, DB: conn, StopAt: int64(head), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	audit := func() (string, int) {
		cmd := exec.CommandContext(ctx, os.Args[0], "audit", "--rpc", srv.URL, "--sample", "0", "--nft-sample", "1000",
			"--skip", chain.OddTokens().Interest)
		cmd.Env = append(os.Environ(), runMainEnv+"=1", "DATABASE_URL="+dbURL, "LOG_LEVEL=error")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	if out, code := audit(); code != 0 || !strings.Contains(out, ": 0 differences") {
		t.Fatalf("clean database: exit %d\n%s", code, out)
	}
	var holder string
	if err := conn.Get(&holder, `UPDATE erc20_balances SET balance = balance * 2 WHERE (token_address, owner_address) =
		(SELECT token_address, owner_address FROM erc20_balances WHERE balance > 0 ORDER BY 1, 2 LIMIT 1)
		RETURNING '0x' || ltrim(encode(owner_address, 'hex'), '0')`); err != nil {
		t.Fatal(err)
	}
	out, code := audit()
	if code != 1 || strings.Count(out, "DIFFERENCE") != 1 || !strings.Contains(out, "holder "+holder) {
		t.Fatalf("planted a wrong balance of %s: exit %d\n%s", holder, code, out)
	}
}
