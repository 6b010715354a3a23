package db

import (
	"context"
	"database/sql"
	"testing/fstest"
	"time"

	"github.com/starkgraph/starkgraph/starknet/decode"
)

// PricesAtSQL is PricesAt's statement, for its plan's test.
const PricesAtSQL = pricesAtSQL

// SelectRows runs a read as the store's methods do, for the prepared statements' test.
func (s *Store) SelectRows(ctx context.Context, dest any, query string, args ...any) error {
	return s.selectRows(ctx, dest, query, args...)
}

// MaxPrepared bounds the statements kept prepared, for its test.
const MaxPrepared = maxPrepared

// MigrateDownTo undoes the migrations above version, for the tests of a migration's down.
func MigrateDownTo(ctx context.Context, conn *sql.DB, version int64) error {
	provider, err := newMigrationProvider(conn)
	if err != nil {
		return err
	}
	_, err = provider.DownTo(ctx, version)
	return err
}

// MigrateWith applies the embedded migrations and those of more (file name to SQL), as
// if they were embedded too, for the tests of a migration pending on top of the baseline.
func MigrateWith(ctx context.Context, conn *sql.DB, more map[string]string) error {
	dir := fstest.MapFS{}
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		return err
	}
	for _, e := range entries {
		raw, err := migrations.ReadFile("migrations/" + e.Name())
		if err != nil {
			return err
		}
		dir[e.Name()] = &fstest.MapFile{Data: raw}
	}
	for name, text := range more {
		dir[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return migrate(ctx, conn, dir)
}

// SetClock makes the store read the time from clock, for the tests of what it remembers.
func (s *Store) SetClock(clock func() time.Time) { s.clock = clock }

// SetMarks sets how many rows lie between two marks of a key's list and the offset from
// which pages seek from them, for the tests of small lists; it returns a func that puts
// them back.
func SetMarks(every int64, from int) func() {
	oldEvery, oldFrom := MarkEvery, marksFrom
	MarkEvery, marksFrom = every, from
	return func() { MarkEvery, marksFrom = oldEvery, oldFrom }
}

// InputsText is the text DecodedInputs gives for decoded inputs, for its test against jsonb.
func InputsText(vals []decode.Value) string { return string(appendNamedValues(nil, vals)) }

// CacheNamesSized is CacheNames with a size bound of the test's, for the test of the bound.
func (s *Store) CacheNamesSized(ttl time.Duration, size int, counted func(hits, misses int)) {
	s.cacheNames(ttl, size, counted)
}

// NamesCached is how many keys the names cache holds.
func (s *Store) NamesCached() int { return s.names.kept.Len() }

// NamesOfSQL is the names statement, for the tests that count it.
const NamesOfSQL = namesOf
