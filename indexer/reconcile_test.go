package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/audit"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/replay"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/rest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

type heldBalance struct {
	Token   db.Felt `db:"token_address"`
	Owner   db.Felt `db:"owner_address"`
	Balance string  `db:"balance"`
}

// chainDifferences asks the node balance_of at block n for every ERC-20 balance row (and
// for the holders the node knows that the database has no row for: every account, for the
// odd tokens, which every account holds) and returns the differences, by token.
func chainDifferences(t *testing.T, d *sqlx.DB, url string, n uint64, skip map[string]bool) map[string][]string {
	t.Helper()
	ctx := context.Background()
	var rows []heldBalance
	if err := d.Select(&rows, `SELECT b.token_address, b.owner_address, b.balance::text AS balance FROM erc20_balances b
		JOIN tokens t ON t.address = b.token_address WHERE t.standard = 'erc20' ORDER BY 1, 2`); err != nil {
		t.Fatal(err)
	}
	node := rpc.NewClient(url)
	sel := starknet.Selector("balance_of")
	out := map[string][]string{}
	for i := 0; i < len(rows); i += 500 {
		part := rows[i:min(i+500, len(rows))]
		var b rpc.MixedBatch
		calls := make([]*rpc.CallCall, len(part))
		for j, r := range part {
			calls[j] = b.Call(n, r.Token.Starknet(), sel, []starknet.Felt{r.Owner.Starknet()})
		}
		if err := node.Send(ctx, &b); err != nil {
			t.Fatal(err)
		}
		for j, r := range part {
			token := r.Token.Starknet().Hex()
			if skip[token] {
				continue
			}
			res, err := calls[j].Result()
			if err != nil || len(res) != 2 {
				t.Fatalf("balance_of %s %s: %v %v", token, r.Owner.Starknet().Hex(), res, err)
			}
			want := new(big.Int).Add(res[0].Big(), new(big.Int).Lsh(res[1].Big(), 128))
			if want.String() != r.Balance {
				out[token] = append(out[token], r.Owner.Starknet().Hex()+": indexed "+r.Balance+", chain "+want.String())
			}
		}
	}
	return out
}

// TestBalancesMatchTheChain indexes a simulated chain with its misbehaving tokens and asks
// the node balance_of, at the indexed head, for every holder of every ERC-20 whose balances
// its storage shows: with reconciliation, none differs, holder counts match a recount, and
// the fee-on-transfer and silent-mint tokens are marked as known from storage with their
// corrections recorded; without it, those two tokens differ.
func TestBalancesMatchTheChain(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 21, Blocks: 300, TxPerBlock: 8})
	head := simHead(chain)
	odd := chain.OddTokens()
	// The interest token's balance_of scales what its storage holds by an index no event or
	// storage diff tells (the audit reads it with calls).
	skip := map[string]bool{odd.Interest: true}

	d := dbtest.New(t)
	runIndexer(t, d, url, 0, head, nil)
	checkConsistent(t, d)
	if diff := chainDifferences(t, d, url, uint64(head), skip); len(diff) > 0 {
		for tok, ds := range diff {
			t.Errorf("%s: %d balances differ from the chain, e.g. %s", tok, len(ds), ds[0])
		}
	}
	checkHolderCounts(t, d)
	checkHoldersRecount(t, d, url, uint64(head), chain, []string{odd.FeeOnTransfer, odd.SilentMint, odd.OtherSlot})
	checkAPIsShowTheBalances(t, d, map[string]string{odd.FeeOnTransfer: db.BalancesFromStorage, odd.SilentMint: db.BalancesFromStorage,
		odd.OtherSlot: db.BalancesFromEvents})
	// Every ERC-721 item's owner is the node's owner_of.
	rep, err := audit.Run(context.Background(), d, rpc.NewClient(url), audit.Options{Holder: &zeroFelt, NFTSample: 1 << 30})
	if err != nil || rep.Owners < 50 || len(rep.Differences) > 0 {
		t.Errorf("owner_of of %d NFT items (%v): %v", rep.Owners, err, rep.Differences)
	}
	sources := map[string]string{}
	var toks []struct {
		Address db.Felt `db:"address"`
		Source  string  `db:"balances_source"`
	}
	if err := d.Select(&toks, `SELECT address, balances_source FROM tokens WHERE standard = 'erc20'`); err != nil {
		t.Fatal(err)
	}
	for _, tk := range toks {
		sources[tk.Address.Starknet().Hex()] = tk.Source
	}
	for tok, want := range map[string]string{odd.FeeOnTransfer: db.BalancesFromStorage, odd.SilentMint: db.BalancesFromStorage,
		odd.Interest: db.BalancesMatchStorage, odd.OtherSlot: db.BalancesFromEvents} {
		if sources[tok] != want {
			t.Errorf("token %s: balances_source %q, want %q", tok, sources[tok], want)
		}
	}
	corr, err := db.BalanceCorrections(context.Background(), d, nil, 100000)
	if err != nil {
		t.Fatal(err)
	}
	byToken := map[string]int{}
	for _, c := range corr {
		byToken[c.TokenAddress.Starknet().Hex()]++
	}
	if byToken[odd.FeeOnTransfer] == 0 || byToken[odd.SilentMint] == 0 || len(byToken) != 2 {
		t.Errorf("corrections by token: %v", byToken)
	}
	t.Logf("%d corrections: %v", len(corr), byToken)

	// Switched off, the same chain indexes with the events' balances: wrong.
	off := dbtest.New(t)
	runIndexer(t, off, url, 0, head, func(c *Config) { c.NoReconcile = true })
	diff := chainDifferences(t, off, url, uint64(head), skip)
	if len(diff[odd.FeeOnTransfer]) == 0 || len(diff[odd.SilentMint]) == 0 {
		t.Errorf("without reconciliation the misbehaving tokens match the chain: %v", len(diff))
	}
}

