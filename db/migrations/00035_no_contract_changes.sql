-- contract_changes (00001) held a contract's class and nonce as they were before each
-- block that changed them, "needed to undo a reorg". The undo journal (undo_rows, 00003)
-- has done that since, for contracts as for every other state table, and no statement read
-- contract_changes: it cost 126 bytes per transaction on disk (80 of rows, 46 of index, at
-- 260,000 transactions) and a COPY per batch. The indexer no longer writes it.

-- +goose Up
DROP TABLE IF EXISTS contract_changes;

-- +goose Down
CREATE TABLE contract_changes (
    block_number   bigint NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    address        bytea  NOT NULL,
    old_class_hash bytea,
    old_nonce      numeric(78,0),
    PRIMARY KEY (block_number, address)
);
