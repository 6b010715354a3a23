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
	bulk, err := strconv.ParseInt(os.Getenv(killChildEnv+"_BULK"), 10, 64)
	if err != nil {
		return 2
	}
	d, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		return 2
	}
	ix, err := New(Config{RPCURL: rpcURL, DB: d, StopAt: n, Logger: quietLogger(), BatchSize: 3, MaxReorgDepth: 16,
		BulkLoadMinBlocks: bulk})
	if err != nil {
		return 2
	}
	if err := ix.Run(context.Background()); err != nil {
		return 1
	}
	return 0
}

// TestKill9 runs the indexer as a separate process and SIGKILLs it at random moments of a
// catch-up, written through the indexes or as a bulk load (whose kills land in its batches,
// its deferral and its rebuild of keys, orders, triggers and spans): each time the database
// stands at a block boundary, and the end state equals an uninterrupted run.
func TestKill9(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 21, Blocks: 120, TxPerBlock: 10})
	head := simHead(chain)
	want := snapshot(t, freshIndex(t, url, head))
	for _, mode := range []struct {
		name string
		bulk int64 // BulkLoadMinBlocks
	}{{"through the indexes", -1}, {"bulk load", 20}} {
		t.Run(mode.name, func(t *testing.T) { killAndResume(t, url, head, mode.bulk, want) })
	}
}

func killAndResume(t *testing.T, url string, head, bulk int64, want map[string][]string) {

	dbURL := dbtest.NewURL(t)
	d, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	count := func() int64 {
		var n int64
		if err := d.Get(&n, `SELECT count(*) FROM blocks`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var progress []int64
	inside := 0 // kills that left the catch-up unfinished, after it had moved
	for i := 0; i < 8; i++ {
		before := int64(0)
		if i > 0 {
			before = progress[i-1]
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+url, killChildEnv+"_DB="+dbURL,
			killChildEnv+"_STOP="+strconv.FormatInt(head, 10), killChildEnv+"_BULK="+strconv.FormatInt(bulk, 10))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill comes at a random moment once the process has written something (its
		// start, migrations included, takes longer than a catch-up's batches on a busy machine).
		for deadline := time.Now().Add(20 * time.Second); count() <= before && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(250)) * time.Millisecond)
		_ = cmd.Process.Kill() // SIGKILL: no cleanup of any kind
		_ = cmd.Wait()
		checkConsistent(t, d)
		n := count()
		progress = append(progress, n)
		if n > before && n < head+1 {
			inside++
		}
		if n >= head+1 {
			break
		}
	}
	t.Logf("blocks after each kill: %v of %d", progress, head+1)
	if inside < 3 {
		t.Fatalf("%d kills landed inside the catch-up after it moved, want at least 3: nothing much was tested", inside)
	}
	runIndexer(t, d, url, 0, head, func(c *Config) { c.BulkLoadMinBlocks = bulk })
	checkConsistent(t, d)
	if !equalSnapshots(t, want, snapshot(t, d)) {
		t.Fatal("the end state after SIGKILLs differs from an uninterrupted run")
	}
	var n int64
	if err := d.Get(&n, `SELECT count(*) FROM blocks`); err != nil || n != head+1 {
		t.Fatalf("%d blocks (%v)", n, err)
	}
}
