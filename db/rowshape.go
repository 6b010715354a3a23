package db

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/jmoiron/sqlx"
)

// A row type written by the indexer is described once, by its struct tags: `db:"column"`
// names the column a field fills, in field order, and these options follow a comma:
//
//	nullempty  the string "" is SQL NULL (nullable text and numeric columns)
//	zeroempty  the string "" is 0 (NOT NULL numeric columns)
//	emptyarray a nil FeltArray is the empty list (NOT NULL felt-list columns)
//	numeric    the column is numeric: read back as text (selectList)
//	date       the column is a date: read back as YYYY-MM-DD (selectList)
//	from=EXPR  selectList reads the column from EXPR (a joined table's column) instead;
//	           the table has no such column, so it is never written
//	detail     a read-only row's column that listSelectList leaves out (lists read it
//	           later, only when a client asks for it)
//
// Pointers are NULL when nil, JSON is passed as text (COPY would send its bytes as bytea),
// and integers of every size as int64. rowShapeOf reads the tags once per type; the
// column lists, the COPY and upsert values and the select lists of the Load functions all
// come from it.

// rowShape is what the tags of one row type say.
type rowShape struct {
	columns []string   // every tagged field's, as selectList reads them
	written []string   // the columns the table stores (not from=), as the rows are written
	reads   []string   // how selectList reads each column, %s standing for the column
	details []bool     // the columns tagged detail
	zeros   []string   // what a column reads as when its row is missing (optionalSelectList)
	sources []string   // the from= expression of each column, or ""
	types   []string   // the SQL type of each column, for key arrays (loadAll)
	fields  []rowField // the written columns' fields
}

type rowField struct {
	index int
	value func(reflect.Value) any
}

var rowShapes sync.Map // reflect.Type -> *rowShape

// rowShapeOf describes T, a struct whose written fields carry `db` tags.
func rowShapeOf[T any]() *rowShape {
	t := reflect.TypeFor[T]()
	if s, ok := rowShapes.Load(t); ok {
		return s.(*rowShape)
	}
	s := &rowShape{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("db")
		if !ok || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		s.columns = append(s.columns, name)
		read := "%s"
		switch {
		case hasOption(opts, "numeric"):
			read = "%s::text AS " + name
		case hasOption(opts, "date"):
			read = "to_char(%s, 'YYYY-MM-DD') AS " + name
		}
		s.reads = append(s.reads, read)
		s.sources = append(s.sources, optionValue(opts, "from"))
		s.details = append(s.details, hasOption(opts, "detail"))
		s.zeros = append(s.zeros, zeroOf(f.Type))
		s.types = append(s.types, sqlTypeOf(f.Type, opts))
		if optionValue(opts, "from") == "" {
			s.written = append(s.written, name)
			s.fields = append(s.fields, rowField{index: i, value: fieldValue(f, opts)})
		}
	}
	actual, _ := rowShapes.LoadOrStore(t, s)
	return actual.(*rowShape)
}

// sqlTypeOf is the SQL type of a column, as far as loadAll's key arrays need it.
func sqlTypeOf(t reflect.Type, opts string) string {
	switch {
	case hasOption(opts, "numeric"):
		return "numeric"
	case hasOption(opts, "date"):
		return "date"
	case t == reflect.TypeFor[Felt]():
		return "bytea"
	case t.Kind() == reflect.String:
		return "text"
	default:
		return "bigint"
	}
}

