package dbtest

import (
	"fmt"
	"testing"

	"github.com/jmoiron/sqlx"
)

// NewWithSpanRows is New with the spans of the lists whose order changes (migration 00044,
// db/rank_spans.go) cut at rows rows, so that a few dozen rows make several spans.
func NewWithSpanRows(t testing.TB, rows int) *sqlx.DB {
	t.Helper()
	url := NewURL(t)
	conn, err := sqlx.Open("postgres", url)
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", url, err)
	}
	defer conn.Close()
	if _, err := conn.Exec(fmt.Sprintf(`DO $$ BEGIN
		EXECUTE format('ALTER DATABASE %%I SET starkgraph.rank_span_rows = %d', current_database()); END $$`, rows)); err != nil {
		t.Fatalf("dbtest: span rows: %v", err)
	}
	// Sessions opened from now on take the setting.
	conn, err = sqlx.Open("postgres", url)
	if err != nil {
		t.Fatalf("dbtest: open %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// RankSpansWrong are the spans of rank_spans whose count is not the rows they hold, and
// the keys with rows and no span, as text; empty when every count is exact.
func RankSpansWrong(t testing.TB, conn *sqlx.DB) []string {
	t.Helper()
	var wrong []string
	if err := conn.Select(&wrong, `WITH rows (list, key, v1, v2) AS (
			SELECT 1::smallint, token_address, balance::numeric, owner_address FROM erc20_balances WHERE balance > 0
			UNION ALL SELECT 2::smallint, contract_address, held::numeric, owner_address FROM nft_holders
			UNION ALL SELECT 3::smallint, class_hash, coalesce(deployed_block, -1)::numeric, address FROM contracts),
		spans AS (SELECT list, key, s1, s2, n, lead(s1) OVER w AS e1, lead(s2) OVER w AS e2
			FROM rank_spans WINDOW w AS (PARTITION BY list, key ORDER BY s1 DESC, s2 DESC)),
		held AS (SELECT s.*, (SELECT count(*) FROM rows r WHERE r.list = s.list AND r.key = s.key
				AND (r.v1, r.v2) < (s.s1, s.s2) AND (s.e1 IS NULL OR (r.v1, r.v2) >= (s.e1, s.e2))) AS rows
			FROM spans s)
		SELECT format('list %s key %s span (%s, %s) counts %s, holds %s', list, encode(key, 'hex'), s1, encode(s2, 'hex'), n, rows)
		FROM held WHERE n <> rows
		UNION ALL
		SELECT format('list %s key %s has %s rows, no span', r.list, encode(r.key, 'hex'), count(*))
		FROM rows r WHERE NOT EXISTS (SELECT 1 FROM rank_spans s WHERE s.list = r.list AND s.key = r.key)
		GROUP BY r.list, r.key`); err != nil {
		t.Fatal(err)
	}
	return wrong
}
