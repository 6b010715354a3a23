package db_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/starknet"
)

// TestBulkLoadKeepsTheListedIndexes: every index a bulk load is meant to keep exists (a
// renamed index would silently be dropped and rebuilt instead), and deferring the
// constraints drops every other secondary index of those tables, the ones led by an
// account among them.
func TestBulkLoadKeepsTheListedIndexes(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	var all []string
	if err := conn.SelectContext(ctx, &all, `SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`); err != nil {
		t.Fatal(err)
	}
	for _, name := range db.KeptWhileBulkLoading {
		if !slices.Contains(all, name) {
			t.Errorf("index %s is listed as kept through a bulk load but does not exist", name)
		}
	}
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var left []string
	if err := conn.SelectContext(ctx, &left, `SELECT i.relname FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
		WHERE t.relnamespace = 'public'::regnamespace AND NOT x.indisunique AND NOT x.indisprimary
		  AND t.relname IN (SELECT table_name FROM deferred_constraints) -- each has a foreign key
		  AND t.relname = ANY($1)
		ORDER BY 1`, pq.StringArray(db.BulkTables())); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(db.KeptWhileBulkLoading)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("secondary indexes left during a bulk load:\n got %q\nwant %q", left, want)
	}
	for _, rebuilt := range []string{"transactions_sender", "token_transfers_from", "token_transfers_to"} {
		if slices.Contains(left, rebuilt) {
			t.Errorf("%s leads with an account and should be rebuilt, not kept", rebuilt)
		}
	}
}

// TestRestoreFindsHashesAgain: a bulk load drops the index of transactions by hash, and
// the restore builds it again: a lookup by hash finds its transaction through it.
func TestRestoreFindsHashesAgain(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1, 2} {
		if err := writeRows(ctx, conn, partitionedRows(n)); err != nil {
			t.Fatal(err)
		}
	}
	var during int
	if err := conn.GetContext(ctx, &during, `SELECT count(*) FROM pg_indexes WHERE indexname = 'transactions_hash'`); err != nil || during != 0 {
		t.Fatalf("transactions_hash during a bulk load: %d (%v), want dropped", during, err)
	}
	if _, err := db.RestoreConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	hash := partitionedRows(2).Transactions[0].Hash
	if txs, _, err := store.TransactionsByHash(ctx, []db.Felt{hash}); err != nil || len(txs) != 1 || txs[0].BlockNumber != 2 {
		t.Errorf("the transaction of block 2 by its hash after the restore: %v, %v", txs, err)
	}
	var after int
	if err := conn.GetContext(ctx, &after, `SELECT count(*) FROM pg_indexes WHERE indexname = 'transactions_hash'`); err != nil || after != 1 {
		t.Errorf("transactions_hash after the restore: %d (%v), want it back", after, err)
	}
}