var zeroFelt starknet.Felt

// checkHoldersRecount asks the node balance_of at block n for every account of the chain
// for each token, and compares the holders it finds (positive balances) with the token's
// holder list and holder count.
func checkHoldersRecount(t *testing.T, d *sqlx.DB, url string, n uint64, chain *sim.Chain, tokens []string) {
	t.Helper()
	node := rpc.NewClient(url)
	accounts := chain.Accounts(n)
	for _, tok := range tokens {
		var b rpc.MixedBatch
		calls := make([]*rpc.CallCall, len(accounts))
		for i, a := range accounts {
			calls[i] = b.Call(n, starknet.MustFelt(tok), starknet.Selector("balance_of"), []starknet.Felt{starknet.MustFelt(a)})
		}
		if err := node.Send(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i, a := range accounts {
			out, err := calls[i].Result()
			if err != nil {
				t.Fatal(err)
			}
			if out[0].Big().Sign() > 0 || out[1].Big().Sign() > 0 {
				want = append(want, starknet.MustFelt(a).Hex())
			}
		}
		var got []db.Felt
		var count int
		if err := d.Select(&got, `SELECT owner_address FROM erc20_balances WHERE token_address = $1 AND balance > 0`, db.FeltOf(starknet.MustFelt(tok))); err != nil {
			t.Fatal(err)
		}
		if err := d.Get(&count, `SELECT holder_count FROM tokens WHERE address = $1`, db.FeltOf(starknet.MustFelt(tok))); err != nil {
			t.Fatal(err)
		}
		gotSet := map[string]bool{}
		for _, g := range got {
			gotSet[g.Starknet().Hex()] = true
		}
		missing := 0
		for _, w := range want {
			if !gotSet[w] {
				missing++
			}
		}
		if missing > 0 || len(got) != len(want) || count != len(want) {
			t.Errorf("token %s: the node counts %d holders among %d accounts; indexed %d holders (%d missing), holder_count %d",
				tok, len(want), len(accounts), len(got), missing, count)
		}
	}
}

// checkHolderCounts: every ERC-20's holder count is its number of positive balances.
func checkHolderCounts(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var wrong []string
	if err := d.Select(&wrong, `SELECT encode(t.address, 'hex') || ': ' || t.holder_count || ' vs ' || count(b.*) FILTER (WHERE b.balance > 0)
		FROM tokens t LEFT JOIN erc20_balances b ON b.token_address = t.address WHERE t.standard = 'erc20'
		GROUP BY t.address, t.holder_count HAVING t.holder_count <> count(b.*) FILTER (WHERE b.balance > 0)`); err != nil {
		t.Fatal(err)
	}
	if len(wrong) > 0 {
		t.Errorf("holder counts differ from a recount: %v", wrong)
	}
}

// TestSepoliaFeeTransfersReconcile indexes the real Sepolia block 3100000 from that block
// on: its three STRK fee transfers give the sender and the sequencer balances of minus and
// plus the fees (nothing before the block is indexed), and its state diff stores their true
// balances at their balance slots. The stored values win, both differences are recorded, and
// STRK is marked as a token whose balances come from storage.
func TestSepoliaFeeTransfersReconcile(t *testing.T) {
	dir := fixtures.Set(t, "sepolia-3100000")
	set, err := replay.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(set)
	defer srv.Close()
	d := dbtest.New(t)
	runIndexer(t, d, srv.URL, 3100000, 3100000, nil)
	strk := starknet.MustFelt("0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
	sender := starknet.MustFelt("0x4f4e29add19afa12c868ba1f4439099f225403ff9a71fe667eebb50e13518d3")
	sequencer := starknet.MustFelt("0x1176a1bd84444c89232ec27754698e5d2e7e1a7f1539f12027f28b23ec9f3d8")
	fees := "8104748511307520"           // 0x8bafaa5f8e180 + 0x936e4a8f7d600 + 0xad95a8111ef80
	want := map[starknet.Felt][2]string{ // stored (the state diff), from events
		sender:    {starknet.MustFelt("0x10fb3187fc32009965a").Big().String(), "-" + fees},
		sequencer: {starknet.MustFelt("0x26eb76fd7a1e0da17f390").Big().String(), fees},
	}
	corr, err := db.BalanceCorrections(context.Background(), d, db.FeltOf(strk), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(corr) != 2 {
		t.Fatalf("%d corrections, want 2: %+v", len(corr), corr)
	}
	for _, c := range corr {
		w := want[c.OwnerAddress.Starknet()]
		if c.BlockNumber != 3100000 || c.StoredBalance != w[0] || c.EventBalance != w[1] {
			t.Errorf("correction %+v, want stored %s, from events %s", c, w[0], w[1])
		}
		var bal string
		if err := d.Get(&bal, `SELECT balance::text FROM erc20_balances WHERE token_address = $1 AND owner_address = $2`,
			db.FeltOf(strk), c.OwnerAddress); err != nil || bal != w[0] {
			t.Errorf("balance of %s: %s (%v), want %s", c.OwnerAddress.Starknet().Hex(), bal, err, w[0])
		}
	}
	var tok struct {
		Source  string `db:"balances_source"`
		Holders int64  `db:"holder_count"`
		Checked *int64 `db:"storage_checked_block"`
	}
	if err := d.Get(&tok, `SELECT balances_source, holder_count, storage_checked_block FROM tokens WHERE address = $1`, db.FeltOf(strk)); err != nil {
		t.Fatal(err)
	}
	if tok.Source != db.BalancesFromStorage || tok.Holders != 2 || tok.Checked == nil || *tok.Checked != 3100000 {
		t.Errorf("STRK token row: %+v", tok)
	}
}

// TestReorgRestoresCorrectedBalances: a reorg replacing blocks whose storage corrected
// balances takes the corrections back with them, and the balances end as the new chain's.
func TestReorgRestoresCorrectedBalances(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 9, Blocks: 80, TxPerBlock: 8})
	odd := chain.OddTokens()
	skip := map[string]bool{odd.Interest: true}
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, simHead(chain), nil)
	head := simHead(chain)
	const depth = 12
	var above int
	if err := d.Get(&above, `SELECT count(*) FROM balance_corrections WHERE block_number > $1`, head-depth); err != nil || above == 0 {
		t.Fatalf("no corrections in the blocks the reorg replaces (%v)", err)
	}
	chain.Reorg(depth)
	chain.AddBlocks(2)
	head = simHead(chain)
	runIndexer(t, d, url, 0, head, nil)
	checkConsistent(t, d)
	if diff := chainDifferences(t, d, url, uint64(head), skip); len(diff) > 0 {
		for tok, ds := range diff {
			t.Errorf("%s: %d balances differ from the chain after the reorg, e.g. %s", tok, len(ds), ds[0])
		}
	}
	checkHolderCounts(t, d)
	if !equalSnapshots(t, snapshot(t, freshIndex(t, url, head)), snapshot(t, d)) {
		t.Fatal("after the reorg the state differs from a fresh index of the winning chain")
	}
}

