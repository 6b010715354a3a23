package dbtest

import (
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
)

// ShortPartitions makes the block partitions of a database from New (which has no rows
// yet) blocks blocks long, so that a test's short chain spans several: it drops the
// partitions the migration made and sets blocks_per_partition. The indexer then makes
// partitions as it writes; a test that inserts rows itself first calls
// db.Partitions.Cover, as the indexer does.
func ShortPartitions(t testing.TB, conn *sqlx.DB, blocks int64) {
	t.Helper()
	for _, table := range db.PartitionedTables {
		var parts []string
		if err := conn.Select(&parts, `SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = $1::regclass`, table); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			// Detached first: a partition of transactions is referenced by other tables' keys.
			if _, err := conn.Exec(`ALTER TABLE ` + pq.QuoteIdentifier(table) + ` DETACH PARTITION ` + pq.QuoteIdentifier(p) + `; DROP TABLE ` + pq.QuoteIdentifier(p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := conn.Exec(`UPDATE block_partitioning SET blocks_per_partition = $1`, blocks); err != nil {
		t.Fatal(err)
	}
}

// Schema lists the indexes and constraints of a database's tables, partitions aside:
// theirs follow from their parents' (and PostgreSQL names them when it builds them).
func Schema(t testing.TB, conn *sqlx.DB) []string {
	t.Helper()
	var defs []string
	if err := conn.Select(&defs, `SELECT replace(pg_get_indexdef(x.indexrelid), ' ON ONLY ', ' ON ')
		FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid
		WHERE c.relnamespace = 'public'::regnamespace AND NOT c.relispartition
		UNION ALL
		SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
		WHERE connamespace = 'public'::regnamespace AND conparentid = 0
		  AND conrelid NOT IN (SELECT oid FROM pg_class WHERE relispartition)
		ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	return defs
}

// Exec runs a statement that writes a test's own rows, and fails the test if it fails.
func Exec(t testing.TB, conn sqlx.Execer, query string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(query, args...); err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
}
