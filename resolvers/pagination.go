package resolvers

import (
	"context"
	"fmt"
	"strings"

	"github.com/starkgraph/starkgraph/cursor"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// MaxPageSize bounds `first` on every connection, so one field costs at most this many rows.
const MaxPageSize = db.MaxPageSize

// position is what a connection cursor holds: the position of the item (how many items
// precede it, plus one) and, for keyset lists, the item's sort key. Cursors are sealed by
// the cursor package: signed, and bound to the list (its name says the operation and sort
// order), so a cursor a client made up or took from another list is refused.
type position struct {
	Offset int      `json:"o"`
	Key    []string `json:"k,omitempty"`
}

// maxOffset bounds the offsets cursors carry, far above any list.
const maxOffset = 1 << 40

// OffsetCursor is a cursor that starts any list after its first n items. The REST layer
// uses it to turn page numbers into connection arguments.
func OffsetCursor(n int) string { return cursor.Default().Seal(cursor.AnyList, position{Offset: n}) }

func encodeCursor(list string, p position) string { return cursor.Default().Seal(list, p) }

func decodeCursor(s, list string) (position, error) {
	var p position
	scope, err := cursor.Default().Open(list, s, &p)
	if err != nil || p.Offset < 0 || p.Offset > maxOffset || (scope == cursor.AnyList && len(p.Key) > 0) {
		return position{}, badInput("after", "is not a cursor returned by this API for this list")
	}
	return p, nil
}

// keyCodec turns a row's sort key into cursor strings and back into query arguments.
// Felts travel as hex, numbers as decimal text (PostgreSQL casts them to the column type).
func keyStrings(vals ...any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case db.Felt:
			out[i] = x.Hex()
		default:
			out[i] = fmt.Sprint(x)
		}
	}
	return out
}

func keyArgs(keys []string) ([]any, error) {
	out := make([]any, len(keys))
	for i, k := range keys {
		if strings.HasPrefix(k, "0x") {
			f, err := db.ParseFelt(k)
			if err != nil {
				return nil, badInput("after", "is not a cursor returned by this API")
			}
			out[i] = f
			continue
		}
		if len(k) == 0 || len(k) > 80 || strings.Trim(k, "0123456789.-e+") != "" {
			return nil, badInput("after", "is not a cursor returned by this API")
		}
		out[i] = k
	}
	return out, nil
}

// pager turns connection arguments into a store window and the fetched rows back into a
// page of edges.
type pager struct {
	list     string
	first    int
	start    int // items before the page
	window   db.Window
	keyWidth int
}

// newPager reads first/after. keyWidth is the number of sort-key columns of a keyset list
// (0 for lists walked by offset).
func newPager(list string, first *int, after *string, keyWidth int) (*pager, error) {
	n := 25
	if first != nil {
		n = *first
	}
	if n < 0 || n > MaxPageSize {
		return nil, badInput("first", fmt.Sprintf("must be between 0 and %d", MaxPageSize))
	}
	p := &pager{list: list, first: n, keyWidth: keyWidth, window: db.Window{Limit: n + 1}}
	if after != nil && *after != "" {
		c, err := decodeCursor(*after, list)
		if err != nil {
			return nil, err
		}
		p.start = c.Offset
		if keyWidth > 0 && len(c.Key) == keyWidth {
			args, err := keyArgs(c.Key)
			if err != nil {
				return nil, err
			}
			p.window.After = args
		} else {
			p.window.Offset = c.Offset
		}
	}
	return p, nil
}

