package db_test

import (
	"context"
	"testing"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// TestEveryIndexServesADocumentedQuery: every index of the migrated schema is named by the
// query it serves, as its COMMENT (migration 00034), or it should not be there: an index
// costs bytes on disk per transaction and a B-tree insert per row written. Exempt are the
// primary keys and unique constraints of tables that do not grow with the chain (they
// guard what is written); those of the per-block tables are listed like the rest. Checked
// again after a bulk load, which drops secondary indexes and builds them again.
func TestEveryIndexServesADocumentedQuery(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	check := func(when string) {
		t.Helper()
		var missing []string
		if err := conn.SelectContext(ctx, &missing, `SELECT i.relname FROM pg_index x
			JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
			WHERE i.relnamespace = 'public'::regnamespace AND NOT i.relispartition
			  AND t.relname <> 'goose_db_version'
			  AND coalesce(obj_description(i.oid, 'pg_class'), '') = ''
			  AND NOT (EXISTS (SELECT FROM pg_constraint c WHERE c.conindid = i.oid AND c.contype IN ('p', 'u'))
			           AND NOT t.relname = ANY($1))
			ORDER BY 1`, pq.StringArray(db.BulkTables())); err != nil {
			t.Fatal(err)
		}
		for _, name := range missing {
			t.Errorf("%s: index %s names no query it serves: give it a COMMENT ON INDEX in its migration, or drop it", when, name)
		}
	}
	check("migrated")
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RestoreConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	check("after a bulk load")
	var kind string
	name := "erc20_balance_changes_block"
	if err := conn.GetContext(ctx, &kind, `SELECT am.amname FROM pg_class i JOIN pg_am am ON am.oid = i.relam WHERE i.relname = $1`, name); err != nil {
		t.Fatal(err)
	}
	if kind != "brin" {
		t.Errorf("%s is a %s index; a BRIN index of block ranges serves the cascade from blocks in a few pages", name, kind)
	}
}
