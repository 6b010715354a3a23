package verify

import (
	"context"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/syncbuf"
)

// A command that runs workers checks the sandbox before it starts (CheckSandbox), then
// starts them (Run): the trial build runs once, not once for each.
func TestSandboxTrialRunsOncePerStart(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		noSandbox(t) // fails in CI, where bwrap is installed
		t.Skip("no bwrap: no trial build to count")
	}
	conn := dbtest.New(t)
	sandboxWorks.Lock()
	sandboxWorks.bwrap = "" // as in a process that has not checked yet
	sandboxWorks.Unlock()
	before := sandboxTrials.Load()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// What dev, serve and verify-worker do: check, refuse to start on failure, then run.
	if err := CheckSandbox(ctx); err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Config{DB: conn, Workers: 2, Poll: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			Toolchains: Toolchains{Dir: t.TempDir()}})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "verification workers") {
		if time.Now().After(deadline) {
			t.Fatalf("the workers did not start; log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if strings.Contains(logs.String(), "not started") {
		t.Fatalf("workers refused: %s", logs.String())
	}
	if n := sandboxTrials.Load() - before; n != 1 {
		t.Fatalf("%d trial builds for one start, want 1", n)
	}
}

// A success is remembered for the bwrap that had it: a check with another runs a trial.
func TestSandboxCheckRemembersItsBwrap(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		noSandbox(t)
		t.Skip("no bwrap")
	}
	sandboxWorks.Lock()
	sandboxWorks.bwrap = "/nonexistent/bwrap" // a success of another bwrap counts for nothing
	sandboxWorks.Unlock()
	before := sandboxTrials.Load()
	if err := CheckSandbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := CheckSandbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := sandboxTrials.Load() - before; n != 1 {
		t.Fatalf("%d trial builds, want 1 (the second check reuses the first's success)", n)
	}
}
