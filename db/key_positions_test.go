package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// Keys of the skewed chain of keyedChain: the first of each pair holds most rows.
var (
	hotSender, coldSender     = db.MustFelt("0xa1"), db.MustFelt("0xa2")
	hotContract, coldContract = db.MustFelt("0xc1"), db.MustFelt("0xc2")
	hotEmitter, coldEmitter   = db.MustFelt("0xe1"), db.MustFelt("0xe2")
	hotKey0, coldKey0         = db.MustFelt("0xf1"), db.MustFelt("0xf2")
	hotToken, coldToken       = db.MustFelt("0xb1"), db.MustFelt("0xb2")
	wallet, otherWallet       = db.MustFelt("0xd1"), db.MustFelt("0xd2")
	zero                      = db.Felt{} // 0x0, the sender of mints: a key, not NULL
)

// keyedChain is blocks from first on, each with up to 6 transactions, their events and
// transfers, most of them under the hot keys.
func keyedChain(first int64, blocks int, salt uint64) *db.ChainRows {
	rnd := rand.New(rand.NewPCG(uint64(first), salt))
	pick := func(hot, cold db.Felt, none bool) db.Felt {
		switch n := rnd.IntN(10); {
		case n < 7:
			return hot
		case n < 9 || !none:
			return cold
		}
		return nil
	}
	r := &db.ChainRows{}
	for i := range blocks {
		num := first + int64(i)
		n := rnd.IntN(7)
		r.Blocks = append(r.Blocks, db.BlockRow{Number: num, Hash: db.FeltFromUint64(salt + uint64(num)),
			ParentHash: db.FeltFromUint64(salt + uint64(num) - 1), Timestamp: 1700000000 + num, Status: "ACCEPTED_ON_L2", TxCount: n})
		for x := range n {
			hash := db.FeltFromUint64(salt<<20 + uint64(num)<<8 + uint64(x))
			r.Transactions = append(r.Transactions, db.TransactionRow{BlockNumber: num, TxIndex: x, Hash: hash,
				Type: []string{"INVOKE", "INVOKE", "DECLARE"}[rnd.IntN(3)], Version: 3, Timestamp: 1700000000 + num,
				SenderAddress: pick(hotSender, coldSender, true), ContractAddress: pick(hotContract, coldContract, true),
				ActualFee: "1", ActualFeeUnit: "FRI", ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2"})
			events := rnd.IntN(4)
			for e := range events {
				r.Events = append(r.Events, db.EventRow{BlockNumber: num, TxIndex: x, EventIndex: e,
					FromAddress: pick(hotEmitter, coldEmitter, false), Keys: db.FeltArray{pick(hotKey0, coldKey0, false)}, Data: db.FeltArray{}})
				if rnd.IntN(2) == 0 {
					from, to := pick(wallet, zero, false), pick(otherWallet, wallet, false)
					r.TokenTransfers = append(r.TokenTransfers, db.TokenTransfer{BlockNumber: num, TxIndex: x, EventIndex: e,
						TokenAddress: pick(hotToken, coldToken, false), FromAddress: from, ToAddress: to, Amount: "5",
						TransactionHash: hash, Timestamp: 1700000000 + num})
				}
			}
		}
	}
	return r
}

// keyedList is a list with kept positions, read through the store and the slow way.
type keyedList struct {
	name  string
	read  func(s *db.Store, desc bool, w db.Window) ([]string, error)
	count func(s *db.Store) (int64, error)
	table string // the slow way: the rows of table under cond, by OFFSET
	cond  string
	key   any
	cols  string
}

func keyedLists(ctx context.Context) []keyedList {
	str := func(a ...any) string { return fmt.Sprint(a...) }
	events := func(f db.EventsFilter) func(s *db.Store, desc bool, w db.Window) ([]string, error) {
		return func(s *db.Store, desc bool, w db.Window) ([]string, error) {
			rows, err := s.Events(ctx, f, desc, w)
			var out []string
			for _, e := range rows {
				out = append(out, str(e.BlockNumber, " ", e.TxIndex, " ", e.Index))
			}
			return out, err
		}
	}
	txs := func(f db.TxFilter) func(s *db.Store, desc bool, w db.Window) ([]string, error) {
		return func(s *db.Store, desc bool, w db.Window) ([]string, error) {
			rows, err := s.Transactions(ctx, f, desc, w)
			var out []string
			for _, t := range rows {
				out = append(out, str(t.BlockNumber, " ", t.Index))
			}
			return out, err
		}
	}
	transfers := func(f db.TokenTransferFilter) func(s *db.Store, desc bool, w db.Window) ([]string, error) {
		return func(s *db.Store, desc bool, w db.Window) ([]string, error) {
			f.Ascending = !desc
			rows, err := s.TokenTransfers(ctx, f, w)
			var out []string
			for _, t := range rows {
				out = append(out, str(t.BlockNumber, " ", t.TxIndex, " ", t.EventIndex))
			}
			return out, err
		}
	}
	ev, tx := "block_number, tx_index, event_index", "block_number, tx_index"
	return []keyedList{
		{"events by emitter", events(db.EventsFilter{From: hotEmitter}),
			func(s *db.Store) (int64, error) { return s.CountEvents(ctx, db.EventsFilter{From: hotEmitter}) },
			"events_named", "from_address = $1", hotEmitter, ev},
		{"events by key", events(db.EventsFilter{Key: hotKey0}),
			func(s *db.Store) (int64, error) { return s.CountEvents(ctx, db.EventsFilter{Key: hotKey0}) },
			"events_named", "key0 = $1", hotKey0, ev},
		{"transactions by sender", txs(db.TxFilter{Sender: hotSender}),
			func(s *db.Store) (int64, error) { return s.CountTransactions(ctx, db.TxFilter{Sender: hotSender}) },
			"transactions_named", "sender_address = $1", hotSender, tx},
		{"transactions by sender, as tx-activity reads them", func(s *db.Store, desc bool, w db.Window) ([]string, error) {
			// Counted in the page's statement, from its mark past marksFrom.
			counts := new(db.KeyCounts)
			rows, err := s.TransactionActivity(db.WithKeyCounts(ctx, counts), db.TxFilter{Sender: hotSender}, desc, w)
			var out []string
			for _, t := range rows {
				out = append(out, str(t.BlockNumber, " ", t.Index))
			}
			if err == nil && len(rows) > 0 {
				n, cerr := s.CountTransactions(db.WithKeyCounts(ctx, counts), db.TxFilter{Sender: hotSender})
				var want int64
				if err = cerr; err == nil {
					err = s.DB().Get(&want, `SELECT count(*) FROM transactions_named WHERE sender_address = $1`, hotSender)
				}
				if err == nil && (rows[0].KeyCount == nil || n != want) {
					err = fmt.Errorf("the page's count %v, the list's total %d, want %d", rows[0].KeyCount, n, want)
				}
			}
			return out, err
		},
			func(s *db.Store) (int64, error) { return s.CountTransactions(ctx, db.TxFilter{Sender: hotSender}) },
			"transactions_named", "sender_address = $1", hotSender, tx},
		{"transactions by contract", txs(db.TxFilter{Contract: hotContract}),
			func(s *db.Store) (int64, error) { return s.CountTransactions(ctx, db.TxFilter{Contract: hotContract}) },
			"transactions_named", "contract_address = $1", hotContract, tx},
		{"transactions by type", txs(db.TxFilter{Type: "INVOKE"}),
			func(s *db.Store) (int64, error) { return s.CountTransactions(ctx, db.TxFilter{Type: "INVOKE"}) },
			"transactions", "type = $1", "INVOKE", tx},
		{"transfers by token", transfers(db.TokenTransferFilter{Token: hotToken}),
			func(s *db.Store) (int64, error) {
				return s.CountTokenTransfers(ctx, db.TokenTransferFilter{Token: hotToken})
			},
			"token_transfers_named", "token_address = $1", hotToken, ev},
		{"transfers from 0x0", transfers(db.TokenTransferFilter{From: zero}),
			func(s *db.Store) (int64, error) {
				return s.CountTokenTransfers(ctx, db.TokenTransferFilter{From: zero})
			},
			"token_transfers_named", "from_address = $1", zero, ev},
		{"transfers to a wallet", transfers(db.TokenTransferFilter{To: otherWallet}),
			func(s *db.Store) (int64, error) {
				return s.CountTokenTransfers(ctx, db.TokenTransferFilter{To: otherWallet})
			},
			"token_transfers_named", "to_address = $1", otherWallet, ev},
		{"transfers of a wallet", transfers(db.TokenTransferFilter{Wallet: wallet}),
			func(s *db.Store) (int64, error) {
				return s.CountTokenTransfers(ctx, db.TokenTransferFilter{Wallet: wallet})
			},
			"token_transfers_named", "(from_address = $1 OR (to_address = $1 AND from_address <> $1))", wallet, ev},
	}
}

// slowPage is the page OFFSET reads.
func slowPage(t *testing.T, conn *sqlx.DB, l keyedList, desc bool, w db.Window) []string {
	t.Helper()
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	order := strings.ReplaceAll(l.cols, ",", dir+",") + dir
	var out []string
	if err := conn.Select(&out, `SELECT concat_ws(' ', `+l.cols+`) FROM `+l.table+` WHERE `+l.cond+
		` ORDER BY `+order+` LIMIT $2 OFFSET $3`, l.key, w.Limit, w.Offset); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkKeyedPages reads every page of every keyed list, both ways, from every offset to
// past the end, and compares it with the page OFFSET reads; and the list's count with
// count(*). It returns how many pages sought from a mark.
func checkKeyedPages(t *testing.T, ctx context.Context, conn *sqlx.DB, when string) int {
	t.Helper()
	marked := 0
	for _, l := range keyedLists(ctx) {
		var total int
		if err := conn.Get(&total, `SELECT count(*) FROM `+l.table+` WHERE `+l.cond, l.key); err != nil {
			t.Fatal(err)
		}
		if total < 40 {
			t.Fatalf("%s: %s has only %d rows", when, l.name, total)
		}
		store := db.NewStore(conn)
		if n, err := l.count(store); err != nil || n != int64(total) {
			t.Errorf("%s: %s counts %d (%v), want %d", when, l.name, n, err, total)
		}
		for _, desc := range []bool{true, false} {
			// Downwards, so that no page starts where one read before ended (page_ends.go):
			// every page deeper than the marks' threshold starts from a mark.
			for offset := total + 2; offset >= 0; offset -= 3 {
				store := db.NewStore(conn)
				usedMark := false
				store.OnQuery = func(q string, _ []any) { usedMark = usedMark || strings.Contains(q, "key_marks") }
				w := db.Window{Limit: 4, Offset: offset}
				got, err := l.read(store, desc, w)
				if err != nil {
					t.Fatalf("%s: %s: %v", when, l.name, err)
				}
				if usedMark {
					marked++
				}
				if want := slowPage(t, conn, l, desc, w); !slices.Equal(got, want) {
					t.Fatalf("%s: %s (desc %v) from %d (of %d): %v, want %v", when, l.name, desc, offset, total, got, want)
				}
			}
		}
	}
	return marked
}

// keyPositions are the counts and marks as the migration fills them from the
// rows, and as the indexer's writes left them, in the same order.
func keyPositions(t *testing.T, conn *sqlx.DB) (counts, marks []string) {
	t.Helper()
	if err := conn.Select(&counts, `SELECT concat_ws(' ', list, encode(key, 'hex'), n) FROM key_counts ORDER BY list, key`); err != nil {
		t.Fatal(err)
	}
	if err := conn.Select(&marks, `SELECT concat_ws(' ', list, encode(key, 'hex'), ordinal, block_number, tx_index, event_index)
		FROM key_marks ORDER BY list, key, ordinal`); err != nil {
		t.Fatal(err)
	}
	return counts, marks
}

// Every page of every list with kept positions (by emitter, first key, sender, called
// contract, type, token, either side and wallet), both ways and at every depth, is the page
// OFFSET reads, and its count is count(*): after batches written through the indexer's
// path, and after a reorg took back the top blocks. The counts and marks the writes keep
// are those the migration's backfill computes from the rows.
func TestKeyMarksGiveThePagesOffsetReads(t *testing.T) {
	defer db.SetMarks(16, 10)()
	ctx := context.Background()
	conn := dbtest.New(t)
	backfill := func(when string) {
		t.Helper()
		counts, marks := keyPositions(t, conn)
		if len(marks) < 20 {
			t.Fatalf("%s: only %d marks", when, len(marks))
		}
		if _, err := conn.Exec(`SELECT fill_key_positions(16)`); err != nil {
			t.Fatal(err)
		}
		filled, filledMarks := keyPositions(t, conn)
		if !slices.Equal(counts, filled) || !slices.Equal(marks, filledMarks) {
			t.Fatalf("%s: the writes kept\n%v\n%v\nthe backfill computes\n%v\n%v", when, counts, marks, filled, filledMarks)
		}
	}
	for _, batch := range []struct {
		first  int64
		blocks int
	}{{0, 30}, {30, 1}, {31, 40}, {71, 9}} {
		if err := writeRows(ctx, conn, keyedChain(batch.first, batch.blocks, 0)); err != nil {
			t.Fatal(err)
		}
	}
	backfill("written")
	if n := checkKeyedPages(t, ctx, conn, "written"); n < 150 {
		t.Fatalf("only %d pages sought from a mark", n)
	}

	// A reorg from block 60: the counts and marks are again those of the blocks up to 59.
	before := dbtest.New(t)
	if err := writeRows(ctx, before, keyedChain(0, 30, 0)); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(ctx, before, keyedChain(30, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(ctx, before, keyedChain(31, 29, 0)); err != nil {
		t.Fatal(err)
	}
	wantCounts, wantMarks := keyPositions(t, before)
	tx, err := conn.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UndoAbove(ctx, tx, 59); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if counts, marks := keyPositions(t, conn); !slices.Equal(counts, wantCounts) || !slices.Equal(marks, wantMarks) {
		t.Fatalf("after the reorg:\n%v\n%v\nwant, as written up to block 59:\n%v\n%v", counts, marks, wantCounts, wantMarks)
	}
	// Other blocks from 60 on.
	if err := writeRows(ctx, conn, keyedChain(60, 35, 1<<40)); err != nil {
		t.Fatal(err)
	}
	backfill("after a reorg")
	if n := checkKeyedPages(t, ctx, conn, "after a reorg"); n == 0 {
		t.Fatal("after the reorg no page was sought from a mark")
	}
}
