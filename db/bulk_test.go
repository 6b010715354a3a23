package db_test

import (
	"context"
	"slices"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// TestBulkLoadKeepsTheListedIndexes: every index a bulk load is meant to keep exists (a
// renamed index would silently be dropped and rebuilt instead), and deferring the
// constraints drops every other secondary index of those tables, the ones led by an
// account among them.
func TestBulkLoadKeepsTheListedIndexes(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	var all []string
	if err := conn.SelectContext(ctx, &all, `SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`); err != nil {
		t.Fatal(err)
	}
	for _, name := range db.KeptWhileBulkLoading {
		if !slices.Contains(all, name) {
			t.Errorf("index %s is listed as kept through a bulk load but does not exist", name)
		}
	}
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var left []string
	if err := conn.SelectContext(ctx, &left, `SELECT i.relname FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relnamespace = 'public'::regnamespace AND NOT x.indisunique AND NOT x.indisprimary
		  AND t.relname IN (SELECT table_name FROM deferred_constraints) -- each has a foreign key
		ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(db.KeptWhileBulkLoading)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("secondary indexes left during a bulk load:\n got %q\nwant %q", left, want)
	}
	for _, rebuilt := range []string{"transactions_sender", "token_transfers_from", "token_transfers_to"} {
		if slices.Contains(left, rebuilt) {
			t.Errorf("%s leads with an account and should be rebuilt, not kept", rebuilt)
		}
	}
}
