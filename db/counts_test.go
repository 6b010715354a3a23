package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A large filtered count is kept for a few seconds, then counted again; a small one is
// counted every time. The lists are a type's transactions from block 0: a type's alone is
// counted exactly from key_counts (key_positions.go), always fresh.
func TestLargeCountsAreKeptAWhile(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, blocksWithTxs(0, []int{200, 200, 200, 200, 200, 200, 200, 200}, 0)); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	now := time.Unix(1700000000, 0)
	store.SetClock(func() time.Time { return now })
	count := func(typ db.TxType) int64 {
		t.Helper()
		from := int64(0)
		n, err := store.CountTransactions(ctx, db.TxFilter{Type: typ, FromBlock: &from})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	invokes, declares := count("INVOKE"), count("DECLARE")
	if invokes < 1000 || declares >= 1000 {
		t.Fatalf("%d invokes and %d declares: the test wants one count above the threshold and one below", invokes, declares)
	}
	if err := writeRows(ctx, conn, blocksWithTxs(8, []int{200}, 0)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Second)
	if got := count("INVOKE"); got != invokes {
		t.Errorf("2 s later, the large count is %d, want the kept %d", got, invokes)
	}
	if got := count("DECLARE"); got <= declares {
		t.Errorf("the small count is %d after a block of declares, want more than %d", got, declares)
	}
	now = now.Add(10 * time.Second)
	if got := count("INVOKE"); got <= invokes {
		t.Errorf("12 s later, the large count is still %d", got)
	}
}
