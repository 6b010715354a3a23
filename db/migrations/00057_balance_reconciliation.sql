-- Balances checked against the chain's storage (issue 55, docs/indexer.md "Balances and
-- the chain's storage"). Each block's storage diffs are compared with the ERC-20 balances
-- its Transfer events give; where they differ the stored value wins and the difference is
-- kept here. The rows of a block go with it on a reorg (UndoAbove deletes them).

-- +goose Up
CREATE TABLE IF NOT EXISTS balance_corrections (
    token_address  bytea         NOT NULL,
    owner_address  bytea         NOT NULL,
    block_number   bigint        NOT NULL,
    event_balance  numeric(78,0) NOT NULL, -- what the events of the block and before gave (may be negative)
    stored_balance numeric(78,0) NOT NULL, -- what the block's state diff stores
    PRIMARY KEY (token_address, owner_address, block_number)
);
-- UndoAbove's delete, and "what changed lately". (IF NOT EXISTS: the newest migration may run again.)
CREATE INDEX IF NOT EXISTS balance_corrections_block ON balance_corrections (block_number);
COMMENT ON INDEX balance_corrections_block IS 'UndoAbove: DELETE FROM balance_corrections WHERE block_number > $1; the newest corrections first';

-- How a token's balances are known: 'events' (nothing checked yet), 'events_match_storage'
-- (its storage diffs were read and agreed with the events every time), 'storage' (the
-- storage corrected the events at least once), 'calls' (balance_of answers what neither
-- tells: call_balances).
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS balances_source text NOT NULL DEFAULT 'events';
-- The newest block whose storage diff was compared with the token's events.
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS storage_checked_block bigint;

-- Balances no event or storage diff shows (an interest-bearing token's balance_of scales a
-- stored raw amount by an index): read with starknet_call balance_of at the block read_block
-- for the holders of tokens whose balance_of disagreed with their events and storage
-- (balances_source 'calls'; indexer/callbalances.go). Reads above a reorg's fork point are
-- deleted with its blocks (UndoAbove).
CREATE TABLE IF NOT EXISTS call_balances (
    token_address bytea         NOT NULL,
    owner_address bytea         NOT NULL,
    balance       numeric(78,0) NOT NULL,
    read_block    bigint        NOT NULL,
    PRIMARY KEY (token_address, owner_address)
);
CREATE INDEX IF NOT EXISTS call_balances_block ON call_balances (read_block);
COMMENT ON INDEX call_balances_block IS 'UndoAbove: DELETE FROM call_balances WHERE read_block > $1';

-- +goose Down
ALTER TABLE tokens DROP COLUMN storage_checked_block;
ALTER TABLE tokens DROP COLUMN balances_source;
DROP TABLE call_balances;
DROP TABLE balance_corrections;
