-- Positions in the lists of hot keys (db/key_positions.go): a page number of a key with a
-- million rows (the events of STRK, page 20,000) seeks to a mark near its first row and skips
-- fewer than a thousand rows from there, instead of skipping every row above it.
--
-- key_counts: for each list that the APIs filter by one key (list: the numbers of
-- db.keyList), how many rows each key has, exact. The APIs report it as the list's total.
-- key_marks: for each key with more than a thousand rows, where its rows 1000, 2000, ... stand,
-- counted from its oldest row from 0 (ordinal), as the list's sort key (block, transaction,
-- event; event_index 0 for lists of transactions).
--
-- The indexer writes both in the transaction that writes the rows (db.InsertChainRows), and
-- a reorg takes back what the blocks above its fork point added (db.UndoAbove). This
-- migration fills them for the rows already indexed. Idempotent.

-- +goose Up
CREATE TABLE IF NOT EXISTS key_counts (
    list smallint NOT NULL,
    key  bytea    NOT NULL,
    n    bigint   NOT NULL,
    PRIMARY KEY (list, key)
);
CREATE TABLE IF NOT EXISTS key_marks (
    list         smallint NOT NULL,
    key          bytea    NOT NULL,
    ordinal      bigint   NOT NULL,
    block_number bigint   NOT NULL,
    tx_index     integer  NOT NULL,
    event_index  integer  NOT NULL,
    PRIMARY KEY (list, key, ordinal)
);
-- A reorg deletes the marks above its fork point.
CREATE INDEX IF NOT EXISTS key_marks_block ON key_marks (block_number);
COMMENT ON INDEX key_marks_block IS 'a reorg deletes the marks above its fork point (db.UndoAbove)';

-- fill_key_positions counts and marks every key of every list again from the rows: the
-- migration runs it once, and tests that write rows directly run it as the indexer's part
-- (dbtest.DeriveAsIndexer).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION fill_key_positions(every bigint DEFAULT 1000) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events',
        'SELECT sender_address AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT contract_address AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT convert_to(type::text, ''UTF8'') AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT token_address AS key, block_number, tx_index, event_index FROM token_transfers',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers',
        'SELECT to_address AS key, block_number, tx_index, event_index FROM token_transfers',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers
            UNION ALL SELECT to_address, block_number, tx_index, event_index FROM token_transfers WHERE to_address <> from_address'];
BEGIN
    DELETE FROM key_marks;
    DELETE FROM key_counts;
    FOR i IN 1 .. array_length(lists, 1) LOOP
        -- lists[i]: one row (key, block_number, tx_index, event_index) per row of list i.
        EXECUTE format('INSERT INTO key_counts (list, key, n) SELECT %s, key, count(*) FROM (%s) r
            WHERE key IS NOT NULL GROUP BY key', i, lists[i]);
        EXECUTE format('INSERT INTO key_marks (list, key, ordinal, block_number, tx_index, event_index)
            SELECT %s, key, o, block_number, tx_index, event_index FROM (
                SELECT key, block_number, tx_index, event_index,
                    row_number() OVER (PARTITION BY key ORDER BY block_number, tx_index, event_index) - 1 AS o
                FROM (%s) r WHERE key IN (SELECT key FROM key_counts WHERE list = %s AND n > %s)) x
            WHERE o > 0 AND o %% %s = 0', i, lists[i], i, every, every);
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM key_counts) THEN
        PERFORM fill_key_positions();
    END IF;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION IF EXISTS fill_key_positions(bigint);
DROP TABLE IF EXISTS key_marks;
DROP TABLE IF EXISTS key_counts;
