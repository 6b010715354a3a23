package indexer

import (
	"context"
	"golang.org/x/crypto/sha3"
	"math/big"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// TestDerivedTokenState checks balances, holder and transfer counts derived from Transfer
// events against what the node itself answers (starknet_call balance_of) and against the
// raw events. The balances of the tokens whose storage corrected their events
// (balances_source 'storage': sim's fee-on-transfer and silent-mint tokens) are not what
// their transfers add up to, and sim's interest-bearing token answers balance_of with more
// than its storage holds: reconcile_test.go checks those.
func TestDerivedTokenState(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 5, Blocks: 60, TxPerBlock: 20})
	head := simHead(chain)
	d := freshIndex(t, url, head)
	interest := db.FeltOf(starknet.MustFelt(chain.OddTokens().Interest))
	const fromEvents = `NOT IN (SELECT address FROM tokens WHERE balances_source = 'storage')`

	var rows []struct {
		Token   db.Felt `db:"token_address"`
		Owner   db.Felt `db:"owner_address"`
		Balance string  `db:"balance"`
	}
	if err := d.Select(&rows, `SELECT token_address, owner_address, balance::text AS balance FROM erc20_balances
		WHERE token_address <> $1 ORDER BY md5(token_address || owner_address) LIMIT 60`, interest); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 20 {
		t.Fatalf("only %d balances derived from a chain of %d blocks", len(rows), head+1)
	}
	c := rpc.NewClient(url)
	for _, r := range rows {
		out, err := c.CallByName(context.Background(), r.Token.Starknet(), "balance_of", []starknet.Felt{r.Owner.Starknet()}, rpc.AtNumber(uint64(head)))
		if err != nil {
			t.Fatalf("balance_of %s on %s: %v", r.Owner.Padded(), r.Token.Padded(), err)
		}
		if len(out) != 2 {
			t.Fatalf("balance_of answered %d felts", len(out))
		}
		if want := u256(out[0], out[1]); want.String() != r.Balance {
			t.Errorf("balance of %s in %s: indexed %s, node says %s", r.Owner.Padded(), r.Token.Padded(), r.Balance, want)
		}
	}

	// Every ERC-20 balance is what its owner received minus what it sent in token_transfers,
	// and every Transfer event the indexer read as ERC-20 has its row.
	var moved struct {
		Balances  int64 `db:"balances"`
		Checked   int64 `db:"checked"`
		Transfers int64 `db:"transfers"`
	}
	if err := d.Get(&moved, `SELECT count(*) FILTER (WHERE b.balance <> (
			SELECT coalesce(sum(CASE WHEN x.to_address = b.owner_address THEN x.amount ELSE 0 END), 0)
			     - coalesce(sum(CASE WHEN x.from_address = b.owner_address THEN x.amount ELSE 0 END), 0)
			FROM token_transfers_named x WHERE x.token_address = b.token_address
			  AND (x.to_address = b.owner_address OR x.from_address = b.owner_address))) AS balances,
		count(*) AS checked, (SELECT sum(transfer_count) FROM tokens WHERE standard = 'erc20')
		  - (SELECT count(*) FROM token_transfers) AS transfers
		FROM erc20_balances b WHERE b.token_address `+fromEvents); err != nil {
		t.Fatal(err)
	}
	if moved.Balances != 0 || moved.Transfers != 0 || moved.Checked < 100 {
		t.Errorf("token_transfers disagree with the balances or the transfer counts: %+v", moved)
	}

	// Each balance's newest change is the balance, and the changes are exactly what the
	// transfers add up to (backfillQuery).
	var changes struct {
		Stale, Differ, Rows int64
	}
	if err := d.Get(&changes, `WITH backfill AS (SELECT * FROM (`+backfillQuery(t)+`) x(token_address, owner_address, block_number, balance, timestamp)
			WHERE x.token_address `+fromEvents+`) SELECT
		(SELECT count(*) FROM erc20_balances b WHERE b.balance IS DISTINCT FROM (SELECT c.balance FROM `+balanceChangesWithTime+`
			WHERE c.token_address = b.token_address AND c.owner_address = b.owner_address ORDER BY c.block_number DESC LIMIT 1)) AS stale,
		(SELECT count(*) FROM ((SELECT token_address, owner_address, block_number, balance, timestamp FROM `+balanceChangesWithTime+`
			WHERE c.token_address `+fromEvents+` EXCEPT SELECT * FROM backfill) UNION ALL (SELECT * FROM backfill
			EXCEPT SELECT token_address, owner_address, block_number, balance, timestamp FROM `+balanceChangesWithTime+`)) x) AS differ,
		(SELECT count(*) FROM erc20_balance_changes) AS rows
`); err != nil {
		t.Fatal(err)
	}
	if changes.Stale != 0 || changes.Differ != 0 || changes.Rows < moved.Checked {
		t.Errorf("erc20_balance_changes: %+v (balances %d)", changes, moved.Checked)
	}

	// Messages: one per L1 handler, with its hash, sender and payload; as many L2 -> L1 as
	// the blocks report sent, each hashed as the core contract does; the total kept.
	var msgs struct {
		Handlers, ToL2, BadToL2, ToL1, Sent, Counted int64
	}
	if err := d.Get(&msgs, `SELECT
		(SELECT count(*) FROM transactions WHERE type = 'L1_HANDLER') AS handlers,
		(SELECT count(*) FROM messages WHERE direction = 0) AS tol2,
		(SELECT count(*) FROM transactions_named t JOIN messages m USING (block_number, tx_index) WHERE m.direction = 0 AND
			(m.message_hash IS DISTINCT FROM t.message_hash OR m.from_address <> felts_at(t.calldata, 1) OR felts_unpack(m.payload) <> (felts_unpack(t.calldata))[2:]
			 OR m.to_address <> t.contract_address OR m.selector <> t.entry_point_selector)) AS badtol2,
		(SELECT count(*) FROM messages WHERE direction = 1) AS tol1,
		(SELECT sum(message_count) FROM blocks) AS sent,
		(SELECT count FROM list_counts WHERE name = 'messages') AS counted`); err != nil {
		t.Fatal(err)
	}
	if msgs.ToL2 != msgs.Handlers || msgs.BadToL2 != 0 || msgs.ToL1 != msgs.Sent || msgs.ToL1 == 0 || msgs.Counted != msgs.ToL2+msgs.ToL1 {
		t.Errorf("messages: %+v", msgs)
	}
	var sent []struct {
		Hash, From, To db.Felt
		Payload        db.FeltArray
	}
	if err := d.Select(&sent, `SELECT message_hash AS hash, from_address AS "from", to_address AS "to", payload FROM messages WHERE direction = 1`); err != nil {
		t.Fatal(err)
	}
	for _, m := range sent {
		h := sha3.NewLegacyKeccak256()
		for _, w := range append(db.FeltArray{m.From, m.To, db.FeltFromUint64(uint64(len(m.Payload)))}, m.Payload...) {
			var word [32]byte
			copy(word[32-len(w):], w)
			h.Write(word[:])
		}
		if want := db.Normalize(h.Sum(nil)); !m.Hash.Equal(want) {
			t.Errorf("L2 -> L1 message hash %x, keccak of its words %x", []byte(m.Hash), []byte(want))
		}
	}

	// Activity per day and hour: what the indexer added up batch by batch is what the rows
	// add up to (activityBackfill), and the days add up to every transaction.
	var activity struct {
		Differ, Days, Transactions, Counted int64
	}
	backfill := activityBackfill(t)
	if err := d.Get(&activity, `WITH backfill AS (`+backfill+`),
		kept AS (SELECT granularity, starts_at, blocks, transactions, invokes, declares, deploy_accounts, l1_handlers,
			reverted, events, messages_to_l1, token_transfers, fees_wei, fees_fri FROM activity_stats)
		SELECT (SELECT count(*) FROM ((SELECT * FROM kept EXCEPT SELECT * FROM backfill) UNION ALL
			(SELECT * FROM backfill EXCEPT SELECT * FROM kept)) x) AS differ,
		(SELECT count(*) FROM activity_stats WHERE granularity = 'd') AS days,
		(SELECT sum(transactions) FROM activity_stats WHERE granularity = 'd') AS transactions,
		(SELECT count(*) FROM transactions) AS counted`); err != nil {
		t.Fatal(err)
	}
	if activity.Differ != 0 || activity.Days == 0 || activity.Transactions != activity.Counted {
		t.Errorf("activity_stats: %+v", activity)
	}

	// Every transaction that paid a fee has one fee transfer, of its fee; an L1 handler,
	// whose fee was paid on L1, has none.
	var fee struct {
		Paid  int64 `db:"paid"`
		Wrong int64 `db:"wrong"`
	}
	if err := d.Get(&fee, `SELECT count(*) FILTER (WHERE t.actual_fee > 0) AS paid,
		count(*) FILTER (WHERE (SELECT count(*) FROM token_transfers x WHERE x.block_number = t.block_number
				AND x.tx_index = t.tx_index AND x.is_fee AND x.amount = t.actual_fee)
			<> CASE WHEN t.actual_fee > 0 AND t.type <> 'L1_HANDLER' THEN 1 ELSE 0 END
			OR (SELECT count(*) FROM token_transfers x WHERE x.block_number = t.block_number
				AND x.tx_index = t.tx_index AND x.is_fee) > 1) AS wrong
		FROM transactions t`); err != nil {
		t.Fatal(err)
	}
	if fee.Wrong != 0 || fee.Paid < 100 {
		t.Errorf("fee transfers: %d of %d transactions without exactly one fee transfer of their fee", fee.Wrong, fee.Paid)
	}

	// Each block's fee sums per unit are its transactions' fees.
	var badFees, feeBlocks int64
	if err := d.QueryRow(`SELECT count(*) FILTER (WHERE (b.fees_wei, b.fee_txs_wei, b.fees_fri, b.fee_txs_fri) IS DISTINCT FROM
			(t.fees_wei, t.txs_wei, t.fees_fri, t.txs_fri)),
		count(*) FILTER (WHERE b.fee_txs_wei > 0 AND b.fee_txs_fri > 0)
		FROM blocks b CROSS JOIN LATERAL (SELECT
			coalesce(sum(actual_fee) FILTER (WHERE actual_fee_unit = 'WEI'), 0) AS fees_wei, count(*) FILTER (WHERE actual_fee_unit = 'WEI') AS txs_wei,
			coalesce(sum(actual_fee) FILTER (WHERE actual_fee_unit = 'FRI'), 0) AS fees_fri, count(*) FILTER (WHERE actual_fee_unit = 'FRI') AS txs_fri
			FROM transactions t WHERE t.block_number = b.number) t`).Scan(&badFees, &feeBlocks); err != nil {
		t.Fatal(err)
	}
	if badFees != 0 || feeBlocks == 0 {
		t.Errorf("%d blocks' fee sums disagree with their transactions (%d blocks have fees in both units)", badFees, feeBlocks)
	}

	// NFT owners and ERC-1155 balances, as the node answers owner_of and balance_of.
	var items []struct {
		Contract db.Felt `db:"contract_address"`
		ID       string  `db:"token_id"`
		Type     int     `db:"contract_type"`
		Owner    db.Felt `db:"owner_address"`
		Balance  string  `db:"balance"`
	}
	if err := d.Select(&items, `(SELECT n.contract_address, n.token_id::text AS token_id, 721 AS contract_type, n.owner_address, '1' AS balance
		FROM nft_items n WHERE n.contract_type = 721 AND n.owner_address IS NOT NULL ORDER BY md5(n.contract_address || n.token_id::text) LIMIT 15)
		UNION ALL (SELECT b.contract_address, b.token_id::text, 1155, b.owner_address, b.balance::text FROM nft_balances b
		JOIN nft_items n USING (contract_address, token_id) WHERE n.contract_type = 1155 ORDER BY md5(b.owner_address) LIMIT 15)`); err != nil {
		t.Fatal(err)
	}
	if len(items) < 10 {
		t.Fatalf("only %d NFT holdings derived", len(items))
	}
	for _, it := range items {
		id, _ := new(big.Int).SetString(it.ID, 10)
		low, high, _ := starknet.SplitU256(id)
		sel, args := "owner_of", []starknet.Felt{low, high}
		if it.Type == 1155 {
			sel, args = "balance_of", []starknet.Felt{it.Owner.Starknet(), low, high}
		}
		out, err := c.CallByName(context.Background(), it.Contract.Starknet(), sel, args, rpc.AtNumber(uint64(head)))
		if err != nil {
			t.Fatalf("%s of %s #%s: %v", sel, it.Contract.Padded(), it.ID, err)
		}
		switch {
		case it.Type == 721 && (len(out) != 1 || !db.FeltOf(out[0]).Equal(it.Owner)):
			t.Errorf("owner of %s #%s: indexed %s, node says %v", it.Contract.Padded(), it.ID, it.Owner.Padded(), out)
		case it.Type == 1155 && (len(out) != 2 || u256(out[0], out[1]).String() != it.Balance):
			t.Errorf("balance of %s in %s #%s: indexed %s, node says %v", it.Owner.Padded(), it.Contract.Padded(), it.ID, it.Balance, out)
		}
	}

	var bad []string
	if err := d.Select(&bad, `SELECT t.address::text FROM tokens t
		WHERE t.standard = 'erc20' AND t.holder_count <>
		  (SELECT count(*) FROM erc20_balances b WHERE b.token_address = t.address AND b.balance > 0)`); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("holder_count differs from the positive balances for %d tokens", len(bad))
	}
	if err := d.Select(&bad, `SELECT t.address::text FROM tokens t
		WHERE t.standard <> 'erc20' AND t.holder_count <>
		  (SELECT count(DISTINCT owner_address) FROM nft_balances b WHERE b.contract_address = t.address AND b.balance > 0)`); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("NFT holder_count differs from the owners holding items for %d collections", len(bad))
	}
	if err := d.Select(&bad, `SELECT t.address::text FROM tokens t
		WHERE t.standard = 'erc20' AND t.transfer_count <>
		  (SELECT count(*) FROM events_named e WHERE e.from_address = t.address AND e.key0 = $1)`, db.FeltOf(selTransfer)); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("transfer_count differs from the Transfer events for %d tokens", len(bad))
	}
	var counts struct {
		Contracts int64 `db:"contracts"`
		Counted   int64 `db:"counted"`
		NFTs      int64 `db:"nfts"`
		NFTCount  int64 `db:"nft_count"`
		Calls     int64 `db:"calls"`
		Partial   int64 `db:"partial"`
	}
	if err := d.Get(&counts, `SELECT (SELECT count(*) FROM contracts) AS contracts,
		coalesce((SELECT count FROM list_counts WHERE name = 'contracts'), 0) AS counted,
		(SELECT count(*) FROM nft_items) AS nfts,
		coalesce((SELECT count FROM list_counts WHERE name = 'nft_items'), 0) AS nft_count,
		(SELECT count(*) FROM calls) AS calls,
		(SELECT count(*) FROM transactions WHERE partial_calls_parsing) AS partial`); err != nil {
		t.Fatal(err)
	}
	if counts.Contracts == 0 || counts.Contracts != counts.Counted || counts.NFTs != counts.NFTCount {
		t.Errorf("counts do not match rows: %+v", counts)
	}
	if counts.Calls == 0 || counts.Partial > 0 {
		t.Errorf("calls: %d decoded, %d transactions only partly", counts.Calls, counts.Partial)
	}
	var staking struct {
		Validators  int64 `db:"validators"`
		Pools       int64 `db:"pools"`
		Delegations int64 `db:"delegations"`
		BadPools    int64 `db:"bad_pools"`
		BadStakers  int64 `db:"bad_stakers"`
		BTCPools    int64 `db:"btc_pools"`
		BadBTC      int64 `db:"bad_btc"`
	}
	// STRK pools are v1's, one per staker; WBTC pools come with v2's NewDelegationPool (token
	// key), and their stake with StakeDelegatedBalanceChanged.
	if err := d.Get(&staking, `SELECT (SELECT count(*) FROM validators) AS validators,
		(SELECT count(*) FROM pools WHERE token_address = $1) AS pools,
		(SELECT count(*) FROM pools WHERE token_address <> $1) AS btc_pools,
		(SELECT count(*) FROM validators v WHERE v.delegated_stake_btc <> (SELECT coalesce(sum(total_delegated), 0)
		   FROM pools p WHERE p.staker_address = v.staker_address AND p.token_address <> $1)) AS bad_btc,
		(SELECT count(*) FROM delegations) AS delegations,
		(SELECT count(*) FROM pools p WHERE p.total_delegated <> (SELECT coalesce(sum(amount), 0) FROM delegations d WHERE d.pool_contract = p.pool_contract)
		   OR p.delegator_count <> (SELECT count(*) FROM delegations d WHERE d.pool_contract = p.pool_contract)) AS bad_pools,
		(SELECT count(*) FROM validators v WHERE v.total_delegators <> (SELECT coalesce(sum(delegator_count), 0) FROM pools p WHERE p.staker_address = v.staker_address)
		   OR v.self_stake = 0) AS bad_stakers`, db.FeltOf(strkToken)); err != nil {
		t.Fatal(err)
	}
	var overview struct {
		Contract db.Felt `db:"staking_contract"`
		STRK     db.Felt `db:"strk_token_address"`
	}
	if err := d.Get(&overview, `SELECT staking_contract, strk_token_address FROM staking_overview WHERE id = 1`); err != nil ||
		!overview.STRK.Equal(db.FeltOf(strkToken)) || overview.Contract == nil {
		t.Errorf("staking_overview: %+v (%v)", overview, err)
	}
	if staking.Validators == 0 || staking.Pools != staking.Validators || staking.Delegations == 0 || staking.BadPools > 0 ||
		staking.BadStakers > 0 || staking.BTCPools == 0 || staking.BadBTC > 0 {
		t.Errorf("staking rows inconsistent: %+v", staking)
	}
	var meta struct {
		Named    int64 `db:"named"`
		Decimals int64 `db:"decimals"`
		ERC20    int64 `db:"erc20"`
	}
	if err := d.Get(&meta, `SELECT count(*) FILTER (WHERE name IS NOT NULL AND symbol IS NOT NULL) AS named,
		count(*) FILTER (WHERE decimals IS NOT NULL) AS decimals, count(*) AS erc20 FROM tokens WHERE standard = 'erc20'`); err != nil {
		t.Fatal(err)
	}
	if meta.Named != meta.ERC20 || meta.Decimals != meta.ERC20 {
		t.Errorf("token metadata missing: %+v", meta)
	}
	// Total supplies follow mints and burns from what the token said before it first moved.
	var supplies []struct {
		Token  db.Felt `db:"address"`
		Supply *string `db:"total_supply"`
	}
	if err := d.Select(&supplies, `SELECT address, total_supply::text AS total_supply FROM tokens WHERE standard = 'erc20' AND address <> $1`, interest); err != nil {
		t.Fatal(err)
	}
	for _, s := range supplies {
		out, err := c.CallByName(context.Background(), s.Token.Starknet(), "total_supply", nil, rpc.AtNumber(uint64(head)))
		if err != nil || len(out) != 2 {
			t.Fatalf("total_supply of %s: %v %v", s.Token.Padded(), out, err)
		}
		if want := u256(out[0], out[1]).String(); s.Supply == nil || *s.Supply != want {
			t.Errorf("total supply of %s: indexed %v, node says %s", s.Token.Padded(), deref(s.Supply), want)
		}
	}
	var maxTPS float64
	if err := d.Get(&maxTPS, `SELECT max_tps FROM chain_stats WHERE max_tps_block_hash IS NOT NULL`); err != nil || maxTPS <= 0 {
		t.Errorf("chain_stats.max_tps = %v (%v)", maxTPS, err)
	}
	var sample []string
	if err := d.Select(&sample, `SELECT name || '/' || symbol || '/' || decimals FROM tokens WHERE standard = 'erc20' ORDER BY address LIMIT 3`); err != nil {
		t.Fatal(err)
	}
	t.Logf("tokens: %v", sample)
	var names []string
	if err := d.Select(&names, `SELECT name || '=' || count FROM list_counts ORDER BY name`); err != nil {
		t.Fatal(err)
	}
	t.Logf("list_counts: %v", names)
	var unnamed int64
	if err := d.Get(&unnamed, `SELECT count(*) FROM calls WHERE entrypoint IS NULL`); err != nil {
		t.Fatal(err)
	}
	if unnamed > 0 {
		t.Errorf("%d calls without an entry-point name on a chain whose classes all have ABIs", unnamed)
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

// backfillQuery recomputes erc20_balance_changes from the transfers: the SELECT with which
// migration 00018 filled the table (kept here since the baseline folded the migrations).
func backfillQuery(t *testing.T) string {
	return fromTransfersWithCopies(balanceChangesBackfill)
}

// activityBackfill recomputes activity_stats from the rows: the SELECT with which
// migration 00020 filled the table.
func activityBackfill(t *testing.T) string {
	return fromTransfersWithCopies(activityStatsBackfill)
}

const (
	balanceChangesBackfill = `SELECT token_address, owner, block_number,
       sum(sum(delta)) OVER (PARTITION BY token_address, owner ORDER BY block_number), max(timestamp)
FROM (SELECT token_address, to_address AS owner, block_number, amount AS delta, timestamp
        FROM token_transfers WHERE to_address <> '\x'::bytea
      UNION ALL
      SELECT token_address, from_address, block_number, -amount, timestamp
        FROM token_transfers WHERE from_address <> '\x'::bytea) d
GROUP BY token_address, owner, block_number`
	activityStatsBackfill = `SELECT g.granularity, b.starts_at, b.blocks, b.transactions, coalesce(t.invokes, 0), coalesce(t.declares, 0),
       coalesce(t.deploy_accounts, 0), coalesce(t.l1_handlers, 0), coalesce(t.reverted, 0), b.events, b.messages,
       coalesce(x.transfers, 0), b.fees_wei, b.fees_fri
FROM (VALUES ('d', 86400), ('h', 3600)) AS g(granularity, width)
CROSS JOIN LATERAL (SELECT timestamp / g.width * g.width AS starts_at, count(*) AS blocks, sum(tx_count) AS transactions,
        sum(event_count) AS events, sum(message_count) AS messages, sum(fees_wei) AS fees_wei, sum(fees_fri) AS fees_fri
    FROM blocks GROUP BY 1) b
LEFT JOIN LATERAL (SELECT count(*) FILTER (WHERE type = 'INVOKE') AS invokes, count(*) FILTER (WHERE type = 'DECLARE') AS declares,
        count(*) FILTER (WHERE type = 'DEPLOY_ACCOUNT') AS deploy_accounts, count(*) FILTER (WHERE type = 'L1_HANDLER') AS l1_handlers,
        count(*) FILTER (WHERE execution_status = 'REVERTED') AS reverted
    FROM transactions WHERE timestamp >= b.starts_at AND timestamp < b.starts_at + g.width) t ON true
LEFT JOIN LATERAL (SELECT count(*) AS transfers FROM token_transfers
    WHERE timestamp >= b.starts_at AND timestamp < b.starts_at + g.width) x ON true`
)

// fromTransfersWithCopies reads token_transfers in query as it was when migrations 00018 and
// 00020 were written: migration 00042 took the copies of the transaction's hash and the
// block's time out of it, read back here through the join.
func fromTransfersWithCopies(query string) string {
	return strings.ReplaceAll(query, "FROM token_transfers", "FROM "+transfersWithCopies)
}

// transfersWithCopies and balanceChangesWithTime are token_transfers and
// erc20_balance_changes as they were before migration 00042 (and before 00045-00046, which
// name their addresses by felt id).
const (
	transfersWithCopies = `(SELECT e.*, t.hash AS transaction_hash, t.timestamp FROM token_transfers_named e
		JOIN transactions t ON t.block_number = e.block_number AND t.tx_index = e.tx_index) token_transfers`
	balanceChangesWithTime = `(SELECT c.*, b.timestamp FROM erc20_balance_changes_named c JOIN blocks b ON b.number = c.block_number) c`
)
