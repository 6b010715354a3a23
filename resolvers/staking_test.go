package resolvers_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// Staking fixtures: three validators; validator 1 has a STRK pool and two BTC pools
// (WBTC and tBTC), validator 2 a STRK pool. Wallet W delegates to three of the pools,
// wallet X to one.
var (
	strkToken = db.MustFelt("0x5771")
	wbtcToken = db.MustFelt("0xb7c")
	tbtcToken = db.MustFelt("0xb7d")
	val1      = db.MustFelt("0x1001")
	val2      = db.MustFelt("0x1002")
	val3      = db.MustFelt("0x1003")
	pool1Strk = db.MustFelt("0x2001")
	pool1Wbtc = db.MustFelt("0x2002")
	pool2Strk = db.MustFelt("0x2003")
	pool1Tbtc = db.MustFelt("0x2004")
	walletW   = db.MustFelt("0xd00d")
	walletX   = db.MustFelt("0xd00e")
)

// stakingHead is the newest block's time: 2025-06-30 12:00 UTC.
const stakingHead = 1751284800

func seedStaking(s *gqlServer) {
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (1, '\x01', '\x00', $1, 'ACCEPTED_ON_L2')`, stakingHead)
	s.exec(`INSERT INTO staking_overview (staking_contract, strk_token_address, btc_token_address, minimum_stake, updated_at)
		VALUES ('\x5a', $1, $2, 20000, 1751284800123)`, strkToken, wbtcToken)
	s.exec(`INSERT INTO tokens (address, standard, symbol) VALUES ($1, 'erc20', 'STRK'), ($2, 'erc20', 'WBTC'), ($3, 'erc20', 'TBTC')`,
		strkToken, wbtcToken, tbtcToken)
	s.exec(`INSERT INTO classes (hash, kind, cairo_version, is_account) VALUES ('\xacc1', 'sierra', 1, true)`)
	s.exec(`INSERT INTO contracts (address, class_hash, type) VALUES ($1, '\xacc1', 'account'), ($2, '\xacc1', 'account')`, walletW, walletX)
	s.exec(`INSERT INTO validators (staker_address, name, self_stake, delegated_stake_strk, delegated_stake_btc, revenue_share_bps, state, total_delegators) VALUES
		($1, 'One', 100, 50, 9, 500, 'active', 2), ($2, 'Two', 300, 0, 0, 1000, 'active', 0), ($3, 'Three', 10, 0, 0, 0, 'unstaking', 0)`,
		val1, val2, val3)
	s.exec(`INSERT INTO pools (pool_contract, staker_address, token_address, total_delegated, delegator_count) VALUES
		($1, $5, $7, 50, 2), ($2, $5, $8, 7, 1), ($3, $6, $7, 0, 0), ($4, $5, $9, 2, 1)`,
		pool1Strk, pool1Wbtc, pool2Strk, pool1Tbtc, val1, val2, strkToken, wbtcToken, tbtcToken)
	s.exec(`INSERT INTO delegations (pool_contract, delegator_address, amount, rewards_claimed, rewards_unclaimed, last_delegation_at) VALUES
		($1, $4, 30, 1, 2, 100), ($1, $5, 20, 0, 0, 100), ($2, $4, 7, 3, 4, 200), ($3, $4, 2, 0, 5, 300)`,
		pool1Strk, pool1Wbtc, pool1Tbtc, walletW, walletX)
	s.exec(`INSERT INTO stake_points (wallet_address, day, token_address, change, total, block_number) VALUES
		($1, '2025-01-10', $2, 10, 10, 1), ($1, '2025-06-10', $2, 20, 30, 1),
		($1, '2025-06-10', $3, 7, 7, 1), ($1, '2025-06-20', $4, 2, 2, 1),
		($5, '2025-06-20', $2, 20, 20, 1)`,
		walletW, strkToken, wbtcToken, tbtcToken, walletX)
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('validators', 3)`)
	dbtest.DeriveAsIndexer(s.t, s.db)
}

