package labels

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
)

// Rows turns entries into aliases rows.
func Rows(entries []Entry) []db.Label {
	rows := make([]db.Label, len(entries))
	for i, e := range entries {
		rows[i] = db.Label{Address: db.FeltOf(e.Felt()), Name: e.Name, Kind: e.Kind, Verified: e.Verified, Source: e.Source}
		if e.Logo != "" {
			logo := e.Logo
			rows[i].LogoURL = &logo
		}
	}
	return rows
}

// ReadFile reads and checks a label file.
func ReadFile(path string) (*List, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ErrBadFile wraps the errors of a label file that cannot be read or does not parse: Run
// waits for the next SIGHUP rather than reading it again.
var ErrBadFile = errors.New("label file refused")

// Loader keeps the aliases table in step with the default list of the indexed chain and
// the operator's file.
type Loader struct {
	Conn *sqlx.DB
	// File is the operator's label file ("" for none), read at start and on SIGHUP.
	File string
	// Extra entries are loaded with the file's (dev: the simulated chain's labels).
	Extra []Entry
	Log   *slog.Logger
}

// Load applies the operator's file and the default list of the chain the indexer follows
// (none before the indexer has recorded a chain id, or for a chain without one). The file
// goes first, so that an entry it drops falls back to the default at once. A file that
// does not parse changes nothing of its origin (the error is returned).
func (l *Loader) Load(ctx context.Context) (chainID string, err error) {
	chainID, err = db.ChainID(ctx, l.Conn)
	if err != nil {
		return "", err
	}
	entries := append([]Entry(nil), l.Extra...)
	var fileErr error
	if l.File != "" {
		f, err := ReadFile(l.File)
		if err != nil {
			fileErr = fmt.Errorf("%w: %w", ErrBadFile, err)
		} else {
			entries = append(entries, f.Labels...)
		}
	}
	// The file's labels and the defaults in one transaction, applied once: an entry the
	// file drops falls back to its default in the same commit.
	var sets []db.LabelSet
	if fileErr == nil {
		sets = append(sets, db.LabelSet{Origin: db.LabelOriginFile, Rows: Rows(entries)})
	}
	if chainID != "" {
		var defaults []Entry
		if d := Default(chainID); d != nil {
			defaults = d.Labels
		}
		sets = append(sets, db.LabelSet{Origin: db.LabelOriginDefault, Rows: Rows(defaults)})
	}
	if len(sets) > 0 {
		if err := db.ReplaceLabels(ctx, l.Conn, sets...); err != nil {
			return chainID, err
		}
	}
	return chainID, fileErr
}

// Run loads the labels now, again once the indexer has recorded its chain id (checked
// every few seconds until then), and on every SIGHUP, until ctx ends.
func (l *Loader) Run(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	retry := time.NewTicker(2 * time.Second)
	defer retry.Stop()
	for {
		chain, err := l.Load(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			l.Log.Warn("labels not loaded", "file", l.File, "err", err)
		case err == nil && chain != "":
			l.Log.Info("labels loaded", "chain_id", chain, "file", l.File)
		}
		// A database error is retried every few seconds, and so is the wait for a chain id.
		waiting := (err != nil && !errors.Is(err, ErrBadFile)) || (err == nil && chain == "")
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				break wait
			case <-retry.C:
				if waiting && err != nil {
					break wait // try again
				}
				if waiting {
					if id, err := db.ChainID(ctx, l.Conn); err == nil && id != "" {
						break wait
					}
				}
			}
		}
	}
}
