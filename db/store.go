package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
)

// Store is the read side used by the resolvers. Every statement goes through query/get so
// that it is counted: tests assert how many statements a GraphQL document costs, and the
// metrics endpoint exports the total.
type Store struct {
	db         *sqlx.DB
	statements atomic.Int64
	// OnStatement, when set, is called once per SQL statement (for metrics).
	OnStatement func()
	// OnQuery, when set, sees each statement's text and arguments before it runs (the
	// EXPLAIN test collects every route's SQL with it).
	OnQuery func(query string, args []any)
	// OnStatementDone, when set, is told each statement's time and the store method
	// that ran it ("HoldersOf"), for per-statement metrics.
	OnStatementDone func(name string, took time.Duration)

	prepared preparedStatements
	pageEnds *lru.Cache[pageEndKey, pageEnd]       // page_ends.go
	counts   *countCache                           // counts.go
	abis     *lru.Cache[starknet.Felt, *class.ABI] // call_inputs.go
	// feltsByID caches felt_ids for the rows that name felts by id (felt_ids.go).
	feltsByID *lru.Cache[int32, Felt]
	names     *namesCache      // names_cache.go; nil: none
	clock     func() time.Time // nil: time.Now; tests move it
}

// NewStore wraps an open database.
func NewStore(conn *sqlx.DB) *Store {
	return &Store{db: conn, prepared: newPreparedStatements(), pageEnds: newPageEnds(), counts: newCountCache(), abis: newABICache(),
		feltsByID: newFeltsByID()}
}

// DB is the underlying connection pool.
func (s *Store) DB() *sqlx.DB { return s.db }

// Statements is the number of SQL statements this store has executed.
func (s *Store) Statements() int64 { return s.statements.Load() }

func (s *Store) counted() {
	s.statements.Add(1)
	if s.OnStatement != nil {
		s.OnStatement()
	}
}

// StoreError is a failure of the database, never of the client's input: the APIs log it
// and answer "internal error" without its text.
type StoreError struct {
	Query string
	Err   error
}

func (e *StoreError) Error() string { return e.Query + ": " + e.Err.Error() }
func (e *StoreError) Unwrap() error { return e.Err }

func (s *Store) selectRows(ctx context.Context, dest any, query string, args ...any) error {
	s.counted()
	if s.OnQuery != nil {
		s.OnQuery(query, args)
	}
	defer s.timed(time.Now())
	err := s.run(ctx, query,
		func(st *sqlx.Stmt) error { return st.SelectContext(ctx, dest, args...) },
		func() error { return s.db.SelectContext(ctx, dest, query, args...) })
	if err != nil {
		return &StoreError{Query: firstLine(query), Err: err}
	}
	return nil
}

// getRow reads one row; it returns (false, nil) when there is none.
func (s *Store) getRow(ctx context.Context, dest any, query string, args ...any) (bool, error) {
	s.counted()
	if s.OnQuery != nil {
		s.OnQuery(query, args)
	}
	defer s.timed(time.Now())
	err := s.run(ctx, query,
		func(st *sqlx.Stmt) error { return st.GetContext(ctx, dest, args...) },
		func() error { return s.db.GetContext(ctx, dest, query, args...) })
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, &StoreError{Query: firstLine(query), Err: err}
	}
	return true, nil
}

// timed reports a statement's time under the name of the store method that ran it: the
// outermost function of this package on the stack ("HoldersOf", or "ListCount" when a
// resolver calls it). The name is worked out once per call site (the return addresses of
// the three frames above selectRows or getRow).
func (s *Store) timed(start time.Time) {
	if s.OnStatementDone == nil {
		return
	}
	took := time.Since(start)
	var pcs [8]uintptr
	n := runtime.Callers(3, pcs[:]) // above timed and selectRows/getRow
	site := [3]uintptr{pcs[0], pcs[1], pcs[2]}
	name, ok := statementNames.Load(site)
	if !ok {
		name = callerName(pcs[:n])
		statementNames.Store(site, name)
	}
	s.OnStatementDone(name.(string), took)
}

