// Package verify runs class-verification jobs: a worker claims a job from the queue in
// PostgreSQL, compiles the submitted Cairo sources with the scarb version the job names,
// computes the Sierra class hash of the output and compares it with the class on chain.
//
//	0 Submitted -> 5 Processing (compiling) -> 1 Compiled (hashing, comparing) -> 4 Success | 3 Fail
//	                                        -> 2 CompileFailed
//
// Workers hold a lease on the job they work on and renew it while compiling; a job whose
// worker died is claimed again when its lease expires, and only the holder of the current
// lease can move it on, so each job is finished exactly once.
package verify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
)

// Config is how workers run.
type Config struct {
	DB         *sqlx.DB
	Toolchains Toolchains
	Limits     BuildLimits
	Workers    int           // how many jobs run at once
	Lease      time.Duration // how long a claim holds without renewal
	Poll       time.Duration // how often an idle worker looks for a job
	// MaxAttempts is how many times a job is claimed before it is given up (a job that
	// kills its worker each time, e.g. through the memory cap, must not loop forever).
	MaxAttempts int
	Logger      *slog.Logger
}

// Defaults for the flags of serve, dev and verify-worker.
const (
	DefaultWorkers     = 2
	DefaultTimeout     = 5 * time.Minute
	DefaultMemoryMiB   = 8192
	DefaultLease       = 30 * time.Second
	DefaultPoll        = time.Second
	DefaultMaxAttempts = 3
)

func (c *Config) fill() {
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Limits.Timeout <= 0 {
		c.Limits.Timeout = DefaultTimeout
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// claimTimeout bounds one claim statement, which runs on after a stop (see run).
const claimTimeout = 10 * time.Second

// workerSeq numbers the workers of this process, for their names in the job log.
var workerSeq atomic.Int64

// Run runs cfg.Workers workers until ctx ends. Unless cfg.Limits.NoSandbox, it first checks
// that the build sandbox works here, and starts no worker if it does not (the commands check
// it before, with CheckSandbox, and refuse to start; the trial build then does not run
// again).
func Run(ctx context.Context, cfg Config) {
	cfg.fill()
	if cfg.Workers <= 0 {
		return
	}
	if cfg.Limits.NoSandbox {
		cfg.Logger.Warn("CLASS VERIFICATION BUILDS ARE NOT SANDBOXED (--verify-sandbox=off): submitted sources and their " +
			"build-time code run as this process's user, with its files, environment and network")
	} else if err := CheckSandbox(ctx); err != nil {
		cfg.Logger.Error("verification workers not started", "err", err)
		return
	}
	host, _ := os.Hostname()
	var wg sync.WaitGroup
	for range cfg.Workers {
		w := &worker{cfg: cfg, queue: db.VerifyQueue{DB: cfg.DB}, name: fmt.Sprintf("%s/%d/%d", host, os.Getpid(), workerSeq.Add(1))}
		wg.Go(func() { w.run(ctx) })
	}
	cfg.Logger.Info("verification workers", "workers", cfg.Workers, "scarb_dir", cfg.Toolchains.Dir, "timeout", cfg.Limits.Timeout,
		"sandbox", !cfg.Limits.NoSandbox)
	wg.Wait()
}

type worker struct {
	cfg   Config
	queue db.VerifyQueue
	name  string
}

func (w *worker) run(ctx context.Context) {
	for ctx.Err() == nil {
		// The claim commits on the server even if the stop cancels it mid-reply, which would
		// leave the job held until its lease ends; so it finishes whatever the stop, and a
		// job claimed while stopping is given back at once.
		claimCtx, cancelClaim := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
		job, err := w.queue.Claim(claimCtx, w.name, w.cfg.Lease)
		cancelClaim()
		switch {
		case err != nil:
			if ctx.Err() == nil {
				w.cfg.Logger.Warn("verification queue", "err", err)
			}
		case job != nil && ctx.Err() != nil:
			w.giveBack(ctx, job, w.jobLog(job))
			return
		case job != nil:
			w.work(ctx, job)
			continue // look for the next job at once
		}
		select {
		case <-ctx.Done():
		case <-time.After(w.cfg.Poll):
		}
	}
}

// work takes one claimed job to its end, renewing the lease meanwhile. If the lease is lost
// (this worker stalled past it and another claimed the job) the work is dropped.
func (w *worker) work(ctx context.Context, job *db.ClaimedJob) {
	log := w.jobLog(job)
	jobCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(w.cfg.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-jobCtx.Done():
				return
			case <-t.C:
				if err := w.queue.Renew(jobCtx, job, w.cfg.Lease); err != nil {
					if jobCtx.Err() == nil {
						log.Warn("verification lease", "err", err)
					}
					if errors.Is(err, db.ErrLeaseLost) {
						cancel()
						return
					}
				}
			}
		}
	}()
	err := w.verify(jobCtx, job, log)
	cancel()
	<-renewed
	switch {
	case err == nil:
	case ctx.Err() != nil:
		w.giveBack(ctx, job, log)
	case errors.Is(err, db.ErrLeaseLost) || errors.Is(err, context.Canceled):
		log.Info("verification job left to another worker", "err", err)
	default:
		log.Error("verification job", "err", err)
	}
}

