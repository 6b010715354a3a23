package db

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Positions in the lists of hot keys (migration 00037). A page number of a list filtered by
// one key reads the page's keys from the key's index, skipping the rows above the page
// (keysetQuery.keysFrom): for the events of STRK, a million rows, the middle and last pages
// skipped 500,000 and a million index entries. Those lists only grow at their newest end, so
// a row keeps its ordinal, its place counted from the key's oldest row, until a reorg takes
// it back. The indexer keeps, for each key of each such list:
//
//   - key_counts: its rows, exact (the list's total, where the others are capped);
//   - key_marks: where its rows MarkEvery, 2*MarkEvery, ... stand, by sort key.
//
// A page at offset N, newest first, starts at the row of ordinal C-1-N (C the key's rows):
// it seeks to the first mark above that ordinal and skips fewer than MarkEvery rows from
// there (markedWindow). Pages in the newest MarkEvery rows need no mark. A page costs at
// most MarkEvery index entries and its rows, at any depth. Oldest first, the same with the
// mark below.

// keyList numbers the lists with positions (key_counts.list, key_marks.list).
type keyList int16

const (
	eventsByEmitter   keyList = 1 // events e WHERE e.from_id = the key's felt id
	eventsByKey0      keyList = 2 // events e WHERE e.key0_id = the key's felt id
	txsBySender       keyList = 3 // transactions t WHERE t.sender_id = the key's felt id
	txsByContract     keyList = 4 // transactions t WHERE t.contract_id = the key's felt id
	txsByType         keyList = 5 // transactions t WHERE t.type = key (its name's bytes)
	transfersByToken  keyList = 6 // token_transfers e WHERE e.token_id = the key's felt id
	transfersByFrom   keyList = 7 // token_transfers e WHERE e.from_id = the key's felt id
	transfersByTo     keyList = 8 // token_transfers e WHERE e.to_id = the key's felt id
	transfersByWallet keyList = 9 // a wallet's transfers: from it, or to it from another
)

// MarkEvery is how many rows of a key lie between two marks. A page skips fewer than this
// from its mark; a mark costs a row of key_marks (about 90 bytes with its index entry).
var MarkEvery int64 = 1000

// marksFrom is the offset from which a page looks for a mark: above it, skipping through the
// index costs less than the mark's lookup.
var marksFrom = 1000

// listKey is one key of one list.
type listKey struct {
	list keyList
	key  string
}

// keyPosition is a row's sort key in its list.
type keyPosition struct {
	block     int64
	tx, event int
}

func (p keyPosition) compare(q keyPosition) int {
	return cmp.Or(cmp.Compare(p.block, q.block), cmp.Compare(p.tx, q.tx), cmp.Compare(p.event, q.event))
}

// positionsOf collects, for every key of every list, the positions of r's rows.
func positionsOf(r *ChainRows) map[listKey][]keyPosition {
	out := map[listKey][]keyPosition{}
	add := func(list keyList, key []byte, p keyPosition) {
		if key == nil { // NULL: no list has it
			return
		}
		k := listKey{list, string(key)}
		out[k] = append(out[k], p)
	}
	for i := range r.Events {
		e := &r.Events[i]
		p := keyPosition{e.BlockNumber, e.TxIndex, e.EventIndex}
		add(eventsByEmitter, e.FromAddress, p)
		if len(e.Keys) > 0 {
			add(eventsByKey0, e.Keys[0], p)
		}
	}
	for i := range r.Transactions {
		t := &r.Transactions[i]
		p := keyPosition{t.BlockNumber, t.TxIndex, 0}
		add(txsBySender, t.SenderAddress, p)
		add(txsByContract, t.ContractAddress, p)
		add(txsByType, []byte(t.Type), p)
	}
	for i := range r.TokenTransfers {
		t := &r.TokenTransfers[i]
		p := keyPosition{t.BlockNumber, t.TxIndex, t.EventIndex}
		add(transfersByToken, t.TokenAddress, p)
		add(transfersByFrom, t.FromAddress, p)
		add(transfersByTo, t.ToAddress, p)
		add(transfersByWallet, t.FromAddress, p)
		if t.ToAddress != nil && string(t.ToAddress) != string(t.FromAddress) {
			add(transfersByWallet, t.ToAddress, p)
		}
	}
	return out
}