// statementNames caches the store method of each call site of selectRows and getRow.
var statementNames sync.Map // [3]uintptr -> string

// dbPackage prefixes the full names of this package's functions ("<module>/db.").
var dbPackage = func() string {
	name := runtime.FuncForPC(reflect.ValueOf(NewStore).Pointer()).Name()
	return name[:strings.LastIndex(name, ".")+1]
}()

// callerName is the method of the outermost frame of this package among pcs (runtime
// frames, such as a deferred call's, are passed over).
func callerName(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	name := "unknown"
	for {
		f, more := frames.Next()
		switch {
		case strings.HasPrefix(f.Function, dbPackage):
			name = methodName(f.Function)
		case !strings.HasPrefix(f.Function, "runtime."):
			return name
		}
		if !more {
			return name
		}
	}
}

// methodName keeps the method of a function's full name:
// ".../db.(*Store).HoldersOf" -> "HoldersOf".
func methodName(fn string) string {
	if i := strings.LastIndexByte(fn, '.'); i >= 0 {
		fn = fn[i+1:]
	}
	return strings.TrimSuffix(fn, "-fm")
}

func firstLine(q string) string {
	q = strings.TrimSpace(q)
	if i := strings.IndexByte(q, '\n'); i > 0 {
		q = q[:i]
	}
	if len(q) > 60 {
		q = q[:60]
	}
	return q
}

// Window selects a slice of an ordered list: Limit rows, starting after the keyset position
// After (the sort-column values of the last row already seen) or, when After is nil,
// after skipping Offset rows. Page-number APIs use offsets; cursors from keyset lists carry
// After, which stays fast however deep the client walks.
type Window struct {
	Limit  int
	Offset int
	After  []any
	// SkipAfter is how many rows after After the window skips: a page that seeks from a
	// kept position (key_positions.go) starts a few rows past it. Offset counts only
	// without After.
	SkipAfter int
}

// pageTail is the LIMIT and OFFSET of a window, as the statement's arguments firstArg and
// firstArg+1, never as text. Statements run as prepared generic plans (openReadPool in
// database.go): a plan made once for every key. Written into the text, a deep page's
// "LIMIT 26 OFFSET 4975" told the planner that the page needs more rows than an average
// key has, so it read every row of the key and sorted them; for the hottest key (half of
// the events) that was 2.3 s where walking the index takes 15 ms. As parameters, LIMIT and
// OFFSET leave the planner to assume that a page is a small part of the rows (PostgreSQL
// plans an unknown limit for a tenth of them), so it walks an index in the list's order
// and stops at the page's end, whatever the key. One text also serves every page, so deep
// pages no longer fill the prepared-statement cache with texts used once (prepared.go).
// What the page is joined to is planned for at most PageCap rows (capPage).
// docs/planning.md says how every list is planned and how the tests check it.
func (w Window) pageTail(firstArg int) (string, []any) {
	return fmt.Sprintf(" LIMIT $%d OFFSET $%d", firstArg, firstArg+1), []any{w.Limit, w.Offset}
}

// PageCap is the most rows a page reads: a page of MaxPageSize and one to tell whether
// another follows.
const PageCap = MaxPageSize + 1

// capPage bounds a subquery that reads a window's rows, for the joins above it: a LIMIT
// given as a parameter is planned for a tenth of the rows it reads from, and for the whole
// chain's events (7.7M at 10M transactions) the planner then joined 775,523 of them to
// their transactions by reading and sorting all 9.9M (15 s, where the page's 26 take
// 0.3 ms). The subquery keeps its parameter, which makes it walk its index in order
// whatever the key (pageTail); the literal LIMIT around it, never below the window's, tells
// the joins how few rows come. One text serves every page of up to PageCap rows.
func capPage(subquery string, w Window) string {
	return "(SELECT * FROM " + subquery + " page LIMIT " + strconv.Itoa(max(w.Limit, PageCap)) + ")"
}

