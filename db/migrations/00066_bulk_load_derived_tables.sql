-- Issue 58: a bulk load no longer keeps the tables it can derive from the rows it appends up
-- to date batch by batch. erc20_balances, key_counts, sender_last_blocks and
-- active_sender_blocks are rewritten by every batch (each batch names thousands of the
-- same owners and keys again), and those upserts and the reads before them were the part of
-- a batch that grew with the database. While a load runs they stand at
-- indexer_state.derived_through; the load keeps what its batches need of them (balances,
-- key counts) in memory, and writes them when it ends, deriving what it did not keep (after
-- a stop) from erc20_balance_changes, transactions, events and token_transfers
-- (db/bulk_derived.go).

-- +goose Up
ALTER TABLE indexer_state ADD COLUMN derived_through bigint;
COMMENT ON COLUMN indexer_state.derived_through IS 'while a bulk load defers them: the block through which erc20_balances, key_counts, sender_last_blocks and active_sender_blocks are written (the rows above it derive the rest); NULL: they follow the head';

-- +goose Down
ALTER TABLE indexer_state DROP COLUMN derived_through;
