-- A transaction's position in the chain, so that a page number (GET /beta/txns?p=40000, or
-- an offset cursor) seeks to its first row instead of reading every row before it: blocks
-- get txs_before, the transactions of the blocks below (of those indexed). The k-th
-- transaction from the oldest is then in the block with the greatest txs_before <= k, at
-- index k - txs_before (db.Store.Transactions). A trigger fills it from the block's parent,
-- so that every writer (the indexer, tests, a reorg's rewrite) gets it right; it costs a
-- primary-key lookup per block.
-- Idempotent, so that it can be applied twice.

-- +goose Up
ALTER TABLE blocks ADD COLUMN IF NOT EXISTS txs_before bigint NOT NULL DEFAULT 0;
UPDATE blocks b SET txs_before = s.before
FROM (SELECT number, coalesce(sum(tx_count) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
      FROM blocks) s
WHERE b.number = s.number AND b.txs_before IS DISTINCT FROM s.before;
CREATE INDEX IF NOT EXISTS blocks_txs_before ON blocks (txs_before, number);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION blocks_txs_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.txs_before := coalesce((SELECT txs_before + tx_count FROM blocks WHERE number = NEW.number - 1), 0);
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE OR REPLACE TRIGGER blocks_txs_before BEFORE INSERT ON blocks
    FOR EACH ROW EXECUTE FUNCTION blocks_txs_before();

-- +goose Down
DROP TRIGGER blocks_txs_before ON blocks;
DROP FUNCTION blocks_txs_before();
DROP INDEX blocks_txs_before;
ALTER TABLE blocks DROP COLUMN txs_before;
