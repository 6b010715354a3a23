package rest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// TestStakingHistoryOperations: the activity logs of a wallet and of a validator, the
// attestations and the series over time, over rows as the indexer writes them.
func TestStakingHistoryOperations(t *testing.T) {
	e := newEnv(t)
	exec := e.exec
	validator, member, other := account(4), account(1), account(2)
	// 24 operations over blocks 1-30: the validator's own, its pool member's, and another
	// wallet's; amounts of different digit counts.
	ops := []string{"stake", "set_open_for_delegation", "enter_delegation_pool", "add_to_delegation_pool", "claim_rewards", "update_commission"}
	n := 0
	for b := 1; b <= 30 && n < 24; b++ {
		for tx := 0; tx < 2 && n < 24; tx++ {
			wallet, pool, op := member, poolAddr, ops[2+n%3]
			switch n % 4 {
			case 0:
				wallet, pool, op = validator, nil, ops[(n/4)%2*5]
			case 3:
				wallet = other
			}
			var amount any = fmt.Sprint(7 * (n + 1) * (n + 1) * (n + 1))
			if op == "update_commission" {
				amount = nil
			}
			exec(`INSERT INTO staking_activity (block_number, tx_index, event_index, operation, wallet_address, staker_address, pool_contract,
				token_address, amount, transaction_hash, timestamp) VALUES ($1, $2, 6, $3, $4, $5, $6, $7, $8, $9, $10)`,
				b, tx, op, wallet, validator, pool, strkAddr, amount, txHash(b, tx), baseTime+int64(b)*10)
			n++
		}
	}
	exec(`UPDATE list_counts SET count = (SELECT count(*) FROM staking_activity) WHERE name = 'staking_activity'`)

	// The SQL order of a filter, and the pages of a request, as "block/tx".
	sqlOrder := func(where string, args ...any) []string {
		t.Helper()
		var rows []string
		if err := e.db.Select(&rows, `SELECT block_number || '/' || tx_index FROM staking_activity WHERE `+where+`
			ORDER BY block_number DESC, tx_index DESC`, args...); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	walk := func(path string) []string {
		t.Helper()
		var out []string
		for p := 1; p < 10; p++ {
			body := e.mustGet(fmt.Sprintf("%s&ps=10&p=%d", path, p)).(map[string]any)
			for _, it := range body["items"].([]any) {
				m := it.(map[string]any)
				out = append(out, fmt.Sprintf("%v/%d", m["blockNumber"], e.txIndexOf(t, m["transactionHash"].(string))))
			}
			if lp := int(body["lastPage"].(float64)); p >= lp {
				return out
			}
		}
		t.Fatalf("%s: more than 9 pages", path)
		return nil
	}
	eq := func(what string, got, want []string) {
		t.Helper()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s:\n got %v\nwant %v", what, got, want)
		}
	}
	reverse := func(s []string) []string {
		out := make([]string, len(s))
		for i := range s {
			out[i] = s[len(s)-1-i]
		}
		return out
	}

	wallet := "/beta/staking/wallet-info/activity?address=" + member.Hex()
	all := sqlOrder("wallet_address = $1", member)
	if len(all) != 12 {
		t.Fatalf("%d operations of the member seeded", len(all))
	}
	eq("a wallet's, newest first, two pages", walk(wallet), all)
	eq("oldest first", walk(wallet+"&sort=ASC"), reverse(all))
	eq("one operation", walk(wallet+"&operation=add_to_delegation_pool"), sqlOrder("wallet_address = $1 AND operation = 'add_to_delegation_pool'", member))
	eq("a time range", walk(wallet+fmt.Sprintf("&start=%d&end=%d", baseTime+50, baseTime+150)),
		sqlOrder("wallet_address = $1 AND timestamp BETWEEN $2 AND $3", member, baseTime+50, baseTime+150))
	eq("toward the validator", walk(wallet+"&destination="+validator.Hex()), all)
	eq("toward another validator", walk(wallet+"&destination="+other.Hex()), nil)
	eq("one transaction", walk(wallet+"&search="+txHash(1, 1).Hex()), sqlOrder("wallet_address = $1 AND transaction_hash = $2", member, txHash(1, 1)))
	eq("a wallet that never staked", walk("/beta/staking/wallet-info/activity?address=0x1234"), nil)

	first := e.mustGet(wallet).(map[string]any)["items"].([]any)[0].(map[string]any)
	if first["address"] != member.Padded() || first["validator"] != validator.Padded() || first["poolContract"] != poolAddr.Padded() ||
		first["tokenInfo"].(map[string]any)["symbol"] != "STRK" || first["amount"] == nil || first["timestamp"] == nil {
		t.Errorf("an item: %v", first)
	}

	validatorPath := "/beta/staking/validator-details/activity?address=" + validator.Hex()
	eq("a validator's, three pages", walk(validatorPath), sqlOrder("staker_address = $1", validator))
	eq("of its pool", walk(validatorPath+"&validator="+poolAddr.Hex()), sqlOrder("pool_contract = $1", poolAddr))
	eq("of a pool it does not have", walk(validatorPath+"&validator=0x77"), nil)
	commission := e.mustGet(validatorPath + "&operation=update_commission").(map[string]any)["items"].([]any)
	if len(commission) == 0 || commission[0].(map[string]any)["amount"] != nil {
		t.Errorf("a commission change has no amount: %v", commission)
	}

	// Attestations: 25 of the validator, 3 of another staker.
	for b := 1; b <= 28; b++ {
		staker := validator
		if b > 25 {
			staker = other
		}
		exec(`INSERT INTO attestations (block_number, tx_index, event_index, staker_address, epoch, transaction_hash, timestamp)
			VALUES ($1, 0, 8, $2, $3, $4, $5)`, b, staker, 100+b, txHash(b, 0), baseTime+int64(b)*10)
	}
	exec(`UPDATE list_counts SET count = (SELECT count(*) FROM attestations) WHERE name = 'attestations'`)
	epochs := func(query string) (out []string) {
		t.Helper()
		for p := 1; p < 10; p++ {
			body := e.mustGet(fmt.Sprintf("/beta/staking/attestations?ps=10&p=%d%s", p, query)).(map[string]any)
			for _, it := range body["items"].([]any) {
				out = append(out, fmt.Sprint(it.(map[string]any)["epoch"]))
			}
			if int(body["lastPage"].(float64)) <= p {
				return out
			}
		}
		return out
	}
	sqlEpochs := func(where string, args ...any) []string {
		t.Helper()
		var rows []string
		if err := e.db.Select(&rows, `SELECT epoch::text FROM attestations WHERE `+where+`
			ORDER BY block_number DESC, tx_index DESC, event_index DESC`, args...); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	eq("every attestation, four pages", epochs(""), sqlEpochs("true"))
	eq("the validator's", epochs("&validator="+validator.Hex()), sqlEpochs("staker_address = $1", validator))
	if got := e.mustGet("/beta/staking/attestations?validator=" + account(4).Hex() + "&p=9").(map[string]any); len(got["items"].([]any)) != 0 {
		t.Errorf("past the last page: %v", got)
	}
	exec(`DELETE FROM attestations`)
	exec(`UPDATE list_counts SET count = 0 WHERE name = 'attestations'`)
	if got := e.mustGet("/beta/staking/attestations").(map[string]any); len(got["items"].([]any)) != 0 || got["lastPage"] != 1.0 {
		t.Errorf("no attestations: %v", got)
	}

	// Series: the network and the validator on four days; the chain's newest block is on
	// 2023-11-14, so a month back starts on 2023-10-14.
	exec(`DELETE FROM validator_days`)
	for _, d := range []struct {
		staker           db.Felt
		day              string
		strk, btc, deleg int
	}{
		{db.NetworkScope, "2023-08-01", 1000, 0, 2}, {db.NetworkScope, "2023-10-20", 1500, 10, 3},
		{db.NetworkScope, "2023-11-10", 1400, 10, 5}, {db.NetworkScope, "2023-11-14", 9000, 30, 4},
		{validator, "2023-11-10", 400, 0, 1},
	} {
		exec(`INSERT INTO validator_days (staker_address, day, stake_strk, stake_btc, delegators, block_number) VALUES ($1, $2, $3, $4, $5, 1)`,
			[]byte(d.staker), d.day, d.strk, d.btc, d.deleg)
	}
	series := func(path string) string {
		t.Helper()
		var out []string
		for _, it := range e.mustGet(path).([]any) {
			m := it.(map[string]any)
			if _, ok := m["totalDelegators"]; ok {
				out = append(out, fmt.Sprintf("%v %v%+d", m["date"], m["totalDelegators"], int(m["totalDelegatorsChange"].(float64))))
			} else {
				out = append(out, fmt.Sprintf("%v %v/%v %v/%v", m["date"], m["totalStakeStrk"], m["totalStakeChangeStrk"], m["totalStakeBtc"], m["totalStakeChangeBtc"]))
			}
		}
		return strings.Join(out, ", ")
	}
	for path, want := range map[string]string{
		"/beta/staking/stake-over-time":                                         "2023-10-20 1500/500 10/10, 2023-11-10 1400/-100 10/0, 2023-11-14 9000/7600 30/20",
		"/beta/staking/stake-over-time?timerange=max":                           "2023-08-01 1000/1000 0/0, 2023-10-20 1500/500 10/10, 2023-11-10 1400/-100 10/0, 2023-11-14 9000/7600 30/20",
		"/beta/staking/stake-over-time?timerange=1w":                            "2023-11-10 1400/-100 10/0, 2023-11-14 9000/7600 30/20",
		"/beta/staking/delegators-over-time":                                    "2023-10-20 3+1, 2023-11-10 5+2, 2023-11-14 4-1",
		"/beta/staking/delegators-over-time?address=" + validator.Hex():         "2023-11-10 1+1",
		"/beta/staking/stake-over-time?timerange=1Y&address=" + validator.Hex(): "2023-11-10 400/400 0/0",
	} {
		if got := series(path); got != want {
			t.Errorf("%s:\n got %s\nwant %s", path, got, want)
		}
	}
	if got := e.mustGet("/beta/staking/stake-over-time?timerange=1w&address=" + validator.Hex()).([]any); len(got) != 1 {
		t.Errorf("a validator's week: %v", got)
	}
	exec(`DELETE FROM validator_days`)
	for _, path := range []string{"/beta/staking/delegators-over-time", "/beta/staking/stake-over-time?timerange=max"} {
		if got := e.mustGet(path).([]any); len(got) != 0 {
			t.Errorf("%s with no history yet: %v", path, got)
		}
	}

	e.expectRefusals(t, []refusal{
		{"/beta/staking/wallet-info/activity", 400, "address"},
		{wallet + "&operation=unstake", 400, "operation"},
		{wallet + "&sort=up", 400, "sort"},
		{wallet + "&start=-1", 400, "start"},
		{wallet + fmt.Sprintf("&start=%d&end=%d", baseTime+50, baseTime), 400, "start"},
		{wallet + "&search=xyz", 400, "search"},
		{wallet + "&destination=0xzz", 400, "destination"},
		{wallet + "&ps=3", 400, "ps"},
		{"/beta/staking/validator-details/activity", 400, "address"},
		{"/beta/staking/validator-details/activity?address=0x1234", 404, "address"},
		{validatorPath + "&validator=1", 400, "validator"},
		{"/beta/staking/attestations?validator=0x1234", 404, "validator"},
		{"/beta/staking/attestations?p=0", 400, "p"},
		{"/beta/staking/stake-over-time?timerange=3m", 400, "timerange"},
		{"/beta/staking/stake-over-time?address=0x1234", 404, "address"},
		{"/beta/staking/delegators-over-time?address=zz", 400, "address"},
	})
}

// txIndexOf is the position of a seeded transaction in its block, from its hash.
func (e *env) txIndexOf(t *testing.T, hash string) int {
	t.Helper()
	var i int
	if err := e.db.Get(&i, `SELECT tx_index FROM transactions WHERE hash = $1`, db.MustFelt(hash)); err != nil {
		t.Fatalf("transaction %s: %v", hash, err)
	}
	return i
}

// The item's documented operation enum is the log's list of operations.
func TestStakingOperationEnumIsTheLogs(t *testing.T) {
	f, _ := reflect.TypeFor[stakingActivityItem]().FieldByName("Operation")
	if got, want := f.Tag.Get("enum"), strings.Join(db.StakingOperations, ","); got != want {
		t.Errorf("stakingActivityItem's enum tag %q, want db.StakingOperations %q", got, want)
	}
}
