package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// COPY's text format is encoded by hand (copy.go): the rows it writes must read back
// exactly as the same rows written with plain INSERTs through the driver, for every kind
// of value, and text that needs COPY's escapes or PostgreSQL's refusals cleaned.
func TestCopyWritesWhatInsertsWrite(t *testing.T) {
	awkward := "back\\slash\ttab\nnewline\rreturn \\N \\. nul\x00 bad\xff end"
	revert := awkward
	one := int16(1)
	felt := db.MustFelt("0x0123456789abcdef")
	rows := func() *db.ChainRows {
		return &db.ChainRows{
			Blocks: []db.BlockRow{{Number: 1, Hash: felt, ParentHash: db.FeltFromUint64(0), Timestamp: 1700000000,
				Status: "ACCEPTED_ON_L2", StarknetVersion: awkward, L1GasPriceWei: "123456789012345678901234567890", FeesWei: ""}},
			Transactions: []db.TransactionRow{
				{BlockNumber: 1, TxIndex: 0, Hash: db.FeltFromUint64(10), Type: "INVOKE", Version: 3, Timestamp: 1700000000,
					SenderAddress: felt, Nonce: "7", MaxL1Gas: "1", MaxL1GasPrice: "340282366920938463463374607431768211455",
					MaxL2Gas: "0", MaxL2GasPrice: "200000000000000", L1GasUsed: "0", L2GasUsed: "4751592", L1DataGasUsed: "409",
					ActualFee: "1", ActualFeeUnit: "FRI", ExecutionStatus: "REVERTED", FinalityStatus: "ACCEPTED_ON_L2",
					RevertReason: &revert, Calldata: db.FeltArray{felt, db.FeltFromUint64(0), db.FeltFromUint64(1)},
					Signature: nil, PaymasterData: db.FeltArray{}, PartialCallsParsing: true, EventCount: 2},
				{BlockNumber: 1, TxIndex: 1, Hash: db.FeltFromUint64(11), Type: "L1_HANDLER", Timestamp: 1700000000,
					ContractAddress: felt, ActualFee: "0", ActualFeeUnit: "WEI", ExecutionStatus: "SUCCEEDED",
					FinalityStatus: "ACCEPTED_ON_L2"},
			},
			Calls: []db.CallRow{{BlockNumber: 1, TxIndex: 0, CallIndex: 0, ContractAddress: felt, Selector: felt,
				Entrypoint: awkward, Calldata: db.FeltArray{felt}},
				{BlockNumber: 1, TxIndex: 0, CallIndex: 1, ContractAddress: felt, Selector: felt, CalldataOffset: &one, CalldataLength: &one}},
			Events: []db.EventRow{
				{BlockNumber: 1, TxIndex: 0, EventIndex: 0, FromAddress: felt, Keys: db.FeltArray{felt}, Data: nil},
				{BlockNumber: 1, TxIndex: 0, EventIndex: 1, FromAddress: felt, Keys: nil, Data: db.FeltArray{felt, felt}},
			},
		}
	}
	ctx := context.Background()
	write := func(conn *sqlx.DB, insert func(context.Context, *db.WriteTx, *db.ChainRows) error) {
		t.Helper()
		tx, err := db.BeginWrite(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if err := insert(ctx, tx, rows()); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	copied, inserted := dbtest.New(t), dbtest.New(t)
	write(copied, db.InsertChainRows)
	write(inserted, db.InsertChainRowsOneByOne)

	for _, table := range []string{"blocks", "transactions", "calls", "events"} {
		read := func(conn *sqlx.DB) []string {
			var out []string
			if err := conn.Select(&out, `SELECT to_jsonb(t)::text FROM `+table+` t ORDER BY 1`); err != nil {
				t.Fatal(err)
			}
			return out
		}
		got, want := read(copied), read(inserted)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s written with COPY:\n%s\nwith INSERT:\n%s", table, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(got) == 0 {
			t.Errorf("%s: no rows", table)
		}
	}
	// The escapes arrive as the text they stand for.
	var reason string
	if err := copied.Get(&reason, `SELECT revert_reason FROM transactions WHERE tx_index = 0`); err != nil {
		t.Fatal(err)
	}
	if want := "back\\slash\ttab\nnewline\rreturn \\N \\. nul bad\uFFFD end"; reason != want {
		t.Errorf("revert reason %q, want %q", reason, want)
	}
}

// A row PostgreSQL refuses inside a COPY fails the write with its table named, and the
// connection
// stays usable for the rollback.
func TestCopyErrorNamesItsTableAndRollsBack(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	tx, err := db.BeginWrite(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	rows := &db.ChainRows{
		Blocks: []db.BlockRow{{Number: 1, Hash: db.FeltFromUint64(1), ParentHash: db.FeltFromUint64(0), Status: "ACCEPTED_ON_L2"}},
		// No block 2: the foreign key refuses the transaction, inside the COPY.
		Transactions: []db.TransactionRow{{BlockNumber: 2, Hash: db.FeltFromUint64(5), Type: "INVOKE", ActualFee: "0",
			ActualFeeUnit: "WEI", ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2"}},
	}
	err = db.InsertChainRows(ctx, tx, rows)
	if err == nil || !strings.Contains(err.Error(), "copy transactions") {
		t.Fatalf("COPY of a row without its block: %v, want an error naming transactions", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM blocks`); err != nil || n != 0 {
		t.Errorf("after the rollback: %d blocks, %v", n, err)
	}
}