const validatorsDoc = `query($first: Int!) {
  validators(first: $first) { totalCount edges { node {
    address name stakerState totalStakeStrk totalStakeBtc revenueShare selfStake rank apr
    pools {
      address tokenAddress token { symbol } totalDelegated delegatorCount validator { name } apr
      delegations(first: 1) {
        totalCount pageInfo { hasNextPage }
        edges { node { delegatorAddress amount delegator { address class { isAccount } } pool { address } } }
      }
    }
  } } }
}`

type validatorsAnswer struct {
	Validators struct {
		TotalCount int
		Edges      []struct {
			Node struct {
				Address, Name, StakerState, TotalStakeStrk, TotalStakeBtc, SelfStake string
				RevenueShare                                                         float64
				Pools                                                                []struct {
					Address, TokenAddress, TotalDelegated string
					DelegatorCount                        int
					Token                                 *struct{ Symbol string }
					Validator                             struct{ Name string }
					Delegations                           struct {
						TotalCount int
						PageInfo   struct{ HasNextPage bool }
						Edges      []struct {
							Node struct {
								DelegatorAddress, Amount string
								Delegator                *struct {
									Address string
									Class   struct{ IsAccount bool }
								}
								Pool struct{ Address string }
							}
						}
					}
				}
			}
		}
	}
}

func TestValidatorsPoolsDelegationsAreLinked(t *testing.T) {
	s := newGQLServer(t)
	seedStaking(s)
	var out validatorsAnswer
	s.mustQuery(validatorsDoc, map[string]any{"first": 10}, &out)
	v := out.Validators
	var order []string
	for _, e := range v.Edges {
		order = append(order, e.Node.Name+"="+e.Node.TotalStakeStrk)
	}
	if v.TotalCount != 3 || fmt.Sprint(order) != "[Two=300 One=150 Three=10]" {
		t.Fatalf("validators by total STRK stake: got %v (total %d)", order, v.TotalCount)
	}
	one := v.Edges[1].Node
	if one.Address != val1.Padded() || one.TotalStakeBtc != "9" || one.RevenueShare != 5 || one.StakerState != "active" {
		t.Errorf("validator One: got %+v", one)
	}
	if len(one.Pools) != 3 {
		t.Fatalf("validator One has 3 pools, got %d", len(one.Pools))
	}
	strkPool := one.Pools[0]
	if strkPool.Address != pool1Strk.Padded() || strkPool.Token == nil || strkPool.Token.Symbol != "STRK" || strkPool.Validator.Name != "One" {
		t.Errorf("STRK pool of One: got %+v", strkPool)
	}
	d := strkPool.Delegations
	if d.TotalCount != 2 || len(d.Edges) != 1 || !d.PageInfo.HasNextPage {
		t.Fatalf("first of 2 delegations: got %d of %d", len(d.Edges), d.TotalCount)
	}
	top := d.Edges[0].Node
	if top.Amount != "30" || top.DelegatorAddress != walletW.Padded() || top.Delegator == nil || !top.Delegator.Class.IsAccount || top.Pool.Address != pool1Strk.Padded() {
		t.Errorf("largest delegation of the STRK pool: got %+v", top)
	}
	if three := v.Edges[2].Node; three.StakerState != "unstaking" || len(three.Pools) != 0 {
		t.Errorf("validator Three: got %+v", three)
	}

	// One statement per link whatever the page size.
	for _, first := range []int{1, 10} {
		before := s.store.Statements()
		s.mustQuery(validatorsDoc, map[string]any{"first": first}, &out)
		// validators (with their rank and APRs, which also serve the pools' validator), total,
		// pools, tokens, delegations, contracts, classes, delegations' pool, and the staking
		// overview once, not per pool.
		if n := s.store.Statements() - before; n > 9 {
			t.Errorf("validators(first: %d) with pools, delegations and APRs took %d statements, want at most 9", first, n)
		}
	}
}