// optionValue is the value of the option key=value, or "".
func optionValue(opts, key string) string {
	for o := range strings.SplitSeq(opts, ",") {
		if v, ok := strings.CutPrefix(o, key+"="); ok {
			return v
		}
	}
	return ""
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// fieldValue is how a field is passed to PostgreSQL.
func fieldValue(f reflect.StructField, opts string) func(reflect.Value) any {
	switch {
	case f.Type == reflect.TypeFor[JSON]():
		return func(v reflect.Value) any { return jsonText(v.Interface().(JSON)) }
	case f.Type == reflect.TypeFor[FeltArray]() && hasOption(opts, "emptyarray"):
		return func(v reflect.Value) any {
			if a := v.Interface().(FeltArray); a != nil {
				return a
			}
			return FeltArray{}
		}
	case f.Type.Kind() == reflect.String && hasOption(opts, "nullempty"):
		return func(v reflect.Value) any { return text(v.String()) }
	case f.Type.Kind() == reflect.String && hasOption(opts, "zeroempty"):
		return func(v reflect.Value) any { return orZero(v.String()) }
	case f.Type.Kind() == reflect.Pointer:
		elem := fieldValue(reflect.StructField{Type: f.Type.Elem()}, opts)
		return func(v reflect.Value) any {
			if v.IsNil() {
				return nil
			}
			return elem(v.Elem())
		}
	case f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Int64:
		return func(v reflect.Value) any { return v.Int() }
	}
	return reflect.Value.Interface
}

// values are the row's written column values, in the order of written.
func (s *rowShape) values(row reflect.Value) []any {
	out := make([]any, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.value(row.Field(f.index))
	}
	return out
}

// selectList is the SELECT list that reads the columns back into the row type, each
// qualified by alias when it is not empty (or read from its from= expression); numeric
// columns are read as text, dates as YYYY-MM-DD.
func (s *rowShape) selectList(alias string) string { return s.selectColumns(alias, true) }

// listSelectList is selectList without the detail columns.
func (s *rowShape) listSelectList(alias string) string { return s.selectColumns(alias, false) }

func (s *rowShape) selectColumns(alias string, details bool) string {
	prefix := ""
	if alias != "" {
		prefix = alias + "."
	}
	parts := make([]string, 0, len(s.columns))
	for i, c := range s.columns {
		if s.details[i] && !details {
			continue
		}
		expr := prefix + c
		if s.sources[i] != "" {
			expr = s.sources[i]
		}
		part := fmt.Sprintf(s.reads[i], expr)
		if s.reads[i] == "%s" && !strings.HasSuffix(expr, "."+c) && expr != c {
			part += " AS " + c
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// nestedSelectList is selectList (details too) with each column named "prefix.column", for
// a row read beside another one in the same statement: sqlx fills the field tagged
// `db:"prefix"` of the destination from those columns.
func (s *rowShape) nestedSelectList(alias, prefix string) string {
	return s.prefixedSelectList(alias, prefix, false, nil)
}

// optionalSelectList is nestedSelectList for a row of a LEFT JOIN, which may be missing: a
// column whose field cannot hold NULL reads as its zero then. The caller tells a missing
// row by its key (a Felt, nil then). Columns named in except are not read.
func (s *rowShape) optionalSelectList(alias, prefix string, except ...string) string {
	return s.prefixedSelectList(alias, prefix, true, except)
}

// prefixedSelectList reads the columns (but except) named "prefix.column", each as its
// zero when orZero and its value is NULL where the field cannot hold NULL.
func (s *rowShape) prefixedSelectList(alias, prefix string, orZero bool, except []string) string {
	parts := make([]string, 0, len(s.columns))
	for i, c := range s.columns {
		if slices.Contains(except, c) {
			continue
		}
		expr := alias + "." + c
		if s.sources[i] != "" {
			expr = s.sources[i]
		}
		read, _, _ := strings.Cut(s.reads[i], " AS ")
		value := fmt.Sprintf(read, expr)
		if orZero && s.zeros[i] != "" {
			value = "coalesce(" + value + ", " + s.zeros[i] + ")"
		}
		parts = append(parts, value+` AS "`+prefix+"."+c+`"`)
	}
	return strings.Join(parts, ", ")
}

// zeroOf is the SQL value a field of type t reads when its row is missing, or "" when the
// field holds NULL itself (pointers, felts, JSON, arrays).
func zeroOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "''"
	case reflect.Bool:
		return "false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
		return "0"
	}
	return ""
}

// rowValues are the column values of each row.
func rowValues[T any](rows []T) [][]any {
	s := rowShapeOf[T]()
	out := make([][]any, len(rows))
	for i := range rows {
		out[i] = s.values(reflect.ValueOf(&rows[i]).Elem())
	}
	return out
}

// columnsOf are T's written columns.
func columnsOf[T any]() []string { return rowShapeOf[T]().written }

// loadAll reads the rows of table whose leading columns, as many as there are keys, hold
// the i-th element of each key array: one array per key column (ByteaKeys for felts,
// pq.StringArray for numeric and date columns). Rows that do not exist are not returned.
func loadAll[T any](ctx context.Context, q sqlx.QueryerContext, table string, keys ...any) ([]T, error) {
	s := rowShapeOf[T]()
	if len(keys) == 0 || len(keys) > len(s.columns) {
		return nil, fmt.Errorf("load %s: %d key columns of %d", table, len(keys), len(s.columns))
	}
	var query string
	if len(keys) == 1 {
		query = fmt.Sprintf(`SELECT %s FROM %s r WHERE r.%s = ANY($1::%s[])`, s.selectList("r"), table, s.columns[0], s.types[0])
	} else {
		arrays, names, on := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
		for i := range keys {
			arrays[i] = fmt.Sprintf("$%d::%s[]", i+1, s.types[i])
			names[i] = fmt.Sprintf("k%d", i)
			on[i] = fmt.Sprintf("r.%s = k.k%d", s.columns[i], i)
		}
		query = fmt.Sprintf(`SELECT %s FROM unnest(%s) AS k(%s) JOIN %s r ON %s`, s.selectList("r"),
			strings.Join(arrays, ", "), strings.Join(names, ", "), table, strings.Join(on, " AND "))
	}
	var rows []T
	err := sqlx.SelectContext(ctx, q, &rows, query, keys...)
	return rows, err
}

// upsertAll writes rows into table, replacing every column but the key (the first
// keyColumns columns) on conflict.
func upsertAll[T any](ctx context.Context, tx *sqlx.Tx, table string, keyColumns int, rows []T) error {
	cols := columnsOf[T]()
	if keyColumns > len(cols) {
		return fmt.Errorf("upsert %s: %d key columns of %d", table, keyColumns, len(cols))
	}
	return upsertRows(ctx, tx, table, cols, updateAll(cols[:keyColumns], cols), rowValues(rows))
}
