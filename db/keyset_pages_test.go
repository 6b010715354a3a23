package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// Every list sorted by a keyset (events, transfers, messages, NFT events, items, holders and
// balances, staking activity, attestations, meta-transactions, and a validator's delegations;
// NFT balances and delegations sort up by one column and down by the others), filtered or
// not, either way: walked page by page, each page is the slice the whole list has there,
// and each page after the first continues from where the page before ended instead of
// skipping rows.
func TestKeysetListPagesContinueWhereThePageBeforeEnded(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, blocksWithTxs(0, []int{3, 0, 5, 1, 7, 2, 0, 6, 4}, 0)); err != nil {
		t.Fatal(err)
	}
	// Three rows of each table per transaction, their addresses taking two or three values so
	// that a filter keeps some of them.
	for _, stmt := range []string{
		`INSERT INTO events (block_number, tx_index, event_index, from_id)
			SELECT block_number, tx_index, g, felt_id(set_byte('\x00'::bytea, 0, (10 + (tx_index + g) % 2)::int)) FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO token_transfers (block_number, tx_index, event_index, token_id, from_id, to_id, amount)
			SELECT block_number, tx_index, g, felt_id(set_byte('\x00'::bytea, 0, (20 + g % 2)::int)), felt_id(set_byte('\x00'::bytea, 0, (30 + (tx_index + g) % 3)::int)), felt_id(set_byte('\x00'::bytea, 0, (30 + (tx_index + g + 1) % 3)::int)), 1
			FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO messages (block_number, tx_index, direction, msg_index, message_hash, from_address, to_address, l2_address, payload, transaction_hash, timestamp)
			SELECT block_number, tx_index, g % 2, g, int8send(block_number * 1000 + tx_index * 10 + g), '\x01', '\x02', set_byte('\x00'::bytea, 0, (40 + g % 2)::int), '', hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO nft_events (block_number, tx_index, event_index, sub_index, contract_address, token_id, from_address, to_address, type, transaction_hash, timestamp)
			SELECT block_number, tx_index, g / 2, g % 2, set_byte('\x00'::bytea, 0, (50 + tx_index % 2)::int), g, '\x01', '\x02', 'transfer', hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO staking_activity (block_number, tx_index, event_index, operation, wallet_address, staker_address, transaction_hash, timestamp)
			SELECT block_number, tx_index, g, 'stake', set_byte('\x00'::bytea, 0, (60 + g % 2)::int), set_byte('\x00'::bytea, 0, (70 + tx_index % 2)::int), hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO attestations (block_number, tx_index, event_index, staker_address, epoch, transaction_hash, timestamp)
			SELECT block_number, tx_index, g, set_byte('\x00'::bytea, 0, (70 + (tx_index + g) % 2)::int), block_number, hash, timestamp
			FROM transactions, generate_series(0, 2) g`,
		`INSERT INTO meta_transactions (block_number, tx_index, call_index, contract_address, caller_address, operations, actions)
			SELECT block_number, tx_index, g, set_byte('\x00'::bytea, 0, (80 + g % 2)::int), '\x01', '', '[]' FROM transactions, generate_series(0, 2) g`,
		// Holders with balances of one to three digits, some equal (the owner breaks the tie).
		`INSERT INTO nft_holders (contract_address, owner_address, token_id, held, last_transfer_time)
			SELECT '\x32', set_byte('\x00'::bytea, 0, g), g, (g * 37) % 101 + g % 3 * 100, 1 FROM generate_series(1, 60) g`,
		`INSERT INTO nft_balances (contract_address, token_id, owner_address, balance, last_transfer_time)
			SELECT '\x32', 7, set_byte('\x00'::bytea, 0, g), (g * 37) % 101 + g % 3 * 100, 1 FROM generate_series(1, 60) g`,
		// More items of the collection, with one to five owners each (token ids of one and two
		// digits: the list sorts them up, and each one's balances down).
		`INSERT INTO nft_balances (contract_address, token_id, owner_address, balance, last_transfer_time)
			SELECT '\x32', g % 13 * 3, set_byte('\x00'::bytea, 0, 100 + g), (g * 13) % 7 * 5 + 1, 1 FROM generate_series(1, 45) g`,
		// A validator with two pools, their delegations of one to three digits, some equal
		// within a pool and across the two (the pool, then the delegator, break the tie).
		`INSERT INTO validators (staker_address, reward_address, operational_address) VALUES ('\x5a', '\x01', '\x02')`,
		`INSERT INTO pools (pool_contract, staker_address, token_address) VALUES ('\x5b', '\x5a', '\x03'), ('\x5c', '\x5a', '\x04')`,
		`INSERT INTO delegations (pool_contract, delegator_address, amount)
			SELECT CASE WHEN g % 3 = 0 THEN '\x5c'::bytea ELSE '\x5b' END, set_byte('\x00'::bytea, 0, g), (g * 37) % 101 % 40 + g % 3 * 100 FROM generate_series(1, 50) g`,
		`INSERT INTO nft_items (contract_address, token_id, contract_type)
			SELECT set_byte('\x00'::bytea, 0, (50 + g % 2)::int), g * 7 % 60, 1 FROM generate_series(0, 59) g`,
	} {
		if _, err := conn.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	addr := func(n int64) db.Felt { return db.Normalize(db.FeltFromUint64(uint64(n))) }
	pos := func(parts ...any) string { return fmt.Sprint(parts...) }
	type list struct {
		name   string
		keyset string // the keyset condition of its statement
		read   func(w db.Window) ([]string, error)
	}
	keysOf := func(n int, key func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = key(i)
		}
		return out
	}
	store := db.NewStore(conn)
	events := func(f db.EventsFilter, desc bool) func(w db.Window) ([]string, error) {
		return func(w db.Window) ([]string, error) {
			rows, err := store.Events(ctx, f, desc, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].BlockNumber, rows[i].TxIndex, rows[i].Index) }), err
		}
	}
	transfers := func(f db.TokenTransferFilter) func(w db.Window) ([]string, error) {
		return func(w db.Window) ([]string, error) {
			rows, err := store.TokenTransfers(ctx, f, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].BlockNumber, rows[i].TxIndex, rows[i].EventIndex) }), err
		}
	}
	lists := []list{
		{"events", "(e.block_number, e.tx_index, e.event_index) <", events(db.EventsFilter{}, true)},
		{"events of a contract, oldest first", "(e.block_number, e.tx_index, e.event_index) >", events(db.EventsFilter{From: addr(11)}, false)},
		{"transfers of a token", "(e.block_number, e.tx_index, e.event_index) <", transfers(db.TokenTransferFilter{Token: addr(21)})},
		{"transfers of a wallet", "(e.block_number, e.tx_index, e.event_index) <", transfers(db.TokenTransferFilter{Wallet: addr(31)})},
		{"transfers of a wallet, oldest first", "(e.block_number, e.tx_index, e.event_index) >", transfers(db.TokenTransferFilter{Wallet: addr(32), Ascending: true})},
		{"messages of a contract", "(m.block_number, m.tx_index, m.direction, m.msg_index) <", func(w db.Window) ([]string, error) {
			rows, err := store.Messages(ctx, db.MessageFilter{Contract: addr(40)}, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].BlockNumber, rows[i].TxIndex, rows[i].Direction, rows[i].Index) }), err
		}},
		{"NFT events of a collection", "(e.block_number, e.tx_index, e.event_index, e.sub_index) <", func(w db.Window) ([]string, error) {
			rows, err := store.NftEvents(ctx, db.NftEventFilter{Contract: addr(51)}, w)
			return keysOf(len(rows), func(i int) string {
				return pos(rows[i].BlockNumber, rows[i].TxIndex, rows[i].EventIndex, rows[i].SubIndex)
			}), err
		}},
		{"NFT items of a collection", "(i.contract_address, i.token_id) >", func(w db.Window) ([]string, error) {
			rows, err := store.NftItems(ctx, db.NftItemFilter{Contract: addr(50)}, w)
			return keysOf(len(rows), func(i int) string { return rows[i].TokenID }), err
		}},
		{"holders of an NFT collection", "(h.held, h.owner_address) <", func(w db.Window) ([]string, error) {
			rows, err := store.NftHolders(ctx, addr(50), nil, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].Balance, rows[i].OwnerAddress) }), err
		}},
		{"holders of an NFT", "(b.balance, b.owner_address) <", func(w db.Window) ([]string, error) {
			token := "7"
			rows, err := store.NftHolders(ctx, addr(50), &token, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].Balance, rows[i].OwnerAddress) }), err
		}},
		{"balances of an NFT collection", "b.token_id >=", func(w db.Window) ([]string, error) {
			rows, err := store.NftBalances(ctx, addr(50), nil, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].TokenID, "/", rows[i].Balance, "/", rows[i].OwnerAddress) }), err
		}},
		{"balances of an NFT", "b.token_id >=", func(w db.Window) ([]string, error) {
			token := "7"
			rows, err := store.NftBalances(ctx, addr(50), &token, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].Balance, "/", rows[i].OwnerAddress) }), err
		}},
		{"delegations of a validator", "d.amount <=", func(w db.Window) ([]string, error) {
			rows, err := store.DelegationsOfValidator(ctx, db.ValidatorDelegationFilter{Staker: addr(90)}, w)
			return keysOf(len(rows), func(i int) string {
				return pos(rows[i].Amount, "/", rows[i].PoolAddress, "/", rows[i].DelegatorAddress)
			}), err
		}},
		{"staking activity of a staker, oldest first", "(a.block_number, a.tx_index, a.event_index) >", func(w db.Window) ([]string, error) {
			rows, err := store.StakingActivity(ctx, db.StakingLogFilter{Staker: addr(70), Ascending: true}, w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].BlockNumber, rows[i].TxIndex, rows[i].EventIndex) }), err
		}},
		{"attestations of a validator", "(a.block_number, a.tx_index, a.event_index) <", func(w db.Window) ([]string, error) {
			rows, err := store.Attestations(ctx, addr(71), w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].BlockNumber, rows[i].TxIndex, rows[i].EventIndex) }), err
		}},
		{"meta-transactions of an account", "(m.block_number, m.tx_index, m.call_index) <", func(w db.Window) ([]string, error) {
			rows, err := store.MetaTransactions(ctx, addr(81), w)
			return keysOf(len(rows), func(i int) string { return pos(rows[i].BlockNumber, rows[i].Index, rows[i].CallIndex) }), err
		}},
	}
	for _, l := range lists {
		t.Run(l.name, func(t *testing.T) {
			// The whole list in one page read from its start: no page end, no keyset.
			all, err := l.read(db.Window{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) < 12 {
				t.Fatalf("the seed gives the list %d rows, too few to walk", len(all))
			}
			walkPages(t, store, all, 5, l.keyset, l.read)
		})
	}
}
