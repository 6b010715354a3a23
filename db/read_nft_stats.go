package db

import (
	"context"
	"fmt"
)

// NFT sale statistics over a time window, per collection and per marketplace, aggregated
// from the sales (nft_events rows with a price) through the nft_events_sales index; over
// every sale (seconds 0), read from the totals that nft_events' triggers keep
// (nft_sale_volumes, nft_sale_keys: migration 00060), which do not grow with the sales. A
// sale's USD value is its price at the payment token's current price.

// NftCollectionStats is a collection with its sales in a window, owners and supply.
type NftCollectionStats struct {
	ContractAddress Felt    `db:"contract_address"`
	Name            *string `db:"name"`
	Symbol          *string `db:"symbol"`
	Sales           int     `db:"sales"`
	SalesVolumeUsd  float64 `db:"sales_volume_usd"`
	Traders         int     `db:"traders"` // distinct buyers and sellers
	Owners          int     `db:"owners"`
	Supply          *string `db:"supply"`
}

// MarketplaceStats is a marketplace with the sales it ran in a window.
type MarketplaceStats struct {
	MarketplaceAddress Felt    `db:"marketplace_address"`
	Name               *string `db:"name"`
	Sales              int     `db:"sales"`
	SalesVolumeUsd     float64 `db:"sales_volume_usd"`
	Traders            int     `db:"traders"`
	Collections        int     `db:"collections"`
}

// NftStatsOrders are the sort keys of NftCollectionStatsOf; MarketplaceStatsOrders those of
// MarketplaceStatsOf.
var (
	NftStatsOrders         = map[string]string{"sales": "sales", "sales_volume": "sales_volume_usd", "traders": "traders", "owners": "owners", "supply": "coalesce(supply::numeric, 0)"}
	MarketplaceStatsOrders = map[string]string{"sales": "sales", "sales_volume": "sales_volume_usd", "traders": "traders"}
)

// salesSince is the sales of the window that starts `seconds` before the newest block
// (every sale when seconds is 0), with their USD values.
const salesSince = `sales AS (
		SELECT e.contract_address, e.marketplace_contract_address, e.from_address, e.to_address,
			e.total_price::float8 / power(10::float8, coalesce(p.decimals, 18)) * p.usd_price AS usd
		FROM nft_events e LEFT JOIN tokens p ON p.address = e.payment_token_address
		WHERE e.total_price IS NOT NULL AND e.timestamp >= CASE WHEN $1::bigint = 0 THEN 0 ELSE
			coalesce((SELECT timestamp FROM blocks ORDER BY number DESC LIMIT 1), 0) - $1::bigint END)`

// saleVolume is the USD value of nft_sale_volumes rows v joined to their payment tokens p:
// each token's summed price at its current price, as salesSince values each sale.
const saleVolume = `coalesce(sum(v.price::float8 / power(10::float8, coalesce(p.decimals, 18)) * p.usd_price), 0)`

// NftCollectionStatsOf lists NFT collections by one of NftStatsOrders.
func (s *Store) NftCollectionStatsOf(ctx context.Context, seconds int64, order string, ascending bool, w Window) ([]*NftCollectionStats, error) {
	key, ok := NftStatsOrders[order]
	if !ok {
		return nil, fmt.Errorf("nft stats: no order %q", order)
	}
	var rows []*NftCollectionStats
	if seconds == 0 {
		// Every sale: the totals the triggers of nft_events keep (migration 00060), one
		// row per collection and payment token, whatever the number of sales.
		page, pageArgs := w.pageTail(1)
		err := s.selectRows(ctx, &rows, `SELECT * FROM (
			SELECT c.address AS contract_address, c.name, c.symbol, coalesce(v.sales, 0) AS sales,
				coalesce(v.volume, 0) AS sales_volume_usd, coalesce(k.traders, 0) AS traders,
				c.holder_count AS owners, c.total_supply::text AS supply
			FROM tokens c
			LEFT JOIN LATERAL (SELECT sum(v.sales)::bigint AS sales, `+saleVolume+` AS volume
				FROM nft_sale_volumes v LEFT JOIN tokens p ON p.address = v.payment_token
				WHERE v.scope = 'c' AND v.key = c.address) v ON true
			LEFT JOIN nft_sale_keys k ON k.scope = 'c' AND k.key = c.address
			WHERE c.standard IN ('erc721', 'erc1155')) x
		ORDER BY `+key+` `+direction(ascending)+`, contract_address`+page, pageArgs...)
		return rows, err
	}
	page, pageArgs := w.pageTail(2)
	err := s.selectRows(ctx, &rows, `WITH `+salesSince+`,
		per AS (SELECT contract_address, count(*) AS sales, coalesce(sum(usd), 0) AS volume FROM sales GROUP BY 1),
		traders AS (SELECT contract_address, count(DISTINCT trader) AS traders
			FROM sales, LATERAL (VALUES (from_address), (to_address)) v(trader) GROUP BY 1)
		SELECT * FROM (
			SELECT c.address AS contract_address, c.name, c.symbol, coalesce(per.sales, 0) AS sales,
				coalesce(per.volume, 0) AS sales_volume_usd, coalesce(tr.traders, 0) AS traders,
				c.holder_count AS owners, c.total_supply::text AS supply
			FROM tokens c LEFT JOIN per ON per.contract_address = c.address LEFT JOIN traders tr ON tr.contract_address = c.address
			WHERE c.standard IN ('erc721', 'erc1155')) x
		ORDER BY `+key+` `+direction(ascending)+`, contract_address`+page, append([]any{seconds}, pageArgs...)...)
	return rows, err
}

