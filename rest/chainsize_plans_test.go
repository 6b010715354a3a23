package rest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// chainTransactions is the size the plans are checked at: the bench's 10M database, where
// a generic plan that guessed its LIMIT at a tenth of the events scanned and sorted every
// transaction to join 26 events (15 s for the first page of /beta/events, issue 59).
const chainTransactions = 10_000_000

// TestGenericPlansAtChainSize runs every list of both APIs (every sampled route on its
// first, second and a deep page; every GraphQL list and its second page) and plans each
// statement they ran as the API's read sessions run it: its generic plan
// (plan_cache_mode = force_generic_plan), with nothing disabled, on the seeded database
// told it holds a chain of chainTransactions (scaleStatistics). A sequential scan or a
// sort of a big table fails it. TestEveryRouteUsesIndexes, which disables sequential
// scans and sorts, shows an index can serve a statement; this shows the planner takes it
// when the table is big and the page's LIMIT is a parameter.
func TestGenericPlansAtChainSize(t *testing.T) {
	conn := dbtest.New(t)
	seed(t, conn)
	store := db.NewStore(conn)
	st := recordStatements(store)
	runRoutes(t, store, st)
	runGraphQLLists(t, store, st)
	scaleStatistics(t, conn, chainTransactions)
	failed := 0
	for text, s := range st.seen {
		custom, err := planAtSize(conn, text, s.args, false)
		if err != nil {
			t.Errorf("EXPLAIN %s: %v", firstLineOf(text), err)
			continue
		}
		generic, err := planAtSize(conn, text, s.args, true)
		if err != nil {
			t.Errorf("EXPLAIN (generic) %s: %v", firstLineOf(text), err)
			continue
		}
		if guesses := generic.guessedLimits(false); len(guesses) > 0 && generic.joins() {
			failed++
			t.Errorf("%s: its generic plan guesses %s at %d transactions\n  %s",
				s.request, strings.Join(guesses, "; "), chainTransactions, firstLineOf(text))
		}
		// What the plan for the statement's own values does not do, its generic plan did on
		// a guess of them: a LIMIT at a tenth of the rows, a key at the average key's rows.
		var guessed []string
		for _, p := range generic.problems() {
			if !slices.Contains(custom.problems(), p) {
				guessed = append(guessed, p)
			}
		}
		if len(guessed) > 0 {
			failed++
			t.Errorf("%s: its generic plan runs %s at %d transactions, its plan for its values does not\n  %s",
				s.request, strings.Join(guessed, "; "), chainTransactions, firstLineOf(text))
		}
	}
	t.Logf("%d distinct statements planned at %d transactions, %d planned on a guess", len(st.seen), chainTransactions, failed)
}

// planAtSize is a statement's plan, generic or for its arguments, as the read sessions
// plan it (dbtest.Explain), nothing disabled.
func planAtSize(conn *sqlx.DB, text string, args []any, generic bool) (planNode, error) {
	raw, err := dbtest.Explain(conn, text, args, generic)
	if err != nil {
		return planNode{}, err
	}
	var root []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &root); err != nil {
		return planNode{}, err
	}
	return root[0].Plan, nil
}

// scaleStatistics makes the planner see the seeded database as a chain of txs
// transactions: every big table's (and partition's) row count multiplied by the factor
// that makes transactions that many, its pages left as they are. The planner estimates
// a table's rows as its pages on disk times the rows per page its statistics give, so
// the rows grow and the pages do not: sequential scans look cheaper than they would be,
// which makes the check stricter, not looser.
func scaleStatistics(t *testing.T, conn *sqlx.DB, txs int64) {
	t.Helper()
	if _, err := conn.Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	var have float64
	if err := conn.Get(&have, `SELECT count(*) FROM transactions`); err != nil || have == 0 {
		t.Fatalf("no transactions to scale (%v)", err)
	}
	factor := float64(txs) / have
	var tables []string
	for name := range bigTables {
		tables = append(tables, name)
	}
	res, err := conn.Exec(`UPDATE pg_class c SET reltuples = c.reltuples * $1
		WHERE c.reltuples > 0 AND c.relkind IN ('r', 'i') AND c.relnamespace = 'public'::regnamespace
		  AND (c.relname = ANY($2) OR c.relname ~ ('^(' || array_to_string($2::text[], '|') || ')_[0-9]+$')
		    OR c.oid IN (SELECT indexrelid FROM pg_index i JOIN pg_class r ON r.oid = i.indrelid
		      WHERE r.relname = ANY($2) OR r.relname ~ ('^(' || array_to_string($2::text[], '|') || ')_[0-9]+$')))`,
		factor, pq.Array(tables))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := res.RowsAffected()
	if n < int64(len(tables)) {
		t.Fatalf("only %d tables and indexes scaled", n)
	}
}

// guessedLimits lists the Limit nodes of a plan that expect more rows than a page or a
// batch of pages holds (maxPlannedRows) and reach what is above them uncapped: a LIMIT the
// planner could not read (a parameter, planned for a tenth of the rows), whose guess the
// joins, sorts and scans above it are planned for. A guessed Limit under a literal one
// (db's capPage: Limit, Subquery Scan, Limit) is bounded; a capped count's Limit (under an
// Aggregate) counts up to its cap by design.
func (n planNode) guessedLimits(capped bool) []string {
	var out []string
	if n.NodeType == "Limit" && !capped && n.Rows > maxPlannedRows {
		out = append(out, fmt.Sprintf("a LIMIT of %.0f rows", n.Rows))
	}
	for _, c := range n.Plans {
		under := capped || n.NodeType == "Aggregate" || (n.NodeType == "Limit" && n.Rows <= maxPlannedRows)
		if n.NodeType == "Subquery Scan" && !capped {
			under = false // a subquery's Limit is capped only by a Limit right above the scan
		}
		out = append(out, c.guessedLimits(under)...)
	}
	return out
}

// joins tells whether a plan joins tables: a plan that reads one table costs what its
// LIMIT lets it read whatever the guess; a join is chosen for the rows it expects.
func (n planNode) joins() bool {
	if n.NodeType == "Nested Loop" || n.NodeType == "Hash Join" || n.NodeType == "Merge Join" {
		return true
	}
	for _, c := range n.Plans {
		if c.joins() {
			return true
		}
	}
	return false
}

// maxPlannedRows bounds the rows a list's LIMIT may plan for: a page of db.MaxPageSize and
// one, for each of the keys of a batched read (a dataloader's, at most a page of keys).
const maxPlannedRows = (db.MaxPageSize + 1) * db.MaxPageSize