// page trims the extra row fetched to detect a next page and builds the cursors: the
// page's first and last always (pageInfo, and the REST layer's next-page link), every
// edge's only when edgeCursors (each is a signature, worth skipping where nobody reads
// it). keyOf gives a row's sort key (nil for offset lists).
func page[T any](p *pager, rows []T, keyOf func(T) []any, edgeCursors bool) (items []T, cursors []string, info *model.PageInfo) {
	hasNext := len(rows) > p.first
	if hasNext {
		rows = rows[:p.first]
	}
	cursors = make([]string, len(rows))
	for i, r := range rows {
		if !edgeCursors && i != 0 && i != len(rows)-1 {
			continue
		}
		c := position{Offset: p.start + i + 1}
		if keyOf != nil && p.keyWidth > 0 {
			c.Key = keyStrings(keyOf(r)...)
		}
		cursors[i] = encodeCursor(p.list, c)
	}
	info = &model.PageInfo{HasNextPage: hasNext, HasPreviousPage: p.start > 0}
	if len(cursors) > 0 {
		info.StartCursor = &cursors[0]
		info.EndCursor = &cursors[len(cursors)-1]
	}
	return rows, cursors, info
}

// listSpec is what a list resolver states about its list; fetchPage does the rest.
type listSpec[T any] struct {
	name     string        // keeps the cursors of different lists apart
	keyWidth int           // sort-key columns of a keyset list; 0 for lists walked by offset
	keyOf    func(T) []any // a row's sort key (keyset lists only)

	fetch func(w db.Window) ([]T, error) // one window of rows (one row more than the page)
	count func() (int64, error)          // the list's total; nil when it is not counted here

	// load replaces fetch and count for lists whose rows and total both come from loaders
	// (see loadWithTotal): it asks for the two together, so that both join the batches of
	// sibling parents.
	load func(w db.Window) (rows func() ([]T, error), total func() (int64, error))
}

// connPage is one page of a list, ready to be put into its GraphQL connection type.
type connPage[E any] struct {
	edges []E
	info  *model.PageInfo
	total int // 0 when the spec does not count
}

// fetchPage reads first/after, fetches the window the spec describes and, when the client
// selected totalCount, its total (rows first: a failed fetch counts nothing), and wraps
// each row of the page in its edge.
func fetchPage[T, E any](ctx context.Context, first *int, after *string, l listSpec[T], edge func(cursor string, node T) E) (*connPage[E], error) {
	p, err := newPager(l.name, first, after, l.keyWidth)
	if err != nil {
		return nil, err
	}
	rowsOf, countOf := func() ([]T, error) { return l.fetch(p.window) }, ifWanted(ctx, l.count)
	if l.load != nil {
		rowsOf, countOf = l.load(p.window)
	}
	rows, err := rowsOf()
	if err != nil {
		return nil, err
	}
	out := &connPage[E]{}
	if countOf != nil {
		n, err := countOf()
		if err != nil {
			return nil, err
		}
		out.total = clampCount(n)
	}
	items, cursors, info := page(p, rows, l.keyOf, wantsEdgeCursors(ctx))
	out.info, out.edges = info, make([]E, len(items))
	for i, item := range items {
		out.edges[i] = edge(cursors[i], item)
	}
	return out, nil
}

// ifWanted is count when the client selected totalCount, else nil: a total costs a
// statement, which a page does not need (it reads one row more to know if another follows).
func ifWanted(ctx context.Context, count func() (int64, error)) func() (int64, error) {
	if !wants(ctx, "totalCount") {
		return nil
	}
	return count
}

// loadWithTotal is the listSpec.load of a parent's children read through two loaders: one
// for a window of rows, one for the total, which is asked for only when it is wanted.
func loadWithTotal[K comparable, T any](ctx context.Context, rows *loaders.Lazy[loaders.PageKey[K], []T], total *loaders.Lazy[K, int64], parent K) func(db.Window) (func() ([]T, error), func() (int64, error)) {
	return func(w db.Window) (func() ([]T, error), func() (int64, error)) {
		rowsOf := rows.Load(ctx, pageKey(parent, w))
		if !wants(ctx, "totalCount") {
			return rowsOf, nil
		}
		return rowsOf, total.Load(ctx, parent)
	}
}

// pageKey is the loader key of one window of a parent's children.
func pageKey[K comparable](parent K, w db.Window) loaders.PageKey[K] {
	return loaders.PageKey[K]{Parent: parent, Limit: w.Limit, Offset: w.Offset}
}

func clampCount(n int64) int {
	if n > int64(^uint32(0)>>1) {
		return int(^uint32(0) >> 1)
	}
	return int(n)
}
