package rest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

func TestValidatorOperations(t *testing.T) {
	e := newEnv(t)
	exec := e.exec
	validator, btcPool, wbtc := account(4), db.MustFelt("0x0b002"), db.MustFelt("0x0b7c")
	exec(`INSERT INTO pools (pool_contract, staker_address, token_address, total_delegated, delegator_count) VALUES ($1, $2, $3, 300, 3)`,
		btcPool, validator, wbtc)
	// Amounts of different digit counts, so that a text order would differ from the numeric one.
	for i, amount := range []string{"999", "1000", "20", "7", "123456789", "88", "1000000", "4", "50", "600", "31"} {
		pool := poolAddr
		if i%3 == 2 {
			pool = btcPool
		}
		exec(`INSERT INTO delegations (pool_contract, delegator_address, reward_address, amount, rewards_claimed, rewards_unclaimed, activated_at, last_delegation_at)
			VALUES ($1, $2, $2, $3, 0, 0, $4, $4)`, pool, account(10+i), amount, baseTime)
	}
	exec(`INSERT INTO delegations (pool_contract, delegator_address, reward_address, amount, rewards_claimed, rewards_unclaimed)
		VALUES ($1, $2, $2, 42, 0, 0)`, btcPool, account(0)) // account 0 delegates to both pools
	sqlOrder := func(where string, args ...any) []string {
		t.Helper()
		var rows []struct {
			Pool, Delegator db.Felt
		}
		if err := e.db.Select(&rows, `SELECT d.pool_contract AS pool, d.delegator_address AS delegator FROM delegations d
			JOIN pools p USING (pool_contract) WHERE p.staker_address = $1 `+where+`
			ORDER BY d.amount DESC, d.pool_contract, d.delegator_address`, append([]any{validator}, args...)...); err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = r.Pool.Padded() + "/" + r.Delegator.Padded()
		}
		return out
	}
	walk := func(query string) []string {
		t.Helper()
		var out []string
		for p := 1; p < 10; p++ {
			body := e.mustGet(fmt.Sprintf("/beta/staking/delegators?validator=%s&ps=10&p=%d%s", validator.Hex(), p, query)).(map[string]any)
			for _, it := range body["items"].([]any) {
				d := it.(map[string]any)
				out = append(out, d["poolContract"].(string)+"/"+d["delegatorAddress"].(string))
			}
			if lp := int(body["lastPage"].(float64)); p >= lp {
				return out
			}
		}
		t.Fatalf("%s: more than 9 pages", query)
		return nil
	}
	eq := func(what string, got, want []string) {
		t.Helper()
		if len(want) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s:\n got %v\nwant %v", what, got, want)
		}
	}
	all := sqlOrder("")
	if len(all) != 13 {
		t.Fatalf("%d delegations seeded", len(all))
	}
	eq("all pools, two pages", walk(""), all)
	eq("the STRK pool", walk("&asset=strk"), sqlOrder("AND p.token_address = $2", strkAddr))
	eq("the BTC pools", walk("&asset=BTC"), sqlOrder("AND p.token_address <> $2", strkAddr))
	eq("one delegator", walk("&delegator="+account(0).Hex()), sqlOrder("AND d.delegator_address = $2", account(0)))
	if got := walk("&delegator=0x1234"); len(got) != 0 {
		t.Errorf("a delegator of nothing: %v", got)
	}
	first := e.mustGet("/beta/staking/delegators?validator=" + validator.Hex()).(map[string]any)["items"].([]any)[0].(map[string]any)
	if first["amount"] != "5000000000000000000000" || first["asset"] != "strk" || first["delegatorAddress"] != account(0).Padded() ||
		first["tokenAddress"] != strkAddr.Padded() || first["status"] != "active" {
		t.Errorf("the largest delegation: %v", first)
	}

	// The pools of a page's delegations are read once for the page: the validator, the
	// staking overview, the page, its total and the pools.
	before := e.store.Statements()
	e.mustGet("/beta/staking/delegators?validator=" + validator.Hex() + "&ps=25")
	if n := e.store.Statements() - before; n != 5 {
		t.Errorf("a page of delegations over two pools took %d statements, want 5", n)
	}

	// Details: the validator's row of the list, as is.
	details := e.mustGet("/beta/staking/validator-details?validator=" + validator.Hex())
	before = e.store.Statements()
	list := e.mustGet("/beta/staking/validators").(map[string]any)["items"].([]any)
	if len(list) != 1 || !reflect.DeepEqual(details, list[0]) {
		t.Errorf("details differ from the list's row:\n%v\n%v", details, list)
	}
	// The validators with their figures, their total, the staking overview, their pools,
	// and the pools' tokens (STRK's and the BTC pool's at once).
	if n := e.store.Statements() - before; n != 5 {
		t.Errorf("a page of validators with a STRK and a BTC pool took %d statements, want 5", n)
	}

	pools := e.mustGet("/beta/staking/validator-pool-info?validator=" + validator.Hex()).(map[string]any)
	if pools["validator"] != validator.Padded() || pools["revenueShare"] != 1000.0 {
		t.Errorf("pool info: %v", pools)
	}
	byAsset := map[string]map[string]any{}
	for _, p := range pools["pools"].([]any) {
		byAsset[p.(map[string]any)["asset"].(string)] = p.(map[string]any)
	}
	if s, b := byAsset["strk"], byAsset["btc"]; s == nil || b == nil || s["poolContract"] != poolAddr.Padded() ||
		s["totalDelegated"] != "5000000000000000000000" || b["poolContract"] != btcPool.Padded() || b["delegatorCount"] != 3.0 ||
		s["tokenInfo"].(map[string]any)["symbol"] != "STRK" {
		t.Errorf("pools by asset: %v", byAsset)
	}

	// The pools' tokens and APRs are read for all the pools at once: a third pool costs
	// no statement more.
	poolInfo := "/beta/staking/validator-pool-info?validator=" + validator.Hex()
	before = e.store.Statements()
	e.mustGet(poolInfo)
	twoPools := e.store.Statements() - before
	exec(`INSERT INTO pools (pool_contract, staker_address, token_address, total_delegated, delegator_count) VALUES ($1, $2, $3, 1, 1)`,
		db.MustFelt("0x0b003"), validator, db.MustFelt("0x0b7d"))
	before = e.store.Statements()
	threePools := len(e.mustGet(poolInfo).(map[string]any)["pools"].([]any))
	if n := e.store.Statements() - before; n != twoPools || threePools != 3 {
		t.Errorf("pool info of %d pools took %d statements, of 2 pools %d", threePools, n, twoPools)
	}

	// A wallet's positions read their pools, tokens and validators for all the positions
	// at once: account 0's two cost what one of another delegator costs.
	walletInfo := func(wallet db.Felt) (positions int, statements int64) {
		before := e.store.Statements()
		staked := e.mustGet("/beta/staking/wallet-info?address=" + wallet.Hex()).(map[string]any)["staked"].([]any)
		return len(staked), e.store.Statements() - before
	}
	onePosition, oneCost := walletInfo(account(10))
	twoPositions, twoCost := walletInfo(account(0))
	if onePosition != 1 || twoPositions != 2 || oneCost != twoCost {
		t.Errorf("wallet info: %d positions took %d statements, %d took %d", onePosition, oneCost, twoPositions, twoCost)
	}

	e.expectRefusals(t, []refusal{
		{"/beta/staking/validator-details", 400, "validator"},
		{"/beta/staking/validator-details?validator=0x1234", 404, "validator"},
		{"/beta/staking/validator-pool-info?validator=0xzz", 400, "validator"},
		{"/beta/staking/validator-pool-info?validator=0x1234", 404, "validator"},
		{"/beta/staking/delegators?validator=0x1234", 404, "validator"},
		{"/beta/staking/delegators?validator=" + validator.Hex() + "&asset=eth", 400, "asset"},
		{"/beta/staking/delegators?validator=" + validator.Hex() + "&delegator=1", 400, "delegator"},
		{"/beta/staking/delegators?validator=" + validator.Hex() + "&ps=3", 400, "ps"},
	})
}

