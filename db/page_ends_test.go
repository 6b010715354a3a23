package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// holderOwners reads a page of a token's holders the slow way, with OFFSET.
func holderOwners(t *testing.T, conn *sqlx.DB, token db.Felt, limit, offset int) []string {
	t.Helper()
	var owners []string
	if err := conn.Select(&owners, `SELECT encode(owner_address, 'hex') FROM erc20_balances
		WHERE token_address = $1 AND balance > 0 ORDER BY balance DESC, owner_address DESC LIMIT $2 OFFSET $3`,
		token, limit, offset); err != nil {
		t.Fatal(err)
	}
	return owners
}

func ownersOf(rows []*db.TokenBalance) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%x", []byte(r.OwnerAddress)))
	}
	return out
}

// walkPages reads a list page by page as the resolvers' pager does (size rows a page, each
// read with one row more) and checks that every page is the same slice of all (the list
// read whole, the slow way) and that each page after the first continued from the page
// before: its statement has the list's keyset condition, keyset.
func walkPages(t *testing.T, store *db.Store, all []string, size int, keyset string, read func(db.Window) ([]string, error)) {
	t.Helper()
	var query string
	store.OnQuery = func(q string, _ []any) { query = q }
	defer func() { store.OnQuery = nil }()
	for offset := 0; offset < len(all); offset += size {
		got, err := read(db.Window{Limit: size + 1, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		if want := all[offset:min(offset+size+1, len(all))]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("page from %d: %v, want %v", offset, got, want)
		}
		// A list read from its first key (keysetQuery.seekFromFirstKey) bounds its page by
		// that key, "(cols) <= (SELECT ...)": not a continuation.
		if continued := strings.Contains(strings.ReplaceAll(query, keyset+"= (SELECT", ""), keyset); continued != (offset > 0) {
			t.Fatalf("page from %d continued from the page before: %v", offset, continued)
		}
	}
}

// Walking a token's holders page by page, each page after the first continues from where
// the page before ended, along the index, and is the page OFFSET reads; a page reached
// otherwise, or after the remembered end has aged, skips the holders above it. When
// holders leave the list between two pages, the walk still sees every other holder once.
func TestHolderPagesContinueWhereThePageBeforeEnded(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	token, other := db.FeltFromUint64(0x70c), db.FeltFromUint64(0x70d)
	for i := 1; i <= 60; i++ {
		// Balances of 1 to 3 digits, some equal (the owner breaks the tie).
		for _, tk := range []db.Felt{token, other} {
			if _, err := conn.Exec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
				VALUES ($1, $2, $3, 1, 1)`, tk, db.FeltFromUint64(uint64(0xa000+i)), (i*37)%101+i%3*100); err != nil {
				t.Fatal(err)
			}
		}
	}
	store := db.NewStore(conn)
	now := time.Unix(1_700_000_000, 0)
	store.SetClock(func() time.Time { return now })
	const keyset = "(b.balance, b.owner_address) <"
	walkPages(t, store, holderOwners(t, conn, token, 100, 0), 7, keyset, func(w db.Window) ([]string, error) {
		rows, err := store.HoldersOf(ctx, []db.Felt{token}, w.Limit, w.Offset)
		return ownersOf(rows), err
	})

	var query string
	store.OnQuery = func(q string, _ []any) { query = q }
	page := func(offset int) []string {
		t.Helper()
		rows, err := store.HoldersOf(ctx, []db.Felt{token}, 7, offset)
		if err != nil {
			t.Fatal(err)
		}
		return ownersOf(rows)
	}
	continued := func() bool { return strings.Contains(query, keyset) }
	if page(30); continued() {
		t.Fatal("a page no page ended at was read from a remembered end")
	}

	// Two holders of page 1 sell everything between pages 2 and 3. Skipping by position,
	// the rest of the walk would start two holders late and miss two; continuing from page
	// 2's last holder, every holder whose balance did not move is seen once.
	walked := map[string]int{}
	for _, o := range append(page(0), page(7)...) {
		walked[o]++
	}
	gone := holderOwners(t, conn, token, 2, 0)
	if _, err := conn.Exec(`UPDATE erc20_balances SET balance = 0 WHERE token_address = $1 AND encode(owner_address, 'hex') = ANY($2)`,
		token, pq.StringArray(gone)); err != nil {
		t.Fatal(err)
	}
	for offset := 14; offset < 60; offset += 7 {
		for _, o := range page(offset) {
			walked[o]++
		}
	}
	for _, o := range holderOwners(t, conn, token, 100, 0) {
		if walked[o] != 1 {
			t.Errorf("holder %s seen %d times in one walk", o, walked[o])
		}
	}

	// An end older than 30 s is not used.
	page(0)
	now = now.Add(31 * time.Second)
	if got, want := page(7), holderOwners(t, conn, token, 7, 7); continued() || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after 31 s, page 2 continued (%v) or is %v, want %v", continued(), got, want)
	}
}

// Contracts, of all types and of one, walked page by page as the pager reads them (a row
// more than the page): each page after the first continues from where the page before
// ended and is the page OFFSET reads, across contracts with no deployment block and ties
// of block.
func TestContractPagesContinueWhereThePageBeforeEnded(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, blocksWithTxs(0, []int{0, 0, 0, 0}, 0)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		var block any = int64(i % 4)
		if i%5 == 0 {
			block = nil // deployed before the first block indexed
		}
		if _, err := conn.Exec(`INSERT INTO contracts (address, class_hash, type, deployed_block) VALUES ($1, $2, $3, $4)`,
			db.FeltFromUint64(uint64(0xc000+i*7%41)), db.FeltFromUint64(1), []string{"account", "erc20"}[i%2], block); err != nil {
			t.Fatal(err)
		}
	}
	store := db.NewStore(conn)
	for _, typ := range []string{"", "account"} {
		var all []string
		if err := conn.Select(&all, `SELECT encode(address, 'hex') FROM contracts WHERE $1 = '' OR type = $1
			ORDER BY coalesce(deployed_block, -1) DESC, address DESC`, typ); err != nil {
			t.Fatal(err)
		}
		walkPages(t, store, all, 6, "(coalesce(deployed_block, -1), address) <", func(w db.Window) ([]string, error) {
			rows, err := store.Contracts(ctx, typ, nil, w)
			var got []string
			for _, c := range rows {
				got = append(got, fmt.Sprintf("%x", []byte(c.Address)))
			}
			return got, err
		})
	}
	// One class's contracts (every one here is of class 1), as Class.contracts and
	// /beta/classes/{hash}/contracts read them.
	var all []string
	if err := conn.Select(&all, `SELECT encode(address, 'hex') FROM contracts ORDER BY coalesce(deployed_block, -1) DESC, address DESC`); err != nil {
		t.Fatal(err)
	}
	walkPages(t, store, all, 6, "(coalesce(deployed_block, -1), address) <", func(w db.Window) ([]string, error) {
		rows, err := store.ContractsByClasses(ctx, []db.Felt{db.FeltFromUint64(1)}, w.Limit, w.Offset)
		var got []string
		for _, c := range rows {
			got = append(got, fmt.Sprintf("%x", []byte(c.Address)))
		}
		return got, err
	})
}

// Classes walked page by page, likewise.
func TestClassPagesContinueWhereThePageBeforeEnded(t *testing.T) {
	ctx := context.Background()
	conn := dbtest.New(t)
	if err := writeRows(ctx, conn, blocksWithTxs(0, []int{0, 0, 0}, 0)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		var block any = int64(i % 3)
		if i%4 == 0 {
			block = nil
		}
		if _, err := conn.Exec(`INSERT INTO classes (hash, kind, cairo_version, declared_block) VALUES ($1, 'sierra', 1, $2)`,
			db.FeltFromUint64(uint64(0xc1a5+i*11%31)), block); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	if err := conn.Select(&all, `SELECT encode(hash, 'hex') FROM classes ORDER BY coalesce(declared_block, -1) DESC, hash DESC`); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	walkPages(t, store, all, 4, "(coalesce(declared_block, -1), hash) <", func(w db.Window) ([]string, error) {
		rows, err := store.Classes(ctx, w)
		var got []string
		for _, c := range rows {
			got = append(got, fmt.Sprintf("%x", []byte(c.Hash)))
		}
		return got, err
	})
}