func TestValidatorAndPoolLookups(t *testing.T) {
	s := newGQLServer(t)
	seedStaking(s)
	var out struct {
		ByStaker, ByPool, Unknown *struct{ Name string }
		Pool                      *struct {
			TokenAddress string
			Validator    struct{ Address string }
		}
		NoPool *struct{ Address string }
	}
	s.mustQuery(`query($staker: Address!, $pool: Address!) {
	  byStaker: validator(address: $staker) { name }
	  byPool: validator(address: $pool) { name }
	  unknown: validator(address: "0x9999") { name }
	  pool(address: $pool) { tokenAddress validator { address } }
	  noPool: pool(address: "0x9999") { address }
	}`, map[string]any{"staker": "0x1002", "pool": pool1Wbtc.Hex()}, &out)
	if out.ByStaker == nil || out.ByStaker.Name != "Two" || out.ByPool == nil || out.ByPool.Name != "One" || out.Unknown != nil {
		t.Errorf("validator by staker / by pool / unknown: got %+v %+v %+v", out.ByStaker, out.ByPool, out.Unknown)
	}
	if out.Pool == nil || out.Pool.TokenAddress != wbtcToken.Padded() || out.Pool.Validator.Address != val1.Padded() || out.NoPool != nil {
		t.Errorf("pool: got %+v, unknown pool %+v", out.Pool, out.NoPool)
	}
}

func TestStakingOverview(t *testing.T) {
	s := newGQLServer(t)
	const doc = `{ stakingOverview { strkTokenAddress btcTokenAddress minimumStake totalStakeStrk totalStakeBtc
		totalValidators totalDelegators averageCommission lastUpdated } }`
	type answer struct {
		StakingOverview struct {
			StrkTokenAddress, BtcTokenAddress           *string
			MinimumStake, TotalStakeStrk, TotalStakeBtc string
			TotalValidators, TotalDelegators            int
			AverageCommission                           float64
			LastUpdated                                 int64
		}
	}
	var empty answer
	s.mustQuery(doc, nil, &empty)
	if o := empty.StakingOverview; o.TotalStakeStrk != "0" || o.StrkTokenAddress != nil || o.TotalValidators != 0 {
		t.Errorf("before any staking data the overview is zeros, got %+v", o)
	}

	seedStaking(s)
	var out answer
	s.mustQuery(doc, nil, &out)
	o := out.StakingOverview
	if o.StrkTokenAddress == nil || *o.StrkTokenAddress != strkToken.Padded() || o.MinimumStake != "20000" {
		t.Errorf("overview row: got %+v", o)
	}
	// 100+50 + 300 + 10 STRK; 9 BTC delegated to One.
	if o.TotalStakeStrk != "460" || o.TotalStakeBtc != "9" {
		t.Errorf("stake totals: got %s STRK, %s BTC", o.TotalStakeStrk, o.TotalStakeBtc)
	}
	// Validators from list_counts; delegators counted (no maintained total): W and X.
	if o.TotalValidators != 3 || o.TotalDelegators != 2 {
		t.Errorf("counts: got %d validators, %d delegators", o.TotalValidators, o.TotalDelegators)
	}
	// Active validators charge 5% on 150 STRK and 10% on 300, weighted by stake: 8.33%.
	if math.Abs(o.AverageCommission-(5*150+10*300)/450.0) > 1e-9 || o.LastUpdated != 1751284800123 {
		t.Errorf("average commission %v (want 8.33), lastUpdated %d", o.AverageCommission, o.LastUpdated)
	}
}

