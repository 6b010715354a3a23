package db

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"

	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

// FoldedThrough is the last migration of the development builds before 0.1.0: 00001-00056
// were folded into the baseline 00001, which creates the schema they made (db/schema.sql),
// so a database those builds migrated to any of their versions has the baseline's schema.
// Migrations after the baseline are numbered from 00057.
const FoldedThrough = 56

// NewestMigration is the version of the newest migration this binary embeds: the schema
// version it expects.
func NewestMigration() (int64, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	var newest int64
	for _, e := range entries {
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			return 0, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		newest = max(newest, v)
	}
	return newest, nil
}

// SchemaVersion is the newest migration applied to the database (goose's record), 0 when
// none is.
func SchemaVersion(ctx context.Context, conn *sql.DB) (int64, error) {
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int64
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(max(version_id), 0) FROM goose_db_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	return v, nil
}

// CheckSchemaVersion compares the database's schema version with the binary's. A database
// migrated by a newer starkgraph is an error, one line saying what to do: this binary would
// read and write tables it does not know. A database behind the binary (older, or empty)
// is no error: behind reports it, for the caller to migrate or to say so.
func CheckSchemaVersion(ctx context.Context, conn *sql.DB) (behind bool, err error) {
	have, err := SchemaVersion(ctx, conn)
	if err != nil {
		return false, err
	}
	want, err := NewestMigration()
	if err != nil {
		return false, err
	}
	if have > want && have > FoldedThrough {
		return false, fmt.Errorf("database schema is at version %d, newer than this starkgraph %s knows (%d): "+
			"run a newer starkgraph, or restore a backup of the database taken before it was migrated (see CHANGELOG.md)",
			have, buildinfo.Version(), want)
	}
	return have < want, nil
}
