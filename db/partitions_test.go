package db_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// partitionedRows are the rows of one block with one transaction that made a call, an event and
// a token transfer: a row in each partitioned table.
func partitionedRows(n int64) *db.ChainRows {
	hash := db.FeltFromUint64(uint64(0xb000 + n))
	return &db.ChainRows{
		Blocks: []db.BlockRow{{Number: n, Hash: hash, ParentHash: db.FeltFromUint64(uint64(0xb000 + n - 1)),
			Timestamp: 1700000000 + n, Status: "ACCEPTED_ON_L2"}},
		Transactions: []db.TransactionRow{{BlockNumber: n, Hash: db.FeltFromUint64(uint64(0x7000 + n)), Type: "INVOKE",
			Version: 3, Timestamp: 1700000000 + n, ActualFee: "1", ActualFeeUnit: "FRI",
			ExecutionStatus: "SUCCEEDED", FinalityStatus: "ACCEPTED_ON_L2"}},
		Calls:  []db.CallRow{{BlockNumber: n, ContractAddress: db.FeltFromUint64(5), Selector: db.FeltFromUint64(6)}},
		Events: []db.EventRow{{BlockNumber: n, FromAddress: db.FeltFromUint64(5), Keys: db.FeltArray{db.FeltFromUint64(7)}}},
		TokenTransfers: []db.TokenTransfer{{BlockNumber: n, TokenAddress: db.FeltFromUint64(5), FromAddress: db.FeltFromUint64(8),
			ToAddress: db.FeltFromUint64(9), Amount: "10", TransactionHash: db.FeltFromUint64(uint64(0x7000 + n))}},
	}
}

func writeRows(ctx context.Context, conn *sqlx.DB, r *db.ChainRows) error {
	tx, err := db.BeginWrite(ctx, conn)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.InsertChainRows(ctx, tx, r); err != nil {
		return err
	}
	return tx.Commit()
}

// partitionsOf lists a table's partitions with their bounds, in order. (PostgreSQL quotes
// the bounds of a bigint block number, '10', and not those of an integer one.)
func partitionsOf(t *testing.T, conn *sqlx.DB, table string) []string {
	t.Helper()
	var parts []string
	if err := conn.Select(&parts, `SELECT c.relname || ' ' || replace(pg_get_expr(c.relpartbound, c.oid), '''', '')
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = $1::regclass ORDER BY c.relname`, table); err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(parts, func(a, b string) int { return len(a) - len(b) }) // events_10 after events_0, before events_100
	return parts
}