func TestWalletStakingAndStakeOverTime(t *testing.T) {
	s := newGQLServer(t)
	seedStaking(s)
	type point struct {
		Date, TotalStakeChangeStrk, TotalStakeChangeBtc, TotalStakeStrk, TotalStakeBtc string
	}
	var out struct {
		W struct {
			Address  string
			Contract *struct{ Address string }
			Staking  struct {
				TotalStakedStrk, TotalStakedBtc                     string
				TotalRewardsClaimedStrk, TotalRewardsClaimedBtc     string
				TotalRewardsUnclaimedStrk, TotalRewardsUnclaimedBtc string
				Positions                                           []struct {
					Amount string
					Pool   struct {
						Address   string
						Validator struct{ Name string }
					}
				}
			}
			Month, All, Week []point
		}
		X struct {
			Staking struct{ TotalStakedStrk string }
			Month   []point
		}
		Nobody struct {
			Contract *struct{ Address string }
			Staking  struct {
				TotalStakedStrk string
				Positions       []struct{ Amount string }
			}
			All []point
		}
	}
	before := s.store.Statements()
	s.mustQuery(`query($w: Address!, $x: Address!) {
	  w: wallet(address: $w) {
	    address contract { address }
	    staking { totalStakedStrk totalStakedBtc totalRewardsClaimedStrk totalRewardsClaimedBtc
	      totalRewardsUnclaimedStrk totalRewardsUnclaimedBtc positions { amount pool { address validator { name } } } }
	    month: stakeOverTime { date totalStakeChangeStrk totalStakeChangeBtc totalStakeStrk totalStakeBtc }
	    all: stakeOverTime(range: MAX) { date totalStakeChangeStrk totalStakeChangeBtc totalStakeStrk totalStakeBtc }
	    week: stakeOverTime(range: ONE_WEEK) { date totalStakeChangeStrk totalStakeChangeBtc totalStakeStrk totalStakeBtc }
	  }
	  x: wallet(address: $x) { staking { totalStakedStrk } month: stakeOverTime(range: ONE_MONTH) { date totalStakeChangeStrk totalStakeChangeBtc totalStakeStrk totalStakeBtc } }
	  nobody: wallet(address: "0x4242") { contract { address } staking { totalStakedStrk positions { amount } } all: stakeOverTime(range: MAX) { date totalStakeChangeStrk totalStakeChangeBtc totalStakeStrk totalStakeBtc } }
	}`, map[string]any{"w": walletW.Hex(), "x": walletX.Hex()}, &out)
	cost := s.store.Statements() - before

	w := out.W
	if w.Address != walletW.Padded() || w.Contract == nil {
		t.Errorf("wallet address and contract: got %+v", w)
	}
	st := w.Staking
	// STRK: 30 in One's STRK pool. BTC: 7 WBTC + 2 tBTC (every non-STRK pool token).
	if st.TotalStakedStrk != "30" || st.TotalStakedBtc != "9" || st.TotalRewardsClaimedStrk != "1" || st.TotalRewardsClaimedBtc != "3" ||
		st.TotalRewardsUnclaimedStrk != "2" || st.TotalRewardsUnclaimedBtc != "9" {
		t.Errorf("staking sums: got %+v", st)
	}
	if len(st.Positions) != 3 || st.Positions[0].Pool.Address != pool1Tbtc.Padded() || st.Positions[0].Pool.Validator.Name != "One" {
		t.Errorf("positions, last delegated first: got %+v", st.Positions)
	}
	wantMonth := []point{
		{"2025-06-10", "20", "7", "30", "7"},
		{"2025-06-20", "0", "2", "30", "9"},
	}
	if fmt.Sprint(w.Month) != fmt.Sprint(wantMonth) {
		t.Errorf("one month back from the head (2025-06-30): got %v, want %v", w.Month, wantMonth)
	}
	wantAll := append([]point{{"2025-01-10", "10", "0", "10", "0"}}, wantMonth...)
	if fmt.Sprint(w.All) != fmt.Sprint(wantAll) {
		t.Errorf("all time: got %v, want %v", w.All, wantAll)
	}
	if len(w.Week) != 0 {
		t.Errorf("no change in the last week, got %v", w.Week)
	}
	if out.X.Staking.TotalStakedStrk != "20" || fmt.Sprint(out.X.Month) != fmt.Sprint([]point{{"2025-06-20", "20", "0", "20", "0"}}) {
		t.Errorf("wallet X: got %+v", out.X)
	}
	if out.Nobody.Contract != nil || out.Nobody.Staking.TotalStakedStrk != "0" || out.Nobody.Staking.Positions == nil || len(out.Nobody.All) != 0 {
		t.Errorf("an address without anything: got %+v", out.Nobody)
	}
	// contracts, positions, pools, validators, stake history (two windows: month, max;
	// plus one week).
	if cost > 7 {
		t.Errorf("three wallets took %d statements, want at most 7", cost)
	}
}

