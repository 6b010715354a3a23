package main

import (
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/loaders"
)

func TestMain(m *testing.M) {
	// Statement counts must not depend on scheduling on a loaded machine: give loaders a
	// batch window long enough for every sibling resolver to ask.
	loaders.BatchWait = 50 * time.Millisecond
	dbtest.Main(m)
}
