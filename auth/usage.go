package auth

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// UsageRecorder counts requests per key and UTC day in memory and writes the
// counts to the database in batches (every interval, and on Close), so that
// serving a request never waits for a database write.
type UsageRecorder struct {
	store    *Store
	log      *slog.Logger
	interval time.Duration

	mu      sync.Mutex
	pending map[usageSlot]*UsageDay

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

type usageSlot struct {
	keyID int64
	day   string
}

// NewUsageRecorder starts a recorder that flushes every interval (5 seconds
// when interval <= 0). Call Close when the server stops.
func NewUsageRecorder(store *Store, interval time.Duration, log *slog.Logger) *UsageRecorder {
	if interval <= 0 {
		interval = 5 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	u := &UsageRecorder{store: store, log: log, interval: interval,
		pending: make(map[usageSlot]*UsageDay), stop: make(chan struct{}), done: make(chan struct{})}
	go u.loop()
	return u
}

// Record counts one answered request of key with HTTP status.
func (u *UsageRecorder) Record(keyID int64, status int, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.day(keyID, at)
	c.Requests++
	switch {
	case status == http.StatusTooManyRequests:
		c.RateLimited++
	case status >= 400 && status < 500:
		c.ClientErrors++
	}
}

// RecordDelivery counts one webhook delivery attempt made for keyID.
func (u *UsageRecorder) RecordDelivery(keyID int64, at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.day(keyID, at).Deliveries++
}

// day is keyID's pending counts of at's UTC day, made when missing; u.mu is held.
func (u *UsageRecorder) day(keyID int64, at time.Time) *UsageDay {
	slot := usageSlot{keyID: keyID, day: at.UTC().Format("2006-01-02")}
	c, ok := u.pending[slot]
	if !ok {
		c = &UsageDay{}
		u.pending[slot] = c
	}
	return c
}

// Flush writes what has been counted so far. On failure the counts are kept
// for the next attempt.
func (u *UsageRecorder) Flush(ctx context.Context) error {
	u.mu.Lock()
	batch := u.pending
	u.pending = make(map[usageSlot]*UsageDay)
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	deltas := make([]usageDelta, 0, len(batch))
	for slot, c := range batch {
		deltas = append(deltas, usageDelta{keyID: slot.keyID, day: slot.day, UsageDay: *c})
	}
	err := u.store.addUsage(ctx, deltas)
	if err != nil {
		u.mu.Lock()
		for slot, c := range batch {
			if p, ok := u.pending[slot]; ok {
				p.Requests += c.Requests
				p.ClientErrors += c.ClientErrors
				p.RateLimited += c.RateLimited
				p.Deliveries += c.Deliveries
			} else {
				u.pending[slot] = c
			}
		}
		u.mu.Unlock()
	}
	return err
}

// Close stops the periodic flush and writes the remaining counts.
func (u *UsageRecorder) Close(ctx context.Context) error {
	u.once.Do(func() { close(u.stop) })
	<-u.done
	return u.Flush(ctx)
}

func (u *UsageRecorder) loop() {
	defer close(u.done)
	t := time.NewTicker(u.interval)
	defer t.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := u.Flush(ctx); err != nil {
				u.log.Warn("usage: flush failed, will retry", "err", err)
			}
			cancel()
		}
	}
}
