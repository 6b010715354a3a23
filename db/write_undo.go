package db

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The undo journal (table undo_rows, migration 00003) makes a reorg exact: before a block
// changes a row of a table below, the row as it was (or its absence) is recorded under the
// block's number. Undoing blocks above a fork point puts back, for every key, the oldest
// recorded image, then deletes the blocks, whose cascade removes the append-only rows.

// journaled describes a table whose rows blocks update in place.
type journaled struct {
	key   []string // primary key columns
	types []string // their SQL types, for unnest
}

// journaledTables lists the tables in dependency order (a table after those it references).
var journaledTables = []struct {
	name string
	journaled
}{
	{"classes", journaled{[]string{"hash"}, []string{"bytea"}}},
	{"contracts", journaled{[]string{"address"}, []string{"bytea"}}},
	{"tokens", journaled{[]string{"address"}, []string{"bytea"}}},
	{"erc20_balances", journaled{[]string{"token_address", "owner_address"}, []string{"bytea", "bytea"}}},
	{"nft_items", journaled{[]string{"contract_address", "token_id"}, []string{"bytea", "numeric"}}},
	{"nft_balances", journaled{[]string{"contract_address", "token_id", "owner_address"}, []string{"bytea", "numeric", "bytea"}}},
	{"nft_holders", journaled{[]string{"contract_address", "owner_address"}, []string{"bytea", "bytea"}}},
	{"validators", journaled{[]string{"staker_address"}, []string{"bytea"}}},
	{"pools", journaled{[]string{"pool_contract"}, []string{"bytea"}}},
	{"delegations", journaled{[]string{"pool_contract", "delegator_address"}, []string{"bytea", "bytea"}}},
	{"stake_points", journaled{[]string{"wallet_address", "token_address", "day"}, []string{"bytea", "bytea", "date"}}},
	{"validator_days", journaled{[]string{"staker_address", "day"}, []string{"bytea", "date"}}},
	{"list_counts", journaled{[]string{"name"}, []string{"text"}}},
	{"chain_stats", journaled{[]string{"id"}, []string{"smallint"}}},
	{"staking_overview", journaled{[]string{"id"}, []string{"smallint"}}},
	{"sender_last_blocks", journaled{[]string{"sender_address"}, []string{"bytea"}}},
	{"active_sender_blocks", journaled{[]string{"block_number"}, []string{"bigint"}}},
	{"activity_stats", journaled{[]string{"granularity", "starts_at"}, []string{"text", "bigint"}}},
	{"starknet_id_names", journaled{[]string{"address"}, []string{"bytea"}}},
	{"starknet_id_domains", journaled{[]string{"domain"}, []string{"text"}}},
}

func journalFor(table string) (journaled, bool) {
	for _, t := range journaledTables {
		if t.name == table {
			return t.journaled, true
		}
	}
	return journaled{}, false
}

// JournalEntry names rows of one journaled table: one array per key column, pq.ByteaArray
// for bytea and pq.StringArray for text, numeric, date and smallint, pq.Int64Array for bigint.
type JournalEntry struct {
	Table string
	Keys  []any
}

// Journal records the current images of the rows of table at the given keys under block.
func Journal(ctx context.Context, tx *sqlx.Tx, block int64, table string, keyColumns ...any) error {
	return JournalMany(ctx, tx, block, []JournalEntry{{table, keyColumns}})
}

