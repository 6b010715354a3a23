-- Every index is named by the query it serves (issue 38, docs/performance.md "Storage"),
-- as its COMMENT, so that \di+ and pg_description say why it is there; an index without
-- one fails db's TestEveryIndexServesADocumentedQuery. Primary keys and unique
-- constraints of tables that do not grow with the chain guard what is written and need no
-- comment; those of the per-block tables are described like the others.
--
-- calls_contract is dropped: no statement reads calls by contract (a transaction's calls
-- are read by (block_number, tx_index), calls_pkey). It took 41 bytes per transaction.

-- +goose Up
DROP INDEX IF EXISTS calls_contract;
-- A bulk load drops secondary indexes and builds them again from their definitions; their
-- comments go with them and come back from here (db/bulk.go).
ALTER TABLE deferred_constraints ADD COLUMN IF NOT EXISTS comment text;

COMMENT ON INDEX transactions_pkey IS 'a transaction by position, joins from every per-transaction table, the foreign keys that reference it and chain-order pages of /beta/txns';
COMMENT ON INDEX transactions_sender IS 'a sender''s transactions in chain order: /beta/txns?sender_address=, GraphQL transactions(filter: {sender})';
COMMENT ON INDEX transactions_contract IS 'transactions to a contract in chain order: /beta/txns?to=, GraphQL transactions(filter: {contract})';
COMMENT ON INDEX transactions_type IS 'transactions of a type in chain order: /beta/txns?type=, GraphQL transactions(filter: {type})';
COMMENT ON INDEX transactions_message_hash IS 'the L1 follower finds an L1_HANDLER transaction by its message hash';
COMMENT ON INDEX transaction_hashes_pkey IS 'a transaction by hash (/beta/txns/{hash}, GraphQL transaction(hash), search): hash -> (block_number, tx_index)';
COMMENT ON INDEX transaction_hashes_block IS 'BRIN: the cascade from blocks on a reorg, the removal of a bulk load''s rows above the head';
COMMENT ON INDEX calls_pkey IS 'a transaction''s calls (read_chain.go, by (block_number, tx_index)), the cascade from transactions';
COMMENT ON INDEX events_pkey IS 'a transaction''s events, events of a block range in chain order, the cascade from transactions';
COMMENT ON INDEX events_from IS 'events of a contract in chain order: /beta/events?contract=, GraphQL events(filter: {contract})';
COMMENT ON INDEX events_key0 IS 'events of a key (selector) in chain order: GraphQL events(filter: {key})';
COMMENT ON INDEX token_transfers_pkey IS 'a transaction''s transfers (read_transfers.go, by (block_number, tx_index)), the live feed by block, the cascade from transactions';
COMMENT ON INDEX token_transfers_from IS 'transfers of a wallet, the sending side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';
COMMENT ON INDEX token_transfers_to IS 'transfers of a wallet, the receiving side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';
COMMENT ON INDEX token_transfers_token IS 'transfers of a token, newest first (/beta/transfers?token=, GraphQL transfers(filter: {token}))';
COMMENT ON INDEX erc20_balance_changes_pkey IS 'a wallet''s balance of a token at a block and its history (read_transfers.go BalancesAt, balance history)';
COMMENT ON INDEX erc20_balance_changes_block IS 'BRIN: the cascade from blocks on a reorg, the removal of a bulk load''s rows above the head';
COMMENT ON INDEX nft_events_pkey IS 'a transaction''s NFT transfers, the cascade from transactions';
COMMENT ON INDEX nft_events_contract IS 'NFT transfers of a collection, newest first';
COMMENT ON INDEX nft_events_token IS 'transfers of one NFT item, newest first';
COMMENT ON INDEX nft_events_sales IS 'NFT sales in a time window (marketplace figures), index-only';
COMMENT ON INDEX meta_transactions_pkey IS 'a transaction''s meta transactions, the cascade from transactions';
COMMENT ON INDEX meta_transactions_contract IS 'meta transactions of a contract, newest first';
COMMENT ON INDEX meta_transactions_recent IS 'the newest meta transactions';
COMMENT ON INDEX messages_pkey IS 'a transaction''s L1<->L2 messages, the cascade from transactions';
COMMENT ON INDEX messages_contract IS 'messages of an L2 contract, newest first';
COMMENT ON INDEX messages_direction IS 'messages of one direction, newest first';
COMMENT ON INDEX messages_hash IS 'messages by message hash';
COMMENT ON INDEX staking_activity_pkey IS 'a transaction''s staking operations, the cascade from transactions';
COMMENT ON INDEX staking_activity_staker IS 'a validator''s staking history, newest first';
COMMENT ON INDEX staking_activity_wallet IS 'a wallet''s staking history, newest first';
COMMENT ON INDEX attestations_pkey IS 'a transaction''s attestations, the cascade from transactions';
COMMENT ON INDEX attestations_staker IS 'a validator''s attestations, newest first';