// keyset returns the WHERE fragment and the ORDER BY/LIMIT/OFFSET tail for a list sorted
// by cols, all in one direction, and the arguments both take. firstArg is the number of
// the first placeholder to use.
func (w Window) keyset(cols []string, desc bool, firstArg int) (where, tail string, args []any) {
	return w.keysetFlipped(cols, desc, false, firstArg)
}

// keysetFlipped is keyset for a sort whose first column, when flipLead, goes the other way
// (a collection's balances: by token id up, then by balance down). One row comparison
// cannot say "after this key" then, so the condition bounds the first column, which the
// index seeks by, and filters the rows of the boundary's own first value by the rest: those
// are few (an item's owners, the delegations of one amount).
func (w Window) keysetFlipped(cols []string, desc, flipLead bool, firstArg int) (where, tail string, args []any) {
	descending := func(i int) bool { return desc != (flipLead && i == 0) }
	order := make([]string, len(cols))
	for i, c := range cols {
		order[i] = c + " ASC"
		if descending(i) {
			order[i] = c + " DESC"
		}
	}
	where, args = w.seek(cols, descending, flipLead, firstArg)
	paged := w
	if where != "" { // a window from a keyset position skips nothing more, but SkipAfter
		paged.Offset = w.SkipAfter
	}
	page, pageArgs := paged.pageTail(firstArg + len(args))
	return where, " ORDER BY " + strings.Join(order, ", ") + page, append(args, pageArgs...)
}

// seek is the condition that starts a window at its keyset position After (none when the
// window is walked by offset), with its arguments numbered from firstArg.
func (w Window) seek(cols []string, descending func(int) bool, flipLead bool, firstArg int) (string, []any) {
	if len(w.After) != len(cols) || len(cols) == 0 {
		return "", nil
	}
	ph := make([]string, len(cols))
	for i := range cols {
		ph[i] = fmt.Sprintf("$%d", firstArg+i)
	}
	// after: the rows past (key) in a run of columns sorted one way.
	after := func(cols, key []string, desc bool) string {
		cmp := ">"
		if desc {
			cmp = "<"
		}
		return fmt.Sprintf("(%s) %s (%s)", strings.Join(cols, ", "), cmp, strings.Join(key, ", "))
	}
	if !flipLead || len(cols) == 1 {
		return after(cols, ph, descending(0)), w.After
	}
	bound := ">="
	if descending(0) {
		bound = "<="
	}
	return fmt.Sprintf("%s %s %s AND (%s <> %s OR %s)", cols[0], bound, ph[0], cols[0], ph[0], after(cols[1:], ph[1:], descending(1))), w.After
}

// and joins non-empty conditions into a WHERE clause.
func and(conds ...string) string {
	var parts []string
	for _, c := range conds {
		if c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(parts, " AND ")
}

// ListCount reads a maintained total from list_counts (0 when the indexer has not counted
// anything under that name yet).
func (s *Store) ListCount(ctx context.Context, name string) (int64, error) {
	var n int64
	_, err := s.getRow(ctx, &n, `SELECT count FROM list_counts WHERE name = $1`, name)
	return n, err
}

// CountCap bounds the exact counts of filtered lists that have no maintained total: past
// it, totals are reported as the cap, so a count never scans more than this many index
// entries.
const CountCap = 100_000

// countFiltered is a filtered list's total: the maintained total named total without
// conditions, else a capped count of table (with the alias its conditions use).
func (s *Store) countFiltered(ctx context.Context, total, table string, conds []string, args []any) (int64, error) {
	if len(conds) == 0 {
		return s.ListCount(ctx, total)
	}
	return s.cappedCount(ctx, table+and(conds...), args...)
}

// feltList passes felts as a bytea[] parameter (for `= ANY($1)` batch lookups).
func feltList(keys []Felt) pq.ByteaArray {
	out := make(pq.ByteaArray, len(keys))
	for i, k := range keys {
		out[i] = []byte(Normalize(k))
	}
	return out
}

// arg appends v to a statement's arguments and returns its placeholder ($n): filters
// build their conditions with it, after whatever arguments come before.
func arg(args *[]any, v any) string {
	*args = append(*args, v)
	return fmt.Sprintf("$%d", len(*args))
}
