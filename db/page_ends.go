package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Where pages of lists that give no position to seek to ended: a token's holders (ordered
// by balance), filtered transactions (a contract's, a type's), contracts and classes. A
// page number skips the rows above its page: near the end of a million holders, a page
// read a million index entries. Clients walk pages in turn (p=1, 2, 3...), so the store
// remembers where each page ended, and a page that starts there continues from that row
// along the index. An end is used for pageEndTTL: rows may have come or gone meanwhile,
// and the page is then the one that follows the page before as it was served, which is
// what a client walking the list wants (every row that kept its place is seen once; by
// position, a row leaving above the page would make the walk skip one).
const (
	maxPageEnds = 4096
	pageEndTTL  = 30 * time.Second
)

type pageEndKey struct {
	list   string // which list: its name and the arguments of its conditions
	offset int    // the position of the row after the page
}

// pageEnd is the sort key of a page's last row, as the list's keyset condition takes it.
type pageEnd struct {
	after []any
	at    time.Time
}

func newPageEnds() *lru.Cache[pageEndKey, pageEnd] {
	ends, _ := lru.New[pageEndKey, pageEnd](maxPageEnds) // errors only for a size below 1
	return ends
}

// pageEnd is the sort key of the row before position offset of list when a page served
// lately ended there.
func (s *Store) pageEnd(list string, offset int) ([]any, bool) {
	end, ok := s.pageEnds.Get(pageEndKey{list, offset})
	if !ok || s.now().Sub(end.at) > pageEndTTL {
		return nil, false
	}
	return end.after, true
}

// rememberPageEnds notes where a page of list from offset, of n rows, ended: after its last
// row, and after the one before, since callers read a row past their page to learn whether
// another follows (resolvers' pager), and their next page starts at that row. keyOf gives
// row i's sort key.
func (s *Store) rememberPageEnds(list string, offset, n int, keyOf func(i int) []any) {
	for i := max(n-2, 0); i < n; i++ {
		s.pageEnds.Add(pageEndKey{list, offset + i + 1}, pageEnd{keyOf(i), s.now()})
	}
}

// listPage reads a page of a keyset list, by position or from a key: read runs the list's
// statement for a window, and keyOf gives a row's sort key as the keyset condition takes
// it. A page read by position that starts where a page of the same list ended lately
// continues from that page's last row instead of skipping the rows above; a page from a
// cursor's key goes straight to read.
func listPage[T any](s *Store, list string, w Window, keyOf func(T) []any, read func(Window) ([]T, error)) ([]T, error) {
	byPosition, offset := w.After == nil, w.Offset
	if byPosition && offset > 0 {
		if after, ok := s.pageEnd(list, offset); ok {
			w.After, w.Offset = after, 0
		}
	}
	rows, err := read(w)
	if err == nil && byPosition {
		s.rememberPageEnds(list, offset, len(rows), func(i int) []any { return keyOf(rows[i]) })
	}
	return rows, err
}

// keysetQuery is a list sorted by keyCols, all one way (desc: largest first) but for the
// first when flipLead.
type keysetQuery struct {
	name     string   // the list's name among page ends
	from     string   // its statement up to the conditions: "SELECT ... FROM t x"
	conds    []string // its own conditions, with their arguments
	args     []any
	keyCols  []string
	desc     bool
	flipLead bool
}

// keysetList reads a page of q through listPage; keyOf gives a row's values of q.keyCols.
func keysetList[T any](ctx context.Context, s *Store, q keysetQuery, w Window, keyOf func(T) []any) ([]T, error) {
	read := func(w Window) ([]T, error) { return readKeyset[T](ctx, s, q, w) }
	list := listName(fmt.Sprintf("%s desc=%v flip=%v %s", q.name, q.desc, q.flipLead, strings.Join(q.conds, " AND ")), q.args)
	return listPage(s, list, w, keyOf, read)
}

// readKeyset runs q's statement for one window, as it is given.
func readKeyset[T any](ctx context.Context, s *Store, q keysetQuery, w Window) ([]T, error) {
	where, tail, kargs := w.keysetFlipped(q.keyCols, q.desc, q.flipLead, len(q.args)+1)
	var rows []T
	err := s.selectRows(ctx, &rows, q.from+and(append(slices.Clip(q.conds), where)...)+tail, slices.Concat(q.args, kargs)...)
	return rows, err
}

// listName names a list for pageEnd: its name and its conditions' arguments.
func listName(name string, args []any) string { return fmt.Sprintf("%s%v", name, args) }

func (s *Store) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}