// recordKeyPositions adds r's rows to the counts of their keys and marks the rows that reach
// a multiple of MarkEvery, in tx (the transaction that writes the rows). The rows must be
// newer than every row already written: the indexer writes blocks in order. With
// r.Counts set (a bulk load) the counts are kept in memory, not in key_counts.
func recordKeyPositions(ctx context.Context, tx sqlx.ExtContext, r *ChainRows) error {
	positions := positionsOf(r)
	if len(positions) == 0 {
		return nil
	}
	var counts map[listKey]int64
	var err error
	if r.Counts != nil {
		counts, err = r.Counts.add(ctx, tx, positions)
	} else {
		counts, err = upsertKeyCounts(ctx, tx, positions)
	}
	if err != nil {
		return fmt.Errorf("key counts: %w", err)
	}
	return insertKeyMarks(ctx, tx, positions, counts)
}

// upsertKeyCounts adds the positions to key_counts, returning each key's count after them.
func upsertKeyCounts(ctx context.Context, tx sqlx.ExtContext, positions map[listKey][]keyPosition) (map[listKey]int64, error) {
	lists, keys, adds := make(pq.Int64Array, 0, len(positions)), make(pq.ByteaArray, 0, len(positions)), make(pq.Int64Array, 0, len(positions))
	for k, ps := range positions {
		lists = append(lists, int64(k.list))
		keys = append(keys, []byte(k.key))
		adds = append(adds, int64(len(ps)))
	}
	rows, err := tx.QueryxContext(ctx, `INSERT INTO key_counts AS c (list, key, n)
		SELECT * FROM unnest($1::smallint[], $2::bytea[], $3::bigint[])
		ON CONFLICT (list, key) DO UPDATE SET n = c.n + excluded.n
		RETURNING list, key, n`, lists, keys, adds)
	if err != nil {
		return nil, err
	}
	return scanKeyCounts(rows, len(positions))
}

// scanKeyCounts reads rows of (list, key, n).
func scanKeyCounts(rows *sqlx.Rows, size int) (map[listKey]int64, error) {
	defer rows.Close()
	out := make(map[listKey]int64, size)
	for rows.Next() {
		var list int16
		var key []byte
		var n int64
		if err := rows.Scan(&list, &key, &n); err != nil {
			return nil, err
		}
		out[listKey{keyList(list), string(key)}] = n
	}
	return out, rows.Err()
}

