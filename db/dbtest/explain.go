package dbtest

import (
	"context"
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
)

var explained atomic.Int64

// Explain returns EXPLAIN (FORMAT JSON) of a statement: planned for its arguments, or, when
// generic, as the generic plan the API's read sessions run (plan_cache_mode =
// force_generic_plan): prepared, then executed with the arguments. settings are SET LOCAL
// statements run first (enable_seqscan = off, ...).
func Explain(conn *sqlx.DB, text string, args []any, generic bool, settings ...string) ([]byte, error) {
	return explain(conn, "FORMAT JSON", text, args, generic, settings)
}

// ExplainAnalyze runs a statement as the API's read sessions run it, its generic plan with
// the arguments, and returns EXPLAIN (ANALYZE, FORMAT JSON) of that run: the rows each node
// really read, where Explain gives estimates. A plan that is right for the average key and
// wrong for a hot one shows only here.
func ExplainAnalyze(conn *sqlx.DB, text string, args []any) ([]byte, error) {
	return explain(conn, "ANALYZE, FORMAT JSON", text, args, true, nil)
}

func explain(conn *sqlx.DB, options, text string, args []any, generic bool, settings []string) ([]byte, error) {
	ctx := context.Background()
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, s := range settings {
		if _, err := tx.Exec(`SET LOCAL ` + s); err != nil {
			return nil, err
		}
	}
	query := "EXPLAIN (" + options + ") " + text
	if generic {
		// A prepared statement outlives the transaction: each has a name of its own.
		name := fmt.Sprintf("explained_%d", explained.Add(1))
		var set strings.Builder
		for _, setting := range db.ReadSessionSettings {
			fmt.Fprintf(&set, "SET LOCAL %s = %s; ", setting.Name, setting.Value)
		}
		if _, err := tx.Exec(set.String() + `PREPARE ` + name + ` AS ` + text); err != nil {
			return nil, err
		}
		// EXECUTE takes its arguments as literals.
		query = "EXPLAIN (" + options + ") EXECUTE " + name
		if len(args) > 0 {
			lits := make([]string, len(args))
			for i, a := range args {
				if lits[i], err = literal(a); err != nil {
					return nil, err
				}
			}
			query += "(" + strings.Join(lits, ", ") + ")"
		}
		args = nil
	}
	var plan []byte
	err = tx.QueryRowContext(ctx, query, args...).Scan(&plan)
	return plan, err
}

// literal writes a statement argument as an SQL literal of unknown type, which takes the
// type of the parameter it is given for.
func literal(arg any) (string, error) {
	v, err := driver.DefaultParameterConverter.ConvertValue(arg)
	if valuer, ok := arg.(driver.Valuer); ok {
		v, err = valuer.Value()
	}
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case []byte:
		return `'\x` + hex.EncodeToString(x) + `'`, nil
	case string:
		return pq.QuoteLiteral(x), nil
	default:
		return pq.QuoteLiteral(fmt.Sprint(x)), nil
	}
}
