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

// TokensWithPricesAt answers, key by key, what TokensByAddress and PricesAt answer apart:
// a token with readings, a token without, readings of an address with no token row, and
// an address with neither.
func TestTokensWithPricesAtAnswersAsTheTwoReads(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	dbtest.Exec(t, conn, `INSERT INTO blocks (number, hash, parent_hash, timestamp, status)
		SELECT n, int8send(n), int8send(n - 1), 1700000000 + n, 'ACCEPTED_ON_L2' FROM generate_series(0, 100) AS n`)
	dbtest.Exec(t, conn, `INSERT INTO token_prices (token_address, block_number, pair, price, decimals)
		SELECT t, n, 'X/USD', n * 10 + get_byte(t, 0), 8 FROM generate_series(0, 100, 10) AS n, (VALUES ('\x0a'::bytea), ('\x0c')) AS k(t)`)
	dbtest.Exec(t, conn, `INSERT INTO tokens (address, standard, name, symbol, decimals, total_supply)
		VALUES ('\x0a', 'erc20', 'Ten', 'TEN', 18, 1000), ('\x0b', 'erc20', 'Eleven', NULL, NULL, NULL)`)
	store := db.NewStore(conn)
	a, b, c, f := db.FeltFromUint64(0xa), db.FeltFromUint64(0xb), db.FeltFromUint64(0xc), db.FeltFromUint64(0xf)
	keys := []db.PriceKey{{Token: string(a), Block: 57}, {Token: string(b), Block: 99}, {Token: string(c), Block: 0},
		{Token: string(f), Block: 10}, {Token: string(a), Block: 5}}
	tokens, prices, err := store.TokensWithPricesAt(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != len(keys) || len(prices) != len(keys) {
		t.Fatalf("%d tokens and %d prices for %d keys", len(tokens), len(prices), len(keys))
	}
	wantTokens, err := store.TokensByAddress(ctx, []db.Felt{a, b, c, f})
	if err != nil {
		t.Fatal(err)
	}
	wantPrices, err := store.PricesAt(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		var wantToken *db.Token
		for _, tk := range wantTokens {
			if string(tk.Address) == k.Token {
				wantToken = tk
			}
		}
		if gotJSON, wantJSON := mustJSON(t, tokens[i]), mustJSON(t, wantToken); gotJSON != wantJSON {
			t.Errorf("key %d: token %s, want %s", i, gotJSON, wantJSON)
		}
		var wantPrice *db.PriceAt
		for _, p := range wantPrices {
			if string(p.Token) == k.Token && p.Block == k.Block {
				wantPrice = p
			}
		}
		if gotJSON, wantJSON := mustJSON(t, prices[i]), mustJSON(t, wantPrice); gotJSON != wantJSON {
			t.Errorf("key %d: price %s, want %s", i, gotJSON, wantJSON)
		}
	}
	if tokens[0] == nil || tokens[2] != nil || prices[1] != nil || prices[0] == nil || prices[0].Price != "510" {
		t.Errorf("tokens %v, prices %v: want TEN's token and its reading of block 50, none for 0xb's price or 0xc's token", tokens, prices)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
