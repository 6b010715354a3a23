package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Bulk loading. Far behind the node, the indexer writes millions of rows into the per-block
// tables, and most of PostgreSQL's work per row is not the row: it is a B-tree insert per
// secondary index, at a random place, and a foreign-key check per row. Building an index
// once from sorted rows, and checking a foreign key once with a join, costs a fraction of
// that. So DeferConstraints drops them, recording their definitions in
// deferred_constraints in the same transaction, and RestoreConstraints rebuilds them in one
// transaction that also empties the table: after a crash at any point, the database either
// has its constraints or has their definitions.

// bulkTables are the tables that grow with every block: each one left out keeps a
// B-tree insert per secondary index and a foreign-key check per row on the load's path.
var bulkTables = []string{"transactions", "calls", "events", "token_transfers", "erc20_balance_changes", "nft_events",
	"meta_transactions", "messages", "staking_activity", "attestations"}

// KeptWhileBulkLoading are the secondary indexes of bulkTables that stay through a bulk load.
// The L1 follower finds L1_HANDLER transactions by message hash while the indexer catches
// up. The others lead with the block, or with a column that takes few values among a
// batch's rows (a contract, a validator): each batch's rows land at the edge of a few key
// ranges, on a few pages, and kept up as they arrive these indexes cost less than a
// rebuild. Those that lead with an account (a sender, a transfer's two sides, a delegator)
// or a hash take rows all over the tree and are rebuilt at the end, transactions_hash
// among them: kept up, it made the COPY of transactions read 1,600 of its pages a batch at
// 2.5M transactions and more as it grew (lookups by hash scan the table until the load
// ends, as the docs' advice to serve the API once it has ended says); so are the four
// largest that lead with an emitter, a selector, a token or a type (events_from,
// events_key0, token_transfers_token, transactions_type): kept up through a bulk load, each
// batch split their pages in the middle of a key's range and left them half full, 1.6-1.8
// times the size of the same index built once (at 260,000 transactions, bytes per
// transaction: events_from 326 against 182, events_key0 290 against 162;
// docs/performance.md "Storage").
var KeptWhileBulkLoading = []string{
	"transactions_message_hash",
	"transactions_contract", // most transactions have no contract_address
	"erc20_balance_changes_block", "meta_transactions_recent", "nft_events_sales", "nft_events_contract",
	"messages_direction", "messages_contract", "staking_activity_staker", "attestations_staker",
}

// Keys and orders of the tables a bulk load updates in place, dropped like the per-block
// tables' secondary indexes, because their cost per row grows with the database (issue 58:
// a catch-up made 60 blocks a second at its start and 14 at 1.2M transactions, most of
// the difference in these):
//
//   - the primary key of erc20_balance_changes: every balance change lands at a random
//     place in it (it leads with the token and the owner), and at 1.2M transactions a
//     batch's COPY read 6,400 of its pages and wrote 940 whole pages into the WAL. A batch
//     is one transaction, so nothing it guards can be written twice while the key is
//     away; built again at the end, it checks that.
//   - the two orders of erc20_balances (by balance, by an owner's newest transfer): each
//     holds a column every update changes, so no update of a balance could be HOT (in
//     place, on its page, no index touched); every update added an entry to all four
//     indexes, and at 1.2M transactions the table's 25,000 balances took 123 MB. Without
//     them, and with room left on each page (fillfactor, migration 00061), an update
//     rewrites the row on its page and touches no index.
//   - the triggers that keep the holders' rank spans (rank_spans.go) of erc20_balances,
//     which read the order by balance; RestoreConstraints counts the spans again.
var (
	droppedWhileBulkLoading     = []string{"erc20_balances_holders_order", "erc20_balances_owner_order"}
	keysDroppedWhileBulkLoading = []string{"erc20_balance_changes_pkey"}
	triggersOffWhileBulkLoading = []struct{ table, name string }{
		{"erc20_balances", "erc20_balances_rank_ins"}, {"erc20_balances", "erc20_balances_rank_upd"},
		{"erc20_balances", "erc20_balances_rank_del"}}
)

