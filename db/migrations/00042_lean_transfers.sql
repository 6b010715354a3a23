-- token_transfers stops copying its transaction's hash (33 bytes) and its block's time
-- (8), and erc20_balance_changes its block's time (8): about 90 bytes per transaction of
-- the two tables' rows (2.05 transfers and 2.2 balance changes per transaction). Readers
-- join them instead (db/read_transfers.go): a transfer's transaction by transactions_pkey,
-- a balance change's block by blocks_pkey, after the page is cut, so that a page of 25
-- rows costs 25 probes at any depth. No index holds these columns. Filters by time become
-- block ranges through blocks_time_number, as they already did.
--
-- A dropped column keeps its place in the rows written before and in the table's
-- row type: each row written after carries a null bitmap for it, which costs a
-- token_transfers row 8 bytes (it has more than 8 columns with the dropped ones). So
-- each partition of token_transfers is made again without them (LIKE the parent, as
-- db/partitions.go makes new ones), its rows copied into it; erc20_balance_changes (5
-- columns: the bitmap fits in the row header's padding) is rewritten in place. On a
-- database with the chain already indexed that copies both tables once and builds their
-- indexes again, under a lock that stops the indexer and their readers: apply it in a
-- maintenance window (like 00031 and 00033). On a new database both are empty.
--
-- Idempotent, so that it can be applied twice: what is done already is skipped.

-- +goose Up
ALTER TABLE token_transfers DROP COLUMN IF EXISTS transaction_hash, DROP COLUMN IF EXISTS timestamp;

-- +goose StatementBegin
DO $$
DECLARE
    p     record;
    cols  text := (SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
                   WHERE attrelid = 'token_transfers'::regclass AND attnum > 0 AND NOT attisdropped);
BEGIN
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'token_transfers'::regclass
               AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attisdropped)
             ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I (LIKE token_transfers INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)', p.name || '_lean');
        EXECUTE format('INSERT INTO %I (%s) SELECT %s FROM %I', p.name || '_lean', cols, cols, p.name);
        EXECUTE format('ALTER TABLE token_transfers DETACH PARTITION %I', p.name);
        EXECUTE format('DROP TABLE %I', p.name);
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name || '_lean', p.name);
        -- Builds the partition's indexes and checks its rows' range and foreign key.
        EXECUTE format('ALTER TABLE token_transfers ATTACH PARTITION %I %s', p.name, p.bound);
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'erc20_balance_changes'::regclass AND attname = 'timestamp' AND NOT attisdropped) THEN
        ALTER TABLE erc20_balance_changes DROP COLUMN timestamp;
        -- Rewrites the rows without the dropped column's 8 bytes (and rebuilds the indexes).
        ALTER TABLE erc20_balance_changes ALTER COLUMN balance TYPE numeric(78,0) USING balance + 0;
    END IF;
END $$;
-- +goose StatementEnd

-- Autovacuum analyzes partitions, never their parents (db.AnalyzePartitioned).
ANALYZE token_transfers, erc20_balance_changes;

-- +goose Down
ALTER TABLE token_transfers ADD COLUMN transaction_hash bytea, ADD COLUMN timestamp bigint;
UPDATE token_transfers e SET transaction_hash = t.hash, timestamp = t.timestamp
FROM transactions t WHERE t.block_number = e.block_number AND t.tx_index = e.tx_index;
ALTER TABLE token_transfers ALTER COLUMN transaction_hash SET NOT NULL, ALTER COLUMN timestamp SET NOT NULL;
ALTER TABLE erc20_balance_changes ADD COLUMN timestamp bigint;
UPDATE erc20_balance_changes c SET timestamp = b.timestamp FROM blocks b WHERE b.number = c.block_number;
ALTER TABLE erc20_balance_changes ALTER COLUMN timestamp SET NOT NULL;
