package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// An ERC-20 Transfer event whose keys and data its transfer makes exactly is stored folded
// (migration 00051): its row names the layout and stores no lists. The store and
// events_named read back every event's lists exactly as written, folded or not.
func TestTransferEventsFoldIntoTheirTransfers(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	f := db.FeltFromUint64
	transferSel, token, alice, bob := db.MustFelt("0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9"), f(0x70c), f(0xa1), f(0xb0b)
	big := db.MustFelt("0x1" + "00000000000000000000000000000005") // 2^128 + 5: high 1, low 5
	rows := partitionedRows(1)
	rows.TokenTransfers = nil
	rows.Events = nil
	cases := []struct {
		keys, data db.FeltArray
		amount     string
		layout     string // what transfer_layout holds
	}{
		{db.FeltArray{transferSel}, db.FeltArray{alice, bob, f(7), f(0)}, "7", "1"},
		{db.FeltArray{transferSel, alice, bob}, db.FeltArray{f(5), f(1)}, "340282366920938463463374607431768211461", "2"},
		{db.FeltArray{transferSel}, db.FeltArray{alice, bob, big}, "340282366920938463463374607431768211461", "3"},
		{db.FeltArray{transferSel, alice, bob}, db.FeltArray{f(0), f(0)}, "0", "2"},
		// Not made exactly by the transfer: a low half of 2^128 + 5 (not a u256's), and
		// an extra key. Stored whole.
		{db.FeltArray{transferSel, alice, bob}, db.FeltArray{big, f(0)}, "340282366920938463463374607431768211461", "NULL"},
		{db.FeltArray{transferSel, alice, bob, f(1)}, db.FeltArray{f(7), f(0)}, "7", "NULL"},
	}
	for i, c := range cases {
		rows.Events = append(rows.Events, db.EventRow{BlockNumber: 1, EventIndex: i, FromAddress: token, Keys: c.keys, Data: c.data})
		rows.TokenTransfers = append(rows.TokenTransfers, db.TokenTransfer{BlockNumber: 1, EventIndex: i, TokenAddress: token,
			FromAddress: alice, ToAddress: bob, Amount: c.amount})
	}
	// An event without a transfer, with the same lists as the first: stored whole.
	rows.Events = append(rows.Events, db.EventRow{BlockNumber: 1, EventIndex: len(cases), FromAddress: token,
		Keys: cases[0].keys, Data: cases[0].data})
	if err := writeRows(ctx, conn, rows); err != nil {
		t.Fatal(err)
	}
	var stored []string
	if err := conn.Select(&stored, `SELECT coalesce(transfer_layout::text, 'NULL') || ' ' || length(keys_tail) || ' ' || length(data)
		FROM events ORDER BY event_index`); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if want := c.layout + " 0 0"; c.layout != "NULL" && stored[i] != want {
			t.Errorf("event %d is stored as %q (layout, bytes of keys_tail and data), want %q", i, stored[i], want)
		}
		if c.layout == "NULL" && stored[i][:5] != "NULL " {
			t.Errorf("event %d is stored as %q, want its lists whole", i, stored[i])
		}
	}
	if last := stored[len(cases)]; last[:5] != "NULL " {
		t.Errorf("the event without a transfer is stored as %q, want its lists whole", last)
	}

	store := db.NewStore(conn)
	seen := func(when string) {
		t.Helper()
		events, err := store.Events(ctx, db.EventsFilter{Tx: &db.TxKey{Block: 1}}, false, db.Window{Limit: 20})
		if err != nil || len(events) != len(rows.Events) {
			t.Fatalf("%s: %d events, %v", when, len(events), err)
		}
		var named []struct {
			Keys []byte `db:"keys"`
			Data []byte `db:"data"`
		}
		if err := conn.Select(&named, `SELECT keys, data FROM events_named ORDER BY event_index`); err != nil {
			t.Fatal(err)
		}
		for i, w := range rows.Events {
			if fmt.Sprint(events[i].Keys) != fmt.Sprint(w.Keys) || fmt.Sprint(events[i].Data) != fmt.Sprint(w.Data) {
				t.Errorf("%s: event %d reads keys %x data %x, want %x %x", when, i, events[i].Keys, events[i].Data, w.Keys, w.Data)
			}
			keys, _ := w.Keys.Packed()
			data, _ := w.Data.Packed()
			if string(named[i].Keys) != string(keys) || string(named[i].Data) != string(data) {
				t.Errorf("%s: events_named shows event %d as %x %x, want %x %x", when, i, named[i].Keys, named[i].Data, keys, data)
			}
		}
		// The other readers of events join the transfers too.
		byKey, err := store.EventsByKey(ctx, []db.EventKey{{Block: 1, Event: 1}})
		if err != nil || len(byKey) != 1 || fmt.Sprint(byKey[0].Data) != fmt.Sprint(rows.Events[1].Data) {
			t.Errorf("%s: EventsByKey: %v %v", when, byKey, err)
		}
		ofTx, err := store.EventsOfTxs(ctx, []db.TxKey{{Block: 1}}, 20, 0)
		if err != nil || len(ofTx) != len(rows.Events) || fmt.Sprint(ofTx[2].Data) != fmt.Sprint(rows.Events[2].Data) {
			t.Errorf("%s: EventsOfTxs: %d events, %v", when, len(ofTx), err)
		}
		inRange, err := store.EventsInRange(ctx, 1, 1)
		if err != nil || len(inRange) != len(rows.Events) || fmt.Sprint(inRange[1].Keys) != fmt.Sprint(rows.Events[1].Keys) {
			t.Errorf("%s: EventsInRange: %d events, %v", when, len(inRange), err)
		}
	}
	seen("written")
}
