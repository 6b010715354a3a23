-- transactions names its sender, its contract and its class by felt id (felt_ids, 00045):
-- sender_id, contract_id and class_id in place of sender_address, contract_address and
-- class_hash (NULL where the transaction has none). A few accounts send most transactions
-- and a few account classes serve them, so each column was a 33-byte copy of one of few
-- felts: about 60 bytes of each row, and the index of senders shrinks by half, about 95
-- bytes a transaction on the 1M bench database (docs/performance.md, Storage). Readers
-- find an id with one felt_ids_felt probe per statement, and a page's felts in the
-- Store's cache of felt_ids (db/felt_ids.go); transactions_named shows the felts.
--
-- Rewrites the table once (ALTER COLUMN TYPE ... USING), under a lock that stops the
-- indexer and the table's readers, and builds its indexes again: a maintenance window on a
-- large database (like 00050). Idempotent: a converted table is skipped.

-- +goose Up
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'transactions'::regclass
                   AND attname = 'sender_address' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    INSERT INTO felt_ids (felt)
    SELECT felt FROM (SELECT sender_address AS felt FROM transactions WHERE sender_address IS NOT NULL
                      UNION SELECT contract_address FROM transactions WHERE contract_address IS NOT NULL
                      UNION SELECT class_hash FROM transactions WHERE class_hash IS NOT NULL) f
    ORDER BY felt
    ON CONFLICT (felt) DO NOTHING;
    CREATE FUNCTION pg_temp.id_of(f bytea) RETURNS integer LANGUAGE sql STABLE AS
    $f$ SELECT id FROM felt_ids WHERE felt = f $f$;
    ALTER TABLE transactions
        ALTER COLUMN sender_address TYPE integer USING pg_temp.id_of(sender_address),
        ALTER COLUMN contract_address TYPE integer USING pg_temp.id_of(contract_address),
        ALTER COLUMN class_hash TYPE integer USING pg_temp.id_of(class_hash);
    ALTER TABLE transactions RENAME COLUMN sender_address TO sender_id;
    ALTER TABLE transactions RENAME COLUMN contract_address TO contract_id;
    ALTER TABLE transactions RENAME COLUMN class_hash TO class_id;
    DROP FUNCTION pg_temp.id_of;
END $$;
-- +goose StatementEnd
ANALYZE felt_ids, transactions;

-- transactions with its sender, contract and class, for SQL written by hand.
CREATE OR REPLACE VIEW transactions_named AS
SELECT t.*, s.felt AS sender_address, c.felt AS contract_address, k.felt AS class_hash
FROM transactions t
LEFT JOIN felt_ids s ON s.id = t.sender_id
LEFT JOIN felt_ids c ON c.id = t.contract_id
LEFT JOIN felt_ids k ON k.id = t.class_id;

-- fill_key_positions (00037) reads every list's keys through the views of felts.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION fill_key_positions(every bigint DEFAULT 1000) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT sender_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named',
        'SELECT contract_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named',
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
DROP VIEW IF EXISTS transactions_named;
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'transactions'::regclass
                   AND attname = 'sender_id' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    CREATE FUNCTION pg_temp.felt_of(felt_id integer) RETURNS bytea LANGUAGE sql STABLE AS
    $f$ SELECT felt FROM felt_ids WHERE id = felt_id $f$;
    ALTER TABLE transactions
        ALTER COLUMN sender_id TYPE bytea USING pg_temp.felt_of(sender_id),
        ALTER COLUMN contract_id TYPE bytea USING pg_temp.felt_of(contract_id),
        ALTER COLUMN class_id TYPE bytea USING pg_temp.felt_of(class_id);
    ALTER TABLE transactions RENAME COLUMN sender_id TO sender_address;
    ALTER TABLE transactions RENAME COLUMN contract_id TO contract_address;
    ALTER TABLE transactions RENAME COLUMN class_id TO class_hash;
    DROP FUNCTION pg_temp.felt_of;
END $$;
-- +goose StatementEnd
ANALYZE transactions;

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
