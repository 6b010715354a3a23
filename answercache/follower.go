package answercache

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
)

// A Follower knows the data version this process answers at: the number of data changes it
// heard of. Writing transactions announce on db.DataChannel when they commit; the Follower
// LISTENs on the primary and moves to the next version once the database the API reads has
// the change: a replica replays a commit after the primary announced it, and an answer
// computed before then must not be kept as the new version's. A lost connection may have
// lost notices, so a reconnect moves the version too; without notices at all (the LISTEN
// refused) the version moves every PollEvery, and answers are kept that long at most.
type Follower struct {
	primary, read *sqlx.DB
	log           *slog.Logger
	data          atomic.Int64
	epoch         atomic.Int64
	// PollEvery is how often the version moves when no notices can be heard (default 1 s).
	PollEvery time.Duration
	// OnAdvance, when set, runs each time the version moves, just before (serve forgets
	// the names it holds: db.ForgetNames).
	OnAdvance func()
}

// NewFollower follows the data changes of the database read reads, announced on primary
// (the same database when the API reads the primary).
func NewFollower(primary, read *sqlx.DB, log *slog.Logger) *Follower {
	if log == nil {
		log = slog.Default()
	}
	return &Follower{primary: primary, read: read, log: log, PollEvery: time.Second}
}

// Current is the version answers are kept for now.
func (f *Follower) Current() Version {
	return Version{Data: f.data.Load(), Epoch: f.epoch.Load()}
}

// Invalidate makes every kept answer stale: for what changes what answers show outside the
// database (a setting reloaded in this process).
func (f *Follower) Invalidate() { f.epoch.Add(1) }

func (f *Follower) advance() {
	if f.OnAdvance != nil {
		f.OnAdvance() // before: no answer of the new version is computed without it
	}
	metrics.DataVersion.Set(float64(f.data.Add(1)))
}

// Run follows the announcements on dsn (the primary: a standby cannot LISTEN) until ctx
// ends.
func (f *Follower) Run(ctx context.Context, dsn string) {
	listener := pq.NewListener(dsn, 100*time.Millisecond, 10*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			f.log.Warn("answer cache: notice connection", "event", ev, "err", err)
		}
	})
	defer listener.Close()
	var blind <-chan time.Time
	if err := listener.Listen(db.DataChannel); err != nil {
		f.log.Warn("answer cache: no notices of data changes; answers are kept for "+f.PollEvery.String()+" at most", "err", err)
		tick := time.NewTicker(f.PollEvery)
		defer tick.Stop()
		blind = tick.C
	} else {
		// Listening now (Listen waits for the connection): answers computed before may
		// miss a change whose notice came before, and no notice may follow for a while
		// (a version moves about once a block).
		f.advance()
	}
	replica := false
	if f.read != nil && f.read != f.primary {
		if err := f.read.GetContext(ctx, &replica, `SELECT pg_is_in_recovery()`); err != nil {
			f.log.Warn("answer cache: asking whether reads go to a replica", "err", err)
			replica = true // then wait for it: the safe side
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-blind:
			f.advance()
		case <-time.After(time.Minute):
			go listener.Ping() // finds a dead connection sooner than TCP would
		case n := <-listener.Notify:
			// n is nil after a reconnect: notices may have been lost meanwhile.
			if n != nil && replica {
				f.awaitReplay(ctx)
			}
			f.advance()
		}
	}
}

// awaitReplay waits until the replica has replayed the primary's WAL as it stands now (past
// the commit just announced), reading again every few milliseconds for up to two seconds.
func (f *Follower) awaitReplay(ctx context.Context) {
	var lsn string
	if err := f.primary.GetContext(ctx, &lsn, `SELECT pg_current_wal_lsn()::text`); err != nil {
		return
	}
	for wait := 2 * time.Millisecond; wait < 2*time.Second; wait *= 2 {
		var done bool
		err := f.read.GetContext(ctx, &done, `SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, true)`, lsn)
		if err != nil || done {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