func TestWalletActivityAndBalances(t *testing.T) {
	s := newGQLServer(t)
	seedTokens(s, 2, 2) // holders 0xa000 and 0xa001 hold both tokens
	sender := holderAddr(0)
	for b := 2; b <= 4; b++ {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, '\x00', $3, 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(0xbb00+b)), 1700000000+b)
		s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, execution_status, finality_status)
			VALUES ($1, 0, $2, 'INVOKE', 3, 1, felt_id($3), 'SUCCEEDED', 'ACCEPTED_ON_L2'), ($1, 1, $4, 'INVOKE', 3, 1, felt_id('\x99'), 'SUCCEEDED', 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(0xe000+b)), sender, db.FeltFromUint64(uint64(0xf000+b)))
	}
	var out struct {
		Wallet struct {
			Erc20Balances []struct {
				Balance string
				Token   struct{ Symbol string }
			}
			Activity struct {
				TotalCount int
				PageInfo   struct{ HasNextPage bool }
				Edges      []struct{ Node struct{ Hash string } }
			}
			Since struct {
				TotalCount int
				Edges      []struct{ Node struct{ BlockNumber int } }
			}
		}
	}
	s.mustQuery(`query($a: Address!) { wallet(address: $a) {
	  erc20Balances { balance token { symbol } }
	  activity(first: 2) { totalCount pageInfo { hasNextPage } edges { node { hash } } }
	  since: activity(fromBlock: 3, order: ASC) { totalCount edges { node { blockNumber } } }
	} }`, map[string]any{"a": sender.Hex()}, &out)
	w := out.Wallet
	if len(w.Erc20Balances) != 2 || w.Erc20Balances[0].Token.Symbol == "" {
		t.Errorf("ERC-20 balances: got %+v", w.Erc20Balances)
	}
	if w.Activity.TotalCount != 3 || len(w.Activity.Edges) != 2 || !w.Activity.PageInfo.HasNextPage || w.Activity.Edges[0].Node.Hash != "0xe004" {
		t.Errorf("activity, newest first: got %+v", w.Activity)
	}
	if w.Since.TotalCount != 2 || len(w.Since.Edges) != 2 || w.Since.Edges[0].Node.BlockNumber != 3 {
		t.Errorf("activity from block 3, oldest first: got %+v", w.Since)
	}
	resp, _ := s.query(`{ wallet(address: "0x1") { activity(fromBlock: -1) { totalCount } } }`, nil)
	if len(resp.Errors) == 0 || resp.Errors[0].Extensions["argument"] != "fromBlock" {
		t.Errorf("negative fromBlock: got %+v", resp.Errors)
	}
}

// TestValidatorOrdersAndSearch: validators sort by each key in both directions (rank 1 is
// the largest stake: Two 300, One 150, Three 10), and search matches a name part or an
// address written with or without 0x.
func TestValidatorOrdersAndSearch(t *testing.T) {
	s := newGQLServer(t)
	seedStaking(s)
	names := func(args string) []string {
		t.Helper()
		var out struct {
			Validators struct {
				TotalCount int
				Edges      []struct {
					Node struct {
						Name string
						Rank int
					}
				}
			}
		}
		s.mustQuery(`{ validators(`+args+`) { totalCount edges { node { name rank } } } }`, nil, &out)
		var got []string
		for _, e := range out.Validators.Edges {
			got = append(got, fmt.Sprintf("%s#%d", e.Node.Name, e.Node.Rank))
		}
		if out.Validators.TotalCount != len(got) {
			t.Errorf("%s: totalCount %d for %d rows", args, out.Validators.TotalCount, len(got))
		}
		return got
	}
	for args, want := range map[string]string{
		`first: 5`:                  "Two#1 One#2 Three#3",
		`first: 5, direction: DESC`: "Three#3 One#2 Two#1",
		`first: 5, orderBy: COMMISSION, direction: DESC`: "Two#1 One#2 Three#3",
		`first: 5, orderBy: COMMISSION`:                  "Three#3 One#2 Two#1",
		`first: 5, orderBy: STAKE_BTC, direction: DESC`:  "One#2 Two#1 Three#3",
		`first: 5, search: "hre"`:                        "Three#3",
		`first: 5, search: "0x1002"`:                     "Two#1",
		`first: 5, search: "1001"`:                       "One#2",
		`first: 5, search: "nobody"`:                     "",
	} {
		if got := strings.Join(names(args), " "); got != want {
			t.Errorf("validators(%s): %q, want %q", args, got, want)
		}
	}
}
