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

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies every embedded migration that the database has not seen yet.
// It is safe to call on every start: goose records applied versions and takes a
// PostgreSQL advisory lock so that concurrent starts do not race.
func Migrate(ctx context.Context, conn *sql.DB) error {
	provider, err := newMigrationProvider(conn)
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
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, conn, dir, goose.WithSessionLocker(locker))
}