COMMENT ON INDEX blocks_accepted_on_l2 IS 'finality updates: the oldest block not yet accepted on L1 (write_state.go)';
COMMENT ON INDEX blocks_time_number IS 'the block at a time: transfers'' time bounds, daily figures';
COMMENT ON INDEX blocks_txs_before IS 'the block holding the n-th transaction: /beta/txns pages by position (read_chain.go)';
COMMENT ON INDEX classes_declared_order IS 'classes, newest declared first';
COMMENT ON INDEX contracts_class_order IS 'contracts of a class, newest deployed first';
COMMENT ON INDEX contracts_deployed_order IS 'contracts, newest deployed first';
COMMENT ON INDEX contracts_type_order IS 'contracts of a type, newest deployed first';
COMMENT ON INDEX verified_classes_at IS 'verified classes, newest first';
COMMENT ON INDEX tokens_by_holders IS 'tokens of a standard by holder count';
COMMENT ON INDEX tokens_by_transfers IS 'tokens of a standard by transfer count';
COMMENT ON INDEX tokens_by_market_cap IS 'tokens of a standard by market cap';
COMMENT ON INDEX tokens_name_prefix IS 'search: tokens by name prefix';
COMMENT ON INDEX tokens_symbol_prefix IS 'search: tokens by symbol prefix';
COMMENT ON INDEX aliases_name_prefix IS 'search: curated names by prefix';
COMMENT ON INDEX starknet_id_names_domain IS 'search: Starknet ID domains by prefix';
COMMENT ON INDEX erc20_balances_holders_order IS 'a token''s holders, largest balance first';
COMMENT ON INDEX erc20_balances_owner IS 'a wallet''s balances by owner, zero balances included';
COMMENT ON INDEX erc20_balances_owner_order IS 'a wallet''s tokens, newest transfer first';
COMMENT ON INDEX nft_items_owner IS 'a wallet''s NFT items';
COMMENT ON INDEX nft_balances_owner IS 'a wallet''s NFT balances';
COMMENT ON INDEX nft_balances_item_order IS 'an NFT item''s holders, largest balance first';
COMMENT ON INDEX nft_holders_order IS 'a collection''s holders, most held first';
COMMENT ON INDEX nft_metadata_requests_queued IS 'the NFT metadata queue, oldest request first';
COMMENT ON INDEX nft_metadata_requests_claimed IS 'NFT metadata claims left stale, to hand out again';
COMMENT ON INDEX validators_by_stake IS 'validators, largest stake first';
COMMENT ON INDEX pools_staker IS 'a validator''s delegation pools (read_staking.go)';
COMMENT ON INDEX delegations_delegator IS 'a wallet''s delegations (read_staking.go)';
COMMENT ON INDEX delegations_pool_amount IS 'a pool''s delegators, largest first';
COMMENT ON INDEX token_prices_block IS 'the cascade from blocks on a reorg';
COMMENT ON INDEX api_keys_key_prefix_idx IS 'an API key by its prefix (admin look-up, auth/store.go)';
COMMENT ON INDEX verification_jobs_queue IS 'the verification queue, oldest job first';
COMMENT ON INDEX verification_job_log_job IS 'a verification job''s log in time order';

-- +goose Down
ALTER TABLE deferred_constraints DROP COLUMN IF EXISTS comment;
CREATE INDEX calls_contract ON calls (contract_address, block_number);
