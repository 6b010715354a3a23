package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// packedRows are rows with felt lists of every shape: empty, NULL (where the column takes
// it), zero felts, full-width felts and a long list.
func packedRows() *db.ChainRows {
	full := db.MustFelt("0x" + strings.Repeat("7", 63))
	long := make(db.FeltArray, 300)
	for i := range long {
		long[i] = db.FeltFromUint64(uint64(i * 977))
	}
	return &db.ChainRows{
		Blocks: []db.BlockRow{{Number: 1, Hash: db.FeltFromUint64(0xb1), ParentHash: db.FeltFromUint64(0xb0), Timestamp: 1700000000,
			Status: "ACCEPTED_ON_L2"}},
		Transactions: []db.TransactionRow{
			{BlockNumber: 1, TxIndex: 0, Hash: db.FeltFromUint64(0x70), Type: "INVOKE", Version: 3, Timestamp: 1700000000,
				ActualFee: "1", ActualFeeUnit: "FRI", ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2",
				Calldata: db.FeltArray{full, db.FeltFromUint64(0), db.FeltFromUint64(1)}, Signature: db.FeltArray{full, full},
				PaymasterData: db.FeltArray{}, AccountDeploymentData: db.FeltArray{db.FeltFromUint64(0)}},
			{BlockNumber: 1, TxIndex: 1, Hash: db.FeltFromUint64(0x71), Type: "DEPLOY_ACCOUNT", Version: 1, Timestamp: 1700000000,
				ActualFee: "1", ActualFeeUnit: "WEI", ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2",
				ConstructorCalldata: long},
		},
		Calls: []db.CallRow{
			{BlockNumber: 1, TxIndex: 0, CallIndex: 0, ContractAddress: full, Selector: full, Calldata: db.FeltArray{db.FeltFromUint64(0x100)}},
			// An empty list of its own, not NULL: NULL is a call stored as a position in its
			// transaction's calldata (00043), which a down migration turns back into a list.
			{BlockNumber: 1, TxIndex: 0, CallIndex: 1, ContractAddress: full, Selector: full, Calldata: db.FeltArray{}},
		},
		Events: []db.EventRow{
			{BlockNumber: 1, TxIndex: 0, EventIndex: 0, FromAddress: full, Keys: db.FeltArray{full, db.FeltFromUint64(2)}, Data: long},
			{BlockNumber: 1, TxIndex: 0, EventIndex: 1, FromAddress: full, Keys: nil, Data: db.FeltArray{db.FeltFromUint64(0)}},
		},
		Messages: []db.Message{
			{BlockNumber: 1, TxIndex: 0, Direction: 1, Index: 0, Hash: full, FromAddress: full, ToAddress: db.FeltFromUint64(0xe7),
				L2Address: full, Payload: db.FeltArray{db.FeltFromUint64(5), full}, TransactionHash: db.FeltFromUint64(0x70), Timestamp: 1700000000},
			{BlockNumber: 1, TxIndex: 0, Direction: 1, Index: 1, Hash: full, FromAddress: full, ToAddress: db.FeltFromUint64(0xe7),
				L2Address: full, Payload: nil, TransactionHash: db.FeltFromUint64(0x70), Timestamp: 1700000000},
		},
	}
}

// feltLists reads every felt-list column of the written rows, by table, column and row, as
// the Go readers do (db.FeltArray), rendered so that NULL and the empty list differ.
var feltListColumns = []struct{ table, order, column string }{
	{"transactions", "block_number, tx_index", "calldata"},
	{"transactions", "block_number, tx_index", "constructor_calldata"},
	{"transactions", "block_number, tx_index", "signature"},
	{"transactions", "block_number, tx_index", "paymaster_data"},
	{"transactions", "block_number, tx_index", "account_deployment_data"},
	{"calls", "block_number, tx_index, call_index", "calldata"},
	{"events_named", "block_number, tx_index, event_index", "keys"}, // the first key and keys_tail (00050)
	{"events", "block_number, tx_index, event_index", "data"},
	{"messages", "block_number, tx_index, direction, msg_index", "payload"},
}

