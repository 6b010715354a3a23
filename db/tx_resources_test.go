package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// Migration 00041 turns the jsonb resource bounds and execution resources of existing rows
// into their columns, from which the store renders the text the jsonb columns gave, to
// the byte; its down migration gives the jsonb back as it was. A row of a shape the
// columns cannot hold stops it.
func TestCompactTransactionsMigrationKeepsEveryValue(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	var p db.Partitions
	if err := p.Cover(ctx, conn, 0, 2_500_000); err != nil {
		t.Fatal(err)
	}
	if err := db.MigrateDownTo(ctx, conn.DB, 40); err != nil {
		t.Fatal(err)
	}
	const v3 = `{"l1_gas": {"max_amount": "0x0", "max_price_per_unit": "0xb6f28b6e0c50"},
		"l2_gas": {"max_amount": "0x16317f6", "max_price_per_unit": "0x16fd3684c"},
		"l1_data_gas": {"max_amount": "0x4d6", "max_price_per_unit": "0xb6f28b6e0c50"}}`
	cases := []struct{ bounds, resources any }{
		{v3, `{"l1_gas": 0, "l2_gas": 4751592, "l1_data_gas": 409}`},
		// Before Starknet 0.13.4: no l1_data_gas.
		{`{"l1_gas": {"max_amount": "0x186a0", "max_price_per_unit": "0x5af3107a4000"}, "l2_gas": {"max_amount": "0x0", "max_price_per_unit": "0x0"}}`,
			`{"l1_gas": 17423, "l2_gas": 0, "l1_data_gas": 384}`},
		// Bounds of 128 and 252 bits, gas of 64 bits.
		{`{"l1_gas": {"max_amount": "0xffffffffffffffff", "max_price_per_unit": "0xffffffffffffffffffffffffffffffff"},
			"l2_gas": {"max_amount": "0x10000000000000000", "max_price_per_unit": "0x800000000000011000000000000000000000000000000000000000000000000"},
			"l1_data_gas": {"max_amount": "0x1", "max_price_per_unit": "0x1000000000000000"}}`,
			`{"l1_gas": 18446744073709551615, "l2_gas": 9223372036854775808, "l1_data_gas": 1152921504606846976}`},
		{nil, `{"l1_gas": 0, "l2_gas": 0, "l1_data_gas": 0}`}, // v1
		{nil, nil},
	}
	blocks := []int64{0, 1, 2_500_000} // partitions of their own
	for i, c := range cases {
		block := blocks[i%len(blocks)]
		dbtest.Exec(t, conn, `INSERT INTO blocks (number, hash, parent_hash, timestamp, status, state_root, sequencer_address, starknet_version)
			VALUES ($1, $2, $2, 1700000000, 'ACCEPTED_ON_L2', '\x00', '\x00', '0.13.4') ON CONFLICT DO NOTHING`, block, []byte{byte(block), 1})
		dbtest.Exec(t, conn, `INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, execution_status,
			finality_status, resource_bounds, execution_resources)
			VALUES ($1, $2, $3, 'INVOKE', 3, 1700000000, 'SUCCEEDED', 'ACCEPTED_ON_L2', $4, $5)`,
			block, i, []byte{byte(i), 2}, c.bounds, c.resources)
	}
	type texts struct {
		Block     int64   `db:"block_number"`
		Index     int     `db:"tx_index"`
		Bounds    *string `db:"resource_bounds"`
		Resources *string `db:"execution_resources"`
	}
	jsonbTexts := func() []texts {
		var out []texts
		if err := conn.Select(&out, `SELECT block_number, tx_index, resource_bounds::text, execution_resources::text
			FROM transactions ORDER BY tx_index`); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := jsonbTexts()
	if err := db.Migrate(ctx, conn.DB); err != nil {
		t.Fatal(err)
	}
	var keys []db.TxKey
	for _, w := range want {
		keys = append(keys, db.TxKey{Block: w.Block, Index: w.Index})
	}
	got, err := db.NewStore(conn).TransactionsByKey(ctx, keys)
	if err != nil || len(got) != len(want) {
		t.Fatalf("%d transactions, %v", len(got), err)
	}
	text := func(j db.JSON) *string {
		if j == nil {
			return nil
		}
		s := string(j)
		return &s
	}
	show := func(s *string) string {
		if s == nil {
			return "NULL"
		}
		return *s
	}
	for _, tx := range got {
		w := want[tx.Index]
		if b := text(tx.ResourceBounds()); show(b) != show(w.Bounds) {
			t.Errorf("tx %d: resource bounds after the migration\n got %s\nwant %s", tx.Index, show(b), show(w.Bounds))
		}
		if r := text(tx.ExecutionResources()); show(r) != show(w.Resources) {
			t.Errorf("tx %d: execution resources after the migration\n got %s\nwant %s", tx.Index, show(r), show(w.Resources))
		}
	}
	var jsonbColumns int
	if err := conn.Get(&jsonbColumns, `SELECT count(*) FROM pg_attribute WHERE attrelid = 'transactions'::regclass
		AND attnum > 0 AND NOT attisdropped AND atttypid = 'jsonb'::regtype`); err != nil || jsonbColumns != 0 {
		t.Errorf("transactions has %d jsonb columns after the migration (%v)", jsonbColumns, err)
	}

	// Down: the jsonb of before, to the byte.
	if err := db.MigrateDownTo(ctx, conn.DB, 40); err != nil {
		t.Fatal(err)
	}
	back := jsonbTexts()
	for i := range want {
		if show(back[i].Bounds) != show(want[i].Bounds) || show(back[i].Resources) != show(want[i].Resources) {
			t.Errorf("tx %d after the down migration: %s %s, want %s %s", i, show(back[i].Bounds), show(back[i].Resources),
				show(want[i].Bounds), show(want[i].Resources))
		}
	}

	// Bounds with a leading zero (not what the indexer wrote) stop the migration, named.
	dbtest.Exec(t, conn, `INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, execution_status,
		finality_status, resource_bounds) VALUES (0, 99, '\x0999', 'INVOKE', 3, 1700000000, 'SUCCEEDED', 'ACCEPTED_ON_L2',
		'{"l1_gas": {"max_amount": "0x01", "max_price_per_unit": "0x1"}, "l2_gas": {"max_amount": "0x0", "max_price_per_unit": "0x0"}}')`)
	if err := db.Migrate(ctx, conn.DB); err == nil || !strings.Contains(err.Error(), "1 transactions (e.g. 0x0999)") {
		t.Errorf("migrating a row of another shape: %v, want it refused and named", err)
	}
}
