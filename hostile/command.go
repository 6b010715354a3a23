package hostile

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// Command is `starkgraph hostile`: the hostile load against a running server. It fails
// when the run found anything (an answer 5xx, a leak, a broken connection, a hang, a
// server gone).
func Command(ctx context.Context, _ *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	var cfg Config
	fs.StringVar(&cfg.URL, "url", "http://127.0.0.1:8080", "the server's public base URL (http)")
	fs.StringVar(&cfg.Key, "key", os.Getenv("STARKGRAPH_DEV_KEY"), "a valid API key (x-api-key); `dev` prints one")
	fs.IntVar(&cfg.Requests, "requests", 100_000, "requests to send")
	fs.IntVar(&cfg.Concurrency, "concurrency", 16, "clients at once")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "a request unanswered after this is a hang")
	fs.StringVar(&cfg.MetricsURL, "metrics", "", "the server's /metrics URL (its admin address), for its resident memory and heap in use (the server reports its own process)")
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process id, for its resident memory (/proc/PID/status) when there is no --metrics (with go run, the server is the child of the go process)")
	fs.DurationVar(&cfg.Idle, "idle", 30*time.Second, "leave the server this long without a request before each memory reading: after the warm-up (before) and after the run (after idling; 0: no such reading)")
	fs.IntVar(&cfg.Warmup, "warmup", 2000, "requests (of another seed) sent before the reading before, so that a server in use is compared with itself, not a fresh process (0: none)")
	fs.Float64Var(&cfg.MaxGrowth, "max-memory-growth", 20, "the run fails when the server's resident memory after idling exceeds the reading before by more than this, in percent (negative: not checked)")
	fs.IntVar(&cfg.MaxBody, "max-body", 1<<20, "the server's --max-body, so that oversized bodies pass it")
	fs.IntVar(&cfg.MaxHeaderBytes, "max-header-bytes", 64<<10, "the server's limit on a request's line and headers: a connection broken on a request past it is reported, not a failure")
	seed := fs.Uint64("seed", 1, "seed of the generated requests (the same seed sends the same requests)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.Requests < 1 || cfg.Concurrency < 1 {
		return fmt.Errorf("--requests and --concurrency must be positive")
	}
	cfg.Seed = *seed
	cfg.Progress = os.Stderr
	rep, err := Run(ctx, cfg)
	if rep != nil {
		rep.Print(os.Stdout)
	}
	if err != nil {
		return err
	}
	if !rep.Clean() {
		return fmt.Errorf("the hostile run found problems (above)")
	}
	return nil
}
