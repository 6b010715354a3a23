package rest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// The test chain: 30 blocks (1-20 accepted on L1, 21-30 on L2) of two INVOKE transactions
// each (each with an ETH transfer and its fee transfer), five accounts, two ERC-20 tokens, one ERC-721 collection of 30 items with a mint
// event each, three meta-transactions, a validator with a STRK pool and a delegator, a
// holders snapshot, a verified class, a verification job and an L1 -> L2 message.
const (
	nBlocks    = 30
	nAccounts  = 5
	nNftItems  = 30
	baseTime   = int64(1700000000)
	jobID      = "6b3f1f2c-0d4e-4c1a-9a59-2a0a5a0c9e11"
	unknownJob = "00000000-0000-4000-8000-000000000000"
)

var (
	ethAddr      = db.MustFelt("0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7")
	strkAddr     = db.MustFelt("0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")
	nftAddr      = db.MustFelt("0x0721aa")
	accountClass = db.MustFelt("0x01a736d6ed154502257f02b1ccdf4d9d1089f80811cd6acad48e6b6a9d1f2003")
	erc20Class   = db.MustFelt("0x048624e084dc68d82076582219c7ed8cb0910c01746cca3cd72a28ecfe07e42d")
	erc721Class  = db.MustFelt("0x0721c1a55")
	poolAddr     = db.MustFelt("0x0b001")
	transferSel  = db.MustFelt("0x83afd3f4caedc6eebf44246fe54e38c95e3179a5ec9ea81740eca5b482d12e")
	executeSel   = db.MustFelt("0x15d40a3d6ca2ac30f4031e42be28da9b056fef9bb7357ac5e85627ee876e5ad")
	outsideSel   = db.MustFelt("0x3dbc508ba4afd040c8dc4ff8a61113a7bcaf5eae88a6ba27b3c50578b3587e3")
	transferKey  = db.MustFelt("0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9")
	messageHash  = db.MustFelt("0x4a7c0e551")
)

// account i (0-based); account 0 is 0x04d0..., written with a leading zero digit so that
// address normalisation is exercised.
func account(i int) db.Felt {
	return db.MustFelt(fmt.Sprintf("0x04d0%060x", i+1))
}

func blockHash(n int) db.Felt { return db.FeltFromUint64(uint64(0xb10c000 + n)) }
func txHash(n, i int) db.Felt { return db.FeltFromUint64(uint64(0x7a000 + n*2 + i)) }

// seedPartitionBlocks is the length of the test chain's block partitions: its blocks
// span several, so that every list is read across partitions.
const seedPartitionBlocks = 8

