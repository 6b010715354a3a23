package indexer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
)

// stubEvent is an event of a stub block: its emitter, keys (selector first) and data.
type stubEvent struct {
	from       string
	keys, data []string
}

// ev is an event; keys and data are hex felts, or decimals for readability.
func ev(from, name string, keys []string, data ...string) stubEvent {
	hex := func(in []string) []string {
		out := make([]string, len(in))
		for i, v := range in {
			out[i] = v
			if n, err := strconv.ParseUint(v, 10, 64); err == nil {
				out[i] = fmt.Sprintf("0x%x", n)
			}
		}
		return out
	}
	return stubEvent{from, append([]string{starknet.Selector(name).Hex()}, hex(keys)...), hex(data)}
}

// stubBlock is block n at time ts with one INVOKE per event list, in the RPC 0.8 shape.
func stubBlock(t *testing.T, n uint64, ts int64, txs ...[]stubEvent) string {
	t.Helper()
	var body []map[string]any
	for i, events := range txs {
		var evs []map[string]any
		for _, e := range events {
			evs = append(evs, map[string]any{"from_address": e.from, "keys": e.keys, "data": append([]string{}, e.data...)})
		}
		body = append(body, map[string]any{
			"transaction": map[string]any{"type": "INVOKE", "version": "0x1", "sender_address": "0xa", "calldata": []string{},
				"signature": []string{}, "max_fee": "0x1", "nonce": fmt.Sprintf("0x%x", n*100+uint64(i))},
			"receipt": map[string]any{"type": "INVOKE", "transaction_hash": fmt.Sprintf("0x%x", 0x1000+n*100+uint64(i)),
				"actual_fee": map[string]any{"amount": "0x0", "unit": "WEI"}, "execution_status": "SUCCEEDED",
				"finality_status": "ACCEPTED_ON_L2", "events": evs, "messages_sent": []any{},
				"execution_resources": map[string]any{"l1_gas": 0, "l1_data_gas": 0, "l2_gas": 0}},
		})
	}
	parent := "0x0"
	if n > 0 {
		parent = fmt.Sprintf("0xb%d", n-1)
	}
	b, err := json.Marshal(map[string]any{"status": "ACCEPTED_ON_L2", "block_hash": fmt.Sprintf("0xb%d", n),
		"parent_hash": parent, "block_number": n, "new_root": "0x1", "timestamp": ts,
		"sequencer_address": "0x5", "l1_gas_price": map[string]string{"price_in_wei": "0x1", "price_in_fri": "0x1"},
		"l1_data_gas_price": map[string]string{"price_in_wei": "0x1", "price_in_fri": "0x1"},
		"l2_gas_price":      map[string]string{"price_in_wei": "0x1", "price_in_fri": "0x1"}, "l1_da_mode": "BLOB",
		"starknet_version": "0.13.5", "transactions": body})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func emptyState(n uint64) string {
	return fmt.Sprintf(`{"block_hash":"0xb%d","new_root":"0x1","old_root":"0x0","state_diff":{"storage_diffs":[],"nonces":[],
	  "deployed_contracts":[],"declared_classes":[],"deprecated_declared_classes":[],"replaced_classes":[]}}`, n)
}

// TestStakingHistoryFromEvents indexes every staking operation of the log, in both event
// layouts where they differ, over three UTC days, with attestations that miss an epoch and
// events that must not count (a pool nobody announced, a staker nobody staked).
func TestStakingHistoryFromEvents(t *testing.T) {
	const staking, pool, pool2, btcPool, attest = "0x5a", "0x9001", "0x9002", "0x9003", "0xa77"
	const staker, staker2, member, stranger, wbtc = "0x51", "0x52", "0x3e3", "0xbad", "0xb7c"
	strk := strkToken.Hex()
	day := int64(86400)
	t0 := int64(1_700_006_400) // 2023-11-15 00:00 UTC
	blocks := map[uint64]string{
		0: stubBlock(t, 0, t0,
			[]stubEvent{ // stake with a pool (v1)
				ev(staking, "NewStaker", []string{staker}, "0x1", "0x2", "1000"),
				ev(staking, "StakeBalanceChanged", []string{staker}, "0x0", "0x0", "1000", "0x0"),
				ev(staking, "NewDelegationPool", []string{staker, pool}, "500")},
			[]stubEvent{ // a second staker, with a BTC pool (v2)
				ev(staking, "NewStaker", []string{staker2}, "0x1", "0x2", "3000"),
				ev(staking, "NewDelegationPool", []string{staker2, pool2, strk}, "100"),
				ev(staking, "NewDelegationPool", []string{staker2, btcPool, wbtc}, "100")},
			[]stubEvent{ // enter the pool
				ev(staking, "StakeBalanceChanged", []string{staker}, "1000", "0x0", "1000", "200"),
				ev(pool, "NewPoolMember", []string{member, staker}, member, "200"),
				ev(pool, "PoolMemberBalanceChanged", []string{member}, "0x0", "200")},
			[]stubEvent{ev(attest, "StakerAttestationSuccessful", []string{staker}, "5")},
			[]stubEvent{ // not counted: a pool nobody announced, a staker nobody staked
				ev("0x666", "PoolMemberExitIntent", []string{member}, "0x1", "200"),
				ev(attest, "StakerAttestationSuccessful", []string{stranger}, "5"),
				ev(staking, "StakerRewardClaimed", []string{stranger}, "0x1", "9")}),
		1: stubBlock(t, 1, t0+day,
			[]stubEvent{ // add to the pool
				ev(staking, "StakeBalanceChanged", []string{staker}, "1000", "200", "1000", "250"),
				ev(pool, "PoolMemberBalanceChanged", []string{member}, "200", "250")},
			[]stubEvent{ev(staking, "StakeBalanceChanged", []string{staker}, "1000", "250", "1100", "250")}, // increase_stake (v1)
			[]stubEvent{ev(staking, "StakeOwnBalanceChanged", []string{staker2}, "3000", "3500")},           // increase_stake (v2)
			[]stubEvent{ev(staking, "StakerRewardClaimed", []string{staker}, "0x1", "7")},
			[]stubEvent{ev(pool, "PoolMemberRewardClaimed", []string{member, member}, "3")},
			[]stubEvent{ev(staking, "CommissionChanged", []string{staker, pool}, "400", "500")}, // v1
			[]stubEvent{ev(staking, "CommissionChanged", []string{staker2}, "50", "100")},       // v2
			[]stubEvent{ev(attest, "StakerAttestationSuccessful", []string{staker}, "7")},
			[]stubEvent{ // exit the pool
				ev(pool, "PoolMemberExitIntent", []string{member}, "0x2", "50"),
				ev(staking, "StakeBalanceChanged", []string{staker}, "1100", "250", "1100", "200"),
				ev(pool, "PoolMemberBalanceChanged", []string{member}, "250", "200")},
			[]stubEvent{ev(pool, "PoolMemberExitAction", []string{member}, "50")},
			[]stubEvent{ev(pool, "SwitchDelegationPool", []string{member, pool2}, "20")}),
		2: stubBlock(t, 2, t0+2*day,
			[]stubEvent{ev(attest, "StakerAttestationSuccessful", []string{staker}, "7")}, // the same epoch again
			[]stubEvent{ev(staking, "StakerExitIntent", []string{staker}, "0x3", "1100")}, // v1
			[]stubEvent{ev(staking, "StakerExitIntent", []string{staker2}, "0x3")},        // v2
			[]stubEvent{ev(staking, "DeleteStaker", []string{staker}, "0x1", "0x2", pool)}),
	}
	states := map[uint64]string{0: emptyState(0), 1: emptyState(1), 2: emptyState(2)}
	d := dbtest.New(t)
	runIndexer(t, d, stubNode(t, "0.8.1", blocks, states), 0, 2, nil)
	checkConsistent(t, d)

	var log []string
	if err := d.Select(&log, `SELECT block_number || '.' || tx_index || ' ' || operation || ' ' || encode(wallet_address, 'hex') || '@' ||
		encode(staker_address, 'hex') || ' ' || coalesce(encode(pool_contract, 'hex'), '-') || ' ' ||
		coalesce(encode(token_address, 'hex'), '-') || ' ' || coalesce(amount::text, '-')
		FROM staking_activity ORDER BY block_number, tx_index, event_index`); err != nil {
		t.Fatal(err)
	}
	s := "0" + strings.TrimPrefix(strk, "0x") // encode() shows whole bytes
	want := []string{
		"0.0 stake 51@51 - " + s + " 1000",
		"0.0 set_open_for_delegation 51@51 9001 " + s + " -",
		"0.1 stake 52@52 - " + s + " 3000",
		"0.1 set_open_for_delegation 52@52 9002 " + s + " -",
		"0.1 set_open_for_delegation 52@52 9003 0b7c -",
		"0.2 enter_delegation_pool 03e3@51 9001 " + s + " 200",
		"1.0 add_to_delegation_pool 03e3@51 9001 " + s + " 50",
		"1.1 increase_stake 51@51 - " + s + " 100",
		"1.2 increase_stake 52@52 - " + s + " 500",
		"1.3 claim_rewards 51@51 - " + s + " 7",
		"1.4 claim_rewards 03e3@51 9001 " + s + " 3",
		"1.5 update_commission 51@51 9001 - -",
		"1.6 update_commission 52@52 - - -",
		"1.8 exit_delegation_pool_intent 03e3@51 9001 " + s + " 50",
		"1.9 exit_delegation_pool_action 03e3@51 9001 " + s + " 50",
		"1.10 switch_delegation_pool 03e3@51 9001 " + s + " 20",
		"2.1 unstake_intent 51@51 - " + s + " 1100",
		"2.2 unstake_intent 52@52 - " + s + " -",
		"2.3 unstake_action 51@51 - " + s + " -",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("staking log:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	var ops []string
	if err := d.Select(&ops, `SELECT DISTINCT operation FROM staking_activity ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	if len(ops) != len(db.StakingOperations) {
		t.Errorf("operations seen %v, want all of %v", ops, db.StakingOperations)
	}

	var liveness string
	if err := d.Get(&liveness, `SELECT liveness_attested_epochs || '/' || liveness_total_epochs || ' last ' || liveness_last_epoch
		FROM validators WHERE staker_address = '\x51'`); err != nil {
		t.Fatal(err)
	}
	if liveness != "2/3 last 7" {
		t.Errorf("liveness %s, want 2 of the 3 epochs 5-7, last 7", liveness)
	}
	var exits []string
	if err := d.Select(&exits, `SELECT encode(staker_address, 'hex') || ' ' || state || ' ' || coalesce(unstake_time::text, '-') || ' ' ||
		coalesce(withdrawal_time::text, '-') FROM validators ORDER BY staker_address`); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("51 withdrawn %d 3,52 unstaking %d 3", t0+2*day, t0+2*day); strings.Join(exits, ",") != want {
		t.Errorf("states after the exits: %v, want %s", exits, want)
	}
	var attestations int
	if err := d.Get(&attestations, `SELECT count(*) FROM attestations WHERE staker_address = '\x51'`); err != nil || attestations != 3 {
		t.Errorf("%d attestations of the staker (%v), want 3 (one repeated)", attestations, err)
	}

	var days []string
	if err := d.Select(&days, `SELECT coalesce(nullif(encode(staker_address, 'hex'), ''), 'network') || ' ' || day || ' ' ||
		stake_strk || ' ' || stake_btc || ' ' || delegators FROM validator_days ORDER BY staker_address, day`); err != nil {
		t.Fatal(err)
	}
	wantDays := []string{
		"network 2023-11-15 4200 0 1", "network 2023-11-16 4800 0 1",
		"51 2023-11-15 1200 0 1", "51 2023-11-16 1300 0 1",
		"52 2023-11-15 3000 0 0", "52 2023-11-16 3500 0 0",
	}
	if strings.Join(days, "\n") != strings.Join(wantDays, "\n") {
		t.Errorf("days:\n%s\nwant:\n%s", strings.Join(days, "\n"), strings.Join(wantDays, "\n"))
	}
}

// TestStakingHistoryOfTheSimulator: the simulated chain's stakers stake, open pools, take
// delegations, attest (missing some epochs) and see rewards claimed; the history has each.
func TestStakingHistoryOfTheSimulator(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 5, Blocks: 240, TxPerBlock: 5})
	d := freshIndex(t, url, simHead(chain))
	checkConsistent(t, d)
	var ops []string
	if err := d.Select(&ops, `SELECT operation || ' ' || count(*) FROM staking_activity GROUP BY operation ORDER BY 1`); err != nil {
		t.Fatal(err)
	}
	seen := strings.Join(ops, ", ")
	for _, op := range []string{"stake", "increase_stake", "set_open_for_delegation", "enter_delegation_pool", "add_to_delegation_pool", "claim_rewards"} {
		if !strings.Contains(seen, op+" ") {
			t.Errorf("no %s in the simulator's log: %s", op, seen)
		}
	}
	var missed int
	if err := d.Get(&missed, `SELECT count(*) FROM validators WHERE liveness_attested_epochs < liveness_total_epochs`); err != nil || missed == 0 {
		t.Errorf("no validator missed an epoch (%v)", err)
	}
}
