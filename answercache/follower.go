package answercache

import (
	"context"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
)

// A Follower knows the data version this process answers at. It LISTENs for the versions
// writing transactions announce (db.DataChannel) on the primary, and moves to one only once
// the database the API reads has it: a replica may replay a transaction after the primary
// announced it, and an answer computed before then must not be kept as that version's.
// It also reads the version every PollEvery, so a lost notice costs at most that long.
type Follower struct {
	read  *sqlx.DB
	log   *slog.Logger
	data  atomic.Int64
	epoch atomic.Int64
	// PollEvery is how often the version is read whatever the notices (default 1 s).
	PollEvery time.Duration
	// OnAdvance, when set, runs each time the version moves, before answers are kept for
	// the new one (serve forgets the names it holds: db.ForgetNames).
	OnAdvance func()
}

// NewFollower follows the data version of the database read reads.
func NewFollower(read *sqlx.DB, log *slog.Logger) *Follower {
	if log == nil {
		log = slog.Default()
	}
	return &Follower{read: read, log: log, PollEvery: time.Second}
}

// Current is the version answers are kept for now.
func (f *Follower) Current() Version {
	return Version{Data: f.data.Load(), Epoch: f.epoch.Load()}
}

// Invalidate makes every kept answer stale: for what changes what answers show outside the
// database (a setting reloaded in this process).
func (f *Follower) Invalidate() { f.epoch.Add(1) }

// Refresh reads the version of the database the API reads, and moves to it if newer.
func (f *Follower) Refresh(ctx context.Context) (int64, error) {
	v, err := db.DataVersion(ctx, f.read)
	if err != nil {
		return 0, err
	}
	f.advance(v)
	return v, nil
}

func (f *Follower) advance(v int64) {
	for {
		cur := f.data.Load()
		if v <= cur {
			return
		}
		if f.OnAdvance != nil {
			f.OnAdvance() // before: no answer of the new version is computed without it
		}
		if f.data.CompareAndSwap(cur, v) {
			metrics.DataVersion.Set(float64(v))
			return
		}
	}
}

// Run follows the announcements on dsn (the primary: a standby cannot LISTEN) until ctx
// ends. Without them (the LISTEN refused), it follows by reading every PollEvery.
func (f *Follower) Run(ctx context.Context, dsn string) {
	listener := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			f.log.Warn("answer cache: notice connection", "event", ev, "err", err)
		}
	})
	defer listener.Close()
	notices := listener.Notify
	if err := listener.Listen(db.DataChannel); err != nil {
		f.log.Warn("answer cache: no notices of the data version; reading it every "+f.PollEvery.String(), "err", err)
		notices = nil
	}
	if _, err := f.Refresh(ctx); err != nil {
		f.log.Warn("answer cache: reading the data version", "err", err)
	}
	poll := time.NewTicker(f.PollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
			if _, err := f.Refresh(ctx); err != nil && ctx.Err() == nil {
				f.log.Warn("answer cache: reading the data version", "err", err)
			}
		case n := <-notices:
			if n == nil { // reconnected: notices may have been lost
				_, _ = f.Refresh(ctx)
				continue
			}
			announced, err := strconv.ParseInt(n.Extra, 10, 64)
			if err != nil {
				continue
			}
			f.await(ctx, announced)
		}
	}
}

// await moves to the announced version once the database the API reads has it (at once on
// the primary), reading it again every few milliseconds for up to two seconds; the poll
// takes over after that.
func (f *Follower) await(ctx context.Context, announced int64) {
	for wait := 2 * time.Millisecond; wait < 2*time.Second; wait *= 2 {
		v, err := f.Refresh(ctx)
		if err != nil || v >= announced {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
