package db

import (
	"context"
	"errors"

	lru "github.com/hashicorp/golang-lru/v2"
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

// ReadSessionSettings are the settings of the API's read sessions: database.go's
// openReadPool sends them with every connection (it says why each), and dbtest's Explain
// plans with them, so that the plans tests read are the plans the API runs.
var ReadSessionSettings = []struct{ Name, Value string }{
	{"plan_cache_mode", "force_generic_plan"},
	{"max_parallel_workers_per_gather", "0"},
	{"jit", "off"},
	{"enable_memoize", "off"},
}

// What is kept prepared is bounded: on the server, a prepared statement with its generic
// plan takes about 48 KB of each connection it ran on. Most texts are the program's own and
// few (a page's LIMIT and OFFSET are parameters, Window.pageTail), but some vary with their
// arguments (a list of keys of any length). A text is prepared the second time it is seen, and the
// least recently used of maxPrepared is closed (on every connection) when another comes:
// at most about 256 x 48 KB = 12 MB per connection.
const (
	maxPrepared  = 256
	maxSeenTexts = 4096
)

type preparedStatements struct {
	seen  *lru.Cache[string, struct{}]   // texts run once, as text
	stmts *lru.Cache[string, *sqlx.Stmt] // texts run more than once, prepared
}

func newPreparedStatements() preparedStatements {
	seen, _ := lru.New[string, struct{}](maxSeenTexts) // errors only for a size below 1
	// Closing waits for the statement's runs in flight, so it is not done on the request
	// that pushed it out.
	stmts, _ := lru.NewWithEvict(maxPrepared, func(_ string, st *sqlx.Stmt) { go st.Close() })
	return preparedStatements{seen: seen, stmts: stmts}
}

// stmt returns query prepared, or nil when it is to run as text: the first time it is
// seen, or when preparing failed (running the text then reports the error if it is the
// statement's).
func (p *preparedStatements) stmt(ctx context.Context, db *sqlx.DB, query string) *sqlx.Stmt {
	if st, ok := p.stmts.Get(query); ok {
		return st
	}
	if seen, _ := p.seen.ContainsOrAdd(query, struct{}{}); !seen {
		return nil
	}
	prepared, err := db.PreparexContext(ctx, query)
	if err != nil {
		return nil
	}
	if st, ok, _ := p.stmts.PeekOrAdd(query, prepared); ok { // another request prepared it meanwhile
		prepared.Close()
		return st
	}
	return prepared
}

// forget drops query's statement, after PostgreSQL refused to run it as prepared.
func (p *preparedStatements) forget(query string) {
	p.stmts.Remove(query) // closes it
}

// stale reports that a prepared statement could not run as such: PostgreSQL refused it
// because its tables changed shape under it ("cached plan must not change result type",
// after a migration while serving), or it was pushed out of the cache and closed meanwhile.
func stale(err error) bool {
	var pqErr *pq.Error
	return (errors.As(err, &pqErr) && pqErr.Code == "0A000") ||
		(err != nil && err.Error() == "sql: statement is closed")
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