// CountNftCollections is the number of NFT collections.
func (s *Store) CountNftCollections(ctx context.Context) (int64, error) {
	var n int64
	_, err := s.getRow(ctx, &n, `SELECT count(*) FROM tokens WHERE standard IN ('erc721', 'erc1155')`)
	return n, err
}

// MarketplaceStatsOf lists the marketplaces that ran sales in the window by one of
// MarketplaceStatsOrders.
func (s *Store) MarketplaceStatsOf(ctx context.Context, seconds int64, order string, ascending bool, w Window) ([]*MarketplaceStats, error) {
	key, ok := MarketplaceStatsOrders[order]
	if !ok {
		return nil, fmt.Errorf("marketplace stats: no order %q", order)
	}
	var rows []*MarketplaceStats
	if seconds == 0 {
		// Every sale: the totals the triggers of nft_events keep (migration 00060).
		page, pageArgs := w.pageTail(1)
		err := s.selectRows(ctx, &rows, `SELECT * FROM (
			SELECT v.key AS marketplace_address, a.name, v.sales, v.volume AS sales_volume_usd, k.traders, k.collections
			FROM (SELECT v.key, sum(v.sales)::bigint AS sales, `+saleVolume+` AS volume
				FROM nft_sale_volumes v LEFT JOIN tokens p ON p.address = v.payment_token
				WHERE v.scope = 'm' GROUP BY v.key) v
			JOIN nft_sale_keys k ON k.scope = 'm' AND k.key = v.key
			LEFT JOIN aliases a ON a.address = v.key) x
		ORDER BY `+key+` `+direction(ascending)+`, marketplace_address`+page, pageArgs...)
		return rows, err
	}
	page, pageArgs := w.pageTail(2)
	err := s.selectRows(ctx, &rows, `WITH `+salesSince+`,
		per AS (SELECT marketplace_contract_address AS m, count(*) AS sales, coalesce(sum(usd), 0) AS volume,
			count(DISTINCT contract_address) AS collections FROM sales WHERE marketplace_contract_address IS NOT NULL GROUP BY 1),
		traders AS (SELECT marketplace_contract_address AS m, count(DISTINCT trader) AS traders
			FROM sales, LATERAL (VALUES (from_address), (to_address)) v(trader) WHERE marketplace_contract_address IS NOT NULL GROUP BY 1)
		SELECT * FROM (
			SELECT per.m AS marketplace_address, a.name, per.sales, per.volume AS sales_volume_usd, tr.traders, per.collections
			FROM per JOIN traders tr USING (m) LEFT JOIN aliases a ON a.address = per.m) x
		ORDER BY `+key+` `+direction(ascending)+`, marketplace_address`+page, append([]any{seconds}, pageArgs...)...)
	return rows, err
}

// CountMarketplaces is the number of marketplaces that ran sales in the window.
func (s *Store) CountMarketplaces(ctx context.Context, seconds int64) (int64, error) {
	var n int64
	if seconds == 0 {
		_, err := s.getRow(ctx, &n, `SELECT count(*) FROM nft_sale_keys WHERE scope = 'm'`)
		return n, err
	}
	_, err := s.getRow(ctx, &n, `WITH `+salesSince+` SELECT count(DISTINCT marketplace_contract_address) FROM sales`, seconds)
	return n, err
}

func direction(ascending bool) string {
	if ascending {
		return "ASC"
	}
	return "DESC"
}
