package rest

import (
	"context"
	"strconv"

	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// pageList is the page-number envelope: `{items, lastPage}`.
type pageList[T any] struct {
	Items    []T `json:"items"`
	LastPage int `json:"lastPage"`
}

// keysetList is the keyset envelope: `{items, hasMore}`; the client passes the last item's
// id to get the next page.
type keysetList[T any] struct {
	Items   []T  `json:"items"`
	HasMore bool `json:"hasMore"`
}

// cursorList is the cursor envelope: `{items, pagination: {next, prev, count}}`.
type cursorList[T any] struct {
	Items      []T        `json:"items"`
	Pagination pagination `json:"pagination"`
}

// pagination of a cursor-style list. count is the number of items in the whole list.
type pagination struct {
	Next  *string `json:"next"`
	Prev  *string `json:"prev"`
	Count int     `json:"count"`
}

// page is the window a page-number request asks for, as resolver arguments.
type page struct {
	number, size int
	first        int
	after        *string
}

// maxPageOffset caps the offset of far-out pages: anything beyond is past every list.
const maxPageOffset = 1 << 40

// pageOf reads p and ps: page p of size ps is `first=ps` after the first (p-1)*ps items.
func pageOf(a *args) page {
	p, ps := *a.int("p"), *a.int("ps")
	pg := page{number: p, size: ps, first: ps}
	if p > 1 {
		offset := maxPageOffset
		if p-1 < maxPageOffset/ps {
			offset = (p - 1) * ps
		}
		c := resolvers.OffsetCursor(offset)
		pg.after = &c
	}
	return pg
}

// lastPage is the last page that has items, and 1 for an empty list.
func lastPage(total, size int) int {
	if total <= 0 {
		return 1
	}
	return (total + size - 1) / size
}

// pageNumbers is the cursor-style pagination object of a list that takes page numbers
// (p, ps) yet answers the reference's NFT cursor envelope: next and prev are the
// neighbouring page numbers, as strings, or null at either end.
func pageNumbers(pg page, total int) pagination {
	p := pagination{Count: total}
	last := lastPage(total, pg.size)
	if pg.number < last {
		p.Next = ptr(strconv.Itoa(pg.number + 1))
	}
	if pg.number > 1 {
		p.Prev = ptr(strconv.Itoa(min(pg.number-1, last)))
	}
	return p
}

// pageCursorRows is pageRows answering the NFT cursor envelope (see pageNumbers).
func pageCursorRows[E, T any](pg page, edges []E, total int, item func(E) T) any {
	items := make([]T, len(edges))
	for i, e := range edges {
		items[i] = item(e)
	}
	return cursorList[T]{Items: items, Pagination: pageNumbers(pg, total)}
}

// pageRows answers a page-number list op whose items load nothing (they are read off their
// rows, or off what the op loaded for the whole page): each edge converted in turn, on the
// request's goroutine, and the last page counted from the list's total. pageLoaded is for
// items that show links of their rows.
func pageRows[E, T any](pg page, edges []E, total int, item func(E) T) any {
	items := make([]T, len(edges))
	for i, e := range edges {
		items[i] = item(e)
	}
	return pageList[T]{Items: items, LastPage: lastPage(total, pg.size)}
}

// pageLoaded answers a page-number list op whose items show links of their rows: see
// loadedItems.
func pageLoaded[E, N, T any](ctx context.Context, pg page, edges []E, total int, node func(E) N,
	load func(context.Context, []N) error, item func(context.Context, N) (T, error)) (any, error) {
	items, err := loadedItems(ctx, edges, node, load, item)
	if err != nil {
		return nil, err
	}
	return pageList[T]{Items: items, LastPage: lastPage(total, pg.size)}, nil
}

// loadedItems renders the nodes of edges whose items show links of their rows: load reads
// those links for the whole page (one statement per link, into the request's cache), then
// each item is built in turn off the cache.
func loadedItems[E, N, T any](ctx context.Context, edges []E, node func(E) N,
	load func(context.Context, []N) error, item func(context.Context, N) (T, error)) ([]T, error) {
	nodes := make([]N, len(edges))
	for i, e := range edges {
		nodes[i] = node(e)
	}
	if err := load(ctx, nodes); err != nil {
		return nil, err
	}
	items := make([]T, len(nodes))
	for i, n := range nodes {
		var err error
		if items[i], err = item(ctx, n); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// emptyIfNil makes a nil slice marshal as [] rather than null.
func emptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// window is the slice of a cursor-style list a request asks for, as resolver arguments.
type window struct {
	cur   listCursor
	limit int
	first int
	after *string
}

// windowOf reads cursor and limit for the list op.
func (s *server) windowOf(op string, a *args) (window, error) {
	cur, err := s.cursor.decode(op, a.str("cursor"))
	if err != nil {
		return window{}, err
	}
	limit := *a.int("limit")
	w := window{cur: cur, limit: limit, first: limit}
	if cur.Until > cur.Offset && cur.Until-cur.Offset < limit {
		w.first = cur.Until - cur.Offset // a prev page stops where the client came from
	}
	switch {
	case cur.After != "":
		after := cur.After
		w.after = &after
	case cur.Offset > 0:
		c := resolvers.OffsetCursor(cur.Offset)
		w.after = &c
	}
	return w, nil
}

// self is the node function of lists whose elements are their nodes.
func self[T any](t T) T { return t }

// cursorLoaded answers a cursor-style list op whose items show links of their rows: see
// loadedItems.
func cursorLoaded[E, N, T any](ctx context.Context, s *server, w window, edges []E, info *model.PageInfo, total int,
	node func(E) N, load func(context.Context, []N) error, item func(context.Context, N) (T, error)) (any, error) {
	items, err := loadedItems(ctx, edges, node, load, item)
	if err != nil {
		return nil, err
	}
	return cursorList[T]{Items: items, Pagination: s.paginate(w, len(items), info, total)}, nil
}

// paginate builds next/prev for the page of n items that w fetched.
func (s *server) paginate(w window, n int, info *model.PageInfo, total int) pagination {
	pg := pagination{Count: total}
	if info != nil && info.HasNextPage && info.EndCursor != nil && n > 0 {
		next := s.cursor.encode(listCursor{Op: w.cur.Op, Offset: w.cur.Offset + n, After: *info.EndCursor})
		pg.Next = &next
	}
	if w.cur.Offset > 0 {
		start := max(0, w.cur.Offset-w.limit)
		prev := s.cursor.encode(listCursor{Op: w.cur.Op, Offset: start, Until: w.cur.Offset})
		pg.Prev = &prev
	}
	return pg
}
