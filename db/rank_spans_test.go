package db_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// The lists whose order changes (a token's holders by balance, a collection's holders, a
// class's contracts) keep exact span counts through inserts, updates that move rows,
// upserts, deletes and rows leaving the list, and every page by position is the one OFFSET
// reads, from the span that holds its first row.
func TestRankSpansKeepPagesExactWhileRowsMove(t *testing.T) {
	defer db.SetMarks(db.MarkEvery, 1)()
	ctx := context.Background()
	const spanRows = 3
	conn := dbtest.NewWithSpanRows(t, spanRows)
	rng := rand.New(rand.NewPCG(38, 44))
	addr := func(i int) []byte { return db.FeltFromUint64(uint64(1000 + i)) }
	tokenA, tokenB, classA, classB := addr(1), addr(2), addr(3), addr(4)
	conn.MustExec(`INSERT INTO classes (hash, kind, cairo_version) VALUES ($1, 'sierra', 1), ($2, 'sierra', 1)`, classA, classB)

	// Balances drawn from few values, so that many holders tie and order by owner.
	balance := func() int { return rng.IntN(6) * 1000 }
	write := func(round int) {
		for i := range 60 {
			switch rng.IntN(4) {
			case 0: // an upsert of several rows: some new, some moved, some to 0
				conn.MustExec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
					VALUES ($1, $2, $3, 1, 1), ($1, $4, $5, 1, 1), ($6, $2, $7, 1, 1)
					ON CONFLICT (token_address, owner_address) DO UPDATE SET balance = excluded.balance`,
					tokenA, addr(100+rng.IntN(60)), balance(), addr(160+rng.IntN(40)), balance(), tokenB, balance())
			case 1:
				conn.MustExec(`DELETE FROM erc20_balances WHERE token_address = $1 AND owner_address = $2`, tokenA, addr(100+rng.IntN(100)))
			case 2:
				conn.MustExec(`INSERT INTO nft_holders (contract_address, owner_address, token_id, held, last_transfer_time)
					VALUES ($1, $2, 1, $3, 1), ($1, $4, 1, $5, 1) ON CONFLICT (contract_address, owner_address) DO UPDATE SET held = excluded.held`,
					tokenB, addr(200+rng.IntN(40)), 1+rng.IntN(4), addr(240+rng.IntN(40)), 1+rng.IntN(4))
				if rng.IntN(3) == 0 {
					conn.MustExec(`DELETE FROM nft_holders WHERE contract_address = $1 AND owner_address = $2`, tokenB, addr(200+rng.IntN(40)))
				}
			case 3: // a contract deployed, or its class replaced
				a := addr(300 + rng.IntN(50))
				conn.MustExec(`INSERT INTO contracts (address, class_hash) VALUES ($1, $2), ($3, $4)
					ON CONFLICT (address) DO UPDATE SET class_hash = excluded.class_hash`,
					a, []any{classA, classB}[i%2], addr(350+rng.IntN(50)), []any{classA, classB}[rng.IntN(2)])
				conn.MustExec(`UPDATE contracts SET nonce = nonce + 1 WHERE address = $1`, a) // moves nothing
			}
		}
		if wrong := dbtest.RankSpansWrong(t, conn); len(wrong) > 0 {
			t.Fatalf("round %d: spans do not count their rows:\n%v", round, wrong)
		}
	}

	checkPages := func(round int) {
		store := db.NewStore(conn) // no page ends remembered from other rounds
		// The OFFSET of each statement the store runs: a page skips fewer rows than two
		// spans hold from the start of its span, however deep.
		var skipped []int64
		store.OnQuery = func(query string, args []any) {
			if strings.Contains(query, " OFFSET $") {
				if n, ok := args[len(args)-1].(int); ok {
					skipped = append(skipped, int64(n))
				}
			}
		}
		type list struct {
			name  string
			total string
			want  string
			got   func(w db.Window) ([][]byte, error)
			count func() (int64, error)
		}
		lists := []list{
			{"holders", `SELECT count(*) FROM erc20_balances WHERE token_address = $1 AND balance > 0`,
				`SELECT owner_address FROM erc20_balances WHERE token_address = $1 AND balance > 0 ORDER BY balance DESC, owner_address DESC LIMIT $2 OFFSET $3`,
				func(w db.Window) ([][]byte, error) {
					rows, err := store.HoldersOf(ctx, []db.Felt{tokenA}, w.Limit, w.Offset)
					return addressesOf(rows, func(b *db.TokenBalance) []byte { return b.OwnerAddress }), err
				}, nil},
			{"NFT holders", `SELECT count(*) FROM nft_holders WHERE contract_address = $1`,
				`SELECT owner_address FROM nft_holders WHERE contract_address = $1 ORDER BY held DESC, owner_address DESC LIMIT $2 OFFSET $3`,
				func(w db.Window) ([][]byte, error) {
					rows, err := store.NftHolders(ctx, tokenB, nil, w)
					return addressesOf(rows, func(b *db.NftBalance) []byte { return b.OwnerAddress }), err
				}, func() (int64, error) { return store.CountNftHolders(ctx, tokenB, nil) }},
			{"contracts of a class", `SELECT count(*) FROM contracts WHERE class_hash = $1`,
				`SELECT address FROM contracts WHERE class_hash = $1 ORDER BY coalesce(deployed_block, -1) DESC, address DESC LIMIT $2 OFFSET $3`,
				func(w db.Window) ([][]byte, error) {
					rows, err := store.Contracts(ctx, "", classA, w)
					return addressesOf(rows, func(c *db.Contract) []byte { return c.Address }), err
				}, func() (int64, error) { return store.CountContracts(ctx, "", classA) }},
		}
		for i, l := range lists {
			key := [][]byte{tokenA, tokenB, classA}[i]
			var total int
			if err := conn.Get(&total, l.total, key); err != nil {
				t.Fatal(err)
			}
			if total < 10 {
				t.Fatalf("round %d: %s has %d rows: the test needs several spans", round, l.name, total)
			}
			if l.count != nil { // the sum of the key's spans
				if n, err := l.count(); err != nil || n != int64(total) {
					t.Fatalf("round %d: %s counts %d (%v), has %d", round, l.name, n, err, total)
				}
			}
			// Deepest first: a page remembers where it ended, and the next deeper page
			// would continue from there instead of seeking from its span.
			for offset := total + 2; offset >= 0; offset-- {
				var want [][]byte
				if err := conn.Select(&want, l.want, key, 4, offset); err != nil {
					t.Fatal(err)
				}
				skipped = skipped[:0]
				got, err := l.got(db.Window{Limit: 4, Offset: offset})
				if most := slices.Max(append(skipped, 0)); most >= 2*spanRows {
					t.Fatalf("round %d: %s at %d of %d skips %d rows", round, l.name, offset, total, most)
				}
				if err != nil {
					t.Fatalf("round %d: %s at %d: %v", round, l.name, offset, err)
				}
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("round %d: %s at %d of %d: got %x, OFFSET reads %x", round, l.name, offset, total, got, want)
				}
			}
		}
	}

	// Spans that shrink to a quarter of rank_span_rows() (0 rows here) are joined to the
	// span before.
	checkNoTinySpans := func(round int) {
		var tiny []string
		if err := conn.Select(&tiny, `SELECT format('list %s span (%s, %s) of %s rows', list, s1, encode(s2, 'hex'), n)
			FROM rank_spans WHERE s1 <> 'Infinity' AND n <= rank_span_rows() / 4`); err != nil {
			t.Fatal(err)
		}
		if len(tiny) > 0 {
			t.Fatalf("round %d: spans left too small: %v", round, tiny)
		}
	}
	for round := range 6 {
		write(round)
		checkNoTinySpans(round)
		checkPages(round)
	}
	// Most holders leave at once: their spans are joined, and pages stay exact.
	conn.MustExec(`DELETE FROM erc20_balances WHERE token_address = $1 AND get_byte(owner_address, length(owner_address) - 1) % 4 <> 0`, tokenA)
	if wrong := dbtest.RankSpansWrong(t, conn); len(wrong) > 0 {
		t.Fatalf("after most holders left, spans do not count their rows:\n%v", wrong)
	}
	checkNoTinySpans(6)
	var spans, cutAt int
	if err := dbtest.New(t).Get(&cutAt, `SELECT rank_span_rows()`); err != nil || cutAt != db.RankSpanRows {
		t.Fatalf("rank_span_rows() is %d (%v), db.RankSpanRows %d", cutAt, err, db.RankSpanRows)
	}
	if err := conn.Get(&spans, `SELECT count(*) FROM rank_spans WHERE list = 1 AND key = $1`, tokenA); err != nil {
		t.Fatal(err)
	}
	if spans < 4 {
		t.Fatalf("the holders of the token have %d spans: no span was cut", spans)
	}
}

func addressesOf[T any](rows []T, addr func(T) []byte) [][]byte {
	out := [][]byte{}
	for _, r := range rows {
		out = append(out, addr(r))
	}
	return out
}
