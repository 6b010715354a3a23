package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/cursor"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/resolvers"
)

// A real chain is skewed: a few contracts emit most events and a few accounts send most
// transactions, and those are the keys people ask about. The hot-key workloads read every
// list by the key that has the most rows under its filter, picked from the data, at four
// depths: the first page, a middle page, a deep page (5,000 rows down) and the last page
// the list reports. A plan that suits the average key but not this one shows here.

// HotKey is the key of a list filter with the most rows, and how many it has.
type HotKey struct {
	Filter string  // what the key filters: "events by emitter", ...
	Key    db.Felt // nil when the data has no row for the filter; a type's name for "transactions by type"
	Rows   int64
}

// txTypeCodes are /beta/txns' codes of the transaction types.
var txTypeCodes = map[string]string{"INVOKE": "0", "DECLARE": "1", "DEPLOY": "2", "DEPLOY_ACCOUNT": "3", "L1_HANDLER": "4"}

// hotKeyQueries pick, for each filter, the key with the most rows.
var hotKeyQueries = []struct{ filter, query string }{
	{"events by emitter", `SELECT f.felt, n FROM (SELECT from_id, count(*) AS n FROM events GROUP BY 1) x
		JOIN felt_ids f ON f.id = x.from_id ORDER BY 2 DESC, 1 LIMIT 1`},
	{"transactions by sender", `SELECT f.felt, n FROM (SELECT sender_id, count(*) AS n FROM transactions WHERE sender_id IS NOT NULL GROUP BY 1) x
		JOIN felt_ids f ON f.id = x.sender_id ORDER BY 2 DESC, 1 LIMIT 1`},
	{"transactions by called contract", `SELECT f.felt, n FROM (SELECT contract_id, count(*) AS n FROM transactions WHERE contract_id IS NOT NULL GROUP BY 1) x
		JOIN felt_ids f ON f.id = x.contract_id ORDER BY 2 DESC, 1 LIMIT 1`},
	{"events by key", `SELECT f.felt, n FROM (SELECT key0_id, count(*) AS n FROM events WHERE key0_id IS NOT NULL GROUP BY 1) x
		JOIN felt_ids f ON f.id = x.key0_id ORDER BY 2 DESC, 1 LIMIT 1`},
	{"transactions by type", `SELECT convert_to(type, 'UTF8'), count(*) FROM transactions GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"holders by token", `SELECT token_address, count(*) FROM erc20_balances WHERE balance > 0 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"transfers by token", `SELECT f.felt, n FROM (SELECT token_id, count(*) AS n FROM token_transfers GROUP BY 1) x
		JOIN felt_ids f ON f.id = x.token_id ORDER BY 2 DESC, 1 LIMIT 1`},
	{"transfers by wallet", `SELECT f.felt, n FROM (SELECT w, count(*) AS n FROM (SELECT from_id AS w FROM token_transfers UNION ALL
		SELECT to_id FROM token_transfers WHERE to_id <> from_id) x GROUP BY 1) x JOIN felt_ids f ON f.id = x.w ORDER BY 2 DESC, 1 LIMIT 1`},
	{"contracts by class", `SELECT class_hash, count(*) FROM contracts WHERE class_hash IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"NFT holders by collection", `SELECT contract_address, count(*) FROM nft_holders GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
	{"delegations by validator", `SELECT p.staker_address, count(*) FROM delegations d JOIN pools p USING (pool_contract)
		GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`},
}

// HotKeys picks the hottest key of each filter.
func HotKeys(ctx context.Context, conn *sqlx.DB) (map[string]HotKey, error) {
	return hotKeysOf(ctx, conn, hotKeyQueries)
}

// hotKeysOf runs queries, each picking a filter's key with the most rows.
func hotKeysOf(ctx context.Context, conn *sqlx.DB, queries []struct{ filter, query string }) (map[string]HotKey, error) {
	out := map[string]HotKey{}
	for _, q := range queries {
		k := HotKey{Filter: q.filter}
		rows, err := conn.QueryContext(ctx, q.query)
		if err != nil {
			return nil, fmt.Errorf("bench: hot key of %s: %w", q.filter, err)
		}
		for rows.Next() {
			if err := rows.Scan(&k.Key, &k.Rows); err != nil {
				rows.Close()
				return nil, err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		out[q.filter] = k
	}
	return out, nil
}

// PageSize is the page size of the hot-key workloads.
const PageSize = 25

// DeepOffset is how far down a deep page starts: page 201 of 25.
const DeepOffset = 5000

// Depth is where in a list a workload's page starts.
type Depth struct {
	Name   string
	Offset int
}

// exactCounts are the filters whose lists report their exact total, however many rows
// (their keys' counts and positions are kept: db/key_positions.go, db/rank_spans.go); the
// others stop counting at db.CountCap.
var exactCounts = map[string]bool{
	"events by emitter": true, "events by key": true, "transactions by sender": true,
	"transactions by called contract": true, "transactions by type": true,
	"transfers by token": true, "transfers by wallet": true,
	"contracts by class": true, "NFT holders by collection": true, // the sums of their spans (db/rank_spans.go)
}

// rankedLists are the filters whose lists are ordered by something that changes and keep
// spans of rows with their counts (db/rank_spans.go): a page skips fewer than two spans'
// rows from the start of its span.
var rankedLists = map[string]bool{"holders by token": true, "contracts by class": true, "NFT holders by collection": true}

// Depths are the four pages of filter's list of rows rows that a page-number client can ask
// for: the list reports ceil(rows / PageSize) pages, or ceil(db.CountCap / PageSize) when
// its counts stop at the cap, so its last page starts there.
func Depths(filter string, rows int64) []Depth {
	listed := rows
	if !exactCounts[filter] {
		listed = min(rows, db.CountCap)
	}
	last := 0
	if listed > 0 {
		last = int((listed - 1) / PageSize * PageSize)
	}
	return []Depth{{"page 1", 0}, {"middle page", last / 2 / PageSize * PageSize}, {"deep page", min(DeepOffset, last)}, {"last page", last}}
}

// HotKeyWorkloads are the REST and GraphQL lists read by their hottest keys at every
// Depth. GraphQL's pages after the first start at an offset cursor, which is sealed with
// the database's cursor secret (the one serve uses).
func HotKeyWorkloads(ctx context.Context, conn *sqlx.DB) ([]Workload, error) {
	hot, err := HotKeys(ctx, conn)
	if err != nil {
		return nil, err
	}
	secret, err := cursor.LoadOrCreateSecret(ctx, conn)
	if err != nil {
		return nil, err
	}
	cursor.SetDefault(cursor.New(secret))
	after := func(offset int) string {
		if offset == 0 {
			return ""
		}
		return fmt.Sprintf(`, after: %q`, resolvers.OffsetCursor(offset))
	}
	gql := func(doc string) string {
		return fmt.Sprintf(`{"query":%q}`, strings.Join(strings.Fields(doc), " "))
	}
	page := func(offset int) string { return fmt.Sprintf("p=%d&ps=%d", offset/PageSize+1, PageSize) }

	// REST's transfers are keyset pages: a deep page starts after the id of the row above it.
	transferIDs := map[int]string{}
	if k := hot["transfers by token"]; k.Key != nil {
		for _, d := range Depths("transfers by token", k.Rows) {
			if d.Offset == 0 {
				continue
			}
			var id string
			if err := conn.GetContext(ctx, &id, `SELECT block_number || '_' || tx_index || '_' || event_index FROM token_transfers
				WHERE token_id = (SELECT id FROM felt_ids WHERE felt = $1) ORDER BY block_number DESC, tx_index DESC, event_index DESC OFFSET $2 LIMIT 1`, k.Key, d.Offset-1); err != nil {
				return nil, fmt.Errorf("bench: a transfer %d rows down: %w", d.Offset, err)
			}
			transferIDs[d.Offset] = id
		}
	}
	type list struct {
		filter string
		name   string
		rest   func(key string, offset int) string // a /beta path and query
		graph  func(key string, offset int) string // a GraphQL document
	}
	lists := []list{
		{filter: "events by emitter", name: "events of the hottest emitter",
			rest: func(k string, o int) string { return "/beta/events?contract=" + k + "&" + page(o) },
			graph: func(k string, o int) string {
				return `{ events(first: 25` + after(o) + `, filter: {fromAddress: "` + k + `"}) { edges { node { blockNumber index data transaction { hash } } } } }`
			}},
		{filter: "transactions by called contract", name: "transactions to the busiest contract",
			rest: func(k string, o int) string { return "/beta/txns?to=" + k + "&" + page(o) },
			graph: func(k string, o int) string {
				return `{ transactions(first: 25` + after(o) + `, filter: {contractAddress: "` + k + `"}) { edges { node { hash type actualFee } } } }`
			}},
		{filter: "events by key", name: "events of the commonest key",
			graph: func(k string, o int) string {
				return `{ events(first: 25` + after(o) + `, filter: {key: "` + k + `"}) { edges { node { blockNumber index fromAddress } } } }`
			}},
		{filter: "transactions by type", name: "transactions of the commonest type",
			rest: func(k string, o int) string { return "/beta/txns?type=" + txTypeCodes[k] + "&" + page(o) },
			graph: func(k string, o int) string {
				return `{ transactions(first: 25` + after(o) + `, filter: {type: ` + k + `}) { edges { node { hash type actualFee } } } }`
			}},
		{filter: "transactions by sender", name: "transactions of the busiest sender",
			rest: func(k string, o int) string { return "/beta/tx-activity?sender_address=" + k + "&" + page(o) },
			graph: func(k string, o int) string {
				return `{ transactions(first: 25` + after(o) + `, filter: {senderAddress: "` + k + `"}) { edges { node { hash type actualFee } } } }`
			}},
		{filter: "holders by token", name: "holders of the most held token",
			rest: func(k string, o int) string { return "/beta/tokens/" + k + "/holders?" + page(o) },
			graph: func(k string, o int) string {
				return `{ token(address: "` + k + `") { holders(first: 25` + after(o) + `) { edges { node { balance owner { address } } } } } }`
			}},
		{filter: "transfers by token", name: "transfers of the most moved token",
			graph: func(k string, o int) string {
				return `{ tokenTransfers(token: "` + k + `", first: 25` + after(o) + `) { edges { node { blockNumber fromAddress toAddress amount } } } }`
			}},
		{filter: "transfers by token", name: "transfers of the most moved token, by id",
			rest: func(k string, o int) string {
				path := "/beta/token-transfers?token_address=" + k + "&page_size=25"
				if id := transferIDs[o]; id != "" {
					path += "&id=" + id
				}
				return path
			}},
		{filter: "transfers by wallet", name: "transfers of the busiest wallet",
			graph: func(k string, o int) string {
				return `{ tokenTransfers(wallet: "` + k + `", first: 25` + after(o) + `) { edges { node { blockNumber fromAddress toAddress amount } } } }`
			}},
		{filter: "contracts by class", name: "contracts of the most used class",
			rest: func(k string, o int) string { return "/beta/classes/" + k + "/contracts?" + page(o) },
			graph: func(k string, o int) string {
				return `{ class(hash: "` + k + `") { contracts(first: 25` + after(o) + `) { edges { node { address } } } } }`
			}},
		{filter: "NFT holders by collection", name: "holders of the largest collection",
			rest: func(k string, o int) string { return "/beta/nft-holders?contract_address=" + k + "&" + page(o) },
		},
		{filter: "delegations by validator", name: "delegators of the busiest validator",
			rest: func(k string, o int) string { return "/beta/staking/delegators?validator=" + k + "&" + page(o) },
			graph: func(k string, o int) string {
				return `{ validator(address: "` + k + `") { delegations(first: 25` + after(o) + `) { edges { node { amount } } } } }`
			}},
	}
	var out []Workload
	for _, l := range lists {
		k := hot[l.filter]
		if k.Key == nil {
			continue // the data has none
		}
		key := k.Key.Padded()
		if l.filter == "transactions by type" {
			key = string(k.Key)
		}
		for _, d := range Depths(l.filter, k.Rows) {
			name := fmt.Sprintf("%s (%d rows), %s", l.name, k.Rows, d.Name)
			skip := d.Offset
			if exactCounts[l.filter] {
				skip = min(skip, int(db.MarkEvery))
			}
			if rankedLists[l.filter] {
				skip = min(skip, 2*db.RankSpanRows)
			}
			if l.rest != nil {
				out = append(out, Workload{Name: "/beta " + name, Path: l.rest(key, d.Offset), Offset: d.Offset, Limit: PageSize, Skip: skip})
			}
			if l.graph != nil {
				out = append(out, Workload{Name: "GraphQL " + name, Path: "/graphql", Body: gql(l.graph(key, d.Offset)), Offset: d.Offset, Limit: PageSize, Skip: skip})
			}
		}
	}
	return out, nil
}
