package resolvers_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// balance(at:) at 20 random (block, wallet, token) triples of an indexed simulated chain,
// against the sum of the wallet's transfers up to that block; the history of one wallet
// against the same sums block by block; the BlockRef forms and what they refuse.
func TestBalancesAtAnyBlock(t *testing.T) {
	s := indexedSim(t, 9, 60, 12)

	// Pairs that moved often enough to have a history worth checking.
	var pairs []struct {
		Token db.Felt `db:"token_address"`
		Owner db.Felt `db:"owner_address"`
	}
	if err := s.db.Select(&pairs, `SELECT token_address, owner_address FROM erc20_balance_changes_named
		GROUP BY 1, 2 HAVING count(*) >= 3 ORDER BY md5(token_address || owner_address) LIMIT 20`); err != nil {
		t.Fatal(err)
	}
	if len(pairs) < 20 {
		t.Fatalf("only %d wallets with 3 balance changes", len(pairs))
	}
	sumTo := func(token, owner db.Felt, block int64) string {
		t.Helper()
		var sum string
		if err := s.db.Get(&sum, `SELECT coalesce(sum(CASE WHEN to_address = $2 THEN amount ELSE 0 END)
			- sum(CASE WHEN from_address = $2 THEN amount ELSE 0 END), 0)::text
			FROM token_transfers_named WHERE token_address = $1 AND (to_address = $2 OR from_address = $2) AND block_number <= $3`,
			token, owner, block); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	const doc = `query($w: Address!, $t: Address!, $at: BlockRef) { wallet(address: $w) { balance(token: $t, at: $at) } }`
	balance := func(token, owner db.Felt, at map[string]any) string {
		t.Helper()
		var out struct{ Wallet struct{ Balance string } }
		s.mustQuery(doc, map[string]any{"w": owner.Hex(), "t": token.Hex(), "at": at}, &out)
		return out.Wallet.Balance
	}
	rng := rand.New(rand.NewPCG(9, 9))
	nonzero := 0
	for _, p := range pairs {
		block := rng.Int64N(60)
		want := sumTo(p.Token, p.Owner, block)
		if got := balance(p.Token, p.Owner, map[string]any{"number": block}); got != want {
			t.Errorf("balance of %s in %s at %d = %s, transfers say %s", p.Owner.Hex(), p.Token.Hex(), block, got, want)
		}
		if want != "0" {
			nonzero++
		}
	}
	if nonzero < 10 {
		t.Errorf("only %d of 20 balances were not 0: the check proves little", nonzero)
	}

	// By hash, by both, and the newest balance.
	p := pairs[0]
	var hash db.Felt
	if err := s.db.Get(&hash, `SELECT hash FROM blocks WHERE number = 30`); err != nil {
		t.Fatal(err)
	}
	if got, want := balance(p.Token, p.Owner, map[string]any{"hash": hash.Hex()}), sumTo(p.Token, p.Owner, 30); got != want {
		t.Errorf("at the hash of block 30: %s, want %s", got, want)
	}
	if got, want := balance(p.Token, p.Owner, map[string]any{"hash": hash.Hex(), "number": 30}), sumTo(p.Token, p.Owner, 30); got != want {
		t.Errorf("at number and hash of block 30: %s, want %s", got, want)
	}
	var now string
	if err := s.db.Get(&now, `SELECT balance::text FROM erc20_balances WHERE token_address = $1 AND owner_address = $2`, p.Token, p.Owner); err != nil {
		t.Fatal(err)
	}
	if got := balance(p.Token, p.Owner, nil); got != now {
		t.Errorf("the newest balance = %s, erc20_balances has %s", got, now)
	}
	if got := balance(p.Token, db.MustFelt("0x1234"), nil); got != "0" {
		t.Errorf("a wallet that never held the token: %s", got)
	}

	// The history, two at a time, newest first: each point is the sum up to its block, and
	// the balance changed at every point.
	const hist = `query($w: Address!, $t: Address!, $after: String) { wallet(address: $w) {
		balanceHistory(token: $t, first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor }
			edges { node { blockNumber timestamp balance } } } } }`
	var after any
	var blocks []int
	previous := ""
	for {
		var out struct {
			Wallet struct {
				BalanceHistory connection[struct {
					BlockNumber, Timestamp int
					Balance                string
				}]
			}
		}
		s.mustQuery(hist, map[string]any{"w": p.Owner.Hex(), "t": p.Token.Hex(), "after": after}, &out)
		h := out.Wallet.BalanceHistory
		for _, e := range h.Edges {
			if want := sumTo(p.Token, p.Owner, int64(e.Node.BlockNumber)); e.Node.Balance != want {
				t.Errorf("history at %d: %s, transfers say %s", e.Node.BlockNumber, e.Node.Balance, want)
			}
			if before := sumTo(p.Token, p.Owner, int64(e.Node.BlockNumber)-1); before == e.Node.Balance {
				t.Errorf("history at %d: the balance did not change there", e.Node.BlockNumber)
			}
			if len(blocks) > 0 && e.Node.BlockNumber >= blocks[len(blocks)-1] {
				t.Errorf("history not newest first: %d after %d", e.Node.BlockNumber, blocks[len(blocks)-1])
			}
			blocks = append(blocks, e.Node.BlockNumber)
			previous = e.Node.Balance
		}
		if !h.PageInfo.HasNextPage {
			if h.TotalCount != len(blocks) {
				t.Errorf("totalCount %d, %d points walked", h.TotalCount, len(blocks))
			}
			break
		}
		after = h.PageInfo.EndCursor
	}
	if len(blocks) < 3 || previous == "0" || sumTo(p.Token, p.Owner, int64(blocks[len(blocks)-1])-1) != "0" {
		t.Errorf("history of %d points; the oldest should follow a 0 balance", len(blocks))
	}

	// Daily closing balances: each day's is the sum of transfers up to the day's last block,
	// and the last day is the newest block's.
	const daily = `query($w: Address!, $t: Address!, $r: TimeRange) { wallet(address: $w) {
		dailyBalances(token: $t, range: $r) { date timestamp balance } } }`
	for r, n := range map[string]int{"ONE_WEEK": 7, "ONE_MONTH": 30, "MAX": 0} {
		var out struct {
			Wallet struct {
				DailyBalances []struct {
					Date      string
					Timestamp int64
					Balance   string
				}
			}
		}
		s.mustQuery(daily, map[string]any{"w": p.Owner.Hex(), "t": p.Token.Hex(), "r": r}, &out)
		days := out.Wallet.DailyBalances
		if len(days) == 0 || (n > 0 && len(days) != n) {
			t.Fatalf("%s: %d days, want %d", r, len(days), n)
		}
		for _, d := range days {
			var last *int64
			if err := s.db.Get(&last, `SELECT max(number) FROM blocks WHERE timestamp <= $1`, d.Timestamp); err != nil {
				t.Fatal(err)
			}
			want := "0"
			if last != nil {
				want = sumTo(p.Token, p.Owner, *last)
			}
			if d.Balance != want {
				t.Errorf("%s: balance at the end of %s = %s, transfers say %s", r, d.Date, d.Balance, want)
			}
		}
		if got := days[len(days)-1].Balance; got != now {
			t.Errorf("%s: the last day's balance %s is not the newest %s", r, got, now)
		}
	}

	// Refused: a negative number, a hash of no block, a number and a hash that disagree.
	for _, at := range []map[string]any{
		{"number": -1}, {"hash": "0x1234"}, {"hash": hash.Hex(), "number": 31},
	} {
		resp, _ := s.query(doc, map[string]any{"w": p.Owner.Hex(), "t": p.Token.Hex(), "at": at})
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Errorf("at %v: %+v, want BAD_USER_INPUT", at, resp.Errors)
		}
	}
}