// seed writes the test chain with plain SQL, into partitions seedPartitionBlocks long.
func seed(t testing.TB, conn *sqlx.DB) {
	t.Helper()
	dbtest.ShortPartitions(t, conn, seedPartitionBlocks)
	if err := new(db.Partitions).Cover(context.Background(), conn, 0, nBlocks); err != nil {
		t.Fatal(err)
	}
	// One transaction: a commit per row would make every test wait on the disk.
	tx, err := conn.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string, args ...any) {
		t.Helper()
		dbtest.Exec(t, tx, q, args...)
	}
	for n := 1; n <= nBlocks; n++ {
		status := "ACCEPTED_ON_L1"
		if n > 20 {
			status = "ACCEPTED_ON_L2"
		}
		exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status, state_root, sequencer_address,
			starknet_version, l1_gas_price_wei, l1_gas_price_fri, tx_count, event_count, message_count, fees_wei, fee_txs_wei)
			VALUES ($1, $2, $3, $4, $5, $6, $7, '0.13.5', 1000000000, 5000000000000, 2, 2, 0, 2 * 48912831549305, 2)`, // its 2 transactions below
			n, blockHash(n), blockHash(n-1), baseTime+int64(n)*10, status, db.FeltFromUint64(uint64(0x5000+n)), db.MustFelt("0x5e9"))
	}
	exec(`INSERT INTO classes (hash, kind, cairo_version, version, is_account, declared_block, declared_tx_hash, declared_at)
		VALUES ($1, 'sierra', 1, '2.6.3', true, 1, $2, $3)`, accountClass, txHash(1, 0), baseTime+10)
	exec(`INSERT INTO classes (hash, kind, cairo_version, version, erc_standard, declared_block, declared_tx_hash, declared_at, abi)
		VALUES ($1, 'sierra', 1, '2.12.2', 'erc20', 1, $2, $3, '[]')`, erc20Class, txHash(1, 1), baseTime+10)
	exec(`INSERT INTO classes (hash, kind, cairo_version, version, erc_standard, declared_block, declared_tx_hash, declared_at)
		VALUES ($1, 'legacy', 0, '0', 'erc721', 2, $2, $3)`, erc721Class, txHash(2, 0), baseTime+20)
	exec(`INSERT INTO verified_classes (class_hash, name, verified_at, compiler_version) VALUES ($1, 'V_Test_2.6.3', 1728474285, '2.6.3')`, accountClass)
	exec(`INSERT INTO aliases (address, name) VALUES ($1, 'Ready'), ($2, 'Ether'), ($3, 'ERC20')`, accountClass, ethAddr, erc20Class)

	// Token contracts first, accounts last: the newest contract is an account.
	exec(`INSERT INTO contracts (address, class_hash, type, nonce, deployed_block, deployed_tx_hash, deployed_at) VALUES
		($1, $2, 'erc20', 0, 1, $3, $4), ($5, $2, 'erc20', 0, 1, $3, $4), ($6, $7, 'erc721', 0, 2, $8, $9)`,
		ethAddr, erc20Class, txHash(1, 1), baseTime+10, strkAddr, nftAddr, erc721Class, txHash(2, 0), baseTime+20)
	for i := 0; i < nAccounts; i++ {
		exec(`INSERT INTO contracts (address, class_hash, type, nonce, deployed_block, deployed_tx_hash, deployed_at)
			VALUES ($1, $2, 'account', 100, $3, $4, $5)`, account(i), accountClass, 3+i, txHash(3+i, 0), baseTime+int64(3+i)*10)
	}

	for n := 1; n <= nBlocks; n++ {
		finality := "ACCEPTED_ON_L1"
		if n > 20 {
			finality = "ACCEPTED_ON_L2"
		}
		for i := 0; i < 2; i++ {
			sender := account((n + i) % nAccounts)
			recipient := account((n + i + 1) % nAccounts)
			exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, class_id,
				entry_point_selector, nonce, max_fee, actual_fee, actual_fee_unit, execution_status, finality_status,
				calldata, signature, event_count)
				VALUES ($1, $2, $3, 'INVOKE', 1, $4, felt_id($5), felt_id($6), $7, $8, 10000000000000000, 48912831549305, 'WEI', 'SUCCEEDED', $9,
				$10, $11, 1)`,
				n, i, txHash(n, i), baseTime+int64(n)*10, sender, accountClass, executeSel, n, finality,
				db.FeltArray{db.FeltFromUint64(1), ethAddr, transferSel}, db.FeltArray{db.FeltFromUint64(0x51)})
			exec(`INSERT INTO calls (block_number, tx_index, call_index, contract_id, selector_id, entrypoint, class_id, calldata, inputs, outputs)
				VALUES ($1, $2, 0, felt_id($3), felt_id($4), 'transfer', felt_id($5), $6, $7, '{"0": true}')`,
				n, i, ethAddr, transferSel, erc20Class, db.FeltArray{recipient, db.FeltFromUint64(48912831549305), db.FeltFromUint64(0)},
				fmt.Sprintf(`{"recipient": "%s", "amount": {"low": "48912831549305", "high": "0"}}`, recipient.Hex()))
			exec(`INSERT INTO events (block_number, tx_index, event_index, from_id, key0_id, data) VALUES ($1, $2, 0, felt_id($3), felt_id($4), $5)`,
				n, i, ethAddr, transferKey, db.FeltArray{sender, recipient, db.FeltFromUint64(7), db.FeltFromUint64(0)})
			// The event's transfer, and the fee transfer to the sequencer (not an event here).
			exec(`INSERT INTO token_transfers (block_number, tx_index, event_index, token_id, from_id, to_id,
				amount, is_fee) VALUES ($1, $2, 0, felt_id($3), felt_id($4), felt_id($5), 7, false),
				($1, $2, 1, felt_id($3), felt_id($4), felt_id($6), 48912831549305, true)`,
				n, i, ethAddr, sender, recipient, db.MustFelt("0x5e9"))
		}
	}

	exec(`INSERT INTO tokens (address, standard, name, symbol, decimals, total_supply, transfer_count, holder_count, verified, usd_price, market_cap_usd, logo_url)
		VALUES ($1, 'erc20', 'Ether', 'ETH', 18, 1000000, 229585280, 4494104, true, 3000.5, 5000000, NULL),
		       ($2, 'erc20', 'Starknet Token', 'STRK', 18, 10000000000, 116525724, 991560, false, 0.119393, 1000000, 'https://example.com/strk.png'),
		       ($3, 'erc721', 'Ducks', 'DUCK', NULL, 30, 30, 5, false, NULL, NULL, NULL)`, ethAddr, strkAddr, nftAddr)
	for i := 0; i < nAccounts; i++ {
		exec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time)
			VALUES ($1, $3, $4, 1, $5), ($2, $3, $4, 1, $5)`, ethAddr, strkAddr, account(i), 1273198304298242227+i, 1765226160)
	}
	exec(`INSERT INTO holders_snapshots (token_address, computed_at, total_supply, burned_supply, circulating_supply, holder_count,
		holders_over_1pct, top_n_concentration, concentration_buckets, tier_distribution, wallet_depth_usd, gini_top_10k, token_usd_price)
		VALUES ($1, '2026-01-02T03:04:05Z', 1000000, 10, 999990, 5, 5, '{"top5": 100, "top10": 100, "top100": 100}',
		'{"top_1_5": 100, "top_6_10": 0, "top_11_25": 0, "top_26_50": 0, "top_51_100": 0, "outside_100": 0}',
		'[{"tier": "whale", "count": 5, "supplyShare": 100}]', '[{"usdThreshold": 1000, "walletCount": 5}]', 0.12, 3000.5)`, ethAddr)

	for id := 1; id <= nNftItems; id++ {
		owner := account(id % nAccounts)
		exec(`INSERT INTO nft_items (contract_address, token_id, contract_type, owner_address, name, description, image_url,
			attributes, minted_by_address, minted_at_block, minted_at_tx_hash, minted_at_timestamp)
			VALUES ($1, $2, 721, $3, $4, 'a duck', 'https://example.com/duck.png', '[{"trait_type": "color", "value": "yellow"}]', $3, $7, $5, $6)`,
			nftAddr, id, owner, fmt.Sprintf("Duck #%d", id), txHash(id, 0), baseTime+int64(id)*10, id)
		exec(`INSERT INTO nft_balances (contract_address, token_id, owner_address, balance, last_transfer_time) VALUES ($1, $2, $3, 1, $4)`,
			nftAddr, id, owner, baseTime+int64(id)*10)
		exec(`INSERT INTO nft_events (block_number, tx_index, event_index, contract_address, token_id, from_address, to_address, type, transaction_hash, timestamp)
			VALUES ($1, 0, 1, $2, $6, '\x', $3, 'Mint', $4, $5)`, id, nftAddr, owner, txHash(id, 0), baseTime+int64(id)*10, id)
	}

	for n := 5; n <= 7; n++ {
		exec(`INSERT INTO meta_transactions (block_number, tx_index, call_index, contract_address, caller_address, operations)
			VALUES ($1, 1, 0, $2, $3, 'claim_reward_token')`, n, account(0), db.MustFelt("0x414e595f43414c4c4552"))
	}
	// The outside execution is the call of the meta-transactions.
	exec(`UPDATE calls SET selector_id = felt_id($1), entrypoint = 'execute_from_outside_v3' WHERE block_number BETWEEN 5 AND 7 AND tx_index = 1`, outsideSel)

	exec(`INSERT INTO validators (staker_address, reward_address, name, is_verified, self_stake, delegated_stake_strk, revenue_share_bps,
		state, start_time, total_delegators, liveness_attested_epochs, liveness_total_epochs, liveness_last_epoch)
		VALUES ($1, $1, 'Duck Staking', true, 20000000000000000000000, 5000000000000000000000, 1000, 'active', $2, 1, 9, 10, 3940)`,
		account(4), baseTime)
	exec(`INSERT INTO pools (pool_contract, staker_address, token_address, total_delegated, delegator_count) VALUES ($1, $2, $3, 5000000000000000000000, 1)`,
		poolAddr, account(4), strkAddr)
	exec(`INSERT INTO delegations (pool_contract, delegator_address, reward_address, amount, rewards_claimed, rewards_unclaimed, activated_at, last_delegation_at)
		VALUES ($1, $2, $2, 5000000000000000000000, 10, 20, $3, $3)`, poolAddr, account(0), baseTime)
	// Stake history windows end at the newest block.
	head := time.Unix(baseTime+nBlocks*10, 0).UTC()
	for d := 0; d < 3; d++ {
		day := head.AddDate(0, 0, -d*20).Format(time.DateOnly) // the head's day, 20 and 40 days before
		exec(`INSERT INTO stake_points (wallet_address, day, token_address, change, total, block_number) VALUES ($1, $2, $3, 1000, $4, 1)`,
			account(0), day, strkAddr, 5000-1000*d)
	}
	// The staking history: account 0 entering and topping up the pool, the validator's
	// attestations, and the network's and the validator's stake on the same three days.
	for n := 1; n <= 12; n++ {
		op := map[bool]string{true: "enter_delegation_pool", false: "add_to_delegation_pool"}[n == 1]
		exec(`INSERT INTO staking_activity (block_number, tx_index, event_index, operation, wallet_address, staker_address, pool_contract,
			token_address, amount, transaction_hash, timestamp) VALUES ($1, 0, 5, $2, $3, $4, $5, $6, $7, $8, $9)`,
			n, op, account(0), account(4), poolAddr, strkAddr, 1000*n, txHash(n, 0), baseTime+int64(n)*10)
		exec(`INSERT INTO attestations (block_number, tx_index, event_index, staker_address, epoch, transaction_hash, timestamp)
			VALUES ($1, 1, 9, $2, $3, $4, $5)`, n, account(4), 3928+n, txHash(n, 1), baseTime+int64(n)*10)
	}
	for d := 0; d < 3; d++ {
		day := head.AddDate(0, 0, -d*20).Format(time.DateOnly)
		for _, staker := range [][]byte{{}, account(4)} {
			exec(`INSERT INTO validator_days (staker_address, day, stake_strk, stake_btc, delegators, block_number) VALUES ($1, $2, $3, 0, $4, 1)`,
				staker, day, 25000-1000*d, 3-d)
		}
	}
	exec(`UPDATE list_counts SET count = 12 WHERE name IN ('staking_activity', 'attestations')`) // the rows come with the migration
	exec(`INSERT INTO staking_overview (strk_token_address, minimum_stake, total_supply, minting_curve, minting_c_denom,
		security_lockup_seconds, epoch_id, epoch_starting_block, epoch_length_blocks, updated_at)
		VALUES ($1, 20000000000000000000000, 10000000000, 160, 10000, 604800, 3940, $2, 30, 1758543761802)`, strkAddr, nBlocks-20)

	// An L1 -> L2 message to the ETH contract, carried by block 3's first transaction.
	exec(`INSERT INTO messages (block_number, tx_index, direction, msg_index, message_hash, from_address, to_address, l2_address,
		payload, transaction_hash, timestamp) VALUES (3, 0, 0, 0, $1, '\xabc0', $2, $2, '', $3, $4)`, messageHash, ethAddr, txHash(3, 0), baseTime+30)
	exec(`UPDATE list_counts SET count = 1 WHERE name = 'messages'`) // the row comes with the migration
	exec(`INSERT INTO verification_jobs (id, class_hash, status, name, files) VALUES ($1, $2, 4, 'duck', '{"src/lib.cairo": "mod duck;"}')`, jobID, accountClass)
	exec(`UPDATE chain_stats SET max_tps = 992, max_tps_block_hash = $1`, blockHash(7))
	exec(`UPDATE indexer_state SET head_block = $1, head_hash = $2, node_head = $1, chain_id = 'SN_SEPOLIA', updated_at = now()`, nBlocks, blockHash(nBlocks))
	exec(`INSERT INTO list_counts (name, count) VALUES ('blocks', $1), ('transactions', $2), ('events', $2), ('classes', 3),
		('verified_classes', 1), ('contracts', $3), ('contracts:account', $4), ('contracts:erc20', 2), ('contracts:erc721', 1),
		('tokens:erc20', 2), ('tokens:erc721', 1), ('meta_transactions', 3), ('validators', 1), ('delegators', 1)`,
		nBlocks, 2*nBlocks, nAccounts+3, nAccounts)
	dbtest.DeriveAsIndexer(t, tx)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