func showList(a db.FeltArray) string {
	if a == nil {
		return "NULL"
	}
	parts := make([]string, len(a))
	for i, f := range a {
		parts[i] = f.Hex()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func feltLists(t *testing.T, conn *sqlx.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, c := range feltListColumns {
		var lists []db.FeltArray
		if err := conn.Select(&lists, `SELECT `+c.column+` FROM `+c.table+` ORDER BY `+c.order); err != nil {
			t.Fatalf("%s.%s: %v", c.table, c.column, err)
		}
		for _, l := range lists {
			out[c.table+"."+c.column] = append(out[c.table+"."+c.column], showList(l))
		}
	}
	return out
}

// wantLists is what feltLists must read back from packedRows: a nil list is NULL where the
// column is nullable, and the empty list where it is NOT NULL (rowshape's emptyarray).
func wantLists() map[string][]string {
	r := packedRows()
	orEmpty := func(a db.FeltArray) string {
		if a == nil {
			a = db.FeltArray{}
		}
		return showList(a)
	}
	want := map[string][]string{}
	add := func(col, v string) { want[col] = append(want[col], v) }
	for _, x := range r.Transactions {
		add("transactions.calldata", orEmpty(x.Calldata))
		add("transactions.constructor_calldata", showList(x.ConstructorCalldata))
		add("transactions.signature", orEmpty(x.Signature))
		add("transactions.paymaster_data", showList(x.PaymasterData))
		add("transactions.account_deployment_data", showList(x.AccountDeploymentData))
	}
	for _, x := range r.Calls {
		add("calls.calldata", showList(x.Calldata)) // nullable: NULL when the call is a position in its transaction's calldata (00043)
	}
	for _, x := range r.Events {
		add("events_named.keys", orEmpty(x.Keys))
		add("events.data", orEmpty(x.Data))
	}
	for _, x := range r.Messages {
		add("messages.payload", orEmpty(x.Payload))
	}
	return want
}

func sameLists(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	for _, c := range feltListColumns {
		k := c.table + "." + c.column
		if g, w := strings.Join(got[k], "\n"), strings.Join(want[k], "\n"); g != w {
			t.Errorf("%s: %s reads\n%s\nwant\n%s", what, k, g, w)
		}
	}
}

// The indexer writes felt lists with COPY (InsertChainRows, the bulk load's and the tail's
// path) or with one INSERT per row (InsertChainRowsOneByOne): both store the packed form,
// and the readers get back exactly the lists written, NULL and empty apart; the store's
// own reads (a transaction by hash) too.
func TestFeltListsReadBackFromCopyAndInsert(t *testing.T) {
	ctx := context.Background()
	for name, insert := range map[string]func(context.Context, *db.WriteTx, *db.ChainRows) error{
		"COPY": db.InsertChainRows, "INSERT": db.InsertChainRowsOneByOne,
	} {
		conn := dbtest.New(t)
		tx, err := db.BeginWrite(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		if err := insert(ctx, tx, packedRows()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		sameLists(t, name, feltLists(t, conn), wantLists())

		// One length byte per felt and the felt's bytes: the stored size is known exactly.
		var size, want int
		if err := conn.Get(&size, `SELECT length(data) FROM events WHERE event_index = 0`); err != nil {
			t.Fatal(err)
		}
		for _, f := range packedRows().Events[0].Data {
			want += 1 + len(f)
		}
		if size != want {
			t.Errorf("%s: events.data holds %d bytes, want %d", name, size, want)
		}
		// SQL reads the same felts.
		var first db.Felt
		var count int
		if err := conn.QueryRow(`SELECT felts_at(keys, 1), felts_count(data) FROM events_named WHERE event_index = 0`).Scan(&first, &count); err != nil ||
			!first.Equal(packedRows().Events[0].Keys[0]) || count != 300 {
			t.Errorf("%s: felts_at(keys, 1) = %x, felts_count(data) = %d (%v)", name, []byte(first), count, err)
		}
		txs, _, err := db.NewStore(conn).TransactionsByHash(ctx, []db.Felt{db.FeltFromUint64(0x70)})
		if err != nil || len(txs) != 1 || showList(txs[0].Calldata) != showList(packedRows().Transactions[0].Calldata) ||
			txs[0].ConstructorCalldata != nil || txs[0].PaymasterData == nil || len(txs[0].PaymasterData) != 0 {
			t.Errorf("%s: the transaction by hash: %+v %v", name, txs, err)
		}
	}
}

// Felt lists are packed bytea (migration 00040, folded into the baseline): no bytea[] column
// is left, the lists read as written, and NOT NULL columns default to the empty list. (The
// migration's test that it packed the arrays of a database with rows, and its down
// unpacked them, went with it.)
func TestPackedFeltsLeaveNoArrays(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, packedRows()); err != nil {
		t.Fatal(err)
	}
	arrayColumns := func() []string {
		var cols []string
		if err := conn.Select(&cols, `SELECT c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
			  AND a.atttypid = 'bytea[]'::regtype AND NOT a.attisdropped ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		return cols
	}
	if cols := arrayColumns(); len(cols) != 0 {
		t.Errorf("bytea[] columns left: %q", cols)
	}
	sameLists(t, "written", feltLists(t, conn), wantLists())
	var defaults []string
	if err := conn.Select(&defaults, `SELECT c.relname || '.' || a.attname || ' ' || pg_get_expr(d.adbin, d.adrelid)
		FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum JOIN pg_class c ON c.oid = d.adrelid
		WHERE c.relname IN ('transactions', 'calls', 'events', 'messages') AND a.atttypid = 'bytea'::regtype ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(defaults, ", "); got != `calls.calldata '\x'::bytea, events.data '\x'::bytea, events.keys_tail '\x'::bytea, `+
		`transactions.calldata '\x'::bytea, transactions.signature '\x'::bytea` {
		t.Errorf("defaults: %s", got)
	}
	// A row written with the defaults has empty lists, which read as such.
	if _, err := conn.Exec(`INSERT INTO events (block_number, tx_index, event_index, from_id) VALUES (1, 1, 0, felt_id('\x05'))`); err != nil {
		t.Fatal(err)
	}
	var keys db.FeltArray
	if err := conn.Get(&keys, `SELECT keys FROM events_named WHERE tx_index = 1`); err != nil || keys == nil || len(keys) != 0 {
		t.Errorf("a defaulted keys column reads %v (%v), want the empty list", showList(keys), err)
	}
}

// The SQL functions of migration 00040 read and write the form Go does.
func TestPackedFeltsSQLFunctionsAgreeWithGo(t *testing.T) {
	conn := dbtest.New(t)
	full := db.MustFelt("0x" + strings.Repeat("7", 63))
	for _, list := range []db.FeltArray{{}, {db.FeltFromUint64(0)}, {full, db.FeltFromUint64(1), db.FeltFromUint64(0), full}} {
		packed, err := list.Value()
		if err != nil {
			t.Fatal(err)
		}
		arr := make(pq.ByteaArray, len(list))
		for i, f := range list {
			arr[i] = f
		}
		var row struct {
			Packed   []byte        `db:"packed"`
			Unpacked pq.ByteaArray `db:"unpacked"`
			Count    int           `db:"count"`
			Second   db.Felt       `db:"second"`
			Past     db.Felt       `db:"past"`
		}
		if err := conn.Get(&row, `SELECT felts_pack($1::bytea[]) AS packed, felts_unpack($2) AS unpacked, felts_count($2) AS count,
			felts_at($2, 2) AS second, felts_at($2, $3) AS past`, arr, packed, len(list)+1); err != nil {
			t.Fatal(err)
		}
		if string(row.Packed) != string(packed.([]byte)) {
			t.Errorf("felts_pack(%x) = %x, Go packs %x", arr, row.Packed, packed)
		}
		if fmt.Sprintf("%x", row.Unpacked) != fmt.Sprintf("%x", arr) || row.Count != len(list) || row.Past != nil {
			t.Errorf("felts_unpack / felts_count / felts_at past the end of %x: %x %d %x", packed, row.Unpacked, row.Count, []byte(row.Past))
		}
		if len(list) >= 2 && !row.Second.Equal(list[1]) {
			t.Errorf("felts_at(%x, 2) = %x, want %x", packed, []byte(row.Second), []byte(list[1]))
		}
	}
	// Leading zeros are stripped; a felt of 33 bytes or bytes that are not a packed list are errors.
	var packed []byte
	if err := conn.Get(&packed, `SELECT felts_pack(ARRAY['\x0005'::bytea, NULL])`); err != nil || fmt.Sprintf("%x", packed) != "010500" {
		t.Errorf("felts_pack of a felt with a leading zero and a NULL: %x %v", packed, err)
	}
	for _, q := range []string{`SELECT felts_pack(ARRAY[decode(repeat('01', 33), 'hex')])`, `SELECT felts_unpack('\x21')`, `SELECT felts_unpack('\x0201')`} {
		if _, err := conn.Exec(q); err == nil {
			t.Errorf("%s: no error", q)
		}
	}
}