// TestValidatorSortKeys: every sortBy of the reference orders the validators as its
// definition says, in both directions, with the validators written so that each key
// gives another order than the others. Blocks 1-10 are moved 100 days back, out of the
// 90-day liveness window.
func TestValidatorSortKeys(t *testing.T) {
	e := newEnv(t)
	exec := e.exec
	const strk = "000000000000000000" // 18 zeros: whole STRK
	// account(4) is the seed's "Duck Staking": 25,000 STRK, liveness 9/10, attestations of
	// epochs 3929-3940 in blocks 1-12 (tx 1), so 3939 and 3940 in the window: 2/2.
	for _, v := range []struct {
		who                  db.Felt
		name, self, btc      string
		attested, total, fee int
		last                 *int // the last epoch attested
	}{
		{account(5), "A", "1000" + strk, "500", 5, 10, 500, ptr(3932)},
		{account(6), "B", "100" + strk, "1500", 0, 0, 700, ptr(3940)}, // counters lost: liveness null, liveness90d known
		{account(7), "C", "50000" + strk, "0", 10, 10, 300, ptr(3940)},
	} {
		exec(`INSERT INTO validators (staker_address, reward_address, name, self_stake, delegated_stake_btc, revenue_share_bps,
			state, start_time, total_delegators, liveness_attested_epochs, liveness_total_epochs, liveness_last_epoch)
			VALUES ($1, $1, $2, $3, $4, $5, 'active', $6, 0, $7, $8, $9)`,
			v.who, v.name, v.self, v.btc, v.fee, baseTime, v.attested, v.total, v.last)
	}
	// In the window: B attests epochs 3930 and 3940 (2 of 11), C 3935-3937 and 3940 (4 of
	// 6); A attests only before it (none: null).
	for i, a := range []struct {
		who   db.Felt
		block int
		epoch int
	}{
		{account(6), 20, 3930}, {account(6), 21, 3940},
		{account(7), 13, 3935}, {account(7), 14, 3936}, {account(7), 15, 3937}, {account(7), 22, 3940},
		{account(5), 2, 3931}, {account(5), 3, 3932},
	} {
		exec(`INSERT INTO attestations (block_number, tx_index, event_index, staker_address, epoch, transaction_hash, timestamp)
			VALUES ($1, 0, $2, $3, $4, $5, 0)`, a.block, 20+i, a.who, a.epoch, txHash(a.block, 0))
	}
	exec(`UPDATE blocks SET timestamp = timestamp - 100 * 86400 WHERE number <= 10`)
	dbtest.DeriveAsIndexer(t, e.db)

	names := func(query string) string {
		t.Helper()
		var out []string
		for _, it := range e.mustGet("/beta/staking/validators?" + query).(map[string]any)["items"].([]any) {
			name := it.(map[string]any)["name"].(string)
			out = append(out, strings.TrimSuffix(name, " Staking"))
		}
		return strings.Join(out, " ")
	}
	// Staking power (BTC weighs 0.25 as there is BTC stake; 76,100 STRK and 2,000 BTC units
	// in all): C .49, Duck .25, B .19 (mostly its BTC), A .07.
	for query, want := range map[string]string{
		"sortBy=rank":                               "C Duck A B",
		"sortBy=stakeStrk&sortOrder=DESC":           "C Duck A B",
		"sortBy=stakeBtc&sortOrder=DESC":            "B A C Duck", // ties by rank
		"sortBy=commission&sortOrder=ASC":           "C A B Duck",
		"sortBy=stakingPower&sortOrder=DESC":        "C Duck B A",
		"sortBy=STAKINGPOWER&sortOrder=asc":         "A B Duck C",
		"sortBy=liveness&sortOrder=DESC":            "C Duck A B",
		"sortBy=liveness&sortOrder=ASC":             "A Duck C B", // never attested: last either way
		"sortBy=liveness90d&sortOrder=DESC":         "Duck C B A",
		"sortBy=liveness90d&sortOrder=ASC":          "B C Duck A",
		"sortBy=liveness90d&sortOrder=DESC&ps=10":   "Duck C B A",
		"sortBy=liveness90d&search=c&sortOrder=ASC": "C Duck", // "Duck" has a c too
	} {
		if got := names(query); got != want {
			t.Errorf("%s: %q, want %q", query, got, want)
		}
	}
	// The row's staking power is the figure sorted by, in percent.
	for _, it := range e.mustGet("/beta/staking/validators?sortBy=stakingPower&sortOrder=DESC").(map[string]any)["items"].([]any) {
		row := it.(map[string]any)
		want := map[string]float64{"C": 49.277, "Duck Staking": 24.639, "B": 18.849, "A": 7.236}[row["name"].(string)]
		if got, _ := row["stakingPower"].(float64); got < want-0.001 || got > want+0.001 {
			t.Errorf("%v: stakingPower %v, want %.3f", row["name"], row["stakingPower"], want)
		}
	}
	e.expectRefusals(t, []refusal{{"/beta/staking/validators?sortBy=power", 400, "sortBy"}})
}
