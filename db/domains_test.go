package db_test

import (
	"math"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// Every column a domain's values meet holds the domain's whole range: a block bound of
// 2^31 sent to an int4 column is PostgreSQL's "integer out of range", a 500. A migration
// that narrows a column fails here until the domain (db/domains.go) narrows with it.
func TestDomainsFitTheirColumns(t *testing.T) {
	conn := dbtest.New(t)
	var cols []struct {
		Name string `db:"name"`
		Type string `db:"type"`
	}
	// The tables' own columns (not views', not partitions', which have their parent's).
	err := conn.Select(&cols, `
		SELECT c.relname || '.' || a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
		  AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	typeMax := map[string]float64{
		"smallint": math.MaxInt16, "integer": math.MaxInt32, "bigint": math.MaxInt64,
		"numeric": math.Inf(1), "double precision": math.MaxFloat64,
	}
	for _, d := range db.ColumnDomains {
		matched := 0
		for _, c := range cols {
			if !d.Columns.MatchString(c.Name) {
				continue
			}
			matched++
			max, ok := typeMax[c.Type]
			if !ok {
				t.Errorf("%s is compared with %s values but is %s, not an integer type", c.Name, d.Name, c.Type)
				continue
			}
			if float64(d.Max) > max {
				t.Errorf("%s is %s, narrower than the domain of %s (up to %d): narrow the domain in db/domains.go", c.Name, c.Type, d.Name, d.Max)
			}
			if d.Min < 0 && c.Type != "numeric" && float64(d.Min) < -max-1 {
				t.Errorf("%s is %s, narrower than the domain of %s (from %d)", c.Name, c.Type, d.Name, d.Min)
			}
		}
		if matched == 0 {
			t.Errorf("the domain of %s matches no column (%s): the pattern is stale", d.Name, d.Columns)
		}
		t.Logf("%s: %d columns checked", d.Name, matched)
	}
}

func TestDomainCheck(t *testing.T) {
	for _, c := range []struct {
		d       db.Domain
		in, out int64
		err     string
	}{
		{db.BlockNumbers, 0, 0, ""},
		{db.BlockNumbers, math.MaxInt32, math.MaxInt32, ""},
		{db.BlockNumbers, math.MaxInt32 + 1, math.MaxInt32, ""},
		{db.BlockNumbers, math.MaxInt64, math.MaxInt32, ""},
		{db.BlockNumbers, -1, 0, "must not be negative"},
		{db.BlockNumbers, math.MinInt64, 0, "must not be negative"},
		{db.PageSizes, 101, 0, "must be between 0 and 100"},
		{db.SearchSizes, 0, 0, "must be between 1 and 100"},
		{db.RangeHours, 24, 24, ""},
	} {
		got, err := c.d.Check(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: Check(%d) = %v, want error %q", c.d.Name, c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.out {
			t.Errorf("%s: Check(%d) = %d, %v; want %d", c.d.Name, c.in, got, err, c.out)
		}
	}
}