// checkAPIsShowTheBalances reads every holder of each token through both APIs, REST's pages
// of /beta/tokens/{address}/holders and GraphQL's Token.holders, and compares them with the
// positive balances of erc20_balances (which the callers compared with the chain); REST's
// X-Balances-Source and GraphQL's balancesSource say sources[token].
func checkAPIsShowTheBalances(t *testing.T, d *sqlx.DB, sources map[string]string) {
	t.Helper()
	store := db.NewStore(d)
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		REST: rest.NewHandler(&resolvers.Resolver{Store: store}, rest.Options{Logger: quietLogger()})}))
	defer srv.Close()
	for tok, source := range sources {
		var rows []struct {
			Owner   db.Felt `db:"owner_address"`
			Balance string  `db:"balance"`
		}
		if err := d.Select(&rows, `SELECT owner_address, balance::text AS balance FROM erc20_balances
			WHERE token_address = $1 AND balance > 0`, db.FeltOf(starknet.MustFelt(tok))); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, r := range rows {
			want[r.Owner.Starknet().Hex()] = r.Balance
		}
		fromREST, fromGraphQL := map[string]string{}, map[string]string{}
		for page := 1; ; page++ {
			resp, err := http.Get(fmt.Sprintf("%s/beta/tokens/%s/holders?ps=100&p=%d", srv.URL, tok, page))
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				Items []struct {
					Address string `json:"address"`
					Balance string `json:"balance"`
				} `json:"items"`
				HasMore bool `json:"hasMore"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("REST holders of %s, page %d: %d %v", tok, page, resp.StatusCode, err)
			}
			if got := resp.Header.Get(rest.HeaderBalancesSource); got != source {
				t.Errorf("REST holders of %s: %s %q, want %q", tok, rest.HeaderBalancesSource, got, source)
			}
			for _, it := range body.Items {
				fromREST[starknet.MustFelt(it.Address).Hex()] = it.Balance
			}
			if !body.HasMore {
				break
			}
		}
		after := ""
		for {
			doc := fmt.Sprintf(`{"query":"{ token(address: \"%s\") { balancesSource holders(first: 100%s) { edges { node { owner { address } balance } } pageInfo { hasNextPage endCursor } } } }"}`,
				tok, after)
			resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Data struct {
					Token struct {
						BalancesSource string
						Holders        struct {
							Edges []struct {
								Node struct {
									Owner   struct{ Address string }
									Balance string
								}
							}
							PageInfo struct {
								HasNextPage bool
								EndCursor   string
							}
						}
					}
				}
				Errors []any
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || len(out.Errors) > 0 {
				t.Fatalf("GraphQL holders of %s: %v %v", tok, err, out.Errors)
			}
			if got := strings.ToLower(out.Data.Token.BalancesSource); got != source {
				t.Errorf("GraphQL balancesSource of %s: %q, want %q", tok, got, source)
			}
			for _, e := range out.Data.Token.Holders.Edges {
				fromGraphQL[starknet.MustFelt(e.Node.Owner.Address).Hex()] = e.Node.Balance
			}
			if !out.Data.Token.Holders.PageInfo.HasNextPage {
				break
			}
			after = fmt.Sprintf(`, after: \"%s\"`, out.Data.Token.Holders.PageInfo.EndCursor)
		}
		if !maps.Equal(fromREST, want) || !maps.Equal(fromGraphQL, want) {
			t.Errorf("holders of %s: %d indexed, REST shows %d (equal: %v), GraphQL %d (equal: %v)",
				tok, len(want), len(fromREST), maps.Equal(fromREST, want), len(fromGraphQL), maps.Equal(fromGraphQL, want))
		}
	}
}
