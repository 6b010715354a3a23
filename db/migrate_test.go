package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// TestMigrationsRestoreDeferredConstraints: a migration expects the schema it was written
// against, so constraints a bulk load left out are rebuilt before any migration runs.
// (Moved from indexer/bulk_test.go: with the baseline alone, a pending migration is one
// added on top of it, as later ones will be.)
func TestMigrationsRestoreDeferredConstraints(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	schema := dbtest.Schema(t, d)
	n, err := db.DeferConstraints(ctx, d)
	if err != nil || n == 0 {
		t.Fatalf("deferred %d: %v", n, err)
	}
	if again, err := db.DeferConstraints(ctx, d); err != nil || again != 0 {
		t.Fatalf("deferring twice deferred %d more: %v", again, err)
	}
	// With nothing to migrate, migrating leaves a bulk load alone.
	if err := db.Migrate(ctx, d.DB); err != nil {
		t.Fatal(err)
	}
	if deferred, _ := db.ConstraintsDeferred(ctx, d); !deferred {
		t.Fatal("migrating with nothing pending restored a bulk load's constraints")
	}
	// One migration pending on top of the baseline: the constraints come back before it
	// runs (it fails without the index it comments on).
	pending := map[string]string{"99999_pending.sql": `-- +goose Up
COMMENT ON INDEX transactions_sender IS 'a sender''s transactions in chain order (a test migration)';
-- +goose Down
SELECT 1;
`}
	if err := db.MigrateWith(ctx, d.DB, pending); err != nil {
		t.Fatal(err)
	}
	if got := dbtest.Schema(t, d); !slices.Equal(got, schema) {
		t.Fatalf("constraints not restored before migrating:\n got %q\nwant %q", got, schema)
	}
}

// TestLaterMigrationsApplyOnTopOfTheBaseline: the baseline is version 1, so the next
// migration (numbered after the newest) applies on a database already migrated, and on a
// fresh one after the baseline and the migrations since.
func TestLaterMigrationsApplyOnTopOfTheBaseline(t *testing.T) {
	ctx := context.Background()
	d := dbtest.New(t)
	newest, err := db.NewestMigration()
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]string{fmt.Sprintf("%05d_next.sql", newest+1): `-- +goose Up
CREATE TABLE next_migration_test (id int);
-- +goose Down
DROP TABLE next_migration_test;
`}
	if err := db.MigrateWith(ctx, d.DB, next); err != nil {
		t.Fatal(err)
	}
	var versions []int64
	if err := d.Select(&versions, `SELECT version_id FROM goose_db_version WHERE version_id > 0 ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if len(versions) < 2 || versions[0] != 1 || versions[len(versions)-1] != newest+1 {
		t.Errorf("versions applied: %v, want 1 first and %d last", versions, newest+1)
	}
	if _, err := d.Exec(`SELECT FROM next_migration_test`); err != nil {
		t.Errorf("the later migration did not run: %v", err)
	}
}
