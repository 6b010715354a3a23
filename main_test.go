package main

import (
	"testing"

	"github.com/starkgraph/starkgraph/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }
