package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// blockRows are the chain rows of one block: one transaction with a call and two events.
func blockRows(n int64) *db.ChainRows {
	felt := db.FeltFromUint64(uint64(100 + n))
	return &db.ChainRows{
		Blocks: []db.BlockRow{{Number: n, Hash: felt, ParentHash: db.FeltFromUint64(uint64(99 + n)), Timestamp: 1700000000 + n,
			Status: "ACCEPTED_ON_L2"}},
		Transactions: []db.TransactionRow{{BlockNumber: n, Hash: felt, Type: "INVOKE", Timestamp: 1700000000 + n,
			SenderAddress: felt, ActualFee: "1", ActualFeeUnit: "FRI", ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2"}},
		Calls: []db.CallRow{{BlockNumber: n, ContractAddress: felt, Selector: felt}},
		Events: []db.EventRow{
			{BlockNumber: n, EventIndex: 0, FromAddress: felt, Keys: db.FeltArray{felt}},
			{BlockNumber: n, EventIndex: 1, FromAddress: felt, Keys: db.FeltArray{felt}},
		},
	}
}

// writeBeside writes rows as a bulk load's batch does, the beside part committed first,
// and the batch's own transaction committed only when commitOwn is set (else, as if the
// process ended between the two commits).
func writeBeside(t *testing.T, conn *sqlx.DB, rows *db.ChainRows, commitOwn bool) error {
	t.Helper()
	ctx := context.Background()
	own, err := db.BeginWrite(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer own.Rollback()
	beside, err := db.BeginBeside(ctx, conn, false)
	if err != nil {
		t.Fatal(err)
	}
	defer beside.Rollback()
	if err := db.InsertChainRowsBeside(ctx, own, beside, rows); err != nil {
		return err
	}
	if err := beside.Commit(); err != nil {
		return err
	}
	if commitOwn {
		return own.Commit()
	}
	return nil
}

func countWhere(t *testing.T, conn *sqlx.DB, table string, block int64) int {
	t.Helper()
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM `+table+` WHERE block_number = $1`, block); err != nil {
		t.Fatal(err)
	}
	return n
}

// A batch written beside writes the same rows as one transaction; rows that a batch left
// beside when its own transaction did not commit are replaced by the next attempt at the
// block, and removed before the foreign keys are checked again.
func TestRowsWrittenBeside(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := writeBeside(t, conn, blockRows(1), true); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int{"transactions": 1, "calls": 1, "events": 2} {
		if got := countWhere(t, conn, table, 1); got != want {
			t.Errorf("block 1: %d rows in %s, want %d", got, table, want)
		}
	}

	// Block 2: the process "ends" between the two commits, twice, then the write goes through.
	for range 2 {
		if err := writeBeside(t, conn, blockRows(2), false); err != nil {
			t.Fatalf("an attempt after rows were left beside: %v", err)
		}
		if got := countWhere(t, conn, "events", 2); got != 2 {
			t.Fatalf("left beside: %d events of block 2, want the 2 of one attempt", got)
		}
		if got := countWhere(t, conn, "transactions", 2); got != 0 {
			t.Fatalf("%d transactions of block 2 without its own commit", got)
		}
	}
	if err := writeBeside(t, conn, blockRows(2), true); err != nil {
		t.Fatal(err)
	}
	if got := countWhere(t, conn, "events", 2); got != 2 {
		t.Errorf("%d events of block 2 after it was written, want 2", got)
	}

	// Block 3 left beside, then the load ends: the foreign keys come back without them.
	if err := writeBeside(t, conn, blockRows(3), false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RestoreConstraints(ctx, conn); err != nil {
		t.Fatalf("restoring the constraints over rows left beside: %v", err)
	}
	for _, table := range []string{"calls", "events"} {
		if got := countWhere(t, conn, table, 3); got != 0 {
			t.Errorf("%d rows of block 3 left in %s after the constraints came back", got, table)
		}
		if got := countWhere(t, conn, table, 2); got == 0 {
			t.Errorf("the rows of block 2 in %s were removed with those left above the head", table)
		}
	}
}

// A row PostgreSQL refuses beside fails the batch at the beside commit, with its table
// named; both transactions then roll back cleanly (their connections still speak the
// protocol) and leave nothing of the batch.
func TestAFailureBesideFailsTheBatch(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	rows := blockRows(1)
	rows.Events[1].EventIndex = 0 // the same key twice
	own, err := db.BeginWrite(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	beside, err := db.BeginBeside(ctx, conn, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.InsertChainRowsBeside(ctx, own, beside, rows); err != nil {
		t.Fatalf("the batch's own rows: %v", err)
	}
	if err := beside.Commit(); err == nil || !strings.Contains(err.Error(), "copy events") {
		t.Fatalf("a duplicate event beside: %v, want an error naming events", err)
	}
	if err := beside.Rollback(); err != nil {
		t.Errorf("rolling back beside after its COPY failed: %v", err)
	}
	if err := own.Rollback(); err != nil {
		t.Errorf("rolling back the batch's own transaction: %v", err)
	}
	for _, table := range []string{"transactions", "calls", "events"} {
		if got := countWhere(t, conn, table, 1); got != 0 {
			t.Errorf("%d rows of the failed batch in %s", got, table)
		}
	}
}