// jobLog is the worker's logger with the job's attributes.
func (w *worker) jobLog(job *db.ClaimedJob) *slog.Logger {
	return w.cfg.Logger.With("job", job.ID, "class", job.ClassHash.Padded(), "worker", w.name, "attempt", job.Attempts)
}

// giveBack returns a held job to the queue when this worker stops (ctx is done), for
// another worker to take now rather than when the lease ends.
func (w *worker) giveBack(ctx context.Context, job *db.ClaimedJob, log *slog.Logger) {
	releaseCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := w.queue.Release(releaseCtx, job, w.name); err != nil {
		log.Warn("verification job not released; it is retried when its lease ends", "err", err)
	}
}

// verify compiles, hashes and compares, recording each step.
func (w *worker) verify(ctx context.Context, job *db.ClaimedJob, log *slog.Logger) error {
	fail := func(status int, msg, output string, obtained db.Felt) error {
		log.Info("verification job ended", "status", status, "message", msg)
		return w.queue.Move(ctx, job, w.name, db.JobOutcome{Status: status, Message: msg, CompilerOutput: output, ObtainedHash: obtained})
	}
	if job.Attempts > w.cfg.MaxAttempts {
		return fail(db.JobCompileFailed, fmt.Sprintf(
			"gave up after %d attempts: the verifier stopped while compiling each time (the build may exceed its memory or time limits)",
			w.cfg.MaxAttempts), "", nil)
	}
	if job.BuildTool != "" && job.BuildTool != "scarb" {
		return fail(db.JobCompileFailed, fmt.Sprintf("build_tool %s: this verifier builds with scarb only", clip(job.BuildTool, 20)), "", nil)
	}
	scarb, err := w.cfg.Toolchains.Find(ctx, job.ScarbVersion)
	if err != nil {
		return fail(db.JobCompileFailed, err.Error(), "", nil)
	}
	started := time.Now()
	class, output, err := build(ctx, job, scarb, w.cfg.Limits)
	var cf *compileFailure
	if errors.As(err, &cf) {
		return fail(db.JobCompileFailed, cf.msg, cf.output, nil)
	}
	if err != nil {
		return err
	}
	log.Info("verification job compiled", "took", time.Since(started).Round(time.Millisecond))
	if err := w.queue.Move(ctx, job, w.name, db.JobOutcome{Status: db.JobCompiled, Message: "compiled; comparing class hashes", CompilerOutput: output}); err != nil {
		return err
	}
	obtained, abi, err := SierraClassHash(class)
	if err != nil {
		return fail(db.JobFail, "the compiled output is not a Sierra contract class: "+err.Error(), "", nil)
	}
	if !obtained.Equal(job.ClassHash) {
		return fail(db.JobFail, fmt.Sprintf("the sources compile to class %s, but the class on chain is %s",
			obtained.Padded(), job.ClassHash.Padded()), "", obtained)
	}
	log.Info("verification job ended", "status", db.JobSuccess)
	return w.queue.Succeed(ctx, job, w.name, "the sources compile to the class on chain", abi)
}
