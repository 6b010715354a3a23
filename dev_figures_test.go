package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

const (
	strkToken = "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
	ethToken  = "0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7"
	oracle    = "0x2a85bd616f912537c50a49a4076db02c00b29b2cdc8a197ce92ed1837fa875b"
)

// devChain runs what `go run .` runs (the simulated node and its L1, the indexer, the L1
// follower, the analytics) with dev's own flag defaults, blocks coming every 40 ms instead
// of 2 s, until "a minute" of blocks (30) is indexed on top of the 200 the chain starts
// with and the first analytics pass has run, and stops it. It returns the database and the
// simulated chain's configuration.
func devChain(t *testing.T) (*sqlx.DB, sim.Config) {
	t.Helper()
	conn := dbtest.New(t)
	var chain chainFlags
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	chain.register(fs)
	if err := fs.Parse([]string{"--block-time", "40ms"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- followChain(ctx, slog.New(slog.DiscardHandler), conn, chain) }()
	stop := func() { cancel(); <-done }
	defer stop() // the tests read a database that no longer moves
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var state struct {
			Head      int64 `db:"head"`
			Snapshots int64 `db:"snapshots"`
		}
		if err := conn.Get(&state, `SELECT (SELECT coalesce(max(number), 0) FROM blocks) AS head,
			(SELECT count(*) FROM holders_snapshots WHERE wallet_depth_usd IS NOT NULL AND token_address = ANY($1)) AS snapshots`,
			pq.ByteaArray{db.MustFelt(strkToken), db.MustFelt(ethToken)}); err != nil {
			t.Fatal(err)
		}
		if state.Head >= 230 && state.Snapshots == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dev did not get there: %+v", state)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return conn, chain.sim
}

// One minute after `go run .`: every figure there, transfers valued in USD, and transfer
// lists that page correctly. The subtests share the one dev run.
func TestDevAfterAMinute(t *testing.T) {
	conn, cfg := devChain(t)
	t.Run("every figure", func(t *testing.T) { everyFigure(t, conn) })
	t.Run("transfer USD values", func(t *testing.T) { transferUsdValues(t, conn, cfg) })
	t.Run("transfers of a wallet", func(t *testing.T) { walletTransfers(t, conn) })
	t.Run("transfers cost constant statements", func(t *testing.T) { transferStatements(t, conn) })
	t.Run("staking history", func(t *testing.T) { stakingHistory(t, conn) })
}

// The staking history of the simulated chain, through the REST operations: the network's
// newest day holds the stake the validators hold now; every attestation event is listed;
// a pool member's activity is its pool's events about it.
func stakingHistory(t *testing.T, conn *sqlx.DB) {
	store := db.NewStore(conn)
	srv := devAPI(t, store)
	get := func(path string) (out any) {
		t.Helper()
		getJSON(t, srv.URL, "", path, &out)
		return out
	}
	var now struct {
		Strk       string `db:"strk"`
		Delegators int    `db:"delegators"`
	}
	if err := conn.Get(&now, `SELECT sum(self_stake + delegated_stake_strk)::text AS strk, sum(total_delegators) AS delegators FROM validators`); err != nil {
		t.Fatal(err)
	}
	stake := get("/beta/staking/stake-over-time?timerange=max").([]any)
	delegators := get("/beta/staking/delegators-over-time?timerange=max").([]any)
	if len(stake) == 0 || at(stake[len(stake)-1], "totalStakeStrk") != now.Strk ||
		len(delegators) == 0 || at(delegators[len(delegators)-1], "totalDelegators") != float64(now.Delegators) {
		t.Errorf("the newest day %v / %v, the validators now %+v", stake, delegators, now)
	}

	attested := starknet.Selector("StakerAttestationSuccessful")
	var events int
	if err := conn.Get(&events, `SELECT count(*) FROM events_named WHERE key0 = $1`, db.FeltOf(attested)); err != nil {
		t.Fatal(err)
	}
	if got := get("/beta/staking/attestations?ps=10").(map[string]any); events == 0 || at(got, "lastPage") != float64((events+9)/10) {
		t.Errorf("%d attestation events, listed %v", events, at(got, "lastPage"))
	}

	var member struct {
		Wallet db.Felt `db:"wallet"`
		Events int     `db:"events"`
	}
	// The pool member with the most events of its pool (joins, top-ups and claims).
	if err := conn.Get(&member, `SELECT felts_at(e.keys, 2) AS wallet, count(*) AS events FROM events_named e JOIN pools p ON p.pool_contract = e.from_address
		WHERE e.key0 IN ($1, $2, $3) AND NOT (e.key0 = $2 AND length(felts_at(e.data, 1)) = 0)
		GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1`, db.FeltOf(starknet.Selector("NewPoolMember")),
		db.FeltOf(starknet.Selector("PoolMemberBalanceChanged")), db.FeltOf(starknet.Selector("PoolMemberRewardClaimed"))); err != nil {
		t.Fatal(err)
	}
	// Every page of a log: how long it is depends on how many blocks the dev chain made.
	walk := func(path string) []any {
		t.Helper()
		var items []any
		for p := 1; ; p++ {
			page := get(fmt.Sprintf("%s&ps=100&p=%d", path, p)).(map[string]any)
			items = append(items, page["items"].([]any)...)
			if float64(p) >= page["lastPage"].(float64) {
				return items
			}
		}
	}
	activity := walk("/beta/staking/wallet-info/activity?address=" + member.Wallet.Hex())
	if len(activity) != member.Events {
		t.Errorf("wallet %s: %d pool events, %d operations listed", member.Wallet.Hex(), member.Events, len(activity))
	}

	// A validator's log holds its stake and its pools' members' operations, all about it.
	var staker db.Felt
	if err := conn.Get(&staker, `SELECT staker_address FROM validators ORDER BY total_delegators DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, it := range walk("/beta/staking/validator-details/activity?address=" + staker.Hex()) {
		op := it.(map[string]any)
		ops[op["operation"].(string)] = true
		if op["validator"] != staker.Padded() {
			t.Errorf("an operation of another validator in %s's log: %v", staker.Hex(), op)
		}
	}
	for _, want := range []string{"stake", "set_open_for_delegation", "enter_delegation_pool"} {
		if !ops[want] {
			t.Errorf("validator %s: no %s in its log (%v)", staker.Hex(), want, ops)
		}
	}

	// The simulated marketplace: every transaction that called it first is one sale.
	var market struct {
		Address db.Felt `db:"address"`
		Sales   int     `db:"sales"`
	}
	if err := conn.Get(&market, `SELECT contract_address AS address, count(*) AS sales FROM calls_named c
		WHERE c.call_index = 0 AND c.entrypoint = 'fulfill_order' GROUP BY 1`); err != nil {
		t.Fatal(err)
	}
	stats := get("/beta/marketplace-stats").(map[string]any)["items"].([]any)
	if len(stats) != 1 || at(stats[0], "marketplaceAddress") != market.Address.Padded() || at(stats[0], "sales") != float64(market.Sales) ||
		at(stats[0], "salesVolume").(float64) <= 0 {
		t.Errorf("marketplace stats %v, want %d sales of %s", stats, market.Sales, market.Address.Hex())
	}
	collections := get("/beta/nft-stats?attribute=sales&ps=10").(map[string]any)["items"].([]any)
	if len(collections) == 0 || at(collections[0], "sales").(float64) == 0 || at(collections[0], "traders").(float64) < 2 {
		t.Errorf("nft-stats: %v", collections)
	}
}

// Transfers under transactions under blocks, with their token, price and transaction,
// cost the same statements for 1 x 2 as for 3 x 20.
func transferStatements(t *testing.T, conn *sqlx.DB) {
	store := db.NewStore(conn)
	srv := devAPI(t, store)
	cost := func(blocks, txs int) (int64, int) {
		var data struct {
			Blocks struct {
				Edges []struct {
					Node struct {
						Transactions struct {
							Edges []struct {
								Node struct{ TokenTransfers []struct{ UsdValue *float64 } }
							}
						}
					}
				}
			}
		}
		before := store.Statements()
		gql(t, srv.URL, `query($b: Int, $t: Int) { blocks(first: $b) { edges { node { transactions(first: $t) { edges { node {
			tokenTransfers { usdValue token { symbol } transaction { hash } } } } } } } } }`, map[string]any{"b": blocks, "t": txs}, &data)
		n := 0
		for _, b := range data.Blocks.Edges {
			for _, tx := range b.Node.Transactions.Edges {
				n += len(tx.Node.TokenTransfers)
			}
		}
		return store.Statements() - before, n
	}
	small, _ := cost(1, 2)
	large, transfers := cost(3, 20)
	if transfers < 60 || large != small {
		t.Errorf("%d statements for 1 x 2 transactions, %d for 3 x 20 (%d transfers)", small, large, transfers)
	}
}

// Every figure the overview pages show is there: none is 0 or null where the simulated
// chain has its data.
func everyFigure(t *testing.T, conn *sqlx.DB) {
	store := db.NewStore(conn)
	srv := devAPI(t, store)
	get := func(path string) (out map[string]any) {
		t.Helper()
		getJSON(t, srv.URL, "", path, &out)
		return out
	}
	present := func(where string, doc any, paths ...string) {
		t.Helper()
		for _, p := range paths {
			if v := at(doc, p); isZero(v) {
				t.Errorf("%s: %s is %v", where, p, v)
			}
		}
	}

	present("/beta/staking/overview", get("/beta/staking/overview"),
		"overview.maxAPRStrk", "overview.maxAPRBtc", "overview.mintingCurve", "overview.securityLockup",
		"overview.minimumStake", "overview.totalSupply", "overview.averageCommission", "overview.totalStakeStrk",
		"overview.totalStakeBtc", "overview.totalValidators", "overview.totalDelegators",
		"overview.epochData.id", "overview.epochData.durationSeconds", "overview.epochData.estimatedEndTimestamp",
		"overview.tokenInfoStrk.price", "overview.tokenInfoBtc.price", "overview.tokenInfoBtc.tokenAddress")
	for _, token := range []string{strkToken, ethToken} {
		doc := get("/beta/tokens/" + token + "/holders/overview")
		present("holders overview of "+token, doc, "overview.tokenUsdPrice", "overview.walletDepthUsd.0.walletCount")
	}
	present("/beta/stats", get("/beta/stats"), "totalTvl.value", "accountsGrowth", "activeAccounts", "blocksCount",
		"classesCount", "contractsCount", "transactionsCount", "maxRecordedTps", "tps", "tpsAtBlockHash", "latestAvgFee.0.avgFee")
	validators := get("/beta/staking/validators?ps=10&sortBy=apr")
	present("/beta/staking/validators", validators, "items.0.rank", "items.0.aprStrk", "items.9.rank", "items.9.aprStrk")

	var data map[string]any
	gql(t, srv.URL, `{
		validators(first: 3) { edges { node { rank apr pools { apr } } } }
		tokens(first: 1, orderBy: MARKET_CAP) { edges { node { usdPrice marketCapUsd } } }
		transactions(first: 1, filter: {type: L1_HANDLER}) { edges { node { messageHash l1TransactionHash } } }
		tokenTransfers(first: 1, token: "`+strkToken+`") { edges { node { amount usdValue } } }
	}`, nil, &data)
	present("GraphQL", data, "validators.edges.0.node.rank", "validators.edges.0.node.apr", "validators.edges.0.node.pools.0.apr",
		"validators.edges.2.node.pools.0.apr", "tokens.edges.0.node.usdPrice", "tokens.edges.0.node.marketCapUsd",
		"transactions.edges.0.node.l1TransactionHash", "tokenTransfers.edges.0.node.usdValue")
}

// A transfer's USD value is its amount at the oracle's price of its block, as the node
// answers get_data_median at that block. The test asks its own copy of the simulated
// chain: the same seed makes the same chain.
func transferUsdValues(t *testing.T, conn *sqlx.DB, cfg sim.Config) {
	store := db.NewStore(conn)
	srv := devAPI(t, store)
	const block = 220 // prices are read every 10 blocks: at this one, the price is the block's own
	var data struct {
		Block struct {
			Transactions struct {
				Edges []struct {
					Node struct {
						TokenTransfers []struct {
							Amount   string   `json:"amount"`
							UsdValue *float64 `json:"usdValue"`
							Token    struct {
								Address  string `json:"address"`
								Decimals int    `json:"decimals"`
							} `json:"token"`
						} `json:"tokenTransfers"`
					} `json:"node"`
				} `json:"edges"`
			} `json:"transactions"`
		} `json:"block"`
	}
	gql(t, srv.URL, `query($n: Int) { block(number: $n) { transactions(first: 100) { edges { node {
		tokenTransfers { amount usdValue token { address decimals } } } } } } }`, map[string]any{"n": block}, &data)

	chain := sim.New(cfg)
	if head, _ := chain.Head(); head < block {
		chain.AddBlocks(block - head)
	}
	copyNode := httptest.NewServer(chain.Handler())
	defer copyNode.Close()
	node := rpc.NewClient(copyNode.URL)
	priceOf := map[string]float64{}
	for token, pair := range map[string]string{strkToken: "STRK/USD", ethToken: "ETH/USD"} {
		p, _ := starknet.EncodeShortString(pair)
		out, err := node.Call(context.Background(), starknet.MustFelt(oracle), starknet.Selector("get_data_median"), []starknet.Felt{{}, p}, rpc.AtNumber(block))
		if err != nil {
			t.Fatal(err)
		}
		price, _ := new(big.Float).SetInt(out[0].Big()).Float64()
		priceOf[db.MustFelt(token).Hex()] = price / math.Pow10(int(out[1].Big().Int64()))
	}
	checked := 0
	for _, tx := range data.Block.Transactions.Edges {
		for _, tr := range tx.Node.TokenTransfers {
			price, ok := priceOf[db.MustFelt(tr.Token.Address).Hex()]
			if !ok {
				continue
			}
			amount, _ := new(big.Float).SetString(tr.Amount)
			a, _ := amount.Float64()
			want := a / math.Pow10(tr.Token.Decimals) * price
			if tr.UsdValue == nil || math.Abs(*tr.UsdValue-want) > 1e-9*want {
				t.Errorf("transfer of %s %s: usdValue %v, the oracle's price gives %v", tr.Amount, tr.Token.Address, tr.UsdValue, want)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d STRK or ETH transfers in block %d", checked, block)
	}
}

// A wallet's transfers, paged 7 at a time with the cursor, are exactly the transfers it
// sent or received, newest first, and totalCount counts them.
func walletTransfers(t *testing.T, conn *sqlx.DB) {
	var wallet db.Felt
	if err := conn.Get(&wallet, `SELECT a FROM (SELECT from_address AS a, 1 AS sent FROM token_transfers_named
		UNION ALL SELECT to_address, 0 FROM token_transfers_named) x GROUP BY a
		HAVING count(*) BETWEEN 10 AND 80 AND sum(sent) > 0 AND sum(1 - sent) > 0 ORDER BY count(*) DESC, a LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := conn.Select(&want, `SELECT block_number || '/' || tx_index || '/' || event_index FROM token_transfers_named
		WHERE from_address = $1 OR to_address = $1 ORDER BY block_number DESC, tx_index DESC, event_index DESC`, wallet); err != nil {
		t.Fatal(err)
	}
	srv := devAPI(t, db.NewStore(conn))
	var got []string
	var after *string
	for page := 0; ; page++ {
		var data struct {
			TokenTransfers struct {
				TotalCount int
				Edges      []struct {
					Node struct {
						BlockNumber int64
						EventIndex  int
						Transaction struct{ Index int }
						FromAddress string
						ToAddress   string
					}
				}
				PageInfo struct {
					HasNextPage bool
					EndCursor   *string
				}
			}
		}
		gql(t, srv.URL, `query($w: Address, $a: String) { tokenTransfers(wallet: $w, first: 7, after: $a) {
			totalCount edges { node { blockNumber eventIndex transaction { index } fromAddress toAddress } }
			pageInfo { hasNextPage endCursor } } }`, map[string]any{"w": wallet.Hex(), "a": after}, &data)
		if data.TokenTransfers.TotalCount != len(want) {
			t.Fatalf("totalCount %d, the wallet has %d transfers", data.TokenTransfers.TotalCount, len(want))
		}
		for _, e := range data.TokenTransfers.Edges {
			got = append(got, fmt.Sprintf("%d/%d/%d", e.Node.BlockNumber, e.Node.Transaction.Index, e.Node.EventIndex))
		}
		if !data.TokenTransfers.PageInfo.HasNextPage {
			break
		}
		after = data.TokenTransfers.PageInfo.EndCursor
		if page > len(want) {
			t.Fatal("the pages do not end")
		}
	}
	if len(want) < 8 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("wallet %s: pages give\n%v\nwant\n%v", wallet.Hex(), got, want)
	}
}

func gql(t *testing.T, base, doc string, vars map[string]any, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": doc, "variables": vars})
	resp, err := http.Post(base+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || len(answer.Errors) > 0 {
		t.Fatalf("GraphQL: %v %v", answer.Errors, err)
	}
	if err := json.Unmarshal(answer.Data, out); err != nil {
		t.Fatal(err)
	}
}

// at follows a dotted path of object keys and list indexes through decoded JSON.
func at(doc any, path string) any {
	for _, step := range strings.Split(path, ".") {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[step]
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// isZero: null, 0, "0", "" or an empty list.
func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case float64:
		return x == 0
	case string:
		return x == "" || x == "0"
	case []any:
		return len(x) == 0
	}
	return false
}

// devAPI serves both APIs over store for one test.
func devAPI(t *testing.T, store *db.Store) *httptest.Server {
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits, REST: restHandler(store, nil, nil)}))
	t.Cleanup(srv.Close)
	return srv
}
