package db

import (
	"context"
	"errors"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The store's reads run as prepared statements. Sent as text, each statement was parsed and
// planned again for every request, and that was most of PostgreSQL's work for a request: the
// statement log of block -> txs -> transfers showed 0.28 ms of parsing and 0.43 ms of binding
// (planning) against 0.30 ms of execution. database/sql prepares a statement on each pooled
// connection the first time it runs there, and PostgreSQL switches to a generic plan after
// five executions when that plan is not costlier than the custom ones. An operator who meets
// a parameter-sensitive plan can add plan_cache_mode=force_custom_plan to DATABASE_URL
// (lib/pq sends unknown parameters as session settings).

// maxPrepared bounds the statement texts kept prepared. The texts are the program's own (an
// argument is never spliced into one), so there are a few hundred; past the bound a new text
// runs unprepared rather than grow the cache.
const maxPrepared = 2000

type preparedStatements struct {
	mu    sync.RWMutex
	stmts map[string]*sqlx.Stmt
}

// stmt returns query prepared, or nil when it cannot be (the cache is full, or preparing
// failed: the caller then runs the text, which reports the error if it is the statement's).
func (p *preparedStatements) stmt(ctx context.Context, db *sqlx.DB, query string) *sqlx.Stmt {
	p.mu.RLock()
	st, ok := p.stmts[query]
	full := len(p.stmts) >= maxPrepared
	p.mu.RUnlock()
	if ok || full {
		return st
	}
	prepared, err := db.PreparexContext(ctx, query)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.stmts[query]; ok { // another request prepared it meanwhile
		prepared.Close()
		return st
	}
	if p.stmts == nil {
		p.stmts = map[string]*sqlx.Stmt{}
	}
	p.stmts[query] = prepared
	return prepared
}

// forget drops query's statement, after PostgreSQL refused to run it as prepared.
func (p *preparedStatements) forget(query string) {
	p.mu.Lock()
	st := p.stmts[query]
	delete(p.stmts, query)
	p.mu.Unlock()
	if st != nil {
		st.Close() // waits for the statement's runs in flight
	}
}

// stale reports that a prepared statement could not run as such: PostgreSQL refused it
// because its tables changed shape under it ("cached plan must not change result type",
// after a migration while serving), or another request forgot and closed it meanwhile.
func stale(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "0A000" ||
		err != nil && err.Error() == "sql: statement is closed"
}

// run executes query through its prepared statement, or as text when there is none or the
// statement went stale (then it is forgotten, and prepared again by a later request).
func (s *Store) run(ctx context.Context, query string, prepared func(*sqlx.Stmt) error, text func() error) error {
	if st := s.prepared.stmt(ctx, s.db, query); st != nil {
		err := prepared(st)
		if !stale(err) {
			return err
		}
		s.prepared.forget(query)
	}
	return text()
}
