package indexer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// notIndexedTables are the tables in none of the indexer's lists (journaled, COPYed chain
// rows, bulk loaded, compared by the reorg tests), each with the reason. A table goes here
// only when a reorg, a bulk load and the reorg tests have nothing to do with it.
var notIndexedTables = map[string]string{
	"indexer_state":         "the head itself: the indexer sets it with every batch, a reorg to the fork point",
	"block_partitioning":    "a setting of the operator's, read when partitions are made",
	"undo_rows":             "the undo journal itself",
	"call_balances":         "balances read with balance_of by the indexer between polls, not from blocks; a reorg deletes the reads above its fork (db/balance_corrections.go)",
	"deferred_constraints":  "a bulk load's own bookkeeping, empty outside one",
	"felt_ids":              "a dictionary that only grows: ids are never undone, an orphaned block's felts keep theirs",
	"token_prices":          "keyed by block, removed by the cascade from blocks on a reorg; a few rows, not bulk loaded; the prices come from the oracle the fixtures do not hold",
	"l1_messages":           "written by the L1 follower from Ethereum, not from Starknet blocks",
	"l1_state":              "the L1 follower's position on Ethereum",
	"rank_spans":            "kept by triggers of erc20_balances, nft_holders and contracts: a reorg's undo of those moves it too",
	"nft_sale_volumes":      "kept by triggers of nft_events: a reorg's cascade to nft_events moves it too",
	"nft_sale_members":      "kept by triggers of nft_events: a reorg's cascade to nft_events moves it too",
	"nft_sale_keys":         "kept by triggers of nft_events: a reorg's cascade to nft_events moves it too",
	"aliases":               "the operator's labels (labels/)",
	"plans":                 "API plans (auth/)",
	"api_keys":              "API keys (auth/)",
	"api_key_usage":         "API usage counts (auth/)",
	"server_secrets":        "secrets the API replicas share (cursor/)",
	"verification_jobs":     "the class verification queue (verify/)",
	"verification_job_log":  "the class verification queue's log (verify/)",
	"verified_classes":      "written by the verification workers, not from blocks",
	"holders_snapshots":     "written by the analytics job from the balances, not by the indexer",
	"nft_metadata_requests": "the NFT metadata fetcher's queue (nftmeta/)",
	"webhooks":              "API keys' webhooks and their positions (webhooks/): the delivery loop sees a reorg by block hashes and rewinds",
	"webhook_sent":          "what webhooks were sent within the reorg window (webhooks/), compared with the blocks' hashes to retract",
	"webhook_deliveries":    "the webhooks' delivery log (webhooks/)",
}

// notBulkLoaded are the tables of db.ChainRows that a bulk load leaves alone.
var notBulkLoaded = map[string]string{
	"blocks": "every per-block row's parent: its keys are what the cascades of a reorg hang from, and few rows",
}

