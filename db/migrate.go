package db

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// The migrations: 00001_baseline.sql creates the whole schema (it folds the migrations
// 00001-00056 of before the first release); each later change is a migration of its own,
// numbered from 00057 on, applied on top. db/schema.sql is a migrated database's dump
// (TestSchemaDump).
//
//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies every embedded migration that the database has not seen yet.
// It is safe to call on every start: goose records applied versions and takes a
// PostgreSQL advisory lock so that concurrent starts do not race.
func Migrate(ctx context.Context, conn *sql.DB) error {
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return migrate(ctx, conn, dir)
}

// migrate applies the migrations of dir that the database has not seen yet.
func migrate(ctx context.Context, conn *sql.DB, dir fs.FS) error {
	provider, err := newProvider(conn, dir)
	if err != nil {
		return err
	}
	if pending, err := provider.HasPending(ctx); err != nil || !pending {
		return err
	}
	// A bulk load interrupted by an upgrade left constraints out; a migration expects them.
	if err := restoreBeforeMigrating(ctx, conn); err != nil {
		return fmt.Errorf("restore deferred constraints: %w", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// MigrationsPending reports whether the database lacks any embedded migration;
// /readyz uses it.
func MigrationsPending(ctx context.Context, conn *sql.DB) (bool, error) {
	provider, err := newMigrationProvider(conn)
	if err != nil {
		return false, err
	}
	return provider.HasPending(ctx)
}

func newMigrationProvider(conn *sql.DB) (*goose.Provider, error) {
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	return newProvider(conn, dir)
}

func newProvider(conn *sql.DB, dir fs.FS) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, conn, dir, goose.WithSessionLocker(locker))
}
