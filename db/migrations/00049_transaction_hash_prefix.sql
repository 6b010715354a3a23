-- A transaction is found by its hash through an index of the hash's first six bytes on
-- transactions itself (each partition's), in place of transaction_hashes (00030): that
-- table held every hash a second time, keyed by it, to keep hashes unique across the
-- block partitions, for 141 bytes a transaction on the 1M bench database; this index
-- takes 22 (docs/performance.md, Storage).
--
-- A lookup compares the prefix in the index, then the whole hash in the row: six bytes
-- tell about 2^48 hashes apart, so a lookup reads one row, and one index probe in each
-- partition (a few at mainnet's size). The prefix keeps the hashes' order, so that a
-- search by hex prefix is a range of this index too (db/search.go). What is given up is
-- the guard that no hash is written twice: the chain's hashes are unique, and the
-- indexer writes a block's transactions once (a reorg deletes them first).
--
-- Building the index locks the indexer's writes out for as long as it takes (seconds at
-- 10M transactions). Idempotent.

-- +goose Up
CREATE INDEX IF NOT EXISTS transactions_hash ON transactions (substring(hash, 1, 6));
COMMENT ON INDEX transactions_hash IS 'a transaction by hash (/beta/txns/{hash}, GraphQL transaction(hash)) and by hex prefix (search): the first six bytes of the hash, compared whole in the row';
DROP TABLE IF EXISTS transaction_hashes;
ANALYZE transactions;

-- +goose Down
CREATE TABLE IF NOT EXISTS transaction_hashes (
    hash         bytea   PRIMARY KEY,
    block_number bigint  NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    tx_index     integer NOT NULL
);
CREATE INDEX IF NOT EXISTS transaction_hashes_block ON transaction_hashes USING brin (block_number) WITH (autosummarize = on);
COMMENT ON INDEX transaction_hashes_pkey IS 'a transaction by hash (/beta/txns/{hash}, GraphQL transaction(hash), search): hash -> (block_number, tx_index)';
COMMENT ON INDEX transaction_hashes_block IS 'BRIN: the cascade from blocks on a reorg, the removal of a bulk load''s rows above the head';
INSERT INTO transaction_hashes (hash, block_number, tx_index)
SELECT hash, block_number, tx_index FROM transactions ON CONFLICT DO NOTHING;
DROP INDEX IF EXISTS transactions_hash;
