package rest

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
)

// TestListsCostConstantStatements runs every paged GET operation with a small and a large
// page: both must run the same number of SQL statements (no statement per item), and the
// large page must hold more items than the small one wherever the seeded chain has them,
// so that the comparison means something. REST handlers load one key at a time, and a
// list reads its items' links for the whole page (resolvers' Load* functions).
func TestListsCostConstantStatements(t *testing.T) {
	conn := dbtest.New(t)
	seed(t, conn)
	seedLongLists(t, conn)
	store := db.NewStore(conn)
	var felts atomic.Int64
	store.OnQuery = func(q string, _ []any) {
		if strings.Contains(q, feltsByIDStatement) {
			felts.Add(1)
		}
	}
	srv := httptest.NewServer(NewHandler(&resolvers.Resolver{Store: store}, Options{}))
	t.Cleanup(srv.Close)
	e := &env{t: t, db: conn, url: srv.URL}

	// Operations whose seeded lists are too short to tell 2 items from more.
	short := map[string]bool{}
	compared := 0
	for _, rt := range routeTable() {
		if rt.method != "GET" {
			continue
		}
		size := ""
		switch {
		case slices.ContainsFunc(rt.params, func(p param) bool { return p.name == "ps" }):
			size = "ps"
		case slices.ContainsFunc(rt.params, func(p param) bool { return p.name == "limit" }):
			size = "limit"
		case slices.ContainsFunc(rt.params, func(p param) bool { return p.name == "page_size" }):
			size = "page_size"
		default:
			continue
		}
		path, ok := sampleRequests[rt.opID]
		path, _, _ = strings.Cut(path, "?"+size+"=") // the sample's own page size, first
		path, _, _ = strings.Cut(path, "&"+size+"=") // or last
		if !ok {
			t.Fatalf("no sample request for %s", rt.opID)
		}
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		small, large := "10", "100"
		if size != "ps" {
			small = "2"
		}
		count := func(n string) (statements int64, items int) {
			before, beforeFelts := store.Statements(), felts.Load()
			body := e.mustGet(path + sep + size + "=" + n)
			// The felts read by id are at most one statement for each kind of row a page
			// reads by id (a tx-activity page: its transactions, then their calls), for
			// the misses in the Store's cache, whatever the page's length; the warm cache
			// skips them.
			read := felts.Load() - beforeFelts
			if read > 2 {
				t.Errorf("%s: %d statements read felts by id for %s=%s, want at most 2", rt.opID, read, size, n)
			}
			return store.Statements() - before - read, len(listItems(body))
		}
		sStmts, sItems := count(small)
		lStmts, lItems := count(large)
		if lStmts != sStmts {
			t.Errorf("%s: %d statements for %s=%s (%d items), %d for %s=%s (%d items): a statement per item",
				rt.opID, sStmts, size, small, sItems, lStmts, size, large, lItems)
		}
		if lItems > sItems {
			compared++
		} else {
			short[rt.opID] = true
		}
	}
	t.Logf("%d paged operations compared on pages of different lengths; seeded lists too short for %v", compared, short)
	if compared < 15 {
		t.Errorf("only %d operations had more items on the large page; the test would prove little", compared)
	}
}

// listItems is the item array of a list answer (items, data, or the answer itself).
func listItems(body any) []any {
	switch b := body.(type) {
	case []any:
		return b
	case map[string]any:
		for _, k := range []string{"items", "data", "holders"} {
			if items, ok := b[k].([]any); ok {
				return items
			}
		}
	}
	return nil
}

// seedLongLists lengthens the seeded lists that are shorter than a small page, for this
// test's database only: 12 more accounts (of the account class), classes (verified),
// ERC-20 tokens, ETH holders, validators with a pool each and meta-transactions.
func seedLongLists(t *testing.T, conn *sqlx.DB) {
	t.Helper()
	tx := conn.MustBegin()
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := tx.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	const more = 12
	for i := 0; i < more; i++ {
		acct := account(nAccounts + i)
		exec(`INSERT INTO contracts (address, class_hash, type, nonce, deployed_block, deployed_tx_hash, deployed_at)
			VALUES ($1, $2, 'account', 1, 9, $3, $4)`, acct, accountClass, txHash(9, 0), baseTime+90)
		exec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
			VALUES ($1, $2, $3, 1, $4)`, ethAddr, acct, 1000+i, baseTime)
		class := db.FeltFromUint64(uint64(0xc1a55000 + i))
		exec(`INSERT INTO classes (hash, kind, cairo_version, version, declared_block, declared_tx_hash, declared_at)
			VALUES ($1, 'sierra', 1, '2.6.3', 9, $2, $3)`, class, txHash(9, 1), baseTime+90)
		exec(`INSERT INTO verified_classes (class_hash, name, verified_at, compiler_version) VALUES ($1, $2, $3, '2.6.3')`,
			class, fmt.Sprintf("Class%d", i), 1728474285+i)
		token := db.FeltFromUint64(uint64(0x70c3000 + i))
		exec(`INSERT INTO contracts (address, class_hash, type, nonce, deployed_block, deployed_tx_hash, deployed_at)
			VALUES ($1, $2, 'erc20', 0, 9, $3, $4)`, token, erc20Class, txHash(9, 1), baseTime+90)
		exec(`INSERT INTO tokens (address, standard, name, symbol, decimals, total_supply, transfer_count, holder_count)
			VALUES ($1, 'erc20', $2, $3, 18, 1000, $4, $4)`, token, fmt.Sprintf("Token %d", i), fmt.Sprintf("T%d", i), 10+i)
		pool := db.FeltFromUint64(uint64(0xb0100 + i))
		exec(`INSERT INTO validators (staker_address, reward_address, name, self_stake, delegated_stake_strk, revenue_share_bps,
			state, start_time, total_delegators) VALUES ($1, $1, $2, $3, 0, 500, 'active', $4, 0)`,
			acct, fmt.Sprintf("Validator %d", i), fmt.Sprintf("%d000000000000000000000", 20+i), baseTime)
		exec(`INSERT INTO pools (pool_contract, staker_address, token_address, total_delegated, delegator_count) VALUES ($1, $2, $3, 0, 0)`,
			pool, acct, strkAddr)
		exec(`INSERT INTO meta_transactions (block_number, tx_index, call_index, contract_address, caller_address, operations)
			VALUES ($1, 1, 0, $2, $3, 'claim')`, 8+i, account(0), db.MustFelt("0x414e595f43414c4c4552"))
	}
	dbtest.DeriveAsIndexer(t, tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
