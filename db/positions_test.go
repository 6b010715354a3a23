package db_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// blocksWithTxs are consecutive blocks from first, block i with counts[i] transactions.
func blocksWithTxs(first int64, counts []int, salt uint64) *db.ChainRows {
	r := &db.ChainRows{}
	for i, n := range counts {
		num := first + int64(i)
		r.Blocks = append(r.Blocks, db.BlockRow{Number: num, Hash: db.FeltFromUint64(salt + uint64(num)),
			ParentHash: db.FeltFromUint64(salt + uint64(num) - 1), Timestamp: 1700000000 + num, Status: "ACCEPTED_ON_L2", TxCount: n})
		for x := 0; x < n; x++ {
			r.Transactions = append(r.Transactions, db.TransactionRow{BlockNumber: num, TxIndex: x,
				Hash: db.FeltFromUint64(salt<<20 + uint64(num)<<8 + uint64(x)), Type: []string{"INVOKE", "DECLARE"}[x%3/2], Version: 3,
				Timestamp: 1700000000 + num, ActualFee: "1", ActualFeeUnit: "FRI", ExecutionStatus: "SUCCEEDED",
				FinalityStatus: "ACCEPTED_ON_L2"})
		}
	}
	return r
}

// positionsOf are the (block, index) of transactions.
func positionsOf(txs []*db.Transaction) [][2]int64 {
	var out [][2]int64
	for _, t := range txs {
		out = append(out, [2]int64{t.BlockNumber, int64(t.Index)})
	}
	return out
}

// offsetPage reads a page of transactions the slow way, with OFFSET.
func offsetPage(t *testing.T, conn *sqlx.DB, desc bool, limit, offset int) [][2]int64 {
	t.Helper()
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	var rows []struct {
		Block int64 `db:"block_number"`
		Index int64 `db:"tx_index"`
	}
	if err := conn.Select(&rows, `SELECT block_number, tx_index FROM transactions ORDER BY block_number `+dir+`, tx_index `+dir+`
		LIMIT $1 OFFSET $2`, limit, offset); err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for _, r := range rows {
		out = append(out, [2]int64{r.Block, r.Index})
	}
	return out
}

// Page numbers and offset cursors seek to their first transaction or block through the
// blocks' txs_before: every page is the one OFFSET reads, both ways, across empty blocks,
// past either end, from a first block other than 0, and after a reorg rewrote the top.
func TestDeepPagesSeekToTheRowsOffsetReads(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	store := db.NewStore(conn)
	check := func(when string) {
		t.Helper()
		var total int
		if err := conn.Get(&total, `SELECT count(*) FROM transactions`); err != nil {
			t.Fatal(err)
		}
		for _, desc := range []bool{true, false} {
			for offset := 1; offset <= total+2; offset++ {
				got, err := store.Transactions(ctx, db.TxFilter{}, desc, db.Window{Limit: 3, Offset: offset})
				if err != nil {
					t.Fatal(err)
				}
				if want := offsetPage(t, conn, desc, 3, offset); !slices.Equal(positionsOf(got), want) {
					t.Fatalf("%s: transactions (desc %v) from %d: %v, want %v", when, desc, offset, positionsOf(got), want)
				}
			}
		}
		var blocks []int64
		if err := conn.Select(&blocks, `SELECT number FROM blocks ORDER BY number DESC`); err != nil {
			t.Fatal(err)
		}
		for offset := 1; offset <= len(blocks)+1; offset++ {
			got, err := store.Blocks(ctx, db.Window{Limit: 2, Offset: offset})
			if err != nil {
				t.Fatal(err)
			}
			var numbers []int64
			for _, b := range got {
				numbers = append(numbers, b.Number)
			}
			if want := blocks[min(offset, len(blocks)):min(offset+2, len(blocks))]; !slices.Equal(numbers, want) {
				t.Fatalf("%s: blocks from %d: %v, want %v", when, offset, numbers, want)
			}
		}
	}
	// The first block indexed is 100 (--from-block): nothing is counted below it.
	if err := writeRows(ctx, conn, blocksWithTxs(100, []int{3, 0, 0, 5, 1, 0, 2, 7, 0}, 0)); err != nil {
		t.Fatal(err)
	}
	check("written")
	if err := writeRows(ctx, conn, blocksWithTxs(109, []int{4, 0, 1}, 0)); err != nil {
		t.Fatal(err)
	}
	check("a second batch")
	// A reorg from block 105: the top is deleted and written again, with other counts.
	if _, err := conn.Exec(`DELETE FROM blocks WHERE number >= 105`); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(ctx, conn, blocksWithTxs(105, []int{6, 0, 0, 2}, 1<<30)); err != nil {
		t.Fatal(err)
	}
	check("after a reorg")
}

// A filtered list (a type's transactions) walked page by page, each read with a row more
// as the resolvers' pager reads it: every page after the first continues from the row the
// page before ended at, and is the page OFFSET reads; a page fetched from a cursor's key
// leaves no end behind.
func TestFilteredPagesContinueWhereThePageBeforeEnded(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, blocksWithTxs(0, []int{3, 0, 5, 1, 7, 2, 0, 6, 4}, 0)); err != nil {
		t.Fatal(err)
	}
	var invokes [][2]int64
	var rows []struct {
		Block int64 `db:"block_number"`
		Index int64 `db:"tx_index"`
	}
	if err := conn.Select(&rows, `SELECT block_number, tx_index FROM transactions WHERE type = 'INVOKE' ORDER BY block_number DESC, tx_index DESC`); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, r := range rows {
		invokes = append(invokes, [2]int64{r.Block, r.Index})
		all = append(all, fmt.Sprint(invokes[len(invokes)-1]))
	}
	store := db.NewStore(conn)
	walkPages(t, store, all, 4, "(t.block_number, t.tx_index) <", func(w db.Window) ([]string, error) {
		txs, err := store.Transactions(ctx, db.TxFilter{Type: "INVOKE"}, true, w)
		var got []string
		for _, p := range positionsOf(txs) {
			got = append(got, fmt.Sprint(p))
		}
		return got, err
	})
	var (
		query string
		args  []any
	)
	// From a cursor's key: the rows after the 3rd. That page's end is not a position.
	store2 := db.NewStore(conn)
	store2.OnQuery = func(q string, a []any) { query, args = q, a }
	if _, err := store2.Transactions(ctx, db.TxFilter{Type: "INVOKE"}, true, db.Window{Limit: 5, After: []any{invokes[2][0], invokes[2][1]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := store2.Transactions(ctx, db.TxFilter{Type: "INVOKE"}, true, db.Window{Limit: 5, Offset: 4}); err != nil ||
		strings.Contains(query, "(t.block_number, t.tx_index) < (") || len(args) == 0 || args[len(args)-1] != 4 {
		t.Fatalf("a page after a cursor's page was taken for a position: %v\n%s %v", err, query, args)
	}
}
