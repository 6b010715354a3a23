package db_test

import (
	"context"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A read is prepared on its connection once and runs from then on without being parsed
// again; when a migration changes a table under a prepared statement, the read still answers
// (as text), with the new shape, and the statement is prepared again.
func TestReadsArePreparedAndSurviveATableChange(t *testing.T) {
	conn := dbtest.New(t)
	conn.SetMaxOpenConns(1) // one connection, so its prepared statements are the ones seen
	ctx := context.Background()
	if _, err := conn.Exec(`CREATE TABLE shapes (a int); INSERT INTO shapes VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	const query = `SELECT s.* FROM shapes s WHERE a >= $1 ORDER BY a`
	type row struct {
		A int  `db:"a"`
		B *int `db:"b"`
	}
	read := func() []row {
		t.Helper()
		var rows []row
		if err := store.SelectRows(ctx, &rows, query, 1); err != nil {
			t.Fatalf("read: %v", err)
		}
		return rows
	}
	preparedNow := func() int {
		t.Helper()
		var n int
		if err := conn.Get(&n, `SELECT count(*) FROM pg_prepared_statements WHERE statement = $1`, query); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for range 3 {
		if rows := read(); len(rows) != 2 || rows[1].A != 2 {
			t.Fatalf("got %+v", rows)
		}
	}
	if n := preparedNow(); n != 1 {
		t.Fatalf("the read is prepared %d times on the connection, want once", n)
	}

	if _, err := conn.Exec(`ALTER TABLE shapes ADD COLUMN b int DEFAULT 7`); err != nil {
		t.Fatal(err)
	}
	rows := read()
	if len(rows) != 2 || rows[0].B == nil || *rows[0].B != 7 {
		t.Fatalf("after the table changed: got %+v, want b = 7", rows)
	}
	read()
	if n := preparedNow(); n != 1 {
		t.Fatalf("after the table changed, the read is prepared %d times, want once again", n)
	}
}
