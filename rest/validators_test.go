package rest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
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
