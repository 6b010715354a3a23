-- token_transfers names its token and its two sides by felt id (felt_ids, 00045):
-- token_id, from_id, to_id in place of token_address, from_address, to_address (the zero
-- address of a mint or a burn is the empty felt, which has an id like any other). Measured
-- on the 1M bench database (a copy of the table with the same indexes), bytes per
-- transaction: rows 325 -> 144, indexes 536 -> 314 (docs/performance.md, Storage).
-- Readers find the ids with one felt_ids_felt probe per statement and read a page's
-- addresses back by felt_ids_pkey, three probes a row of the page (db/read_transfers.go).
--
-- The table is made again with the same partitions, its rows copied into it with their
-- ids, in chain order, before the old one is dropped; its keys, foreign key and indexes
-- are built after. On a database with the chain already indexed that copies the table
-- once, under a lock that stops the indexer and the table's readers: apply it in a
-- maintenance window (like 00042). It needs free space for the new rows (about 45% of
-- the old table's rows), not for its indexes, which are built once the old table is gone.
-- Idempotent, so that it can be applied twice: a converted table is skipped.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'token_transfers'::regclass
                   AND attname = 'token_address' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    INSERT INTO felt_ids (felt)
    SELECT felt FROM (SELECT token_address AS felt FROM token_transfers
                      UNION SELECT from_address FROM token_transfers
                      UNION SELECT to_address FROM token_transfers) f
    ORDER BY felt
    ON CONFLICT (felt) DO NOTHING;

    CREATE TABLE token_transfers_ids (
        block_number bigint        NOT NULL,
        tx_index     integer       NOT NULL,
        event_index  integer       NOT NULL,
        token_id     integer       NOT NULL,
        from_id      integer       NOT NULL,
        to_id        integer       NOT NULL,
        amount       numeric(78,0) NOT NULL,
        -- the transfer that pays the transaction's fee, from its sender to the sequencer
        is_fee       boolean       NOT NULL DEFAULT false
    ) PARTITION BY RANGE (block_number);
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'token_transfers'::regclass ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF token_transfers_ids %s', p.name || '_ids', p.bound);
        EXECUTE format('INSERT INTO %I (block_number, tx_index, event_index, token_id, from_id, to_id, amount, is_fee)
            SELECT e.block_number, e.tx_index, e.event_index, tk.id, f.id, t.id, e.amount, e.is_fee
            FROM %I e JOIN felt_ids tk ON tk.felt = e.token_address
            JOIN felt_ids f ON f.felt = e.from_address JOIN felt_ids t ON t.felt = e.to_address
            ORDER BY e.block_number, e.tx_index, e.event_index', p.name || '_ids', p.name);
    END LOOP;
    DROP TABLE token_transfers;
    ALTER TABLE token_transfers_ids RENAME TO token_transfers;
    FOR p IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'token_transfers'::regclass LOOP
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left(p.name, -length('_ids')));
    END LOOP;
    ALTER TABLE token_transfers
        ADD CONSTRAINT token_transfers_pkey PRIMARY KEY (block_number, tx_index, event_index),
        ADD CONSTRAINT token_transfers_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index)
            REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE;
    CREATE INDEX token_transfers_from ON token_transfers (from_id, block_number DESC, tx_index DESC, event_index DESC);
    CREATE INDEX token_transfers_to ON token_transfers (to_id, block_number DESC, tx_index DESC, event_index DESC);
    CREATE INDEX token_transfers_token ON token_transfers (token_id, block_number DESC, tx_index DESC, event_index DESC);
    COMMENT ON INDEX token_transfers_pkey IS 'a transaction''s transfers (read_transfers.go, by (block_number, tx_index)), the live feed by block, the cascade from transactions';
    COMMENT ON INDEX token_transfers_from IS 'transfers of a wallet, the sending side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';
    COMMENT ON INDEX token_transfers_to IS 'transfers of a wallet, the receiving side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';
    COMMENT ON INDEX token_transfers_token IS 'transfers of a token, newest first (/beta/transfers?token=, GraphQL transfers(filter: {token}))';
