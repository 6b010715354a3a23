package db_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// balanceRows are two blocks in which two owners' balances of one token change; the
// token's felt is written once with a leading zero byte, which the dictionary strips.
func balanceRows() *db.ChainRows {
	token, alice, bob := db.FeltFromUint64(0x70c), db.FeltFromUint64(0xa1), db.FeltFromUint64(0xb0b)
	return &db.ChainRows{
		Blocks: []db.BlockRow{
			{Number: 1, Hash: db.FeltFromUint64(0xb1), ParentHash: db.FeltFromUint64(0xb0), Timestamp: 1700000000, Status: "ACCEPTED_ON_L2"},
			{Number: 2, Hash: db.FeltFromUint64(0xb2), ParentHash: db.FeltFromUint64(0xb1), Timestamp: 1700000060, Status: "ACCEPTED_ON_L2"},
		},
		BalancePoints: []db.BalancePoint{
			{Token: append(db.Felt{0}, token...), Owner: alice, BlockNumber: 1, Balance: "100"},
			{Token: token, Owner: bob, BlockNumber: 1, Balance: "5"},
			{Token: token, Owner: alice, BlockNumber: 2, Balance: "40"},
		},
	}
}

// balancesSeen reads what the store answers about the rows of balanceRows.
func balancesSeen(t *testing.T, store *db.Store) string {
	t.Helper()
	ctx := context.Background()
	token, alice, bob := db.FeltFromUint64(0x70c), db.FeltFromUint64(0xa1), db.FeltFromUint64(0xb0b)
	history, err := store.BalanceHistory(ctx, token, alice, db.Window{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	out := "history"
	for _, p := range history {
		out += fmt.Sprintf(" %d:%s@%d", p.BlockNumber, p.Balance, p.Timestamp)
	}
	at, err := store.BalancesAt(ctx, []db.BalanceKey{{Token: string(token), Owner: string(alice), Block: 1},
		{Token: string(token), Owner: string(bob), Block: 2}, {Token: string(bob), Owner: string(alice), Block: 2}})
	if err != nil {
		t.Fatal(err)
	}
	out += " at"
	for _, b := range at {
		out += fmt.Sprintf(" %x/%x@%d=%s", []byte(b.Token), []byte(b.Owner), b.Block, b.Balance)
	}
	n, err := store.CountBalanceHistory(ctx, token, alice)
	if err != nil {
		t.Fatal(err)
	}
	first, ok, err := store.FirstBalanceChange(ctx, token, bob)
	if err != nil {
		t.Fatal(err)
	}
	return out + fmt.Sprintf(" count %d first %d %v", n, first, ok)
}

const wantBalancesSeen = "history 2:40@1700000060 1:100@1700000000 at 070c/a1@1=100 070c/0b0b@2=5 count 2 first 1700000000 true"

// A balance change names its token and owner by felt id (migration 00045): what the store
// reads is what was written, with the felt's leading zeros stripped.
func TestBalanceChangesByFeltID(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, balanceRows()); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	if got := balancesSeen(t, store); got != wantBalancesSeen {
		t.Errorf("read back:\n got %s\nwant %s", got, wantBalancesSeen)
	}
	var ids int
	if err := conn.Get(&ids, `SELECT count(*) FROM felt_ids`); err != nil || ids != 3 {
		t.Errorf("felt_ids holds %d felts (%v), want the token and two owners", ids, err)
	}
}

// Writers that meet the same felts at once (two caches, as two processes would hold)
// agree on one id per felt, and the SQL function felt_id gives the same.
func TestFeltIDsAreOnePerFelt(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	felts := make([]db.Felt, 200)
	for i := range felts {
		felts[i] = db.FeltFromUint64(uint64(1000 + i%150)) // 150 distinct, some twice
	}
	results := make([]map[string]int32, 4)
	var wg sync.WaitGroup
	for w := range results {
		wg.Go(func() {
			cache := db.NewFeltIDs()
			// Each writer meets them in its own order, in two batches.
			order := append(append([]db.Felt{}, felts[w*50:]...), felts[:w*50]...)
			for _, batch := range [][]db.Felt{order[:100], order} {
				ids, err := cache.IDs(ctx, conn, batch)
				if err != nil {
					t.Error(err)
					return
				}
				results[w] = ids
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var stored int
	if err := conn.Get(&stored, `SELECT count(*) FROM felt_ids`); err != nil || stored != 150 {
		t.Errorf("felt_ids holds %d rows (%v), want 150", stored, err)
	}
	for w, ids := range results {
		if len(ids) != 150 {
			t.Errorf("writer %d: %d ids, want 150", w, len(ids))
		}
		for k, id := range ids {
			var fromSQL int32
			if err := conn.Get(&fromSQL, `SELECT felt_id($1)`, []byte(k)); err != nil || fromSQL != id || id == 0 {
				t.Errorf("writer %d: felt %x has id %d, felt_id says %d (%v)", w, k, id, fromSQL, err)
			}
		}
	}
}

// An event's first key is stored once, as its felt id, and its other keys beside it
// (migration 00050): the store reads back each list whole (none, one, several keys; zero
// felts among them), events_named shows the packed list whole.
func TestEventKeysStoreTheFirstKeyOnce(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	rows := partitionedRows(1)
	keyLists := []db.FeltArray{
		{},
		{db.FeltFromUint64(0x5e1)},
		{db.FeltFromUint64(0x5e1), db.FeltFromUint64(0), db.FeltFromUint64(0xabcdef)},
		{db.FeltFromUint64(0), db.FeltFromUint64(0x5e1)},
	}
	rows.Events = nil
	for i, keys := range keyLists {
		rows.Events = append(rows.Events, db.EventRow{BlockNumber: 1, EventIndex: i, FromAddress: db.FeltFromUint64(5),
			Keys: keys, Data: db.FeltArray{db.FeltFromUint64(uint64(i))}})
	}
	if err := writeRows(ctx, conn, rows); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	seen := func(when string) {
		t.Helper()
		events, err := store.Events(ctx, db.EventsFilter{Tx: &db.TxKey{Block: 1}}, false, db.Window{Limit: 10})
		if err != nil || len(events) != len(keyLists) {
			t.Fatalf("%s: %d events, %v", when, len(events), err)
		}
		for i, e := range events {
			if fmt.Sprint(e.Keys) != fmt.Sprint(keyLists[i]) || len(e.Keys) != len(keyLists[i]) {
				t.Errorf("%s: event %d has keys %x, want %x", when, i, e.Keys, keyLists[i])
			}
		}
		var named [][]byte
		if err := conn.Select(&named, `SELECT keys FROM events_named ORDER BY event_index`); err != nil {
			t.Fatal(err)
		}
		for i, keys := range keyLists {
			if want, _ := keys.Packed(); string(named[i]) != string(want) {
				t.Errorf("%s: events_named.keys of event %d is %x, want %x", when, i, named[i], want)
			}
		}
	}
	seen("written")
	var tail []int
	if err := conn.Select(&tail, `SELECT length(keys_tail) FROM events ORDER BY event_index`); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(tail) != "[0 0 5 3]" {
		t.Errorf("keys_tail holds %v bytes, want the packed keys after the first: [0 0 5 3]", tail)
	}
}

// A transaction names its sender, contract and class by felt id (migration 00052): the
// store reads back the felts (none where the transaction has none), and filters by them.
func TestTransactionsNameTheirAccountsByFeltID(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	rows := partitionedRows(1)
	sender, deployed, class := db.FeltFromUint64(0x5e), db.FeltFromUint64(0xc0), db.FeltFromUint64(0xc1)
	invoke := rows.Transactions[0]
	invoke.SenderAddress, invoke.ClassHash = sender, class
	deploy := rows.Transactions[0]
	deploy.TxIndex, deploy.Hash, deploy.Type, deploy.ContractAddress, deploy.ClassHash = 1, db.FeltFromUint64(0x7101), "DEPLOY_ACCOUNT", deployed, class
	bare := rows.Transactions[0]
	bare.TxIndex, bare.Hash, bare.Type = 2, db.FeltFromUint64(0x7102), "L1_HANDLER"
	rows.Transactions = []db.TransactionRow{invoke, deploy, bare}
	if err := writeRows(ctx, conn, rows); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	want := "0 5e - c1|1 - c0 c1|2 - - -"
	seen := func(when string) {
		t.Helper()
		txs, _, err := store.TransactionsByHash(ctx, []db.Felt{invoke.Hash, deploy.Hash, bare.Hash})
		if err != nil {
			t.Fatal(err)
		}
		show := func(f db.Felt) string {
			if f == nil {
				return "-"
			}
			return fmt.Sprintf("%x", []byte(f))
		}
		got := make([]string, 3)
		for _, tx := range txs {
			got[tx.Index] = fmt.Sprintf("%d %s %s %s", tx.Index, show(tx.SenderAddress), show(tx.ContractAddress), show(tx.ClassHash))
		}
		if s := strings.Join(got, "|"); s != want {
			t.Errorf("%s: read back %s, want %s", when, s, want)
		}
		for _, f := range []db.TxFilter{{Sender: sender}, {Contract: deployed}} {
			list, err := store.Transactions(ctx, f, true, db.Window{Limit: 10})
			if err != nil || len(list) != 1 {
				t.Errorf("%s: the list of %+v has %d transactions (%v), want 1", when, f, len(list), err)
			}
		}
	}
	seen("written")
}
