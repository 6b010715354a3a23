package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Writing beside. A bulk load's batch spends a third of its time in COPY, on the one
// PostgreSQL backend that also runs the batch's reads and upserts, while the other core
// waits. So a bulk load COPYs the rows of the besideTables (events, calls, transfers...)
// in a second transaction, on a second connection, at the same time as the batch's own
// transaction writes the rest. This is only for a bulk load: with the foreign keys in
// place, the second transaction could not see the transactions its rows belong to.
//
// The two commit one after the other, the beside one first, so the indexed head (written
// by the batch's own transaction) never stands above rows that are not there. If the
// process ends between the two commits, rows stay behind above the head; the next attempt
// at those blocks removes them before it COPYs, unless the caller knows there can be none
// (its previous batch committed both), and so does RestoreConstraints, before it checks the
// foreign keys again. The removal is skipped when it can: planned while a table's
// statistics lag its bulk-loaded rows, it scanned a partition (4,800 pages a call).

// Beside is the second transaction of a batch.
type Beside struct {
	tx      *WriteTx
	clean   bool // no rows can be above the head: the previous batch committed both
	started bool
	done    chan error // the COPY's outcome, until wait takes it
	err     error      // the COPY's outcome, once waited for
}

// BeginBeside starts the second transaction of a batch, on a connection of pool's. clean
// says that no earlier attempt can have left rows above the head (this process committed
// the previous batch, both its transactions), so none need removing.
func BeginBeside(ctx context.Context, pool *sqlx.DB, clean bool) (*Beside, error) {
	tx, err := BeginWrite(ctx, pool)
	if err != nil {
		return nil, err
	}
	return &Beside{tx: tx, clean: clean}, nil
}

// InsertChainRowsBeside writes r like InsertChainRows, the rows of the beside tables
// through b on a goroutine of its own: it returns once tx's part is written, and b.Commit
// waits for the rest. ctx must not end before b commits or rolls back (as for tx, a
// ROLLBACK in the middle of a COPY breaks the connection).
func InsertChainRowsBeside(ctx context.Context, tx *WriteTx, b *Beside, r *ChainRows) error {
	if b.started {
		return fmt.Errorf("write beside: a batch writes beside once")
	}
	b.started = true
	if len(r.Blocks) == 0 { // no block to clear from: all of it through tx
		return InsertChainRows(ctx, tx, r)
	}
	if err := r.storedForms(ctx, tx); err != nil {
		return err
	}
	from := r.Blocks[0].Number
	tables := r.besideTables()
	b.done = make(chan error, 1)
	go func() {
		var err error
		if !b.clean {
			err = removeBesideRows(ctx, b.tx, from)
		}
		if err == nil {
			err = copyTables(ctx, b.tx, tables)
		}
		b.done <- err
	}()
	if err := copyTables(ctx, tx, r.ownTables()); err != nil {
		return err
	}
	return recordKeyPositions(ctx, tx, r)
}

// Commit waits for the COPY and commits it. Call it just before the batch's own commit;
// when it fails, Rollback is still to be called.
func (b *Beside) Commit() error {
	if err := b.wait(); err != nil {
		return fmt.Errorf("write beside: %w", err)
	}
	return b.tx.Commit()
}

// Rollback waits for the COPY, if it started, and rolls back; after Commit, nothing.
func (b *Beside) Rollback() error {
	b.wait()
	return b.tx.Rollback()
}

// wait waits for the COPY, if it started, and gives its outcome (again if asked again).
func (b *Beside) wait() error {
	if b.done != nil {
		b.err, b.done = <-b.done, nil
	}
	return b.err
}

// removeBesideRows deletes what the beside tables hold from block from on: rows an earlier
// attempt at the same blocks committed when its own transaction did not.
func removeBesideRows(ctx context.Context, q sqlx.ExecerContext, from int64) error {
	for _, t := range (&ChainRows{}).besideTables() {
		if _, err := q.ExecContext(ctx, `DELETE FROM `+t.name+` WHERE block_number >= $1`, from); err != nil {
			return fmt.Errorf("remove %s from block %d: %w", t.name, from, err)
		}
	}
	return nil
}

// removeBesideRowsAboveHead deletes the beside tables' rows above the newest block.
func removeBesideRowsAboveHead(ctx context.Context, tx *sqlx.Tx) error {
	var above int64
	if err := tx.GetContext(ctx, &above, `SELECT coalesce(max(number), -1) + 1 FROM blocks`); err != nil {
		return err
	}
	return removeBesideRows(ctx, tx, above)
}
