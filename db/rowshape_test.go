package db

import (
	"reflect"
	"testing"
)

// The tags are the one description of a row: its columns in field order, each value as
// PostgreSQL takes it, and the select list that reads it back.
func TestRowShapeFromTags(t *testing.T) {
	type row struct {
		Key      Felt      `db:"key"`
		Count    int       `db:"count"`
		Small    *int16    `db:"small"`
		Note     string    `db:"note,nullempty"`
		Fee      string    `db:"fee,zeroempty"`
		Amount   string    `db:"amount,numeric"`
		Day      string    `db:"day,date"`
		Words    FeltArray `db:"words,emptyarray"`
		Maybe    FeltArray `db:"maybe"`
		Doc      JSON      `db:"doc"`
		TxHash   Felt      `db:"tx_hash,from=t.hash"`
		Stamp    int64     `db:"timestamp,from=t.timestamp"`
		Skipped  string    `db:"-"`
		Untagged int
	}
	s := rowShapeOf[row]()
	if want := []string{"key", "count", "small", "note", "fee", "amount", "day", "words", "maybe", "doc", "tx_hash", "timestamp"}; !reflect.DeepEqual(s.columns, want) {
		t.Errorf("columns = %v, want %v", s.columns, want)
	}
	// A from= column is read from a joined table: the row's own table has no such column.
	if want := []string{"key", "count", "small", "note", "fee", "amount", "day", "words", "maybe", "doc"}; !reflect.DeepEqual(s.written, want) {
		t.Errorf("written = %v, want %v", s.written, want)
	}
	if s != rowShapeOf[row]() {
		t.Errorf("the tags are read again for the same type")
	}

	seven := int16(7)
	got := rowValues([]row{
		{Key: Felt{1}, Count: 3, Small: &seven, Amount: "12", Day: "2026-01-02", Doc: JSON(`{"a":1}`)},
		{Note: "n", Fee: "5", Words: FeltArray{Felt{2}}, Maybe: FeltArray{}},
	})
	want := [][]any{
		{Felt{1}, int64(3), int64(7), nil, "0", "12", "2026-01-02", FeltArray{}, FeltArray(nil), `{"a":1}`},
		{Felt(nil), int64(0), nil, "n", "5", "", "", FeltArray{Felt{2}}, FeltArray{}, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values =\n%#v\nwant\n%#v", got, want)
	}

	if got, want := s.selectList("r"), "r.key, r.count, r.small, r.note, r.fee, r.amount::text AS amount, "+
		"to_char(r.day, 'YYYY-MM-DD') AS day, r.words, r.maybe, r.doc, t.hash AS tx_hash, t.timestamp"; got != want {
		t.Errorf("selectList = %s\nwant %s", got, want)
	}
}

// BenchmarkTransactionValues times the tag-driven values of a transaction row against the
// hand-written function they replaced (kept here as the baseline), in one run.
func BenchmarkTransactionValues(b *testing.B) {
	revert := "reverted"
	row := TransactionRow{BlockNumber: 1, TxIndex: 2, Hash: Felt{1}, Type: "INVOKE", Version: 3, Timestamp: 4,
		SenderAddress: Felt{2}, Nonce: "5", MaxFee: "6", ActualFee: "7",
		ActualFeeUnit: "FRI", ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2", RevertReason: &revert,
		Calldata: FeltArray{Felt{3}, Felt{4}}, Signature: FeltArray{Felt{5}}, EventCount: 2}
	handWritten := func(t *TransactionRow) []any {
		var revert any
		if t.RevertReason != nil {
			revert = *t.RevertReason
		}
		calldata, signature := t.Calldata, t.Signature
		if calldata == nil {
			calldata = FeltArray{}
		}
		if signature == nil {
			signature = FeltArray{}
		}
		return []any{t.BlockNumber, int64(t.TxIndex), t.Hash, t.Type, int64(t.Version), t.Timestamp,
			t.SenderAddress, t.ContractAddress, t.ClassHash, t.EntryPointSelector, text(t.Nonce), text(t.MaxFee), text(t.Tip),
			t.ActualFee, t.ActualFeeUnit, t.ExecutionStatus, t.FinalityStatus,
			revert, calldata, t.ConstructorCalldata, signature, t.CompiledClassHash,
			t.ContractAddressSalt, t.PaymasterData, t.AccountDeploymentData, text(t.NonceDAMode), text(t.FeeDAMode),
			t.MessageHash, t.L1TransactionHash, int64(t.EventCount), t.PartialCallsParsing,
			text(t.MaxL1Gas), text(t.MaxL1GasPrice), text(t.MaxL2Gas), text(t.MaxL2GasPrice), text(t.MaxL1DataGas),
			text(t.MaxL1DataGasPrice), text(t.L1GasUsed), text(t.L2GasUsed), text(t.L1DataGasUsed)}
	}
	if got, want := rowValues([]TransactionRow{row})[0], handWritten(&row); !reflect.DeepEqual(got, want) {
		b.Fatalf("tag-driven values differ from the hand-written ones:\n%#v\n%#v", got, want)
	}
	rows := []TransactionRow{row}
	b.Run("tags", func(b *testing.B) {
		for b.Loop() {
			rowValues(rows)
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		for b.Loop() {
			handWritten(&row)
		}
	})
}
