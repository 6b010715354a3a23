package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A read is prepared on its connection the second time it runs, and from then on runs
// without being parsed again; when a migration changes a table under a prepared statement,
// the read still answers (as text), with the new shape, and the statement is prepared again.
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
	preparedNow := func() int { return preparedOnConnection(t, conn, query) }

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
	// The stale statement is closed in the background: wait for it to be gone.
	waitFor(t, "the read prepared once again", func() bool { return preparedNow() == 1 })
}

// A text run once is not prepared, and no more than MaxPrepared texts stay prepared: deep
// pages write their offset into the statement, so they make texts that come once.
func TestPreparedStatementsAreBounded(t *testing.T) {
	conn := dbtest.New(t)
	conn.SetMaxOpenConns(1)
	ctx := context.Background()
	store := db.NewStore(conn)
	text := func(i int) string { return fmt.Sprintf("SELECT $1::int + %d AS n", i) }
	run := func(i int) {
		t.Helper()
		var rows []struct{ N int }
		if err := store.SelectRows(ctx, &rows, text(i), 1); err != nil || rows[0].N != 1+i {
			t.Fatalf("%s: %v %+v", text(i), err, rows)
		}
	}

	run(-1)
	if n := preparedOnConnection(t, conn, text(-1)); n != 0 {
		t.Fatalf("a text run once is prepared (%d)", n)
	}
	for i := range db.MaxPrepared + 20 {
		run(i)
		run(i)
	}
	if n := preparedOnConnection(t, conn, text(db.MaxPrepared+19)); n != 1 {
		t.Fatalf("a text run twice is prepared %d times, want once", n)
	}
	waitFor(t, fmt.Sprintf("at most %d statements prepared", db.MaxPrepared), func() bool {
		var n int
		if err := conn.Get(&n, `SELECT count(*) FROM pg_prepared_statements`); err != nil {
			t.Fatal(err)
		}
		return n <= db.MaxPrepared
	})
	run(0) // pushed out, and still answered
}

// preparedOnConnection counts the statements prepared with query's text on conn's one
// connection.
func preparedOnConnection(t *testing.T, conn *sqlx.DB, query string) int {
	t.Helper()
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM pg_prepared_statements WHERE statement = $1`, query); err != nil {
		t.Fatal(err)
	}
	return n
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
	}
}

// BenchmarkRead compares a page read sent as text (parsed and planned every time: the
// baseline) with the store's prepared read, on one connection to the private PostgreSQL.
//
//	go test ./db -run '^$' -bench Read
func BenchmarkRead(b *testing.B) {
	conn := dbtest.New(b)
	conn.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := conn.Exec(`CREATE TABLE pages (n bigint PRIMARY KEY, hash bytea NOT NULL, fee numeric NOT NULL);
		INSERT INTO pages SELECT n, sha256(n::text::bytea), n * 1000 FROM generate_series(1, 10000) n`); err != nil {
		b.Fatal(err)
	}
	const query = `SELECT p.n, p.hash, p.fee::text AS fee FROM pages p WHERE p.n < $1 ORDER BY p.n DESC LIMIT 25`
	type row struct {
		N    int64  `db:"n"`
		Hash []byte `db:"hash"`
		Fee  string `db:"fee"`
	}
	store := db.NewStore(conn)
	for _, c := range []struct {
		name string
		read func(dest *[]row, before int64) error
	}{
		{"text", func(dest *[]row, before int64) error { return conn.SelectContext(ctx, dest, query, before) }},
		{"prepared", func(dest *[]row, before int64) error { return store.SelectRows(ctx, dest, query, before) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			i := int64(0)
			for b.Loop() {
				var rows []row
				if err := c.read(&rows, 100+i%9000); err != nil || len(rows) != 25 {
					b.Fatalf("%v, %d rows", err, len(rows))
				}
				i++
			}
		})
	}
}
