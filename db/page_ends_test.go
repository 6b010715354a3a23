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
	continued := func() bool { return strings.Contains(query, "(b.balance, b.owner_address) <") }

	for offset := 0; offset < 60; offset += 7 {
		got := page(offset)
		if want := holderOwners(t, conn, token, 7, offset); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("page from %d: %v, want %v", offset, got, want)
		}
		if continued() != (offset > 0) {
			t.Fatalf("page from %d continued from the page before: %v", offset, continued())
		}
	}
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