// insertKeyMarks marks the rows of positions whose ordinal is a multiple of MarkEvery,
// counts holding each key's count after them.
func insertKeyMarks(ctx context.Context, tx sqlx.ExtContext, positions map[listKey][]keyPosition, counts map[listKey]int64) error {
	var mList, mOrdinal, mBlock, mTx, mEvent pq.Int64Array
	var mKey pq.ByteaArray
	for k, ps := range positions {
		n := counts[k]
		old := n - int64(len(ps))
		// The marks' ordinals are the multiples of MarkEvery above 0; the first of them
		// among the batch's, old to n-1.
		first := max((old+MarkEvery-1)/MarkEvery, 1) * MarkEvery
		if first >= n {
			continue
		}
		slices.SortFunc(ps, keyPosition.compare)
		for o := first; o < n; o += MarkEvery {
			p := ps[o-old]
			mList, mKey, mOrdinal = append(mList, int64(k.list)), append(mKey, []byte(k.key)), append(mOrdinal, o)
			mBlock, mTx, mEvent = append(mBlock, p.block), append(mTx, int64(p.tx)), append(mEvent, int64(p.event))
		}
	}
	if len(mList) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO key_marks (list, key, ordinal, block_number, tx_index, event_index)
		SELECT * FROM unnest($1::smallint[], $2::bytea[], $3::bigint[], $4::bigint[], $5::int[], $6::int[])
		ON CONFLICT DO NOTHING`, mList, mKey, mOrdinal, mBlock, mTx, mEvent); err != nil {
		return fmt.Errorf("key marks: %w", err)
	}
	return nil
}

// BulkKeyCounts are key_counts as a bulk load keeps them in memory (bulk_derived.go): the count
// of every key its committed batches wrote rows under since the derived tables' mark, and of
// the keys it read. A key missing has no rows since the mark, so key_counts has its count. A
// batch's new counts wait until Commit, after its transaction committed.
type BulkKeyCounts struct {
	n       map[listKey]int64
	pending map[listKey]int64
}

// NewBulkKeyCounts is an empty memory of counts.
func NewBulkKeyCounts() *BulkKeyCounts { return &BulkKeyCounts{n: map[listKey]int64{}} }

// Len is how many keys are kept.
func (c *BulkKeyCounts) Len() int { return len(c.n) }

// Commit keeps the counts of the batch whose transaction just committed.
func (c *BulkKeyCounts) Commit() {
	for k, n := range c.pending {
		c.n[k] = n
	}
	c.pending = nil
}

// add works out each key's count after positions, reading from key_counts the keys not kept.
func (c *BulkKeyCounts) add(ctx context.Context, q sqlx.QueryerContext, positions map[listKey][]keyPosition) (map[listKey]int64, error) {
	var lists pq.Int64Array
	var keys pq.ByteaArray
	for k := range positions {
		if _, ok := c.n[k]; !ok {
			lists, keys = append(lists, int64(k.list)), append(keys, []byte(k.key))
		}
	}
	stored := map[listKey]int64{}
	if len(lists) > 0 {
		rows, err := q.QueryxContext(ctx, `SELECT c.list, c.key, c.n FROM key_counts c
			JOIN unnest($1::smallint[], $2::bytea[]) k (list, key) ON c.list = k.list AND c.key = k.key`, lists, keys)
		if err != nil {
			return nil, err
		}
		if stored, err = scanKeyCounts(rows, len(lists)); err != nil {
			return nil, err
		}
	}
	out := make(map[listKey]int64, len(positions))
	for k, ps := range positions {
		n, ok := c.n[k]
		if !ok {
			n = stored[k]
		}
		out[k] = n + int64(len(ps))
	}
	c.pending = out
	return out, nil
}

// write stores the kept counts in key_counts and forgets them.
func (c *BulkKeyCounts) write(ctx context.Context, tx *sqlx.Tx) error {
	const chunk = 50_000
	lists, keys, ns := make(pq.Int64Array, 0, chunk), make(pq.ByteaArray, 0, chunk), make(pq.Int64Array, 0, chunk)
	flush := func() error {
		if len(lists) == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO key_counts AS c (list, key, n)
			SELECT * FROM unnest($1::smallint[], $2::bytea[], $3::bigint[])
			ON CONFLICT (list, key) DO UPDATE SET n = excluded.n`, lists, keys, ns)
		lists, keys, ns = lists[:0], keys[:0], ns[:0]
		return err
	}
	for k, n := range c.n {
		lists, keys, ns = append(lists, int64(k.list)), append(keys, []byte(k.key)), append(ns, n)
		if len(lists) == chunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	clear(c.n)
	return nil
}

// keyRowsAbove lists, as (list, key), a row per row of every list in the blocks above $1.
const keyRowsAbove = `
	SELECT 1, f.felt FROM events e JOIN felt_ids f ON f.id = e.from_id WHERE e.block_number > $1
	UNION ALL SELECT 2, f.felt FROM events e JOIN felt_ids f ON f.id = e.key0_id WHERE e.block_number > $1
	UNION ALL SELECT 3, f.felt FROM transactions t JOIN felt_ids f ON f.id = t.sender_id WHERE t.block_number > $1
	UNION ALL SELECT 4, f.felt FROM transactions t JOIN felt_ids f ON f.id = t.contract_id WHERE t.block_number > $1
	UNION ALL SELECT 5, convert_to(type::text, 'UTF8') FROM transactions WHERE block_number > $1
	UNION ALL SELECT 6, f.felt FROM token_transfers e JOIN felt_ids f ON f.id = e.token_id WHERE e.block_number > $1
	UNION ALL SELECT 7, f.felt FROM token_transfers e JOIN felt_ids f ON f.id = e.from_id WHERE e.block_number > $1
	UNION ALL SELECT 8, f.felt FROM token_transfers e JOIN felt_ids f ON f.id = e.to_id WHERE e.block_number > $1
	UNION ALL SELECT 9, f.felt FROM token_transfers e JOIN felt_ids f ON f.id = e.from_id WHERE e.block_number > $1
	UNION ALL SELECT 9, f.felt FROM token_transfers e JOIN felt_ids f ON f.id = e.to_id WHERE e.block_number > $1 AND e.to_id <> e.from_id`

// countKeysAbove adds to key_counts the rows of the blocks above block, whose marks are
// written already: for a bulk load resumed without the counts it kept in memory.
func countKeysAbove(ctx context.Context, tx *sqlx.Tx, block int64) error {
	_, err := tx.ExecContext(ctx, `WITH more (list, key) AS (`+keyRowsAbove+`)
		INSERT INTO key_counts AS c (list, key, n)
		SELECT list, key, count(*) FROM more WHERE key IS NOT NULL GROUP BY list, key
		ON CONFLICT (list, key) DO UPDATE SET n = c.n + excluded.n`, block)
	return err
}

