package dbtest

import (
	"testing"

	"github.com/jmoiron/sqlx"
)

// NftSaleStatsWrong are the rows of the NFT sale statistics that nft_events' triggers keep
// (migration 00060: nft_sale_volumes, nft_sale_members, nft_sale_keys) that differ from the
// same figures computed from nft_events, as text; empty when every one is exact.
func NftSaleStatsWrong(t testing.TB, conn sqlx.Queryer) []string {
	t.Helper()
	var wrong []string
	if err := sqlx.Select(conn, &wrong, `WITH s AS (SELECT * FROM nft_events WHERE total_price IS NOT NULL),
		volumes AS (
			SELECT 'c'::"char" AS scope, contract_address AS key, coalesce(payment_token_address, '\x'::bytea) AS payment_token, count(*) AS sales, sum(total_price) AS price
			FROM s GROUP BY 1, 2, 3
			UNION ALL
			SELECT 'm'::"char", marketplace_contract_address, coalesce(payment_token_address, '\x'::bytea), count(*), sum(total_price)
			FROM s WHERE marketplace_contract_address IS NOT NULL GROUP BY 1, 2, 3),
		members AS (
			SELECT 'c'::"char" AS scope, contract_address AS key, trader AS member, count(*) AS sales
			FROM s, LATERAL (VALUES (from_address), (to_address)) t(trader) GROUP BY 1, 2, 3
			UNION ALL
			SELECT 'm'::"char", marketplace_contract_address, trader, count(*)
			FROM s, LATERAL (VALUES (from_address), (to_address)) t(trader) WHERE marketplace_contract_address IS NOT NULL GROUP BY 1, 2, 3
			UNION ALL
			SELECT 'k'::"char", marketplace_contract_address, contract_address, count(*)
			FROM s WHERE marketplace_contract_address IS NOT NULL GROUP BY 1, 2, 3),
		keys AS (
			SELECT CASE scope WHEN 'k' THEN 'm'::"char" ELSE scope END AS scope, key,
				count(*) FILTER (WHERE scope <> 'k') AS traders, count(*) FILTER (WHERE scope = 'k') AS collections
			FROM members GROUP BY 1, 2)
		SELECT format('volume %s %s %s: kept %s sales %s, want %s sales %s', coalesce(w.scope, k.scope), encode(coalesce(w.key, k.key), 'hex'),
			encode(coalesce(w.payment_token, k.payment_token), 'hex'), k.sales, k.price, w.sales, w.price)
		FROM volumes w FULL JOIN nft_sale_volumes k USING (scope, key, payment_token)
		WHERE (w.sales, w.price) IS DISTINCT FROM (k.sales, k.price)
		UNION ALL
		SELECT format('member %s %s %s: kept %s, want %s', coalesce(w.scope, k.scope), encode(coalesce(w.key, k.key), 'hex'),
			encode(coalesce(w.member, k.member), 'hex'), k.sales, w.sales)
		FROM members w FULL JOIN nft_sale_members k USING (scope, key, member)
		WHERE w.sales IS DISTINCT FROM k.sales
		UNION ALL
		SELECT format('key %s %s: kept %s traders %s collections, want %s and %s', coalesce(w.scope, k.scope), encode(coalesce(w.key, k.key), 'hex'),
			k.traders, k.collections, w.traders, w.collections)
		FROM keys w FULL JOIN nft_sale_keys k USING (scope, key)
		WHERE (w.traders, w.collections) IS DISTINCT FROM (k.traders, k.collections)`); err != nil {
		t.Fatal(err)
	}
	return wrong
}
