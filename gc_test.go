package main

import (
	"runtime/debug"
	"testing"
)

// The collector's defaults apply only where the operator set neither GOGC nor GOMEMLIMIT.
func TestTuneGCLeavesTheOperatorsSettings(t *testing.T) {
	before := debug.SetGCPercent(100)
	beforeLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(before); debug.SetMemoryLimit(beforeLimit) })

	env := map[string]string{"GOGC": "50", "GOMEMLIMIT": "2GiB"}
	if p, l := tuneGC(func(k string) string { return env[k] }); p != -2 || l != -2 {
		t.Errorf("with GOGC and GOMEMLIMIT set, tuneGC changed them to %d, %d", p, l)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent became %d with GOGC set", got)
	}
	if p, l := tuneGC(func(string) string { return "" }); p != gcPercent || l != memoryLimit {
		t.Errorf("without the variables, tuneGC = %d, %d; want %d, %d", p, l, gcPercent, memoryLimit)
	}
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent is %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != memoryLimit {
		t.Errorf("memory limit is %d, want %d", got, memoryLimit)
	}
}
