package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// TestDeepPagesSkipByIndexAlone: a deep page of the lists whose index holds their condition
// and their order (meta transactions and NFT events unfiltered; NFT events by collection
// and by item; NFT items, contracts and attestations unfiltered; attestations by validator;
// staking activity by validator and by wallet; messages unfiltered, by contract and by direction;
// NFT balances of a collection) skips the rows above it by that index alone,
// in an index-only scan, and reads from its table only the page's rows and one more (db's
// keysetQuery.keysFrom). Read through the table, every row skipped was fetched (and a meta
// transaction joined to its transaction) before it was thrown away: 5,000 rows deep on the
// 1M bench, 554 ms at p99 for the meta transactions, 82-105 ms for a
// collection's NFT events and a validator's activity; at 10M transactions, 81 ms for the
// contracts, 77 ms for a validator's attestations, 115 ms for an item's NFT events, whose
// index held only the block of their order before migration 00064, and 53 ms for a
// contract's messages and 59 ms for a collection's NFT balances (issue 59).
func TestDeepPagesSkipByIndexAlone(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	counts := make([]int, 20)
	for i := range counts {
		counts[i] = 10
	}
	if err := writeRows(ctx, conn, blocksWithTxs(0, counts, 0)); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO nft_events (block_number, tx_index, event_index, sub_index, contract_address, token_id, from_address, to_address, type, transaction_hash, timestamp)
			SELECT block_number, tx_index, g / 2, g % 2, set_byte('\x00'::bytea, 0, (50 + tx_index % 2)::int), g, '\x01', '\x02', 'transfer', hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		// One item's 400 transfers (collection 52, token 7), for its events.
		`INSERT INTO nft_events (block_number, tx_index, event_index, sub_index, contract_address, token_id, from_address, to_address, type, transaction_hash, timestamp)
			SELECT block_number, tx_index, 10 + g, 0, '\x52', 7, '\x01', '\x02', 'transfer', hash, timestamp
			FROM transactions, generate_series(0, 1) g`,
		`INSERT INTO attestations (block_number, tx_index, event_index, staker_address, epoch, transaction_hash, timestamp)
			SELECT block_number, tx_index, g, set_byte('\x00'::bytea, 0, (70 + g % 2)::int), block_number, hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		// 600 contracts, a tenth deployed before the first block indexed (no block).
		`INSERT INTO contracts (address, class_hash, deployed_block)
			SELECT int8send(g), '\x09', CASE WHEN g % 10 <> 0 THEN g / 30 END FROM generate_series(0, 599) g`,
		`INSERT INTO staking_activity (block_number, tx_index, event_index, operation, wallet_address, staker_address, transaction_hash, timestamp)
			SELECT block_number, tx_index, g, 'stake', set_byte('\x00'::bytea, 0, (60 + g % 2)::int), set_byte('\x00'::bytea, 0, (70 + tx_index % 2)::int), hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO meta_transactions (block_number, tx_index, call_index, contract_address, caller_address, operations, actions)
			SELECT block_number, tx_index, g, set_byte('\x00'::bytea, 0, (80 + g % 2)::int), '\x01', '', '[]' FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO nft_items (contract_address, token_id, contract_type)
			SELECT set_byte('\x00'::bytea, 0, (50 + g % 2)::int), g, 1 FROM generate_series(0, 599) g`,
		`INSERT INTO messages (block_number, tx_index, direction, msg_index, message_hash, from_address, to_address, l2_address, payload, transaction_hash, timestamp)
			SELECT block_number, tx_index, g % 2, g, '\x0a', '\x0b', '\x0c', set_byte('\x00'::bytea, 0, (90 + g / 2)::int), '\x00', hash, timestamp
			FROM transactions, generate_series(0, 3) g`,
		// 30,000 balances of collection 0x53: 10,000 items, 3 owners each (enough that the page's
		// rows are looked up by key, not hashed against the whole table).
		`INSERT INTO nft_balances (contract_address, token_id, owner_address, balance, last_transfer_time)
			SELECT '\x53', g / 3, int8send(g), 1 + g % 5, 0 FROM generate_series(0, 29999) g`,
		`VACUUM ANALYZE nft_balances, messages, nft_events, staking_activity, meta_transactions, nft_items, transactions, attestations, contracts`,
	} {
		if _, err := conn.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	store := db.NewStore(conn)
	type statement struct {
		query string
		args  []any
	}
	var ran []statement
	store.OnQuery = func(q string, args []any) { ran = append(ran, statement{q, args}) }
	addr := func(n int64) db.Felt { return db.Normalize(db.FeltFromUint64(uint64(n))) }
	w := db.Window{Limit: 26, Offset: 250}
	for _, l := range []struct {
		name, table string
		read        func() (int, error)
	}{
		{"meta transactions", "meta_transactions", func() (int, error) {
			rows, err := store.MetaTransactions(ctx, nil, w)
			return len(rows), err
		}},
		{"NFT events", "nft_events", func() (int, error) {
			rows, err := store.NftEvents(ctx, db.NftEventFilter{}, w)
			return len(rows), err
		}},
		{"NFT events of a collection", "nft_events", func() (int, error) {
			rows, err := store.NftEvents(ctx, db.NftEventFilter{Contract: addr(50)}, w)
			return len(rows), err
		}},
		{"NFT items", "nft_items", func() (int, error) {
			rows, err := store.NftItems(ctx, db.NftItemFilter{}, w)
			return len(rows), err
		}},
		{"NFT events of an item", "nft_events", func() (int, error) {
			token := "7"
			rows, err := store.NftEvents(ctx, db.NftEventFilter{Contract: addr(0x52), TokenID: &token}, w)
			return len(rows), err
		}},
		{"NFT events of an item, as NftItem.events loads them", "nft_events", func() (int, error) {
			rows, err := store.NftEventsOfItems(ctx, []db.NftKey{{Contract: string(addr(0x52)), TokenID: "7"}}, w.Limit, w.Offset)
			return len(rows), err
		}},
		{"contracts", "contracts", func() (int, error) {
			rows, err := store.Contracts(ctx, "", nil, w)
			return len(rows), err
		}},
		{"attestations", "attestations", func() (int, error) {
			rows, err := store.Attestations(ctx, nil, w)
			return len(rows), err
		}},
		{"attestations of a validator", "attestations", func() (int, error) {
			rows, err := store.Attestations(ctx, addr(70), w)
			return len(rows), err
		}},
		{"messages", "messages", func() (int, error) {
			rows, err := store.Messages(ctx, db.MessageFilter{}, w)
			return len(rows), err
		}},
		{"messages of a contract", "messages", func() (int, error) {
			rows, err := store.Messages(ctx, db.MessageFilter{Contract: addr(90)}, w)
			return len(rows), err
		}},
		{"messages of one direction", "messages", func() (int, error) {
			toL1 := db.MessageToL1
			rows, err := store.Messages(ctx, db.MessageFilter{Direction: &toL1}, w)
			return len(rows), err
		}},
		{"NFT balances of a collection", "nft_balances", func() (int, error) {
			rows, err := store.NftBalances(ctx, addr(0x53), nil, w)
			return len(rows), err
		}},
		{"staking activity of a validator", "staking_activity", func() (int, error) {
			rows, err := store.StakingActivity(ctx, db.StakingLogFilter{Staker: addr(70)}, w)
			return len(rows), err
		}},
		{"staking activity of a wallet", "staking_activity", func() (int, error) {
			rows, err := store.StakingActivity(ctx, db.StakingLogFilter{Wallet: addr(60)}, w)
			return len(rows), err
		}},
	} {
		ran = nil
		n, err := l.read()
		if err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		if n != w.Limit {
			t.Fatalf("%s: %d rows at offset %d, want %d", l.name, n, w.Offset, w.Limit)
		}
		explained := 0
		for _, st := range ran {
			if !strings.Contains(st.query, l.table) {
				continue
			}
			raw, err := dbtest.ExplainAnalyze(conn, st.query, st.args)
			if err != nil {
				t.Fatalf("%s: %v\n%s", l.name, err, st.query)
			}
			var plan []struct{ Plan scanNode }
			if err := json.Unmarshal(raw, &plan); err != nil {
				t.Fatal(err)
			}
			explained++
			for _, skip := range plan[0].Plan.tableReads(l.table, int64(w.Limit+1)) {
				t.Errorf("%s at offset %d skips rows through the table: %s\n  %s", l.name, w.Offset, skip, st.query)
			}
		}
		if explained == 0 {
			t.Errorf("%s: no statement read %s", l.name, l.table)
		}
	}
}

// scanNode is a node of EXPLAIN (ANALYZE, FORMAT JSON).
type scanNode struct {
	NodeType        string     `json:"Node Type"`
	Relation        string     `json:"Relation Name"`
	Index           string     `json:"Index Name"`
	Rows            int64      `json:"Actual Rows"`
	Loops           int64      `json:"Actual Loops"`
	RemovedByFilter int64      `json:"Rows Removed by Filter"`
	Plans           []scanNode `json:"Plans"`
}

// tableReads lists the scans of table in n's plan, other than index-only ones, that read
// more than need of its rows.
func (n scanNode) tableReads(table string, need int64) []string {
	var out []string
	read := (n.Rows + n.RemovedByFilter) * max(n.Loops, 1)
	if strings.Contains(n.NodeType, "Scan") && n.NodeType != "Index Only Scan" && n.Relation == table && read > need {
		out = append(out, fmt.Sprintf("%s using %s: %d rows", n.NodeType, n.Index, read))
	}
	for _, c := range n.Plans {
		out = append(out, c.tableReads(table, need)...)
	}
	return out
}
