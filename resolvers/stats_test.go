package resolvers_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

func TestMetaTransactionsAndTheirTransactions(t *testing.T) {
	s := newGQLServer(t)
	relayer, account, other := db.MustFelt("0x7e1a"), db.MustFelt("0xacc7"), db.MustFelt("0x07e2")
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (1, '\x01', '\x00', 10, 'ACCEPTED_ON_L2'), (2, '\x02', '\x01', 20, 'ACCEPTED_ON_L2')`)
	for b := 1; b <= 2; b++ {
		for i := 0; i < 3; i++ {
			s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, execution_status, finality_status)
				VALUES ($1, $2, $3, 'INVOKE', 3, 1, felt_id($4), 'SUCCEEDED', 'ACCEPTED_ON_L2')`, b, i, db.FeltFromUint64(uint64(0x100*b+i)), relayer)
		}
	}
	// Outside executions: (1,0) and (2,2) signed by account, (2,1) by other.
	s.exec(`INSERT INTO meta_transactions (block_number, tx_index, call_index, contract_address, caller_address, operations, actions) VALUES
		(1, 0, 0, $1, '\x414e595f43414c4c4552', 'execute_from_outside_v2,transfer', '[{"entrypoint":"transfer"}]'),
		(2, 1, 0, $2, $3, 'execute_from_outside_v3,approve', NULL),
		(2, 2, 0, $1, $3, 'execute_from_outside_v2,claim', NULL)`, account, other, relayer)
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('meta_transactions', 3)`)

	type meta struct {
		Hash, ContractAddress, Operations string
		BlockNumber, Index                int
		CallerAddress                     *string
		Actions                           any
		Transaction                       struct {
			Hash          string
			SenderAddress string
		}
	}
	var out struct {
		All struct {
			TotalCount int
			PageInfo   struct{ EndCursor string }
			Edges      []struct{ Node meta }
		}
		Mine struct {
			TotalCount int
			Edges      []struct{ Node meta }
		}
	}
	s.mustQuery(`query($account: Address) {
	  all: metaTransactions(first: 2) { totalCount pageInfo { endCursor } edges { node { hash blockNumber index contractAddress callerAddress operations actions transaction { hash senderAddress } } } }
	  mine: metaTransactions(contractAddress: $account) { totalCount edges { node { hash blockNumber index contractAddress callerAddress operations actions transaction { hash senderAddress } } } }
	}`, map[string]any{"account": account.Hex()}, &out)
	if out.All.TotalCount != 3 || len(out.All.Edges) != 2 || out.All.Edges[0].Node.Hash != "0x202" || out.All.Edges[1].Node.Hash != "0x201" {
		t.Fatalf("newest first: got %+v", out.All)
	}
	if m := out.Mine; m.TotalCount != 2 || len(m.Edges) != 2 || m.Edges[1].Node.Hash != "0x100" {
		t.Fatalf("account's meta-transactions: got %+v", m)
	}
	first := out.Mine.Edges[1].Node
	if first.CallerAddress == nil || *first.CallerAddress != db.MustFelt("0x414e595f43414c4c4552").Padded() ||
		first.Operations != "execute_from_outside_v2,transfer" || first.Transaction.Hash != "0x100" || first.Transaction.SenderAddress != relayer.Padded() {
		t.Errorf("meta-transaction fields: got %+v", first)
	}
	if fmt.Sprint(first.Actions) != "[map[entrypoint:transfer]]" {
		t.Errorf("actions pass through as JSON: got %v", first.Actions)
	}
	var next struct {
		MetaTransactions struct{ Edges []struct{ Node meta } }
	}
	s.mustQuery(`query($after: String) { metaTransactions(first: 5, after: $after) { edges { node { hash } } } }`,
		map[string]any{"after": out.All.PageInfo.EndCursor}, &next)
	if len(next.MetaTransactions.Edges) != 1 || next.MetaTransactions.Edges[0].Node.Hash != "0x100" {
		t.Errorf("after the second: got %+v", next.MetaTransactions.Edges)
	}

	// Transaction.metaTransaction: one statement for a whole block's transactions.
	var txs struct {
		Blocks struct {
			Edges []struct {
				Node struct {
					Transactions struct {
						Edges []struct {
							Node struct {
								Hash            string
								MetaTransaction *struct{ Operations string }
							}
						}
					}
				}
			}
		}
	}
	before := s.store.Statements()
	s.mustQuery(`{ blocks { edges { node { transactions { edges { node { hash metaTransaction { operations } } } } } } } }`, nil, &txs)
	cost := s.store.Statements() - before
	got := map[string]string{}
	for _, b := range txs.Blocks.Edges {
		for _, e := range b.Node.Transactions.Edges {
			op := "-"
			if e.Node.MetaTransaction != nil {
				op = e.Node.MetaTransaction.Operations
			}
			got[e.Node.Hash] = op
		}
	}
	want := "map[0x100:execute_from_outside_v2,transfer 0x101:- 0x102:- 0x200:- 0x201:execute_from_outside_v3,approve 0x202:execute_from_outside_v2,claim]"
	if fmt.Sprint(got) != want {
		t.Errorf("metaTransaction of each transaction: got %v", got)
	}
	// blocks, their total, transactions, meta-transactions.
	if cost > 4 {
		t.Errorf("2 blocks x 3 transactions x metaTransaction took %d statements, want at most 4", cost)
	}
}

// seedActivity writes five blocks: block 1 more than a day before the head (block 5), the
// others within the last day; their tx_count columns make 180,000 transactions in the 90,000
// seconds from block 1 to block 5.
func seedActivity(s *gqlServer) {
	const head = 1_700_000_000
	blocks := []struct {
		ts, txCount int
		senders     []string
		fees        []int
		unit        string
	}{
		{head - 90000, 10, []string{"0xa", "0xb"}, []int{1000, 2000}, "WEI"},
		{head - 30, 45000, []string{"0xa"}, []int{100}, "WEI"},
		{head - 20, 45000, []string{"0xc"}, []int{300}, "WEI"},
		{head - 10, 45000, []string{"0xd"}, []int{10}, "FRI"},
		{head, 45000, []string{"0xa", "0xe"}, []int{20, 20}, "FRI"},
	}
	for i, b := range blocks {
		n := i + 1
		// The block's fee sum over its transactions' fees, in its one unit, as the indexer keeps it.
		sum := 0
		for _, f := range b.fees {
			sum += f
		}
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status, tx_count, fees_wei, fee_txs_wei, fees_fri, fee_txs_fri)
			VALUES ($1, $2, $3, $4, 'ACCEPTED_ON_L2', $5,
				CASE WHEN $6 = 'WEI' THEN $7 ELSE 0 END, CASE WHEN $6 = 'WEI' THEN $8 ELSE 0 END,
				CASE WHEN $6 = 'FRI' THEN $7 ELSE 0 END, CASE WHEN $6 = 'FRI' THEN $8 ELSE 0 END)`,
			n, db.FeltFromUint64(uint64(0xb00+n)), db.FeltFromUint64(uint64(0xb00+n-1)), b.ts, b.txCount, b.unit, sum, len(b.fees))
		for j, sender := range b.senders {
			s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, actual_fee, actual_fee_unit, execution_status, finality_status)
				VALUES ($1, $2, $3, 'INVOKE', 3, $4, felt_id($5), $6, $7, 'SUCCEEDED', 'ACCEPTED_ON_L2')`,
				n, j, db.FeltFromUint64(uint64(0x1000*n+j)), b.ts, db.MustFelt(sender), b.fees[j], b.unit)
		}
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('blocks', 5), ('transactions', 7), ('events', 11), ('contracts', 3), ('classes', 2)`)
	s.exec(`UPDATE chain_stats SET max_tps = 12.5, max_tps_block_hash = '\x0abc'`)
	// New accounts: one in block 1 (the day before), two in the last day (blocks 3 and 5);
	// and a contract of another type, not counted.
	for i, b := range []int{1, 3, 5, 5} {
		typ := "account"
		if i == 3 {
			typ = "erc20"
		}
		s.exec(`INSERT INTO contracts (address, class_hash, type, deployed_block) VALUES ($1, '\x0c', $2, $3)`,
			db.FeltFromUint64(uint64(0xacc0+i)), typ, b)
	}
	// TVL: the staking contract holds 400,000 of a token priced 2 USD and a pool 100,000;
	// an unpriced token and a balance elsewhere do not count.
	s.exec(`INSERT INTO staking_overview (id, staking_contract) VALUES (1, '\x05a4')`)
	s.exec(`INSERT INTO validators (staker_address) VALUES ('\x0901')`)
	s.exec(`INSERT INTO pools (pool_contract, staker_address, token_address) VALUES ('\x0900', '\x0901', '\x07a0')`)
	s.exec(`INSERT INTO tokens (address, standard, decimals, total_supply, usd_price) VALUES ('\x07a0', 'erc20', 18, 0, 2), ('\x07a1', 'erc20', 18, 0, NULL)`)
	s.exec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time) VALUES
		('\x07a0', '\x05a4', 400000000000000000000000, 1, 0), ('\x07a0', '\x0900', 100000000000000000000000, 1, 0),
		('\x07a1', '\x05a4', 5000000000000000000000000, 1, 0), ('\x07a0', '\x0abc', 7000000000000000000000000, 1, 0)`)
	dbtest.DeriveAsIndexer(s.t, s.db)
}

const networkStatsDoc = `{ networkStats { blocksCount transactionsCount eventsCount contractsCount classesCount
	tps maxRecordedTps tpsAtBlockHash activeAccounts accountsGrowth latestAvgFee { unit avgFee } totalTvlUsd } }`

type statsAnswer struct {
	NetworkStats struct {
		BlocksCount, TransactionsCount, EventsCount, ContractsCount, ClassesCount string
		Tps, MaxRecordedTps, AccountsGrowth                                       float64
		TpsAtBlockHash                                                            *string
		ActiveAccounts                                                            string
		LatestAvgFee                                                              []struct{ Unit, AvgFee string }
		TotalTvlUsd                                                               *float64
	}
}

func TestNetworkStats(t *testing.T) {
	s := newGQLServer(t)
	var empty statsAnswer
	s.mustQuery(networkStatsDoc, nil, &empty)
	if e := empty.NetworkStats; e.BlocksCount != "0" || e.Tps != 0 || e.ActiveAccounts != "0" || len(e.LatestAvgFee) != 0 || e.TpsAtBlockHash != nil {
		t.Errorf("an empty chain: got %+v", e)
	}

	seedActivity(s)
	var out statsAnswer
	s.mustQuery(networkStatsDoc, nil, &out)
	st := out.NetworkStats
	if st.BlocksCount != "5" || st.TransactionsCount != "7" || st.EventsCount != "11" || st.ContractsCount != "3" || st.ClassesCount != "2" {
		t.Errorf("counts from list_counts: got %+v", st)
	}
	// 4 x 45,000 transactions after block 1, over 90,000 seconds.
	if st.Tps != 2 {
		t.Errorf("tps: got %v, want 2", st.Tps)
	}
	if st.MaxRecordedTps != 12.5 || st.TpsAtBlockHash == nil || *st.TpsAtBlockHash != "0xabc" || st.TotalTvlUsd == nil || *st.TotalTvlUsd != 1e6 {
		t.Errorf("chain_stats: got %+v", st)
	}
	// Last day: a, c, d, e sent. Accounts deployed: 2 in the last day, 1 the day before.
	if st.ActiveAccounts != "4" || st.AccountsGrowth != 1 {
		t.Errorf("active accounts %s (want 4), growth %v (want 1)", st.ActiveAccounts, st.AccountsGrowth)
	}
	// FRI: (10+20+20)/3 = 16.67 -> 17; WEI: (1000+2000+100+300)/4 = 850.
	if fmt.Sprint(st.LatestAvgFee) != "[{FRI 17} {WEI 850}]" {
		t.Errorf("average fees: got %v", st.LatestAvgFee)
	}

	// Every field, the recent figures too, is one statement: the chain_stats row.
	before := s.store.Statements()
	s.mustQuery(networkStatsDoc, nil, &out)
	if n := s.store.Statements() - before; n != 1 {
		t.Errorf("networkStats took %d statements, want 1", n)
	}
}

func TestHoldersOverview(t *testing.T) {
	s := newGQLServer(t)
	seedTokens(s, 3, 1)
	s.exec(`INSERT INTO holders_snapshots (token_address, computed_at, total_supply, burned_supply, circulating_supply, holder_count,
		holders_over_1pct, top_n_concentration, concentration_buckets, tier_distribution, gini_top_10k, is_stale) VALUES
		($1, '2025-01-01T00:00:00Z', 1000, 10, 990, 40, 3, '{"top5":50}', '{"top_1_5":50}', '[]', 0.5, true),
		($1, '2025-02-01T10:20:30Z', 2000, 20, 1980, 42, 4, '{"top5":60,"top10":70,"top100":99}', '{"top_1_5":60}', '[{"tier":"whale","count":1,"supplyShare":0.6}]', 0.75, false)`,
		tokenAddr(1))
	var out struct {
		Tokens struct {
			Edges []struct {
				Node struct {
					Symbol          string
					HoldersOverview *struct {
						TokenAddress, TotalSupply, CirculatingSupply, ComputedAt string
						HolderCount, HoldersOver1Pct                             int
						TopNConcentration                                        map[string]float64
						TierDistribution                                         []map[string]any
						WalletDepthUsd                                           any
						GiniTop10k                                               float64
						IsStale                                                  bool
					}
				}
			}
		}
	}
	before := s.store.Statements()
	s.mustQuery(`{ tokens { edges { node { symbol holdersOverview { tokenAddress totalSupply circulatingSupply computedAt
		holderCount holdersOver1Pct topNConcentration tierDistribution walletDepthUsd giniTop10k isStale } } } } }`, nil, &out)
	cost := s.store.Statements() - before
	found := 0
	for _, e := range out.Tokens.Edges {
		h := e.Node.HoldersOverview
		if e.Node.Symbol != "T1" {
			if h != nil {
				t.Errorf("%s has no snapshot, got %+v", e.Node.Symbol, h)
			}
			continue
		}
		found++
		if h == nil {
			t.Fatal("T1's overview is missing")
		}
		if h.TokenAddress != tokenAddr(1).Padded() || h.TotalSupply != "2000" || h.CirculatingSupply != "1980" || h.HolderCount != 42 ||
			h.ComputedAt != "2025-02-01T10:20:30Z" || h.GiniTop10k != 0.75 || h.IsStale || h.WalletDepthUsd != nil {
			t.Errorf("newest snapshot: got %+v", h)
		}
		if h.TopNConcentration["top100"] != 99 || len(h.TierDistribution) != 1 || h.TierDistribution[0]["tier"] != "whale" {
			t.Errorf("JSON parts: got %+v %+v", h.TopNConcentration, h.TierDistribution)
		}
	}
	if found != 1 {
		t.Errorf("T1 not listed")
	}
	// tokens, snapshots (no total: totalCount is not selected).
	if cost != 2 {
		t.Errorf("3 tokens' overviews took %d statements, want 2", cost)
	}
}

func TestSubmitVerificationAndPoll(t *testing.T) {
	s := newGQLServer(t)
	class, deployed := db.MustFelt("0xc1a55"), db.MustFelt("0xde91")
	s.exec(`INSERT INTO classes (hash, kind, cairo_version) VALUES ($1, 'sierra', 1)`, class)
	s.exec(`INSERT INTO contracts (address, class_hash) VALUES ($1, $2)`, deployed, class)
	const submit = `mutation($hash: Address!, $files: JSON!, $tool: String) {
	  submitVerification(input: { classHash: $hash, name: "Counter", compilerVersion: "2.8.2", scarbVersion: "2.8.2",
	    packageName: "counter", contractFile: "src/lib.cairo", buildTool: $tool, files: $files }) {
	    alreadyVerified class { hash }
	    job { id classHash status statusDescription name createdAt updatedAt attempts obtainedClassHash finishedAt }
	  }
	}`
	type job struct {
		ID, ClassHash, StatusDescription, CreatedAt, UpdatedAt string
		Status                                                 int
		Name                                                   *string
	}
	files := map[string]any{"src/lib.cairo": "#[starknet::contract] mod counter {}", "Scarb.toml": "[package]"}
	var out struct {
		SubmitVerification struct {
			AlreadyVerified bool
			Class           struct{ Hash string }
			Job             *job
		}
	}
	s.mustQuery(submit, map[string]any{"hash": deployed.Hex(), "files": files, "tool": "Scarb"}, &out)
	if out.SubmitVerification.AlreadyVerified || out.SubmitVerification.Job == nil || out.SubmitVerification.Class.Hash != class.Padded() {
		t.Fatalf("submission: got %+v", out.SubmitVerification)
	}
	j := *out.SubmitVerification.Job
	rfc3339 := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	if j.ClassHash != class.Padded() || j.Status != 0 || j.StatusDescription != "Submitted" || j.Name == nil || *j.Name != "Counter" ||
		!rfc3339.MatchString(j.CreatedAt) || !rfc3339.MatchString(j.UpdatedAt) {
		t.Errorf("a contract address resolves to its class; new job: got %+v", j)
	}
	var raw, pkg, tool string
	if err := s.db.QueryRow(`SELECT files::text, package_name, build_tool FROM verification_jobs WHERE id = $1`, j.ID).Scan(&raw, &pkg, &tool); err != nil {
		t.Fatal(err)
	}
	// Build tools are matched in any case and stored as the worker knows them.
	if pkg != "counter" || tool != "scarb" || !regexp.MustCompile(`"Scarb.toml": "\[package\]"`).MatchString(raw) {
		t.Errorf("stored job: package %q, tool %q, files %s", pkg, tool, raw)
	}

	var polled struct{ VerificationJob *job }
	s.mustQuery(`query($id: ID!) { verificationJob(id: $id) { id classHash status statusDescription } }`, map[string]any{"id": j.ID}, &polled)
	if polled.VerificationJob == nil || polled.VerificationJob.ID != j.ID || polled.VerificationJob.ClassHash != class.Padded() {
		t.Errorf("poll: got %+v", polled.VerificationJob)
	}
	s.exec(`UPDATE verification_jobs SET status = 4 WHERE id = $1`, j.ID)
	s.mustQuery(`query($id: ID!) { verificationJob(id: $id) { id status statusDescription } }`, map[string]any{"id": j.ID}, &polled)
	if polled.VerificationJob.StatusDescription != "Success" {
		t.Errorf("status 4: got %+v", polled.VerificationJob)
	}
	s.mustQuery(`{ verificationJob(id: "7d444840-9dc0-11d1-b245-5ffdce74fad2") { id } }`, nil, &polled)
	if polled.VerificationJob != nil {
		t.Errorf("unknown job: got %+v", polled.VerificationJob)
	}

	errorCases := []struct {
		name      string
		doc       string
		vars      map[string]any
		code, arg string
	}{
		{"unknown class", submit, map[string]any{"hash": "0x404", "files": files}, "BAD_USER_INPUT", "classHash"},
		{"no Scarb.toml", submit, map[string]any{"hash": class.Hex(), "files": map[string]any{"src/lib.cairo": "x"}}, "BAD_USER_INPUT", "files"},
		{"NUL in a file", submit, map[string]any{"hash": class.Hex(), "files": map[string]any{"src/lib.cairo": "a\u0000", "Scarb.toml": ""}}, "BAD_USER_INPUT", "files"},
		{"escaping path", submit, map[string]any{"hash": class.Hex(), "files": map[string]any{"../../etc/passwd": "x"}}, "BAD_USER_INPUT", "files"},
		{"absolute path", submit, map[string]any{"hash": class.Hex(), "files": map[string]any{"/etc/passwd": "x"}}, "BAD_USER_INPUT", "files"},
		{"files not strings", submit, map[string]any{"hash": class.Hex(), "files": map[string]any{"a.cairo": 1}}, "BAD_USER_INPUT", "files"},
		{"no files", submit, map[string]any{"hash": class.Hex(), "files": map[string]any{}}, "BAD_USER_INPUT", "files"},
		{"files a list", submit, map[string]any{"hash": class.Hex(), "files": []string{"a"}}, "BAD_USER_INPUT", "files"},
		{"bad build tool", submit, map[string]any{"hash": class.Hex(), "files": files, "tool": "make"}, "BAD_USER_INPUT", "buildTool"},
		{"malformed job id", `{ verificationJob(id: "nope") { id } }`, nil, "BAD_USER_INPUT", "id"},
	}
	for _, c := range errorCases {
		resp, status := s.query(c.doc, c.vars)
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != c.code || status >= 500 {
			t.Errorf("%s: want %s, got status %d, %+v", c.name, c.code, status, resp.Errors)
			continue
		}
		if c.arg != "" && resp.Errors[0].Extensions["argument"] != c.arg {
			t.Errorf("%s: want argument %s, got %+v", c.name, c.arg, resp.Errors[0])
		}
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM verification_jobs`).Scan(&n); err != nil || n != 1 {
		t.Errorf("refused submissions store nothing: %d jobs (%v)", n, err)
	}

	// A verified class compiles nothing: the answer says so and no job is queued.
	s.exec(`INSERT INTO verified_classes (class_hash, name, verified_at) VALUES ($1, 'Counter', 1)`, class)
	s.mustQuery(submit, map[string]any{"hash": deployed.Hex(), "files": files}, &out)
	if !out.SubmitVerification.AlreadyVerified || out.SubmitVerification.Job != nil {
		t.Errorf("already verified: got %+v", out.SubmitVerification)
	}
	if err := s.db.QueryRow(`SELECT count(*) FROM verification_jobs`).Scan(&n); err != nil || n != 1 {
		t.Errorf("a verified class queued a job: %d jobs (%v)", n, err)
	}
}
