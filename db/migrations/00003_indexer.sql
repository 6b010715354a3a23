-- What the indexer needs beyond the data model: a journal to undo a reorg exactly.
--
-- undo_rows keeps, for each block near the chain head, the row images a block's
-- derived writes replaced (balances, tokens, NFT items, staking, counters, ...).
-- Undoing the blocks above a fork point puts back, for every key, the oldest image
-- recorded above it, or deletes the row when there was none. Entries older than the
-- reorg window are pruned.

-- +goose Up
CREATE TABLE undo_rows (
    block_number bigint NOT NULL,
    seq          bigserial,
    tbl          text   NOT NULL,            -- table name (a fixed list in db/write_undo.go)
    key          jsonb  NOT NULL,            -- primary key columns of the row
    old          jsonb,                      -- the row before the block, NULL when absent
    PRIMARY KEY (block_number, seq)
);

-- Finality updates look for the oldest block not yet accepted on L1.
CREATE INDEX blocks_accepted_on_l2 ON blocks (number) WHERE status = 'ACCEPTED_ON_L2';

-- +goose Down
DROP INDEX blocks_accepted_on_l2;
DROP TABLE undo_rows;
