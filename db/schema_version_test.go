package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

// A migrated database is at the binary's version; one migrated by a newer starkgraph (a goose
// row above the newest embedded migration) stops the binary with one line naming both
// versions and what to do; an older one is reported behind, for the caller to migrate.
func TestCheckSchemaVersion(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	newest, err := db.NewestMigration()
	if err != nil {
		t.Fatal(err)
	}
	if newest < 1 {
		t.Fatalf("NewestMigration() = %d, want a version", newest)
	}
	if have, err := db.SchemaVersion(ctx, conn.DB); err != nil || have != newest {
		t.Fatalf("a migrated database: SchemaVersion = %d, %v; want %d", have, err, newest)
	}
	if behind, err := db.CheckSchemaVersion(ctx, conn.DB); err != nil || behind {
		t.Fatalf("a migrated database: CheckSchemaVersion = %v, %v; want false, nil", behind, err)
	}

	// A database of the development builds before 0.1.0 (their migrations were folded into
	// the baseline) has the baseline's schema: not newer, whatever its version.
	if newest < db.FoldedThrough {
		if _, err := conn.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)`, db.FoldedThrough); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CheckSchemaVersion(ctx, conn.DB); err != nil {
			t.Fatalf("a database of a development build at %d: %v; want no error", db.FoldedThrough, err)
		}
		if _, err := conn.ExecContext(ctx, `DELETE FROM goose_db_version WHERE version_id = $1`, db.FoldedThrough); err != nil {
			t.Fatal(err)
		}
	}
	newer := max(newest, db.FoldedThrough) + 1
	if _, err := conn.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)`, newer); err != nil {
		t.Fatal(err)
	}
	_, err = db.CheckSchemaVersion(ctx, conn.DB)
	want := fmt.Sprintf("database schema is at version %d, newer than this starkgraph %s knows (%d): run a newer starkgraph",
		newer, buildinfo.Version(), newest)
	if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("a newer database: CheckSchemaVersion error = %v\nwant it to start with %q", err, want)
	}

	if _, err := conn.ExecContext(ctx, `DELETE FROM goose_db_version WHERE version_id >= $1`, newest); err != nil {
		t.Fatal(err)
	}
	if behind, err := db.CheckSchemaVersion(ctx, conn.DB); err != nil || !behind {
		t.Fatalf("an older database: CheckSchemaVersion = %v, %v; want true, nil", behind, err)
	}
}

// A database goose never touched is at version 0, behind, and no error.
func TestCheckSchemaVersionOfAnEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if _, err := conn.ExecContext(ctx, `DROP TABLE goose_db_version`); err != nil {
		t.Fatal(err)
	}
	if have, err := db.SchemaVersion(ctx, conn.DB); err != nil || have != 0 {
		t.Fatalf("SchemaVersion = %d, %v; want 0, nil", have, err)
	}
	if behind, err := db.CheckSchemaVersion(ctx, conn.DB); err != nil || !behind {
		t.Fatalf("CheckSchemaVersion = %v, %v; want true, nil", behind, err)
	}
}
