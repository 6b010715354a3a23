package db_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A transaction's resource bounds and execution resources are columns (migration 00041,
// folded into the baseline), from which the store renders the JSON text the node gave, to
// the byte: felts as 0x hex, gas as decimals, no l1_data_gas bound before Starknet 0.13.4,
// none at all for a transaction of version 1 or below. (The migration's test that existing
// jsonb rows moved into the columns and back went with it.)
func TestTransactionResourcesRenderFromTheirColumns(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	var p db.Partitions
	if err := p.Cover(ctx, conn, 0, 2_500_000); err != nil {
		t.Fatal(err)
	}
	dec := func(hex string) any {
		if hex == "" {
			return nil
		}
		n, ok := new(big.Int).SetString(hex[2:], 16)
		if !ok {
			t.Fatalf("bad hex %q", hex)
		}
		return n.String()
	}
	num := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	cases := []struct {
		bounds    [6]string // max amount and price of l1_gas, l2_gas, l1_data_gas, as hex
		used      [3]string // l1_gas, l2_gas, l1_data_gas, decimal
		wantBound string
		wantUsed  string
	}{
		{[6]string{"0x0", "0xb6f28b6e0c50", "0x16317f6", "0x16fd3684c", "0x4d6", "0xb6f28b6e0c50"}, [3]string{"0", "4751592", "409"},
			`{"l1_gas": {"max_amount": "0x0", "max_price_per_unit": "0xb6f28b6e0c50"}, "l2_gas": {"max_amount": "0x16317f6", "max_price_per_unit": "0x16fd3684c"}, "l1_data_gas": {"max_amount": "0x4d6", "max_price_per_unit": "0xb6f28b6e0c50"}}`,
			`{"l1_gas": 0, "l2_gas": 4751592, "l1_data_gas": 409}`},
		// Before Starknet 0.13.4: no l1_data_gas.
		{[6]string{"0x186a0", "0x5af3107a4000", "0x0", "0x0", "", ""}, [3]string{"17423", "0", "384"},
			`{"l1_gas": {"max_amount": "0x186a0", "max_price_per_unit": "0x5af3107a4000"}, "l2_gas": {"max_amount": "0x0", "max_price_per_unit": "0x0"}}`,
			`{"l1_gas": 17423, "l2_gas": 0, "l1_data_gas": 384}`},
		// Bounds of 128 and 252 bits, gas of 64 bits.
		{[6]string{"0xffffffffffffffff", "0xffffffffffffffffffffffffffffffff", "0x10000000000000000",
			"0x800000000000011000000000000000000000000000000000000000000000000", "0x1", "0x1000000000000000"},
			[3]string{"18446744073709551615", "9223372036854775808", "1152921504606846976"},
			`{"l1_gas": {"max_amount": "0xffffffffffffffff", "max_price_per_unit": "0xffffffffffffffffffffffffffffffff"}, "l2_gas": {"max_amount": "0x10000000000000000", "max_price_per_unit": "0x800000000000011000000000000000000000000000000000000000000000000"}, "l1_data_gas": {"max_amount": "0x1", "max_price_per_unit": "0x1000000000000000"}}`,
			`{"l1_gas": 18446744073709551615, "l2_gas": 9223372036854775808, "l1_data_gas": 1152921504606846976}`},
		{[6]string{}, [3]string{"0", "0", "0"}, "", `{"l1_gas": 0, "l2_gas": 0, "l1_data_gas": 0}`}, // v1
		{[6]string{}, [3]string{}, "", ""},
	}
	blocks := []int64{0, 1, 2_500_000} // partitions of their own
	var keys []db.TxKey
	for i, c := range cases {
		block := blocks[i%len(blocks)]
		dbtest.Exec(t, conn, `INSERT INTO blocks (number, hash, parent_hash, timestamp, status, state_root, sequencer_address, starknet_version)
			VALUES ($1, $2, $2, 1700000000, 'ACCEPTED_ON_L2', '\x00', '\x00', '0.13.4') ON CONFLICT DO NOTHING`, block, []byte{byte(block), 1})
		dbtest.Exec(t, conn, `INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, execution_status,
			finality_status, max_l1_gas, max_l1_gas_price, max_l2_gas, max_l2_gas_price, max_l1_data_gas, max_l1_data_gas_price,
			l1_gas_used, l2_gas_used, l1_data_gas_used)
			VALUES ($1, $2, $3, 'INVOKE', 3, 1700000000, 'SUCCEEDED', 'ACCEPTED_ON_L2', $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			block, i, []byte{byte(i), 2}, dec(c.bounds[0]), dec(c.bounds[1]), dec(c.bounds[2]), dec(c.bounds[3]), dec(c.bounds[4]),
			dec(c.bounds[5]), num(c.used[0]), num(c.used[1]), num(c.used[2]))
		keys = append(keys, db.TxKey{Block: block, Index: i})
	}
	got, err := db.NewStore(conn).TransactionsByKey(ctx, keys)
	if err != nil || len(got) != len(cases) {
		t.Fatalf("%d transactions, %v", len(got), err)
	}
	for _, tx := range got {
		c := cases[tx.Index]
		if b := string(tx.ResourceBounds()); b != c.wantBound {
			t.Errorf("tx %d: resource bounds\n got %s\nwant %s", tx.Index, b, c.wantBound)
		}
		if r := string(tx.ExecutionResources()); r != c.wantUsed {
			t.Errorf("tx %d: execution resources\n got %s\nwant %s", tx.Index, r, c.wantUsed)
		}
	}
}
