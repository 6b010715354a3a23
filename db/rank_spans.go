package db

import (
	"context"
)

// Positions in the lists whose order changes (migration 00044): a token's holders by
// balance, a collection's holders by items held, a class's contracts by deployment. Their
// rows move, so an ordinal does not stay with a row as in key_marks (key_positions.go).
// Instead rank_spans cuts each key's list into spans of consecutive rows, each with its row
// count, which triggers on the three tables keep exact through every write, the indexer's
// and a reorg's alike. A page at offset N sums the counts of the key's spans in order,
// finds the span that holds row N, and reads from that span's start, skipping fewer than
// 2 * rank_span_rows() rows (500 to 1,000), where it skipped N.

// RankSpanRows is how many rows a span is cut at (migration 00044's rank_span_rows()); a
// span holds up to twice as many.
const RankSpanRows = 500

// rankList numbers the lists with spans (rank_spans.list).
type rankList int16

const (
	holdersByToken         rankList = 1 // erc20_balances b WHERE b.token_address = key AND b.balance > 0
	nftHoldersByCollection rankList = 2 // nft_holders h WHERE h.contract_address = key
	contractsByClass       rankList = 3 // contracts WHERE class_hash = key
)

// rankedKey is a list filtered by one key that has spans; the zero value has none.
type rankedKey struct {
	list rankList
	key  []byte
}

func (r rankedKey) ok() bool { return r.list != 0 && r.key != nil }

// counted is r as KeyCounts keeps it: lists with spans are numbered below 0, apart from the
// lists with positions.
func (r rankedKey) counted() markedKey { return markedKey{keyList(-r.list), r.key} }

// rankedCount is the exact number of rows of r's key, the sum of its spans' counts (a
// million holders: 1,000 to 2,000 entries of one index range).
func (s *Store) rankedCount(ctx context.Context, r rankedKey) (int64, error) {
	memo := keyCountsOf(ctx)
	if n, ok := memo.get(r.counted()); ok {
		return n, nil
	}
	var n int64
	_, err := s.getRow(ctx, &n, `SELECT coalesce(sum(n), 0)::bigint FROM rank_spans WHERE list = $1 AND key = $2`, int16(r.list), r.key)
	if err == nil {
		memo.put(r.counted(), n)
	}
	return n, err
}

// rankedWindow turns a window by position over r's list into one that starts at the start
// of the span holding its first row, skipping the rows of that span above it. empty is set
// when the window starts past the list's end. A window from a cursor, one near the list's
// start, one in the key's first span, and a key without spans are returned as they came.
func (s *Store) rankedWindow(ctx context.Context, r rankedKey, w Window) (out Window, empty bool, err error) {
	if !r.ok() || w.After != nil || w.Offset < marksFrom {
		return w, false, nil
	}
	// The spans of one key are few (a million holders: 1,000 to 2,000), and summing them
	// reads their primary key's entries in order. Spans with as many rows above them
	// (an empty one and the next) start the same rows: either will do.
	var span struct {
		S1     string `db:"s1"`
		S2     []byte `db:"s2"`
		Before int64  `db:"before"`
		Total  int64  `db:"total"`
	}
	found, err := s.getRow(ctx, &span, `SELECT s1::text AS s1, s2, before, total FROM (
			SELECT s1, s2, sum(n) OVER (ORDER BY s1 DESC, s2 DESC) - n AS before, sum(n) OVER () AS total
			FROM rank_spans WHERE list = $1 AND key = $2) s
		WHERE before <= $3 ORDER BY before DESC LIMIT 1`, int16(r.list), r.key, int64(w.Offset))
	if err != nil || !found { // no spans: the key has no rows
		return w, false, err
	}
	keyCountsOf(ctx).put(r.counted(), span.Total)
	if int64(w.Offset) >= span.Total {
		return w, true, nil
	}
	if span.S1 == "Infinity" { // the first span: from the list's start
		return w, false, nil
	}
	// The span's start, as the list's sort columns take it: PostgreSQL reads the text as
	// the column's type (numeric, or bigint for a deployment block).
	w.After = []any{span.S1, span.S2}
	w.Offset, w.SkipAfter = 0, w.Offset-int(span.Before)
	return w, false, nil
}

// rankedRead wraps a list's read of a window with rankedWindow.
func rankedRead[T any](ctx context.Context, s *Store, r rankedKey, read func(Window) ([]T, error)) func(Window) ([]T, error) {
	if !r.ok() {
		return read
	}
	return func(w Window) ([]T, error) {
		w, empty, err := s.rankedWindow(ctx, r, w)
		if err != nil || empty {
			return nil, err
		}
		return read(w)
	}
}
