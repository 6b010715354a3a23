package db_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// A price is one step back along token_prices' primary key, however many readings other
// tokens have: before, a token without readings read every other token's back to block 0.
func TestPricesAtStepsBackAlongTheKey(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	// Four tokens with a reading every ten blocks (as the oracle of the simulated chain
	// gives them), and one without.
	withReadings, without := db.FeltFromUint64(0xa), db.FeltFromUint64(0xb)
	seed := []string{
		`INSERT INTO blocks (number, hash, parent_hash, timestamp, status)
			SELECT n, int8send(n), int8send(n - 1), 1700000000 + n, 'ACCEPTED_ON_L2' FROM generate_series(0, 5000) AS n`,
		`INSERT INTO token_prices (token_address, block_number, pair, price, decimals)
			SELECT t, n, 'X/USD', n * 10 + get_byte(t, 0), 8
			FROM generate_series(0, 4990, 10) AS n, (VALUES ('\x0a'::bytea), ('\x0c'), ('\x0d'), ('\x0e')) AS k(t)`,
		`ANALYZE blocks, token_prices`,
	}
	for _, q := range seed {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	store := db.NewStore(conn)
	got, err := store.PricesAt(ctx, []db.PriceKey{
		{Token: string(withReadings), Block: 2009}, {Token: string(without), Block: 4994}, {Token: string(withReadings), Block: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d prices, want 2 (none for the token without readings)", len(got))
	}
	for _, p := range got {
		want := map[int64]string{2009: "20010", 0: "10"}[p.Block] // the reading of block 2000, of block 0
		if !p.Token.Equal(withReadings) || p.Price != want || p.Decimals != 8 {
			t.Errorf("at block %d: %+v, want price %s", p.Block, p, want)
		}
	}

	// The plan of the token without readings: no row read and dropped.
	var plan []struct {
		Plan planStats `json:"Plan"`
	}
	var raw []byte
	if err := conn.GetContext(ctx, &raw, `EXPLAIN (ANALYZE, FORMAT JSON) `+db.PricesAtSQL,
		pq.ByteaArray{[]byte(without)}, pq.Int64Array{4994}); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
		t.Fatalf("plan %s: %v", raw, err)
	}
	if removed := plan[0].Plan.removed(); removed > 1 {
		t.Errorf("the lookup of a token without readings read and dropped %.0f rows:\n%s", removed, raw)
	}
}

// planStats is what TestPricesAtStepsBackAlongTheKey reads of an EXPLAIN (ANALYZE) node.
type planStats struct {
	RemovedByFilter float64     `json:"Rows Removed by Filter"`
	Loops           float64     `json:"Actual Loops"`
	Plans           []planStats `json:"Plans"`
}

// removed is how many rows the node and those under it read and dropped, over all loops.
func (n planStats) removed() float64 {
	sum := n.RemovedByFilter * max(n.Loops, 1)
	for _, c := range n.Plans {
		sum += c.removed()
	}
	return sum
}