// DeferConstraints drops the secondary indexes and foreign keys of the per-block tables,
// and the keys, orders and triggers named above, keeping their definitions for
// RestoreConstraints. Other unique indexes and primary keys stay: they guard what is
// written, or the upserts need them. On a partitioned table they are the parent's, which stand
// for its partitions': dropping one drops theirs, and its definition, without the ONLY
// that PostgreSQL writes into it, builds them all again. It returns how many it deferred;
// none when already deferred.
func DeferConstraints(ctx context.Context, conn *sqlx.DB) (int, error) {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var tables, triggers []string
	for _, t := range triggersOffWhileBulkLoading {
		tables, triggers = append(tables, t.table), append(triggers, t.name)
	}
	n, err := tx.ExecContext(ctx, `INSERT INTO deferred_constraints (name, table_name, kind, definition, comment)
		SELECT c.conname, c.conrelid::regclass::text, 'foreign key', pg_get_constraintdef(c.oid), NULL
		FROM pg_constraint c
		WHERE c.contype = 'f' AND c.conrelid::regclass::text = ANY($1)
		  AND c.conparentid = 0 -- not those PostgreSQL derives for each partition a key references
		UNION ALL
		SELECT c.conname, c.conrelid::regclass::text, 'primary key', pg_get_constraintdef(c.oid),
			obj_description(c.conindid, 'pg_class')
		FROM pg_constraint c WHERE c.contype = 'p' AND c.conname = ANY($4) AND c.conparentid = 0
		UNION ALL
		SELECT i.relname, t.relname, 'index', replace(pg_get_indexdef(i.oid), ' ON ONLY ', ' ON '),
			obj_description(i.oid, 'pg_class') -- the query it serves (migration 00034)
		FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relnamespace = 'public'::regnamespace AND NOT x.indisunique AND NOT x.indisprimary
		  AND ((t.relname = ANY($1) AND NOT (i.relname = ANY($2))) OR i.relname = ANY($3))
		UNION ALL
		SELECT g.tgname, g.tgrelid::regclass::text, 'trigger', g.tgname, NULL
		FROM pg_trigger g JOIN unnest($5::text[], $6::text[]) w (t, name) ON g.tgrelid = w.t::regclass AND g.tgname = w.name
		WHERE g.tgenabled <> 'D'
		ON CONFLICT (name) DO NOTHING`, pq.StringArray(bulkTables), pq.StringArray(KeptWhileBulkLoading),
		pq.StringArray(droppedWhileBulkLoading), pq.StringArray(keysDroppedWhileBulkLoading),
		pq.StringArray(tables), pq.StringArray(triggers))
	if err != nil {
		return 0, fmt.Errorf("record constraints: %w", err)
	}
	count, _ := n.RowsAffected()
	if err := deferDerived(ctx, tx); err != nil {
		return 0, err
	}
	var deferred []struct {
		Name  string `db:"name"`
		Table string `db:"table_name"`
		Kind  string `db:"kind"`
	}
	if err := tx.SelectContext(ctx, &deferred, `SELECT name, table_name, kind FROM deferred_constraints ORDER BY name`); err != nil {
		return 0, err
	}
	for _, d := range deferred {
		stmt := fmt.Sprintf(`DROP INDEX IF EXISTS %s`, pq.QuoteIdentifier(d.Name))
		switch d.Kind {
		case "foreign key", "primary key":
			stmt = fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s`, pq.QuoteIdentifier(d.Table), pq.QuoteIdentifier(d.Name))
		case "trigger":
			stmt = fmt.Sprintf(`ALTER TABLE %s DISABLE TRIGGER %s`, pq.QuoteIdentifier(d.Table), pq.QuoteIdentifier(d.Name))
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return 0, fmt.Errorf("drop %s %s: %w", d.Kind, d.Name, err)
		}
	}
	return int(count), tx.Commit()
}

// ConstraintsDeferred reports whether DeferConstraints left constraints to restore.
func ConstraintsDeferred(ctx context.Context, conn sqlx.QueryerContext) (bool, error) {
	var deferred bool
	err := sqlx.GetContext(ctx, conn, &deferred, `SELECT EXISTS (SELECT FROM deferred_constraints)`)
	return deferred, err
}

// RestoreConstraints rebuilds what DeferConstraints dropped, indexes first (the foreign
// keys' checks are joins that may use them), and reports how many. The indexes are built
// with the session's maintenance memory raised and parallel workers allowed; readers are
// not blocked, writers to the tables wait until the transaction commits.
func RestoreConstraints(ctx context.Context, conn *sqlx.DB) (int, error) {
	return RestoreConstraintsWith(ctx, conn, nil)
}

// RestoreConstraintsWith is RestoreConstraints for the bulk load that kept what it defers in
// memory (DeriveDeferred).
func RestoreConstraintsWith(ctx context.Context, conn *sqlx.DB, kept *BulkKept) (int, error) {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var deferred []struct {
		Name       string         `db:"name"`
		Table      string         `db:"table_name"`
		Kind       string         `db:"kind"`
		Definition string         `db:"definition"`
		Comment    sql.NullString `db:"comment"`
	}
	// FOR UPDATE: two processes restoring at once (an indexer, a migration) take turns, and
	// the second finds nothing left.
	if err := tx.SelectContext(ctx, &deferred, `SELECT name, table_name, kind, definition,
			to_jsonb(d) ->> 'comment' AS comment -- a column since migration 00034, which may not have run yet
		FROM deferred_constraints d ORDER BY kind DESC, name FOR UPDATE`); err != nil {
		return 0, err
	}
	if len(deferred) == 0 {
		return 0, nil
	}
	for _, setting := range []string{`SET LOCAL maintenance_work_mem = '256MB'`, `SET LOCAL max_parallel_maintenance_workers = 2`} {
		if _, err := tx.ExecContext(ctx, setting); err != nil {
			return 0, err
		}
	}
	// A bulk load writes beside its batches' own transactions (beside.go): rows left above
	// the head by one that ended between its two commits would fail the foreign keys.
	if err := removeBesideRowsAboveHead(ctx, tx); err != nil {
		return 0, err
	}
	// The derived tables first: the orders rebuilt below are of erc20_balances.
	if _, err := DeriveDeferred(ctx, tx, false, kept); err != nil {
		return 0, err
	}
	spansStale := false
	for _, d := range deferred {
		stmt := d.Definition // CREATE INDEX ... ON public.t USING btree (...)
		switch d.Kind {
		case "foreign key", "primary key":
			stmt = fmt.Sprintf(`ALTER TABLE %s ADD CONSTRAINT %s %s`, pq.QuoteIdentifier(d.Table), pq.QuoteIdentifier(d.Name), d.Definition)
		case "trigger":
			stmt = fmt.Sprintf(`ALTER TABLE %s ENABLE TRIGGER %s`, pq.QuoteIdentifier(d.Table), pq.QuoteIdentifier(d.Name))
			spansStale = true
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return 0, fmt.Errorf("restore %s %s: %w", d.Kind, d.Name, err)
		}
		if (d.Kind == "index" || d.Kind == "primary key") && d.Comment.Valid {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(`COMMENT ON INDEX %s IS %s`, pq.QuoteIdentifier(d.Name), pq.QuoteLiteral(d.Comment.String))); err != nil {
				return 0, fmt.Errorf("restore the comment of index %s: %w", d.Name, err)
			}
		}
	}
	if spansStale {
		if err := recountHolderSpans(ctx, tx); err != nil {
			return 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM deferred_constraints`); err != nil {
		return 0, err
	}
	if err := AnalyzePartitioned(ctx, tx); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return len(deferred), nil
}

// recountHolderSpans makes the rank spans of every token's holders (list 1) again, once its
// order by balance is back: one span a token holding all its holders, whose count
// rank_spans_resize, a deferred trigger, cuts into spans of rank_span_rows at commit.
func recountHolderSpans(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM rank_spans WHERE list = 1;
		INSERT INTO rank_spans (list, key, s1, s2, n)
		SELECT 1, token_address, 'Infinity', '\x', 0 FROM erc20_balances WHERE balance > 0 GROUP BY token_address;
		UPDATE rank_spans s SET n = c.n
		FROM (SELECT token_address, count(*) AS n FROM erc20_balances WHERE balance > 0 GROUP BY token_address) c
		WHERE s.list = 1 AND s.key = c.token_address AND s.s1 = 'Infinity'`)
	if err != nil {
		return fmt.Errorf("count the holders' rank spans again: %w", err)
	}
	return nil
}

// restoreBeforeMigrating puts deferred constraints back before migrations run, so that a
// migration always finds the schema it was written against.
func restoreBeforeMigrating(ctx context.Context, conn *sql.DB) error {
	var exists bool
	if err := conn.QueryRowContext(ctx, `SELECT to_regclass('deferred_constraints') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return err
	}
	_, err := RestoreConstraints(ctx, sqlx.NewDb(conn, "postgres"))
	return err
}