// JournalMany records the current images of the rows of every entry under block, in one
// statement (one INSERT per table, as data-modifying WITH clauses).
func JournalMany(ctx context.Context, tx *sqlx.Tx, block int64, entries []JournalEntry) error {
	if len(entries) == 0 {
		return nil
	}
	args := []any{block}
	var parts []string
	for n, e := range entries {
		j, ok := journalFor(e.Table)
		if !ok {
			return fmt.Errorf("journal: %s is not a journaled table", e.Table)
		}
		if len(e.Keys) != len(j.key) {
			return fmt.Errorf("journal %s: %d key columns, want %d", e.Table, len(e.Keys), len(j.key))
		}
		var unnest, build, join, cols []string
		for i, col := range j.key {
			args = append(args, e.Keys[i])
			unnest = append(unnest, fmt.Sprintf("$%d::%s[]", len(args), j.types[i]))
			build = append(build, fmt.Sprintf("'%s', k.c%d", col, i))
			join = append(join, fmt.Sprintf("t.%s = k.c%d", col, i))
			cols = append(cols, fmt.Sprintf("c%d", i))
		}
		parts = append(parts, fmt.Sprintf(`j%d AS (INSERT INTO undo_rows (block_number, tbl, key, old)
SELECT $1, '%s', jsonb_build_object(%s), to_jsonb(t)
FROM unnest(%s) AS k(%s) LEFT JOIN %s t ON %s)`,
			n, e.Table, strings.Join(build, ", "), strings.Join(unnest, ", "), strings.Join(cols, ", "),
			e.Table, strings.Join(join, " AND ")))
	}
	q := "WITH " + strings.Join(parts, ",\n") + " SELECT 1"
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// UndoAbove removes every block above ancestor with everything derived from it, leaving the
// database as it was right after ancestor was written.
//
// Rows that existed before are put back in place with an upsert (deleting them would
// cascade to rows that reference them and that the journal does not hold); rows that did
// not exist are deleted, children before parents.
func UndoAbove(ctx context.Context, tx *sqlx.Tx, ancestor int64) error {
	// The oldest image of each key above the ancestor is the state to return to.
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE undo_target ON COMMIT DROP AS
		SELECT DISTINCT ON (tbl, key) tbl, key, old FROM undo_rows WHERE block_number > $1
		ORDER BY tbl, key, block_number, seq`, ancestor); err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	for _, t := range journaledTables {
		var columns []string
		if err := tx.SelectContext(ctx, &columns, `SELECT attname FROM pg_attribute
			WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, t.name); err != nil {
			return fmt.Errorf("undo %s: columns: %w", t.name, err)
		}
		q := fmt.Sprintf(`INSERT INTO %s SELECT (jsonb_populate_record(NULL::%s, u.old)).*
FROM undo_target u WHERE u.tbl = '%s' AND u.old IS NOT NULL %s`, t.name, t.name, t.name, updateAll(t.key, columns))
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("undo %s: restore: %w", t.name, err)
		}
	}
	for i := len(journaledTables) - 1; i >= 0; i-- {
		t := journaledTables[i]
		var match []string
		for _, col := range t.key {
			match = append(match, fmt.Sprintf("t.%s = k.%s", col, col))
		}
		q := fmt.Sprintf(`DELETE FROM %s t USING (
  SELECT (jsonb_populate_record(NULL::%s, key)).* FROM undo_target WHERE tbl = '%s' AND old IS NULL
) k WHERE %s`, t.name, t.name, t.name, strings.Join(match, " AND "))
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("undo %s: delete: %w", t.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE undo_target`); err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM undo_rows WHERE block_number > $1`, ancestor); err != nil {
		return fmt.Errorf("undo: clear journal: %w", err)
	}
	// Rows a beside write left above the head were never counted: remove them before the
	// counts are taken back for what lies above the ancestor.
	if err := removeBesideRowsAboveHead(ctx, tx); err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	if err := undoKeyPositions(ctx, tx, ancestor); err != nil {
		return err
	}
	if err := undoBalanceCorrections(ctx, tx, ancestor); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM blocks WHERE number > $1`, ancestor); err != nil {
		return fmt.Errorf("undo: delete blocks: %w", err)
	}
	// The figures of the newest blocks are not journaled: they follow from the rows.
	return RefreshFigures(ctx, tx)
}

// PruneJournal forgets the undo entries of blocks below keepFrom: they are deeper than any
// reorg the indexer follows.
func PruneJournal(ctx context.Context, tx *sqlx.Tx, keepFrom int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM undo_rows WHERE block_number < $1`, keepFrom)
	return err
}

// ByteaKeys turns felts into one key column for Journal.
func ByteaKeys(fs []Felt) pq.ByteaArray {
	out := make(pq.ByteaArray, len(fs))
	for i, f := range fs {
		out[i] = f
		if out[i] == nil {
			out[i] = []byte{}
		}
	}
	return out
}