// undoKeyPositions takes back what the rows of the blocks above ancestor added to the
// counts and marks; UndoAbove runs it before it deletes those blocks.
func undoKeyPositions(ctx context.Context, tx *sqlx.Tx, ancestor int64) error {
	rows, err := tx.QueryContext(ctx, `WITH gone (list, key) AS (`+keyRowsAbove+`),
		less AS (SELECT list, key, count(*) AS n FROM gone WHERE key IS NOT NULL GROUP BY list, key),
		cut AS (UPDATE key_counts c SET n = c.n - less.n FROM less WHERE c.list = less.list AND c.key = less.key
			RETURNING c.list, c.key, c.n)
		SELECT list, key FROM cut WHERE n <= 0`, ancestor)
	if err != nil {
		return fmt.Errorf("undo key counts: %w", err)
	}
	// Only the keys the reorg emptied are deleted: key_counts has no index on n, and a
	// scan of every key (millions on mainnet) in each reorg's transaction would be the cost.
	var emptyList []int16
	var emptyKey pq.ByteaArray
	for rows.Next() {
		var list int16
		var key []byte
		if err := rows.Scan(&list, &key); err != nil {
			rows.Close()
			return fmt.Errorf("undo key counts: %w", err)
		}
		emptyList, emptyKey = append(emptyList, list), append(emptyKey, key)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("undo key counts: %w", err)
	}
	if len(emptyList) > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM key_counts c USING unnest($1::smallint[], $2::bytea[]) e (list, key)
			WHERE c.list = e.list AND c.key = e.key AND c.n <= 0`, pq.Array(emptyList), emptyKey); err != nil {
			return fmt.Errorf("undo key counts: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM key_marks WHERE block_number > $1`, ancestor); err != nil {
		return fmt.Errorf("undo key marks: %w", err)
	}
	return nil
}

// markedKey is a list filtered by one key that has positions; the zero value has none.
type markedKey struct {
	list keyList
	key  []byte
}

func (m markedKey) ok() bool { return m.list != 0 && m.key != nil }

// keyCount is the exact number of rows of m's key; ok is false for a list without
// positions, and for a key without a count (no rows, or rows written around the indexer, as
// tests do): the caller counts those rows itself.
func (s *Store) keyCount(ctx context.Context, m markedKey) (n int64, ok bool, err error) {
	if !m.ok() {
		return 0, false, nil
	}
	memo := keyCountsOf(ctx)
	if n, ok := memo.get(m); ok {
		return n, true, nil
	}
	ok, err = s.getRow(ctx, &n, `SELECT n FROM key_counts WHERE list = $1 AND key = $2`, int16(m.list), []byte(m.key))
	if ok && err == nil {
		memo.put(m, n)
	}
	return n, ok, err
}

// KeyCounts keeps, for one request, the counts of keys with positions that it read: a
// deep page reads its key's count with its mark (markedWindow), and the list's total is
// then that count, not a second statement (a page of /beta/txns?to= or ?type= ran 5
// statements, one of them this count again). The zero value is ready; it is safe for
// concurrent use (GraphQL resolves fields in parallel).
type KeyCounts struct {
	mu sync.Mutex
	n  map[listKey]int64
}

type keyCountsKey struct{}

// WithKeyCounts returns ctx carrying c, which the store's reads under it fill and consult.
func WithKeyCounts(ctx context.Context, c *KeyCounts) context.Context {
	return context.WithValue(ctx, keyCountsKey{}, c)
}

// keyCountsOf is ctx's KeyCounts, nil (which keeps nothing) when it has none.
func keyCountsOf(ctx context.Context) *KeyCounts {
	c, _ := ctx.Value(keyCountsKey{}).(*KeyCounts)
	return c
}

func (c *KeyCounts) get(m markedKey) (int64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.n[listKey{m.list, string(m.key)}]
	return n, ok
}

func (c *KeyCounts) put(m markedKey, n int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[listKey]int64{}
	}
	c.n[listKey{m.list, string(m.key)}] = n
}