// A bulk load updates erc20_balances in place, and each update moves the balance's entries
// in the two orders (a token's holders, a wallet's tokens), leaving pages behind. Restoring
// after the load rebuilds both: at least halved here, where every balance changed 20 times.
func TestRestoreCompactsTheBalanceOrders(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if _, err := conn.ExecContext(ctx, `INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
		SELECT '\x01'::bytea, int4send(i), i, 0, 0 FROM generate_series(1, 2000) i`); err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 20; round++ {
		if _, err := conn.ExecContext(ctx, `UPDATE erc20_balances SET balance = balance + 1000 * $1::int,
			last_transfer_block = $1, last_transfer_time = $1`, round); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.ExecContext(ctx, `VACUUM erc20_balances`); err != nil {
		t.Fatal(err)
	}
	sizes := func() (holders, owners int64) {
		t.Helper()
		if err := conn.QueryRowContext(ctx, `SELECT pg_relation_size('erc20_balances_holders_order'),
			pg_relation_size('erc20_balances_owner_order')`).Scan(&holders, &owners); err != nil {
			t.Fatal(err)
		}
		return holders, owners
	}
	holders, owners := sizes()
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if _, err := db.RestoreConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if h, o := sizes(); h*2 > holders || o*2 > owners {
		t.Errorf("after the restore the holders' order takes %d bytes (%d before), the wallets' %d (%d before): want at most half", h, holders, o, owners)
	}
}

// TestBulkLoadUpdatesBalancesInPlace: while a bulk load runs, erc20_balances keeps only the
// indexes whose columns an update never changes, so a balance rewritten batch after batch
// is updated in place (HOT: no index touched), erc20_balance_changes has no primary key to
// insert into at random, and the holders' rank spans wait; once restored, the key (with
// its comment), the orders and the triggers are back and the spans count every holder.
func TestBulkLoadUpdatesBalancesInPlace(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.NewWithSpanRows(t, 4)
	token := db.FeltOf(starknet.FeltFromUint64(7))
	owners := make([]db.Felt, 40)
	for i := range owners {
		owners[i] = db.FeltOf(starknet.FeltFromUint64(uint64(1000 + i)))
	}
	write := func(round int64) {
		t.Helper()
		tx, err := conn.BeginTxx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		rows := make([]db.TokenBalance, len(owners))
		for i, o := range owners {
			rows[i] = db.TokenBalance{TokenAddress: token, OwnerAddress: o, Balance: fmt.Sprint(int64(i+1) * round),
				LastTransferBlock: round, LastTransferTime: 1700000000 + round}
		}
		if err := db.UpsertERC20Balances(ctx, tx, rows); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	write(1)
	if _, err := db.DeferConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	var left []string
	if err := conn.SelectContext(ctx, &left, `SELECT indexname FROM pg_indexes
		WHERE tablename IN ('erc20_balances', 'erc20_balance_changes') ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if want := []string{"erc20_balance_changes_block", "erc20_balances_owner", "erc20_balances_pkey"}; !slices.Equal(left, want) {
		t.Errorf("indexes of the balance tables during a bulk load: %q, want %q", left, want)
	}
	var hotBefore int64
	if err := conn.GetContext(ctx, &hotBefore, `SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'erc20_balances'`); err != nil {
		t.Fatal(err)
	}
	for round := int64(2); round <= 6; round++ {
		write(round)
	}
	// The statistics collector reports at the end of each transaction, a moment later.
	var hot, updated int64
	for range 50 {
		if _, err := conn.ExecContext(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, `SELECT n_tup_hot_upd, n_tup_upd FROM pg_stat_user_tables WHERE relname = 'erc20_balances'`).
			Scan(&hot, &updated); err != nil {
			t.Fatal(err)
		}
		if updated >= 5*int64(len(owners)) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if hot-hotBefore < 4*int64(len(owners)) {
		t.Errorf("%d of the bulk load's %d balance updates were HOT, want nearly all", hot-hotBefore, 5*len(owners))
	}
	if _, err := db.RestoreConstraints(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := conn.SelectContext(ctx, &left, `SELECT indexname FROM pg_indexes
		WHERE tablename IN ('erc20_balances', 'erc20_balance_changes') ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if want := []string{"erc20_balance_changes_block", "erc20_balance_changes_pkey", "erc20_balances_holders_order",
		"erc20_balances_owner", "erc20_balances_owner_order", "erc20_balances_pkey"}; !slices.Equal(left, want) {
		t.Errorf("indexes of the balance tables after the bulk load: %q, want %q", left, want)
	}
	var comment, disabled string
	if err := conn.GetContext(ctx, &comment, `SELECT coalesce(obj_description('erc20_balance_changes_pkey'::regclass, 'pg_class'), '')`); err != nil || comment == "" {
		t.Errorf("the primary key of erc20_balance_changes came back without its comment (%v)", err)
	}
	if err := conn.GetContext(ctx, &disabled, `SELECT coalesce(string_agg(tgname, ', '), '') FROM pg_trigger
		WHERE tgrelid = 'erc20_balances'::regclass AND tgenabled = 'D'`); err != nil || disabled != "" {
		t.Errorf("triggers of erc20_balances still off after the bulk load: %q (%v)", disabled, err)
	}
	if wrong := dbtest.RankSpansWrong(t, conn); len(wrong) > 0 {
		t.Errorf("rank spans after the bulk load:\n%s", wrong)
	}
	var spans int
	if err := conn.GetContext(ctx, &spans, `SELECT count(*) FROM rank_spans WHERE list = 1`); err != nil || spans < 40/8 {
		t.Errorf("%d spans for 40 holders cut at 4 (%v): the recount was not cut", spans, err)
	}
	// Written through the triggers again, the spans follow.
	write(7)
	if wrong := dbtest.RankSpansWrong(t, conn); len(wrong) > 0 {
		t.Errorf("rank spans after a write following the bulk load:\n%s", wrong)
	}
}