// TestEveryTableIsListed: each table of a migrated database is in the lists that say how a
// reorg, a bulk load and the reorg tests treat it (CONTRIBUTING.md, "A table or column"),
// or in notIndexedTables with the reason it needs none. A new table in none fails here.
func TestEveryTableIsListed(t *testing.T) {
	conn := dbtest.New(t)
	var tables []struct {
		Name string `db:"relname"`
		Kind string `db:"relkind"`
	}
	if err := conn.Select(&tables, `SELECT relname, relkind::text FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition
		  AND relname <> 'goose_db_version' ORDER BY relname`); err != nil {
		t.Fatal(err)
	}
	journaled, bulk, chainRows := db.JournaledTables(), db.BulkTables(), db.ChainRowTables()
	lists := []struct {
		name, where string
		tables      []string
	}{
		{"journaledTables", "db/write_undo.go", journaled},
		{"db.ChainRows", "db/write.go", chainRows},
		{"bulkTables", "db/bulk.go", bulk},
		{"db.PartitionedTables", "db/partitions.go", db.PartitionedTables},
		{"snapshotTables", "indexer/fixtures_test.go", snapshotTables},
		{"notIndexedTables", "indexer/tables_test.go", keys(notIndexedTables)},
	}
	exists := map[string]bool{}
	for _, tb := range tables {
		exists[tb.Name] = true
		var in []string
		for _, l := range lists {
			if slices.Contains(l.tables, tb.Name) {
				in = append(in, l.name)
			}
		}
		switch {
		case len(in) == 0:
			t.Errorf("table %s is in none of the lists that say how the indexer treats it. Add it to those that fit "+
				"(CONTRIBUTING.md, \"A table or column\"):\n"+
				"  - the indexer updates its rows in place: journaledTables (db/write_undo.go), so that a reorg rolls it back, "+
				"and snapshotTables (indexer/fixtures_test.go), so that the reorg tests compare it;\n"+
				"  - append-only rows per block or transaction: a field of db.ChainRows (COPY, with a foreign key ON DELETE CASCADE "+
				"to blocks or transactions), bulkTables (db/bulk.go) and snapshotTables;\n"+
				"  - rows derived again after each batch or reorg: snapshotTables;\n"+
				"  - nothing the indexer writes from blocks (an API, a queue, a setting): notIndexedTables "+
				"(indexer/tables_test.go), with the reason", tb.Name)
		case slices.Contains(in, "notIndexedTables") && len(in) > 1:
			t.Errorf("table %s is in notIndexedTables and in %v: take it out of one", tb.Name, in[:len(in)-1])
		}
		partitioned := tb.Kind == "p"
		if partitioned != slices.Contains(db.PartitionedTables, tb.Name) {
			t.Errorf("table %s: partitioned %v, in db.PartitionedTables %v: list exactly the tables partitioned by block range "+
				"(db/partitions.go makes their partitions)", tb.Name, partitioned, !partitioned)
		}
	}
	for _, l := range lists {
		for _, name := range l.tables {
			if !exists[name] {
				t.Errorf("%s (%s) lists %s, which the migrated database has no table of", l.name, l.where, name)
			}
		}
	}
	for _, name := range journaled {
		if !slices.Contains(snapshotTables, name) {
			t.Errorf("journaled table %s is not in snapshotTables (indexer/fixtures_test.go): the reorg tests would not compare it", name)
		}
		if slices.Contains(chainRows, name) {
			t.Errorf("table %s is both journaled and in db.ChainRows: its rows are either updated in place or appended", name)
		}
	}
	for _, name := range chainRows {
		if !slices.Contains(snapshotTables, name) {
			t.Errorf("table %s of db.ChainRows is not in snapshotTables (indexer/fixtures_test.go): the reorg tests would not compare it", name)
		}
		if _, ok := notBulkLoaded[name]; !ok && !slices.Contains(bulk, name) {
			t.Errorf("table %s of db.ChainRows is not in bulkTables (db/bulk.go): a catch-up would keep up each of its "+
				"secondary indexes and foreign keys row by row", name)
		}
	}
	for _, name := range bulk {
		if !slices.Contains(chainRows, name) {
			t.Errorf("bulk-loaded table %s is not written through db.ChainRows", name)
		}
	}
	// A reorg removes the rows of the chain by the cascade from blocks.
	var cascades []string
	if err := conn.Select(&cascades, `SELECT conrelid::regclass::text || ' ' || confrelid::regclass::text FROM pg_constraint
		WHERE contype = 'f' AND confdeltype = 'c' AND conparentid = 0 AND confrelid::regclass::text IN ('blocks', 'transactions')`); err != nil {
		t.Fatal(err)
	}
	for _, name := range chainRows {
		if name == "blocks" {
			continue
		}
		if !slices.ContainsFunc(cascades, func(c string) bool { return strings.HasPrefix(c, name+" ") }) {
			t.Errorf("table %s of db.ChainRows has no foreign key ON DELETE CASCADE to blocks or transactions: a reorg would leave "+
				"its rows of the orphaned blocks (%s)", name, fmt.Sprint(cascades))
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