// markedWindow turns a window by position over m's list (desc: newest first) into one that
// starts after the nearest mark above the page, skipping fewer than MarkEvery rows from
// there, with keyCols values of the mark (2: block, tx; 3: and event). empty is set when the
// window starts past the list's end. A window from a cursor, one near the list's start, and
// a list without a mark past the window's start are returned as they came.
func (s *Store) markedWindow(ctx context.Context, m markedKey, desc bool, keyCols int, w Window) (out Window, empty bool, err error) {
	if !m.ok() || w.After != nil || w.Offset < marksFrom {
		return w, false, nil
	}
	// target: the ordinal of the page's first row. Newest first, the mark is the first one
	// above it; oldest first, the last one below.
	target, cmp, order := `c.n - 1 - $3`, ">", "ASC"
	if !desc {
		target, cmp, order = `$3`, "<", "DESC"
	}
	var mark struct {
		N       int64  `db:"n"`
		Ordinal *int64 `db:"ordinal"`
		Block   *int64 `db:"block_number"`
		Tx      *int64 `db:"tx_index"`
		Event   *int64 `db:"event_index"`
	}
	found, err := s.getRow(ctx, &mark, `SELECT c.n, m.ordinal, m.block_number, m.tx_index, m.event_index FROM key_counts c
		LEFT JOIN LATERAL (SELECT ordinal, block_number, tx_index, event_index FROM key_marks m
			WHERE m.list = c.list AND m.key = c.key AND m.ordinal `+cmp+` `+target+`
			ORDER BY m.ordinal `+order+` LIMIT 1) m ON true
		WHERE c.list = $1 AND c.key = $2`, int16(m.list), []byte(m.key), int64(w.Offset))
	if err != nil || !found { // no count: rows written around the indexer (tests); skip through the index
		return w, false, err
	}
	keyCountsOf(ctx).put(m, mark.N)
	if int64(w.Offset) >= mark.N {
		return w, true, nil
	}
	if mark.Ordinal == nil {
		return w, false, nil
	}
	ordinal := mark.N - 1 - int64(w.Offset)
	skip := *mark.Ordinal - 1 - ordinal
	if !desc {
		ordinal = int64(w.Offset)
		skip = ordinal - *mark.Ordinal - 1
	}
	w.After = []any{*mark.Block, *mark.Tx, *mark.Event}[:keyCols]
	w.Offset, w.SkipAfter = 0, int(skip)
	return w, false, nil
}

// markedRead wraps a list's read of a window with markedWindow.
func markedRead[T any](ctx context.Context, s *Store, m markedKey, desc bool, keyCols int, read func(Window) ([]T, error)) func(Window) ([]T, error) {
	if !m.ok() {
		return read
	}
	return func(w Window) ([]T, error) {
		w, empty, err := s.markedWindow(ctx, m, desc, keyCols, w)
		if err != nil || empty {
			return nil, err
		}
		return read(w)
	}
}

// marked is the events' list with positions that f selects: by emitter alone or by first
// key alone.
func (f EventsFilter) marked() markedKey {
	switch {
	case f.FromBlock != nil || f.ToBlock != nil || f.Tx != nil || (f.From != nil) == (f.Key != nil):
		return markedKey{}
	case f.From != nil:
		return markedKey{eventsByEmitter, f.From}
	}
	return markedKey{eventsByKey0, f.Key}
}

// marked is the transactions' list with positions that f selects: by sender, called
// contract or type alone.
func (f TxFilter) marked() markedKey {
	if f.FromBlock != nil || f.ToBlock != nil || f.Block != nil {
		return markedKey{}
	}
	var out markedKey
	n := 0
	if f.Sender != nil {
		out, n = markedKey{txsBySender, f.Sender}, n+1
	}
	if f.Contract != nil {
		out, n = markedKey{txsByContract, f.Contract}, n+1
	}
	if f.Type != "" {
		out, n = markedKey{txsByType, []byte(f.Type)}, n+1
	}
	if n != 1 {
		return markedKey{}
	}
	return out
}

// marked is the transfers' list with positions that f selects: by token, sender, recipient
// or wallet alone.
func (f TokenTransferFilter) marked() markedKey {
	if f.Tokens != nil || f.FromBlock != nil || f.ToBlock != nil || f.FromTime != nil || f.ToTime != nil || f.Fee != nil {
		return markedKey{}
	}
	var out markedKey
	n := 0
	for _, c := range []struct {
		list keyList
		key  Felt
	}{{transfersByToken, f.Token}, {transfersByWallet, f.Wallet}, {transfersByFrom, f.From}, {transfersByTo, f.To}} {
		if c.key != nil {
			out, n = markedKey{c.list, c.key}, n+1
		}
	}
	if n != 1 {
		return markedKey{}
	}
	return out
}
