-- What the indexer needs beyond the data model: a journal to undo a reorg exactly.
--
-- undo_rows keeps, for each block near the chain head, the row images a block's
-- derived writes replaced (balances, tokens, NFT items, counters, ...). Undoing a
-- block replays its entries newest first: delete the row at key, and put back old
-- when there was a row before. Entries older than the reorg window are pruned.

-- +goose Up
CREATE TABLE undo_rows (
    block_number bigint NOT NULL,
    seq          bigserial,
    tbl          text   NOT NULL,            -- table name (a fixed list in db/write_undo.go)
    key          jsonb  NOT NULL,            -- primary key columns of the row
    old          jsonb,                      -- the row before the block, NULL when absent
    PRIMARY KEY (block_number, seq)
);

-- +goose Down
DROP TABLE undo_rows;
