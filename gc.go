// The collector's settings and the log level: what main sets for every command.

package main

import (
	"log/slog"
	"os"
	"runtime/debug"
)

// gcPercent and memoryLimit are the collector's settings unless GOGC or GOMEMLIMIT says
// otherwise. The API keeps little (20-40 MB live) and allocates per request, so with Go's
// default of 100 it collects many times a second under load; letting the heap grow to 5x
// the live set took GraphQL's latest-25-blocks from 3,291 to 4,214 req/s at 1M
// transactions (bench, same run), and the soft limit makes the collector work harder
// rather than let the heap pass 1 GiB.
const (
	gcPercent   = 400
	memoryLimit = 1 << 30
)

// tuneGC applies gcPercent and memoryLimit where the environment sets neither variable.
func tuneGC(getenv func(string) string) (percent int, limit int64) {
	percent, limit = -2, -2 // unchanged
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
		percent = gcPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
		limit = memoryLimit
	}
	return percent, limit
}

// logLevel is LOG_LEVEL's (DEBUG, INFO, WARN, ERROR), INFO when unset or unknown.
func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}
