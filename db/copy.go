package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// WriteTx is the indexer's write transaction, on a connection held for it, so that COPY can
// reach the driver underneath: InsertChainRows encodes the rows in COPY's text format
// itself, off the writing goroutine, and hands lib/pq whole chunks of lines. Going through
// database/sql instead costs a call, its argument conversions and lib/pq's encoding per
// row: a fifth of the indexer's CPU, all of it on the path that PostgreSQL waits on.
type WriteTx struct {
	*sqlx.Tx
	conn *sql.Conn
	pool *sqlx.DB // for the felt ids, assigned outside the transaction (felt_ids.go)
	// Felts caches the felt ids across batches; nil looks every felt up.
	Felts *FeltIDs
}

// BeginWrite starts a write transaction on a connection of pool's.
func BeginWrite(ctx context.Context, pool *sqlx.DB) (*WriteTx, error) {
	conn, err := pool.Connx(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &WriteTx{Tx: tx, conn: conn.Conn, pool: pool}, nil
}

// feltIDs is the cache of the felt ids, one for this transaction when none was given.
func (t *WriteTx) feltIDs() *FeltIDs {
	if t.Felts == nil {
		t.Felts = NewFeltIDs()
	}
	return t.Felts
}

// Commit commits and gives the connection back to the pool.
func (t *WriteTx) Commit() error {
	defer t.conn.Close()
	return t.Tx.Commit()
}

// Rollback rolls back (after Commit: nothing) and gives the connection back to the pool.
func (t *WriteTx) Rollback() error {
	defer t.conn.Close()
	return t.Tx.Rollback()
}

// copyChunk is about how much COPY data is encoded before it is handed to the driver
// (which sends it in messages of 64 KiB).
const copyChunk = 256 << 10

// copyDataStmt is lib/pq's COPY statement, which takes lines already in COPY's format.
type copyDataStmt interface {
	driver.Stmt
	CopyData(ctx context.Context, line string) (driver.Result, error)
}

// copyTables streams each table's rows with COPY FROM STDIN, in order (parents first). The
// rows of every table are encoded at once by goroutines of their own while earlier tables
// are sent, so encoding overlaps with PostgreSQL reading.
func copyTables(ctx context.Context, tx *WriteTx, tables []chainTable) error {
	encoded := make([]chan copyPart, len(tables))
	stop := make(chan struct{})
	defer close(stop)
	for i, t := range tables {
		encoded[i] = make(chan copyPart, 4)
		go encodeTable(t, encoded[i], stop)
	}
	return tx.conn.Raw(func(driverConn any) error {
		prep, ok := driverConn.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("copy: the driver's connection (%T) cannot prepare", driverConn)
		}
		for i, t := range tables {
			if t.n == 0 {
				continue
			}
			if err := copyTable(ctx, prep, t, encoded[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// copyTable sends one table's encoded chunks.
func copyTable(ctx context.Context, prep driver.ConnPrepareContext, t chainTable, parts <-chan copyPart) error {
	s, err := prep.PrepareContext(ctx, "COPY "+t.name+" ("+strings.Join(t.shape.written, ", ")+") FROM STDIN")
	if err != nil {
		return fmt.Errorf("copy %s: %w", t.name, err)
	}
	stmt, ok := s.(copyDataStmt)
	if !ok {
		s.Close()
		return fmt.Errorf("copy %s: the driver's statement (%T) takes no COPY data", t.name, s)
	}
	defer stmt.Close()
	for part := range parts {
		if part.err != nil {
			return fmt.Errorf("copy %s: %w", t.name, part.err)
		}
		if _, err := stmt.CopyData(ctx, part.lines); err != nil {
			return fmt.Errorf("copy %s: %w", t.name, err)
		}
	}
	// lib/pq ends a COPY with Exec(nil).
	if _, err := stmt.Exec(nil); err != nil {
		return fmt.Errorf("copy %s: %w", t.name, err)
	}
	return nil
}

// copyPart is a chunk of a table's COPY data: lines without the last newline (CopyData
// adds it), or the error that stopped the encoding.
type copyPart struct {
	lines string
	err   error
}

// encodeTable encodes t's rows into chunks on out, which it closes; it gives up when stop
// closes.
func encodeTable(t chainTable, out chan<- copyPart, stop <-chan struct{}) {
	defer close(out)
	send := func(p copyPart) bool {
		select {
		case out <- p:
			return true
		case <-stop:
			return false
		}
	}
	buf := make([]byte, 0, copyChunk+copyChunk/4)
	for i := 0; i < t.n; i++ {
		if len(buf) > 0 {
			buf = append(buf, '\n')
		}
		var err error
		if buf, err = appendCopyLine(buf, t.row(i)); err != nil {
			send(copyPart{err: fmt.Errorf("row %d: %w", i, err)})
			return
		}
		if len(buf) >= copyChunk {
			if !send(copyPart{lines: string(buf)}) {
				return
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		send(copyPart{lines: string(buf)})
	}
}

// appendCopyLine appends a row as a line of COPY's text format (without its newline):
// values separated by tabs, \N for NULL, backslashes and control characters escaped. The
// values are those rowShape gives for the ChainRows types; another type is an error.
func appendCopyLine(buf []byte, values []any) ([]byte, error) {
	for i, v := range values {
		if i > 0 {
			buf = append(buf, '\t')
		}
		var err error
		if buf, err = appendCopyValue(buf, v); err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return buf, nil
}

func appendCopyValue(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, `\N`...), nil
	case Felt:
		if x == nil {
			return append(buf, `\N`...), nil
		}
		// bytea's hex form \x..., its backslash escaped for COPY.
		return hex.AppendEncode(append(buf, `\\x`...), x), nil
	case FeltArray:
		if x == nil {
			return append(buf, `\N`...), nil
		}
		// The packed form (felt.go) in bytea's hex form, its backslash escaped for COPY.
		return x.appendPackedHex(append(buf, `\\x`...))
	case int64:
		return strconv.AppendInt(buf, x, 10), nil
	case bool:
		if x {
			return append(buf, 't'), nil
		}
		return append(buf, 'f'), nil
	case string:
		return appendCopyText(buf, cleanText(x)), nil
	}
	return nil, fmt.Errorf("COPY does not take %T", v)
}

// appendCopyText appends s with COPY's escapes for backslash, newline, carriage return and tab.
func appendCopyText(buf []byte, s string) []byte {
	if !strings.ContainsAny(s, "\\\n\r\t") {
		return append(buf, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			buf = append(buf, `\\`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			buf = append(buf, c)
		}
	}
	return buf
}
