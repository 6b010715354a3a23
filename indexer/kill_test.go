package indexer

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

// killChildEnv carries "rpcURL databaseURL stopAt" to the child indexer process.
const killChildEnv = "INDEXER_KILL_CHILD"

// runKillChild is the child side of TestKill9: an indexer process and nothing else.
func runKillChild() int {
	rpcURL, dbURL, stopAt := os.Getenv(killChildEnv), os.Getenv(killChildEnv+"_DB"), os.Getenv(killChildEnv+"_STOP")
	n, err := strconv.ParseInt(stopAt, 10, 64)
	if err != nil {
		return 2
	}
	d, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		return 2
	}
	ix, err := New(Config{RPCURL: rpcURL, DB: d, StopAt: n, Logger: quietLogger(), BatchSize: 3, MaxReorgDepth: 16})
	if err != nil {
		return 2
	}
	if err := ix.Run(context.Background()); err != nil {
		return 1
	}
	return 0
}

// TestKill9 runs the indexer as a separate process and SIGKILLs it at random moments of a
// catch-up: each time the database stands at a block boundary, and the end state equals an
// uninterrupted run.
func TestKill9(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 21, Blocks: 120, TxPerBlock: 10})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))

	dbURL := dbtest.NewURL(t)
	d, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	var progress []int64
	for i := 0; i < 8; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+url, killChildEnv+"_DB="+dbURL,
			killChildEnv+"_STOP="+strconv.FormatInt(head, 10))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(150+rng.IntN(350)) * time.Millisecond)
		_ = cmd.Process.Kill() // SIGKILL: no cleanup of any kind
		_ = cmd.Wait()
		checkConsistent(t, d)
		var n int64
		if err := d.Get(&n, `SELECT count(*) FROM blocks`); err != nil {
			t.Fatal(err)
		}
		progress = append(progress, n)
	}
	t.Logf("blocks after each kill: %v of %d", progress, head+1)
	if progress[0] >= head+1 {
		t.Fatal("the first kill came after the catch-up had finished: nothing was tested")
	}
	runIndexer(t, d, url, 0, head, nil)
	checkConsistent(t, d)
	if !equalSnapshots(t, want, snapshot(t, d)) {
		t.Fatal("the end state after SIGKILLs differs from an uninterrupted run")
	}
	var n int64
	if err := d.Get(&n, `SELECT count(*) FROM blocks`); err != nil || n != head+1 {
		t.Fatalf("%d blocks (%v)", n, err)
	}
}