END $$;
-- +goose StatementEnd
-- Autovacuum analyzes partitions, never their parents (db.AnalyzePartitioned).
ANALYZE felt_ids, token_transfers;

-- The tables that name felts by id, with the felts: for SQL written by hand (an
-- operator's question, a test). The APIs read the tables themselves.
CREATE OR REPLACE VIEW token_transfers_named AS
SELECT e.block_number, e.tx_index, e.event_index, tk.felt AS token_address, f.felt AS from_address,
       t.felt AS to_address, e.amount, e.is_fee
FROM token_transfers e
JOIN felt_ids tk ON tk.id = e.token_id JOIN felt_ids f ON f.id = e.from_id JOIN felt_ids t ON t.id = e.to_id;
CREATE OR REPLACE VIEW erc20_balance_changes_named AS
SELECT tk.felt AS token_address, o.felt AS owner_address, c.block_number, c.balance
FROM erc20_balance_changes c JOIN felt_ids tk ON tk.id = c.token_id JOIN felt_ids o ON o.id = c.owner_id;

-- fill_key_positions (00037) reads the transfers' addresses through the view.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION fill_key_positions(every bigint DEFAULT 1000) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events',
        'SELECT sender_address AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT contract_address AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT convert_to(type::text, ''UTF8'') AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT token_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT to_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named
            UNION ALL SELECT to_address, block_number, tx_index, event_index FROM token_transfers_named WHERE to_address <> from_address'];
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

-- +goose Down
DROP VIEW token_transfers_named, erc20_balance_changes_named;
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    CREATE TABLE token_transfers_felts (
        block_number  bigint        NOT NULL,
        tx_index      integer       NOT NULL,
        event_index   integer       NOT NULL,
        token_address bytea         NOT NULL,
        from_address  bytea         NOT NULL,
        to_address    bytea         NOT NULL,
        amount        numeric(78,0) NOT NULL,
        is_fee        boolean       NOT NULL DEFAULT false
    ) PARTITION BY RANGE (block_number);
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'token_transfers'::regclass ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF token_transfers_felts %s', p.name || '_felts', p.bound);
        EXECUTE format('INSERT INTO %I SELECT e.block_number, e.tx_index, e.event_index, tk.felt, f.felt, t.felt, e.amount, e.is_fee
            FROM %I e JOIN felt_ids tk ON tk.id = e.token_id JOIN felt_ids f ON f.id = e.from_id JOIN felt_ids t ON t.id = e.to_id
            ORDER BY e.block_number, e.tx_index, e.event_index', p.name || '_felts', p.name);
    END LOOP;
    DROP TABLE token_transfers;
    ALTER TABLE token_transfers_felts RENAME TO token_transfers;
    FOR p IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'token_transfers'::regclass LOOP
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left(p.name, -length('_felts')));
    END LOOP;
    ALTER TABLE token_transfers
        ADD CONSTRAINT token_transfers_pkey PRIMARY KEY (block_number, tx_index, event_index),
        ADD CONSTRAINT token_transfers_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index)
            REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE;
    CREATE INDEX token_transfers_from ON token_transfers (from_address, block_number DESC, tx_index DESC, event_index DESC);
    CREATE INDEX token_transfers_to ON token_transfers (to_address, block_number DESC, tx_index DESC, event_index DESC);
    CREATE INDEX token_transfers_token ON token_transfers (token_address, block_number DESC, tx_index DESC, event_index DESC);
    COMMENT ON INDEX token_transfers_pkey IS 'a transaction''s transfers (read_transfers.go, by (block_number, tx_index)), the live feed by block, the cascade from transactions';
    COMMENT ON INDEX token_transfers_from IS 'transfers of a wallet, the sending side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';
    COMMENT ON INDEX token_transfers_to IS 'transfers of a wallet, the receiving side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';
    COMMENT ON INDEX token_transfers_token IS 'transfers of a token, newest first (/beta/transfers?token=, GraphQL transfers(filter: {token}))';
END $$;
-- +goose StatementEnd

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
