package main

import (
	"os"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/loaders"
)

// runMainEnv makes the test binary run the program itself (main, with the arguments given
// after the binary's name) instead of the tests: serveProcess starts API servers that way,
// as separate processes.
const runMainEnv = "STARKGRAPH_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	// Statement counts must not depend on scheduling on a loaded machine: give loaders a
	// batch window long enough for every sibling resolver to ask.
	loaders.BatchWait = 50 * time.Millisecond
	dbtest.Main(m)
}