// A series of days across changes days apart: each day closes at the balance its last
// block left, days without a block keep the previous balance, days before any change 0.
func TestDailyBalancesAcrossDays(t *testing.T) {
	s := newGQLServer(t)
	day := int64(86400)
	start := int64(1_700_006_400) // 2023-11-15 00:00:00 UTC
	for i, c := range []struct {
		at      int64 // seconds after start
		balance int
	}{{day + 100, 5}, {day + 5000, 7}, {3*day + 10, 2}, {5*day + 1, 9}} {
		n := i + 1
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, $3, $4, 'ACCEPTED_ON_L2')`,
			n, []byte{byte(n)}, []byte{byte(n - 1)}, start+c.at)
		s.exec(`INSERT INTO erc20_balance_changes (token_id, owner_id, block_number, balance)
			VALUES (felt_id('\x070c'), felt_id('\x0aa0'), $1, $2)`, n, c.balance)
	}
	var out struct {
		Wallet struct {
			DailyBalances []struct{ Date, Balance string }
		}
	}
	s.mustQuery(`{ wallet(address: "0xaa0") { dailyBalances(token: "0x70c", range: ONE_WEEK) { date balance } } }`, nil, &out)
	var got []string
	for _, d := range out.Wallet.DailyBalances {
		got = append(got, d.Date+"="+d.Balance)
	}
	want := "2023-11-14=0 2023-11-15=0 2023-11-16=7 2023-11-17=7 2023-11-18=2 2023-11-19=2 2023-11-20=9"
	if strings.Join(got, " ") != want {
		t.Errorf("daily balances:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}
