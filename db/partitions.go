package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Block partitions. transactions, calls, events and token_transfers are partitioned by
// block range (migrations 00028 and 00030): a partition per blocks_per_partition blocks,
// named after its first block. A row whose block has no partition cannot be written, so
// the indexer makes them ahead of the blocks it writes, one partition ahead, through
// Partitions.Cover. A transaction is found by its hash through each partition's index of
// the hash's first bytes (transactions_hash, migration 00049).

// PartitionedTables are the tables partitioned by block range.
var PartitionedTables = []string{"transactions", "calls", "events", "token_transfers"}

// partitionLockTimeout bounds how long making a partition waits for its locks. Readers
// never wait for them (attaching locks the parent against other schema changes only, and
// the referenced transactions against writes), but a vacuum or an ANALYZE of the tables
// holds a lock they wait for.
const partitionLockTimeout = "3s"

// Partitions makes block partitions ahead of the writer. The zero value is ready; one
// writer (the indexer that holds the write lock) uses it.
type Partitions struct {
	Log *slog.Logger // where a partition not made ahead is reported; nil: nowhere

	mu      sync.Mutex
	size    int64 // blocks_per_partition, once read
	covered int64 // every partitioned table has a partition for each block below this
}

// Cover makes sure that every partitioned table has a partition for each block from first
// to last plus one partition's length, so that the following batches find theirs made. It
// asks PostgreSQL only when the blocks it knows to be covered fall short. It must run
// outside the transaction that writes the blocks: attaching a partition to a table with a
// foreign key locks the referenced table against writes until the attach commits.
//
// When only the partition ahead could not be made (a lock not granted in time), it
// returns nil: the next batch tries again. Its error says that last itself has none.
func (p *Partitions) Cover(ctx context.Context, conn *sqlx.DB, first, last int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.size > 0 && last+p.size < p.covered {
		return nil
	}
	err := p.extend(ctx, conn, first, last)
	switch {
	case err == nil:
		return nil
	case last >= p.covered:
		return fmt.Errorf("partition for block %d: %w", last, err)
	case p.Log != nil:
		p.Log.Warn("block partition not made ahead; trying again with the next batch", "err", err)
	}
	return nil
}

// extend makes the partitions missing below last + blocks_per_partition, in one
// transaction, and records how far they reach.
func (p *Partitions) extend(ctx context.Context, conn *sqlx.DB, first, last int64) error {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = '`+partitionLockTimeout+`'`); err != nil {
		return err
	}
	if err := tx.GetContext(ctx, &p.size, `SELECT blocks_per_partition FROM block_partitioning`); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return errors.New("block_partitioning has no row; put the default back with INSERT INTO block_partitioning DEFAULT VALUES")
		}
		return err
	}
	covered, made := int64(-1), false
	for _, table := range PartitionedTables {
		end, err := partitionsEnd(ctx, tx, table)
		if err != nil {
			return err
		}
		for end <= last+p.size {
			to := end + p.size
			// Blocks skipped below first (an index started --from-block far up) get one
			// partition, not one per length: empty partitions cost every plan that reads
			// them all.
			if start := first - first%p.size; start > end {
				to = start
			}
			if err := addPartition(ctx, tx, table, end, to); err != nil {
				return err
			}
			end, made = to, true
		}
		if covered < 0 || end < covered {
			covered = end
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	p.covered = covered
	if made {
		return AnalyzePartitioned(ctx, conn)
	}
	return nil
}

// AnalyzePartitioned gathers the statistics of the partitioned tables as wholes, which the
// planner uses for their joins. Autovacuum analyzes each partition, never the parents; so
// this runs after a new partition, after the migration that partitions, and at the end of
// a bulk load.
func AnalyzePartitioned(ctx context.Context, conn sqlx.ExecerContext) error {
	_, err := conn.ExecContext(ctx, `ANALYZE `+strings.Join(PartitionedTables, ", "))
	return err
}

// partitionsEnd is the first block above table's partitions (0 when it has none).
func partitionsEnd(ctx context.Context, tx *sqlx.Tx, table string) (int64, error) {
	var end int64
	err := tx.GetContext(ctx, &end, `SELECT coalesce(max(
			(regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''?(-?\d+)''?\)'))[1]::bigint), 0)
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = $1::regclass`, table)
	return end, err
}

// addPartition makes table's partition of blocks from..to-1. It is made apart and then
// attached, which locks the parent only against other schema changes, where CREATE TABLE
// ... PARTITION OF would lock out its readers too. The CHECK constraint spares ATTACH
// its scan for rows out of range (the table is new, but PostgreSQL does not know that).
func addPartition(ctx context.Context, tx *sqlx.Tx, table string, from, to int64) error {
	name := pq.QuoteIdentifier(fmt.Sprintf("%s_%d", table, from))
	parent := pq.QuoteIdentifier(table)
	for _, stmt := range []string{
		fmt.Sprintf(`CREATE TABLE %s (LIKE %s INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE,
			CONSTRAINT in_range CHECK (block_number >= %d AND block_number < %d))`, name, parent, from, to),
		fmt.Sprintf(`ALTER TABLE %s ATTACH PARTITION %s FOR VALUES FROM (%d) TO (%d)`, parent, name, from, to),
		fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT in_range`, name),
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("partition %s of blocks %d to %d: %w", table, from, to-1, err)
		}
	}
	return nil
}
