-- events names its emitter and its first key (the event's selector) by felt id (felt_ids,
-- 00045): from_id and key0_id in place of from_address and key0. Measured on the 1M bench
-- database (a copy of the table with the same indexes), bytes per transaction: rows 519
-- -> 384, indexes 417 -> 264 (docs/performance.md, Storage). Readers find an id with one
-- felt_ids_felt probe per statement and a page's emitters in the Store's cache of
-- felt_ids (db/felt_ids.go); the first key is in keys too.
--
-- The table is made again with the same partitions, its rows copied into it with their
-- ids, in chain order, before the old one is dropped; its keys, foreign key and indexes
-- are built after. On a database with the chain already indexed that copies the table
-- once, under a lock that stops the indexer and the table's readers: apply it in a
-- maintenance window (like 00046). It needs free space for the new rows (about three
-- quarters of the old table's rows). Idempotent: a converted table is skipped.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'events'::regclass
                   AND attname = 'from_address' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    INSERT INTO felt_ids (felt)
    SELECT felt FROM (SELECT from_address AS felt FROM events
                      UNION SELECT key0 FROM events WHERE key0 IS NOT NULL) f
    ORDER BY felt
    ON CONFLICT (felt) DO NOTHING;

    CREATE TABLE events_ids (
        block_number bigint  NOT NULL,
        tx_index     integer NOT NULL,
        event_index  integer NOT NULL,
        from_id      integer NOT NULL,           -- the emitter
        key0_id      integer,                    -- the first key, for events_key0; NULL: no keys
        keys         bytea   NOT NULL DEFAULT '\x'::bytea, -- packed (00040)
        data         bytea   NOT NULL DEFAULT '\x'::bytea
    ) PARTITION BY RANGE (block_number);
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'events'::regclass ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF events_ids %s', p.name || '_ids', p.bound);
        EXECUTE format('INSERT INTO %I (block_number, tx_index, event_index, from_id, key0_id, keys, data)
            SELECT e.block_number, e.tx_index, e.event_index, f.id, k.id, e.keys, e.data
            FROM %I e JOIN felt_ids f ON f.felt = e.from_address LEFT JOIN felt_ids k ON k.felt = e.key0
            ORDER BY e.block_number, e.tx_index, e.event_index', p.name || '_ids', p.name);
    END LOOP;
    DROP TABLE events;
    ALTER TABLE events_ids RENAME TO events;
    FOR p IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'events'::regclass LOOP
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left(p.name, -length('_ids')));
    END LOOP;
    ALTER TABLE events
        ADD CONSTRAINT events_pkey PRIMARY KEY (block_number, tx_index, event_index),
        ADD CONSTRAINT events_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index)
            REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE;
    CREATE INDEX events_from ON events (from_id, block_number, tx_index, event_index);
    CREATE INDEX events_key0 ON events (key0_id, block_number, tx_index, event_index);
    COMMENT ON INDEX events_pkey IS 'a transaction''s events, events of a block range in chain order, the cascade from transactions';
    COMMENT ON INDEX events_from IS 'events of a contract in chain order: /beta/events?contract=, GraphQL events(filter: {contract})';
    COMMENT ON INDEX events_key0 IS 'events of a key (selector) in chain order: GraphQL events(filter: {key})';
END $$;
-- +goose StatementEnd
-- Autovacuum analyzes partitions, never their parents (db.AnalyzePartitioned).
ANALYZE felt_ids, events;

-- events with its emitter and first key, for SQL written by hand (00046's views).
CREATE OR REPLACE VIEW events_named AS
SELECT e.block_number, e.tx_index, e.event_index, f.felt AS from_address, k.felt AS key0, e.keys, e.data
FROM events e JOIN felt_ids f ON f.id = e.from_id LEFT JOIN felt_ids k ON k.id = e.key0_id;

-- fill_key_positions (00037) reads the events' emitters and first keys through the view.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION fill_key_positions(every bigint DEFAULT 1000) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events_named',
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
DROP VIEW events_named;
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    CREATE TABLE events_felts (
        block_number bigint  NOT NULL,
        tx_index     integer NOT NULL,
        event_index  integer NOT NULL,
        from_address bytea   NOT NULL,
        key0         bytea,
        keys         bytea   NOT NULL DEFAULT '\x'::bytea,
        data         bytea   NOT NULL DEFAULT '\x'::bytea
    ) PARTITION BY RANGE (block_number);
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'events'::regclass ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF events_felts %s', p.name || '_felts', p.bound);
        EXECUTE format('INSERT INTO %I SELECT e.block_number, e.tx_index, e.event_index, f.felt, k.felt, e.keys, e.data
            FROM %I e JOIN felt_ids f ON f.id = e.from_id LEFT JOIN felt_ids k ON k.id = e.key0_id
            ORDER BY e.block_number, e.tx_index, e.event_index', p.name || '_felts', p.name);
    END LOOP;
    DROP TABLE events;
    ALTER TABLE events_felts RENAME TO events;
    FOR p IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'events'::regclass LOOP
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left(p.name, -length('_felts')));
    END LOOP;
    ALTER TABLE events
        ADD CONSTRAINT events_pkey PRIMARY KEY (block_number, tx_index, event_index),
        ADD CONSTRAINT events_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index)
            REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE;
    CREATE INDEX events_from ON events (from_address, block_number, tx_index, event_index);
    CREATE INDEX events_key0 ON events (key0, block_number, tx_index, event_index);
    COMMENT ON INDEX events_pkey IS 'a transaction''s events, events of a block range in chain order, the cascade from transactions';
    COMMENT ON INDEX events_from IS 'events of a contract in chain order: /beta/events?contract=, GraphQL events(filter: {contract})';
    COMMENT ON INDEX events_key0 IS 'events of a key (selector) in chain order: GraphQL events(filter: {key})';
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
