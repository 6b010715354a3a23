package rest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// TestNftSaleStats: collections and marketplaces by their sales over a window, every sort
// key in both directions, pages of ten, against the same figures computed in SQL.
func TestNftSaleStats(t *testing.T) {
	e := newEnv(t)
	exec := e.exec
	newest := baseTime + nBlocks*10
	// 24 marketplaces; the first has a name.
	var markets []db.Felt
	for m := 0; m < 24; m++ {
		markets = append(markets, db.FeltFromUint64(uint64(0x3a00+m)))
	}
	marketA := markets[0]
	exec(`INSERT INTO aliases (address, name) VALUES ($1, 'Market A')`, marketA)
	// 24 more collections, supplies of different digit counts; the first 20 have sales, some
	// older than a day, through the marketplaces (and some through none).
	n := 0
	for i := 1; i <= 24; i++ {
		c := db.FeltFromUint64(uint64(0x7c00 + i))
		exec(`INSERT INTO tokens (address, standard, name, symbol, total_supply, holder_count) VALUES ($1, $2, $3, $4, $5, $6)`,
			c, map[bool]string{true: "erc721", false: "erc1155"}[i%3 != 0], fmt.Sprintf("Collection %d", i), fmt.Sprintf("C%d", i),
			fmt.Sprint(i*[]int{1, 10, 1000, 100000}[i%4]), (i*5)%9)
		for k := 0; i <= 20 && k < i%4+1; k++ {
			n++
			ts := newest - int64(k)*40000 // the third and later sales of a collection are over a day old
			var market db.Felt
			if n%7 != 0 {
				market = markets[n%len(markets)]
			}
			exec(`INSERT INTO nft_events (block_number, tx_index, event_index, contract_address, token_id, from_address, to_address, type,
				transaction_hash, timestamp, payment_token_address, payment_token_symbol, total_price, marketplace_contract_address)
				VALUES ($1, 0, $2, $3, $4, $5, $6, 'Transfer', $7, $8, $9, 'ETH', $10, $11)`,
				1+n%nBlocks, 100+n, c, k, account(k%3), account(3+n%2), txHash(1+n%nBlocks, 0), ts, ethAddr,
				fmt.Sprintf("%d00000000000000000", i*(k+1)), market)
		}
	}
	sqlStats := func(window int64, key, dir string) []string {
		t.Helper()
		var rows []string
		if err := e.db.Select(&rows, `WITH s AS (SELECT * FROM nft_events WHERE total_price IS NOT NULL AND timestamp >= $1)
			SELECT encode(c.address, 'hex') FROM tokens c
			LEFT JOIN LATERAL (SELECT count(*) AS sales, coalesce(sum(total_price / 1e18 * 3000.5), 0) AS sales_volume,
				(SELECT count(DISTINCT a) FROM s x, LATERAL (VALUES (x.from_address), (x.to_address)) v(a) WHERE x.contract_address = c.address) AS traders
				FROM s WHERE s.contract_address = c.address) f ON true
			WHERE c.standard <> 'erc20'
			ORDER BY `+key+` `+dir+`, c.address`, window); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	walk := func(query string) []string {
		t.Helper()
		var out []string
		for p := 1; p < 10; p++ {
			body := e.mustGet(fmt.Sprintf("/beta/nft-stats?ps=10&p=%d%s", p, query)).(map[string]any)
			for _, it := range body["items"].([]any) {
				out = append(out, strings.TrimLeft(strings.TrimPrefix(it.(map[string]any)["contractAddress"].(string), "0x"), "0"))
			}
			if body["pagination"].(map[string]any)["next"] == nil {
				return out
			}
		}
		return out
	}
	trim := func(rows []string) []string {
		for i := range rows {
			rows[i] = strings.TrimLeft(rows[i], "0")
		}
		return rows
	}
	for _, c := range []struct{ query, key, dir string }{
		{"", "sales", "DESC"},
		{"&attribute=sales_volume", "sales_volume", "DESC"},
		{"&attribute=traders&sort=asc", "traders", "ASC"},
		{"&attribute=owners", "holder_count", "DESC"},
		{"&attribute=SUPPLY&sort=asc", "coalesce(total_supply, 0)", "ASC"},
	} {
		want := trim(sqlStats(0, c.key, c.dir))
		if len(want) != 25 {
			t.Fatalf("%d collections", len(want))
		}
		if got := walk(c.query); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("nft-stats%s:\n got %v\nwant %v", c.query, got, want)
		}
	}
	if got := e.mustGet("/beta/nft-stats?ps=10&p=9").(map[string]any); len(got["items"].([]any)) != 0 || got["pagination"].(map[string]any)["prev"] != "3" {
		t.Errorf("past the last page: %v", got)
	}
	if got, want := walk("&timeframe=day"), trim(sqlStats(newest-86400, "sales", "DESC")); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the last day: got %v want %v", got, want)
	}
	first := e.mustGet("/beta/nft-stats?timeframe=day").(map[string]any)["items"].([]any)[0].(map[string]any)
	var sales int
	if err := e.db.Get(&sales, `SELECT count(*) FROM nft_events WHERE contract_address = $1 AND total_price IS NOT NULL AND timestamp >= $2`,
		db.MustFelt(first["contractAddress"].(string)), newest-86400); err != nil {
		t.Fatal(err)
	}
	if first["sales"] != float64(sales) || first["salesVolume"].(float64) <= 0 || first["name"] == nil || first["supply"] == nil {
		t.Errorf("the day's best collection: %v (%d sales in SQL)", first, sales)
	}

	// Marketplaces: three pages of ten by sales, each against SQL.
	var wantMarkets []string
	if err := e.db.Select(&wantMarkets, `SELECT encode(marketplace_contract_address, 'hex') FROM nft_events
		WHERE total_price IS NOT NULL AND marketplace_contract_address IS NOT NULL
		GROUP BY 1 ORDER BY count(*) DESC, 1`); err != nil {
		t.Fatal(err)
	}
	var gotMarkets []string
	for p := 1; p <= 3; p++ {
		body := e.mustGet(fmt.Sprintf("/beta/marketplace-stats?ps=10&p=%d", p)).(map[string]any)
		if pg := body["pagination"].(map[string]any); (pg["next"] == nil) != (p == 3) {
			t.Errorf("marketplaces page %d: pagination %v, want 3 pages", p, pg)
		}
		for _, it := range body["items"].([]any) {
			m := it.(map[string]any)
			gotMarkets = append(gotMarkets, strings.TrimLeft(strings.TrimPrefix(m["marketplaceAddress"].(string), "0x"), "0"))
			var want struct {
				Sales       int `db:"sales"`
				Collections int `db:"collections"`
				Traders     int `db:"traders"`
			}
			if err := e.db.Get(&want, `SELECT count(*) AS sales, count(DISTINCT contract_address) AS collections,
				(SELECT count(DISTINCT a) FROM nft_events x, LATERAL (VALUES (x.from_address), (x.to_address)) v(a) WHERE x.marketplace_contract_address = $1) AS traders
				FROM nft_events WHERE marketplace_contract_address = $1`, db.MustFelt(m["marketplaceAddress"].(string))); err != nil {
				t.Fatal(err)
			}
			if m["sales"] != float64(want.Sales) || m["collections"] != float64(want.Collections) || m["traders"] != float64(want.Traders) {
				t.Errorf("marketplace %v, want %+v", m, want)
			}
			if db.MustFelt(m["marketplaceAddress"].(string)).Equal(marketA) != (m["name"] == "Market A") {
				t.Errorf("marketplace name: %v", m)
			}
		}
	}
	if strings.Join(gotMarkets, ",") != strings.Join(trim(wantMarkets), ",") {
		t.Errorf("marketplaces by sales:\n got %v\nwant %v", gotMarkets, wantMarkets)
	}
	if got := e.mustGet("/beta/marketplace-stats?timeframe=day&sort=asc&ps=100").(map[string]any)["items"].([]any); len(got) < 2 ||
		got[0].(map[string]any)["sales"].(float64) > got[len(got)-1].(map[string]any)["sales"].(float64) {
		t.Errorf("the day's marketplaces, fewest sales first: %v", got)
	}
	if wrong := dbtest.NftSaleStatsWrong(t, e.db); len(wrong) > 0 {
		t.Errorf("the sale statistics kept:\n%v", wrong)
	}
	// Over every sale, both lists and their counts read the kept totals, not the sales: an
	// aggregation per request grew with the chain (312-463 ms at p99 on the 1M bench).
	var read []string
	e.store.OnQuery = func(q string, _ []any) { read = append(read, q) }
	e.mustGet("/beta/nft-stats?attribute=traders")
	e.mustGet("/beta/marketplace-stats?p=2&ps=10")
	e.store.OnQuery = nil
	for _, q := range read {
		if strings.Contains(q, "nft_events") {
			t.Errorf("a page of the statistics of all time reads the sales:\n%s", q)
		}
	}
	// Taken back: a collection's sales deleted (as a reorg's cascade does), the rest unpriced.
	exec(`DELETE FROM nft_events WHERE contract_address = $1`, db.FeltFromUint64(0x7c00+7))
	if wrong := dbtest.NftSaleStatsWrong(t, e.db); len(wrong) > 0 {
		t.Errorf("the sale statistics kept after a delete:\n%v", wrong)
	}
	exec(`UPDATE nft_events SET total_price = NULL, marketplace_contract_address = NULL`)
	if wrong := dbtest.NftSaleStatsWrong(t, e.db); len(wrong) > 0 {
		t.Errorf("the sale statistics kept after an update:\n%v", wrong)
	}
	var left int
	if err := e.db.Get(&left, `SELECT (SELECT count(*) FROM nft_sale_volumes) + (SELECT count(*) FROM nft_sale_members) + (SELECT count(*) FROM nft_sale_keys)`); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d rows of sale statistics left without sales", left)
	}
	if got := e.mustGet("/beta/marketplace-stats").(map[string]any); len(got["items"].([]any)) != 0 || got["pagination"].(map[string]any)["count"] != 0.0 {
		t.Errorf("no sales: %v", got)
	}

	e.expectRefusals(t, []refusal{
		{"/beta/nft-stats?timeframe=year", 400, "timeframe"},
		{"/beta/nft-stats?attribute=price", 400, "attribute"},
		{"/beta/nft-stats?sort=up", 400, "sort"},
		{"/beta/nft-stats?ps=7", 400, "ps"},
		{"/beta/marketplace-stats?attribute=owners", 400, "attribute"},
		{"/beta/marketplace-stats?p=0", 400, "p"},
	})
}
