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
	// keysFrom, when set, is the list's own table with its alias ("events e"), where an
	// index holds the conditions' columns and then keyCols. A page is then read in two
	// steps: its keys alone, from that index (an index-only scan, which skips each row
	// above the page for the price of an index entry), and then its rows, joined by those
	// keys. Read in one step, every row skipped by an offset was fetched from the table
	// and joined before it was thrown away: 5,000 rows deep in the hottest emitter's
	// events, 21 ms instead of 33; 100,000 deep, 0.29 s instead of 1.5 s.
	keysFrom string
	// keysJoin are columns of keysFrom's index, before keyCols, that the keys carry and the
	// rows are joined on too, when keyCols alone do not name one row of the table (a
	// holder's balance and owner: the token makes them one row, by its primary key).
	keysJoin []string
	// marked, when set, is the list's key with positions (key_positions.go): a deep page
	// by position starts from the nearest mark instead of skipping every row above it.
	marked markedKey
	// ranked, when set, is the list's key with spans (rank_spans.go), for lists whose
	// order changes: a deep page by position starts from its span.
	ranked rankedKey
}

// keysetList reads a page of q through listPage; keyOf gives a row's values of q.keyCols.
func keysetList[T any](ctx context.Context, s *Store, q keysetQuery, w Window, keyOf func(T) []any) ([]T, error) {
	read := markedRead(ctx, s, q.marked, q.desc, len(q.keyCols), func(w Window) ([]T, error) { return readKeyset[T](ctx, s, q, w) })
	read = rankedRead(ctx, s, q.ranked, read)
	return listPage(s, q.listName(), w, keyOf, read)
}

// listName names q's list among page ends: its name, order and conditions with their
// arguments.
func (q keysetQuery) listName() string {
	return listName(fmt.Sprintf("%s desc=%v flip=%v %s", q.name, q.desc, q.flipLead, strings.Join(q.conds, " AND ")), q.args)
}

// readKeyset runs q's statement for one window, as it is given.
func readKeyset[T any](ctx context.Context, s *Store, q keysetQuery, w Window) ([]T, error) {
	where, tail, kargs := w.keysetFlipped(q.keyCols, q.desc, q.flipLead, len(q.args)+1)
	conds := and(append(slices.Clip(q.conds), where)...)
	text := q.from + conds + tail
	table := " FROM " + q.keysFrom
	fromKeys := q.keysFrom != "" && strings.Contains(q.from, table)
	if fromKeys && len(q.keysJoin) == 0 && !q.flipLead {
		text = q.seekFromFirstKey(table, conds, tail, w)
	} else if fromKeys {
		joinCols := slices.Concat(q.keyCols, q.keysJoin)
		keys, on := make([]string, len(joinCols)), make([]string, len(joinCols))
		for i, c := range joinCols {
			keys[i] = fmt.Sprintf("%s AS k%d", c, i)
			on[i] = fmt.Sprintf("k.k%d", i)
		}
		order, _, _ := strings.Cut(tail, " LIMIT ")
		alias := q.keysFrom[strings.LastIndexByte(q.keysFrom, ' ')+1:]
		// The page's rows, looked up by their keys. OFFSET 0 keeps PostgreSQL from joining
		// the list's other tables first: it then looked the rows up by those tables' keys
		// (an event by its transaction's), which match several rows each.
		page := " FROM (SELECT " + alias + ".* FROM " + capPage("(SELECT "+strings.Join(keys, ", ")+table+conds+tail+")", w) + " k JOIN " +
			q.keysFrom + " ON (" + strings.Join(joinCols, ", ") + ") = (" + strings.Join(on, ", ") + ") OFFSET 0) " + alias
		text = strings.Replace(q.from, table, page, 1) + order
	}
	var rows []T
	err := s.selectRows(ctx, &rows, text, slices.Concat(q.args, kargs)...)
	return rows, err
}

// seekFromFirstKey is the statement of a page of q when its key columns name one row of
// keysFrom: the key of the page's first row alone, found by skipping the window's offset
// in an index-only scan of keysFrom's index, and then the page's rows read from there along
// the same index, in one walk that stops at the page's end. Joined back by their keys
// instead, each of the page's rows cost an index descent of its own: 4 buffers a row, 116
// for a page of 26 of the commonest transaction type on the 1M bench, against 15 this way
// (and 23 instead of 114 for a page 767 rows past a kept position). Past the list's end,
// the first key is NULL and the page is empty. conds are the statement's conditions
// (WHERE ...) with the window's keyset position, and tail its ORDER BY, LIMIT and OFFSET;
// the rows are capped for the joins above them (capPage).
func (q keysetQuery) seekFromFirstKey(table, conds, tail string, w Window) string {
	order, page, _ := strings.Cut(tail, " LIMIT ")
	limit, offset, _ := strings.Cut(page, " OFFSET ")
	keys := strings.Join(q.keyCols, ", ")
	cmp := ">="
	if q.desc {
		cmp = "<="
	}
	first := "(" + keys + ") " + cmp + " (SELECT " + keys + table + conds + order + " LIMIT 1 OFFSET " + offset + ")"
	alias := q.keysFrom[strings.LastIndexByte(q.keysFrom, ' ')+1:]
	// A subquery with a LIMIT is planned on its own, before the list's other tables are
	// joined to its rows (an event's transaction), as the keys alone were.
	rows := " FROM " + capPage("(SELECT "+alias+".*"+table+and(append(slices.Clip(q.conds), first)...)+order+" LIMIT "+limit+")", w) + " " + alias
	return strings.Replace(q.from, table, rows, 1) + order
}

// listName names a list for pageEnd: its name and its conditions' arguments.
func listName(name string, args []any) string { return fmt.Sprintf("%s%v", name, args) }

func (s *Store) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}