// The indexer's Cover makes each partitioned table's partitions one partition ahead of
// the block it is given, asks PostgreSQL nothing while that holds, and says when a block
// has no partition and none could be made; rows land in their block's partition.
func TestPartitionsAreMadeAhead(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	dbtest.ShortPartitions(t, conn, 10)
	if err := writeRows(ctx, conn, partitionedRows(3)); err == nil || !strings.Contains(err.Error(), "no partition") {
		t.Fatalf("a block without a partition was written, or failed otherwise: %v", err)
	}

	var p db.Partitions
	if err := p.Cover(ctx, conn, 3, 3); err != nil {
		t.Fatal(err)
	}
	for _, table := range db.PartitionedTables {
		want := []string{
			table + "_0 FOR VALUES FROM (0) TO (10)",
			table + "_10 FOR VALUES FROM (10) TO (20)",
		}
		if got := partitionsOf(t, conn, table); !slices.Equal(got, want) {
			t.Fatalf("after Cover(3): %q, want %q", got, want)
		}
	}

	// Within what it made, Cover does not ask PostgreSQL: a closed pool does not matter.
	unreachable, err := sqlx.Open("postgres", "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Cover(ctx, unreachable, 9, 9); err != nil {
		t.Fatalf("Cover(9) went to the database: %v", err)
	}
	// Past it, a block with a partition is written even when the next one cannot be made...
	if err := p.Cover(ctx, unreachable, 12, 12); err != nil {
		t.Fatalf("Cover(12), block 12 having a partition: %v", err)
	}
	// ...and a block without one is an error, which says what is wrong.
	if _, err := conn.Exec(`DELETE FROM block_partitioning`); err != nil {
		t.Fatal(err)
	}
	if err := new(db.Partitions).Cover(ctx, conn, 25, 25); err == nil || !strings.Contains(err.Error(), "INSERT INTO block_partitioning DEFAULT VALUES") {
		t.Fatalf("Cover without a partition length: %v", err)
	}
	if _, err := conn.Exec(`INSERT INTO block_partitioning (blocks_per_partition) VALUES (10)`); err != nil {
		t.Fatal(err)
	}
	if err := p.Cover(ctx, unreachable, 20, 20); err == nil || !strings.Contains(err.Error(), "partition for block 20") {
		t.Fatalf("Cover(20) without a database: %v", err)
	}

	if err := p.Cover(ctx, conn, 13, 33); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{3, 9, 10, 33} {
		if err := writeRows(ctx, conn, partitionedRows(n)); err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
	}
	// A second writer (another process) finds the partitions made and continues them.
	var again db.Partitions
	if err := again.Cover(ctx, conn, 41, 41); err != nil {
		t.Fatal(err)
	}
	for _, table := range db.PartitionedTables {
		var where []string
		if err := conn.Select(&where, `SELECT tableoid::regclass::text || ':' || block_number FROM `+table+` ORDER BY block_number`); err != nil {
			t.Fatal(err)
		}
		want := []string{table + "_0:3", table + "_0:9", table + "_10:10", table + "_30:33"}
		if !slices.Equal(where, want) {
			t.Errorf("%s rows in %q, want %q", table, where, want)
		}
		var names []string
		for _, part := range partitionsOf(t, conn, table) {
			names = append(names, strings.Fields(part)[0])
		}
		if want := []string{table + "_0", table + "_10", table + "_20", table + "_30", table + "_40", table + "_50"}; !slices.Equal(names, want) {
			t.Errorf("%s partitions %q, want %q", table, names, want)
		}
	}

	// Blocks skipped (an index from a block far up) get one partition for the gap.
	if err := again.Cover(ctx, conn, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	if got, want := partitionsOf(t, conn, "events")[6:], []string{
		"events_60 FOR VALUES FROM (60) TO (1230)",
		"events_1230 FOR VALUES FROM (1230) TO (1240)",
		"events_1240 FOR VALUES FROM (1240) TO (1250)",
	}; !slices.Equal(got, want) {
		t.Errorf("after Cover(1234): %q, want %q", got, want)
	}
}

// Rows of the partitioned tables in several partitions: each transaction is found by its hash
// through each partition's index, and the foreign keys hold across the partitions (a reorg's
// delete cascades into them). (Migrations 00028 and 00030, folded into the baseline, also
// partitioned tables that had rows; their test of that went with them.)
func TestPartitionedRowsAcrossPartitions(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	var p db.Partitions
	if err := p.Cover(ctx, conn, 0, 2_500_000); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{0, 1, 2_500_000} {
		if err := writeRows(ctx, conn, partitionedRows(n)); err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range db.PartitionedTables {
		var n int
		if err := conn.Get(&n, `SELECT count(*) FROM `+table); err != nil || n != 3 {
			t.Errorf("%s has %d rows (%v), want 3", table, n, err)
		}
	}
	// Each transaction is found by its hash.
	store := db.NewStore(conn)
	for _, n := range []int64{0, 1, 2_500_000} {
		hash := partitionedRows(n).Transactions[0].Hash
		if txs, blocks, err := store.TransactionsByHash(ctx, []db.Felt{hash}); err != nil || len(txs) != 1 || txs[0].BlockNumber != n ||
			len(blocks) != 1 || blocks[0].Number != n || !blocks[0].DetailsLoaded {
			t.Errorf("the transaction of block %d by its hash: %v %v %v", n, txs, blocks, err)
		}
	}
	p = db.Partitions{}
	if err := p.Cover(ctx, conn, 2_500_001, 2_500_001); err != nil {
		t.Fatal(err)
	}
	if err := writeRows(ctx, conn, partitionedRows(3_100_000)); err != nil {
		t.Fatal(err)
	}
	// The foreign keys hold across the partitions: a reorg's delete cascades into them.
	if _, err := conn.Exec(`DELETE FROM blocks WHERE number >= 1`); err != nil {
		t.Fatal(err)
	}
	for _, table := range db.PartitionedTables {
		var blocks []int64
		if err := conn.Select(&blocks, `SELECT block_number FROM `+table); err != nil || !slices.Equal(blocks, []int64{0}) {
			t.Errorf("%s after deleting blocks from 1 on: %v %v", table, blocks, err)
		}
	}
}

// The reads that join a partitioned table to a list of transaction or event keys plan
// only the partitions the keys are in, not every partition (each execution would open
// them all).
func TestKeyedReadsPlanTheirPartitionsOnly(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	dbtest.ShortPartitions(t, conn, 10)
	if err := new(db.Partitions).Cover(ctx, conn, 0, 60); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{3, 33} {
		if err := writeRows(ctx, conn, partitionedRows(n)); err != nil {
			t.Fatal(err)
		}
	}
	store := db.NewStore(conn)
	var query string
	var args []any
	// The read's first statement: the one that reads the partitions (a second one may
	// read the felts its rows name by id).
	store.OnQuery = func(q string, a []any) {
		if query == "" {
			query, args = q, a
		}
	}
	keys := []db.TxKey{{Block: 33, Index: 0}}
	for name, read := range map[string]func() (int, error){
		"CallsByTx": func() (int, error) { r, err := store.CallsByTx(ctx, keys); return len(r), err },
		"EventsOfTxs": func() (int, error) {
			r, err := store.EventsOfTxs(ctx, keys, 10, 0)
			return len(r), err
		},
		"EventsByKey": func() (int, error) {
			r, err := store.EventsByKey(ctx, []db.EventKey{{Block: 33}})
			return len(r), err
		},
		"TransfersOfTxs":    func() (int, error) { r, err := store.TransfersOfTxs(ctx, keys); return len(r), err },
		"TransactionsByKey": func() (int, error) { r, err := store.TransactionsByKey(ctx, keys); return len(r), err },
		"TransactionsOfBlocks": func() (int, error) {
			r, err := store.TransactionsOfBlocks(ctx, []int64{33}, 10, 0)
			return len(r), err
		},
	} {
		query = ""
		if n, err := read(); err != nil || n != 1 {
			t.Fatalf("%s: %d rows, %v", name, n, err)
		}
		// Planned for its arguments, and as the generic plan the API runs, which prunes when
		// the statement starts.
		for _, generic := range []bool{false, true} {
			plan, err := dbtest.Explain(conn, query, args, generic)
			if err != nil {
				t.Fatal(err)
			}
			// Of each table it reads, the partition of block 33 alone.
			var planned []string
			only := true
			for _, table := range db.PartitionedTables {
				parts := regexp.MustCompile(`"Relation Name": "(`+table+`_\d+)"`).FindAllStringSubmatch(string(plan), -1)
				for _, m := range parts {
					planned = append(planned, m[1])
					only = only && len(parts) == 1 && strings.HasSuffix(m[1], "_30")
				}
			}
			if len(planned) == 0 || !only {
				t.Errorf("%s plans partitions %q (generic plan: %v), want only those of block 33", name, planned, generic)
			}
		}
	}
}

// A transaction looked up by its hash (db.Store.TransactionsByHash) probes each partition's
// index of hash prefixes, transactions_hash (migration 00049), and reads its one row: no
// other row is fetched, as reading a partition whole would.
func TestHashLookupProbesEachPartitionsIndex(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	dbtest.ShortPartitions(t, conn, 10)
	if err := new(db.Partitions).Cover(ctx, conn, 0, 60); err != nil {
		t.Fatal(err)
	}
	// Enough transactions that reading a partition whole costs more than a probe, as it
	// does on any real chain: 200 in each of blocks 0 to 59.
	rows := &db.ChainRows{}
	for n := int64(0); n < 60; n++ {
		rows.Blocks = append(rows.Blocks, partitionedRows(n).Blocks...)
		for i := 0; i < 200; i++ {
			tx := partitionedRows(n).Transactions[0]
			tx.TxIndex, tx.Hash = i, db.FeltFromUint64(uint64(n<<32|int64(i)))
			rows.Transactions = append(rows.Transactions, tx)
		}
	}
	if err := writeRows(ctx, conn, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`ANALYZE transactions`); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	var query string
	var args []any
	store.OnQuery = func(q string, a []any) { query, args = q, a }
	if txs, _, err := store.TransactionsByHash(ctx, []db.Felt{db.FeltFromUint64(33<<32 | 7)}); err != nil || len(txs) != 1 || txs[0].BlockNumber != 33 || txs[0].Index != 7 {
		t.Fatalf("%v, %v", txs, err)
	}
	plan, err := dbtest.ExplainAnalyze(conn, query, args)
	if err != nil {
		t.Fatal(err)
	}
	var root []struct{ Plan explainedNode }
	if err := json.Unmarshal(plan, &root); err != nil {
		t.Fatal(err)
	}
	fetched, probed := 0, 0
	var walk func(n explainedNode)
	walk = func(n explainedNode) {
		if strings.HasPrefix(n.Relation, "transactions_") && n.Loops > 0 {
			fetched += n.Rows + n.RemovedByFilter + n.RemovedByRecheck // an empty partition is read whole: 0
		}
		if strings.HasPrefix(n.Index, "transactions_") && strings.HasSuffix(n.Index, "_substring_idx") && n.Loops > 0 {
			probed++
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(root[0].Plan)
	if fetched != 1 || probed == 0 {
		t.Errorf("the lookup by hash fetched %d rows of transactions through %d probes of transactions_hash, want 1 row:\n%s", fetched, probed, plan)
	}
}

type explainedNode struct {
	NodeType         string          `json:"Node Type"`
	Relation         string          `json:"Relation Name"`
	Index            string          `json:"Index Name"`
	Loops            int             `json:"Actual Loops"`
	Rows             int             `json:"Actual Rows"`
	RemovedByFilter  int             `json:"Rows Removed by Filter"`
	RemovedByRecheck int             `json:"Rows Removed by Index Recheck"`
	Plans            []explainedNode `json:"Plans"`
}

// The block number of transactions, events and token_transfers is an integer (migration
// 00054, folded into the baseline), in the parents and in every partition, those made after
// the migration included; rows of two partitions read back through the views.
func TestBlockNumbersAreIntegers(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	dbtest.ShortPartitions(t, conn, 10)
	var p db.Partitions
	if err := p.Cover(ctx, conn, 15, 15); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{3, 15} {
		if err := writeRows(ctx, conn, partitionedRows(n)); err != nil {
			t.Fatal(err)
		}
	}
	retyped := []string{"transactions", "events", "token_transfers"}
	types := func() []string {
		t.Helper()
		var got []string
		if err := conn.SelectContext(ctx, &got, `SELECT DISTINCT format_type(a.atttypid, a.atttypmod)
			FROM unnest($1::text[]) n, pg_partition_tree(n::regclass) p
			JOIN pg_attribute a ON a.attrelid = p.relid AND a.attname = 'block_number'`, pq.StringArray(retyped)); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := types(); !slices.Equal(got, []string{"integer"}) {
		t.Errorf("block numbers of %v: %q, want integer", retyped, got)
	}
	var rows []string
	if err := conn.SelectContext(ctx, &rows, `SELECT format('%s/%s %s', t.block_number, t.tx_index, t.hash)
		FROM transactions_named t JOIN events_named e USING (block_number, tx_index)
		JOIN token_transfers_named x USING (block_number, tx_index) ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows, "|"); !strings.Contains(got, "3/0") || !strings.Contains(got, "15/0") {
		t.Fatalf("rows of blocks 3 and 15 in both partitions: %q", got)
	}
	// A partition made later takes the parent's type.
	if err := p.Cover(ctx, conn, 35, 35); err != nil {
		t.Fatal(err)
	}
	if got := types(); !slices.Equal(got, []string{"integer"}) {
		t.Errorf("with a new partition, block numbers: %q, want integer", got)
	}
}

// A transaction's execution and finality statuses are enums (migration 00055, folded into the
// baseline): the store reads back the labels it wrote.
func TestTransactionStatusesAreEnums(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	rows := partitionedRows(1)
	reverted := rows.Transactions[0]
	reverted.TxIndex, reverted.Hash, reverted.ExecutionStatus, reverted.FinalityStatus = 1, db.FeltFromUint64(0x7a01), "REVERTED", "ACCEPTED_ON_L1"
	rows.Transactions = append(rows.Transactions, reverted)
	if err := writeRows(ctx, conn, rows); err != nil {
		t.Fatal(err)
	}
	want := "0 SUCCEEDED ACCEPTED_ON_L2|1 REVERTED ACCEPTED_ON_L1"
	stored := func(when string, wantTypes ...string) {
		t.Helper()
		var got []string
		if err := conn.SelectContext(ctx, &got, `SELECT format('%s %s %s', tx_index, execution_status, finality_status)
			FROM transactions ORDER BY tx_index`); err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(got, "|"); s != want {
			t.Errorf("%s: %s, want %s", when, s, want)
		}
		var types []string
		if err := conn.SelectContext(ctx, &types, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
			WHERE attrelid = 'transactions'::regclass AND attname IN ('execution_status', 'finality_status') ORDER BY attname`); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(types, wantTypes) {
			t.Errorf("%s: the statuses are of types %q, want %q", when, types, wantTypes)
		}
	}
	enums := []string{"tx_execution_status", "tx_finality_status"}
	stored("written", enums...)
	txs, _, err := db.NewStore(conn).TransactionsByHash(ctx, []db.Felt{reverted.Hash})
	if err != nil || len(txs) != 1 || txs[0].RawExecutionStatus != "REVERTED" || txs[0].RawFinalityStatus != "ACCEPTED_ON_L1" {
		t.Errorf("the reverted transaction read back: %+v, %v", txs, err)
	}
}
