-- calls names its contract, its selector and its class by felt id (felt_ids, 00045):
-- contract_id, selector_id and class_id in place of contract_address, selector and
-- class_hash (NULL: a class not known when the call was indexed). A call row is 33 bytes
-- shorter for each, about 110 bytes a transaction (1.3 calls each). calls is read by
-- transaction only (db/read_chain.go callsByTx), which reads the ids and takes the felts
-- from the Store's cache of felt_ids; no index holds these columns.
--
-- The table is made again with the same partitions, its rows copied into it with their
-- ids, in chain order, before the old one is dropped; its key and foreign key are built
-- after. A maintenance window on a large database (like 00046). Idempotent: a converted
-- table is skipped.

-- +goose Up
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'calls'::regclass
                   AND attname = 'contract_address' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    INSERT INTO felt_ids (felt)
    SELECT felt FROM (SELECT contract_address AS felt FROM calls
                      UNION SELECT selector FROM calls
                      UNION SELECT class_hash FROM calls WHERE class_hash IS NOT NULL) f
    ORDER BY felt
    ON CONFLICT (felt) DO NOTHING;

    CREATE TABLE calls_ids (
        block_number    bigint   NOT NULL,
        tx_index        integer  NOT NULL,
        call_index      integer  NOT NULL,
        contract_id     integer  NOT NULL,
        selector_id     integer  NOT NULL,
        class_id        integer,
        calldata_offset smallint, -- the call's calldata in its transaction's (00043)
        calldata_length smallint,
        entrypoint      text,
        entrypoint_type text     NOT NULL DEFAULT 'EXTERNAL',
        call_type       text     NOT NULL DEFAULT 'CALL',
        calldata        bytea             DEFAULT '\x'::bytea,
        inputs          jsonb,
        outputs         jsonb
    ) PARTITION BY RANGE (block_number);
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'calls'::regclass ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF calls_ids %s', p.name || '_ids', p.bound);
        EXECUTE format('INSERT INTO %I (block_number, tx_index, call_index, contract_id, selector_id, class_id,
                calldata_offset, calldata_length, entrypoint, entrypoint_type, call_type, calldata, inputs, outputs)
            SELECT c.block_number, c.tx_index, c.call_index, a.id, s.id, k.id, c.calldata_offset, c.calldata_length,
                c.entrypoint, c.entrypoint_type, c.call_type, c.calldata, c.inputs, c.outputs
            FROM %I c JOIN felt_ids a ON a.felt = c.contract_address JOIN felt_ids s ON s.felt = c.selector
            LEFT JOIN felt_ids k ON k.felt = c.class_hash
            ORDER BY c.block_number, c.tx_index, c.call_index', p.name || '_ids', p.name);
    END LOOP;
    DROP TABLE calls;
    ALTER TABLE calls_ids RENAME TO calls;
    FOR p IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'calls'::regclass LOOP
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left(p.name, -length('_ids')));
    END LOOP;
    ALTER TABLE calls
        ADD CONSTRAINT calls_pkey PRIMARY KEY (block_number, tx_index, call_index),
        ADD CONSTRAINT calls_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index)
            REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE;
    COMMENT ON INDEX calls_pkey IS 'a transaction''s calls (read_chain.go, by (block_number, tx_index)), the cascade from transactions';
END $$;
-- +goose StatementEnd
-- Autovacuum analyzes partitions, never their parents (db.AnalyzePartitioned).
ANALYZE felt_ids, calls;

-- calls with its felts, for SQL written by hand (00046's views).
CREATE OR REPLACE VIEW calls_named AS
SELECT c.block_number, c.tx_index, c.call_index, a.felt AS contract_address, s.felt AS selector, k.felt AS class_hash,
       c.calldata_offset, c.calldata_length, c.entrypoint, c.entrypoint_type, c.call_type, c.calldata, c.inputs, c.outputs
FROM calls c JOIN felt_ids a ON a.id = c.contract_id JOIN felt_ids s ON s.id = c.selector_id
LEFT JOIN felt_ids k ON k.id = c.class_id;

-- +goose Down
DROP VIEW calls_named;
-- +goose StatementBegin
DO $$
DECLARE
    p record;
BEGIN
    CREATE TABLE calls_felts (
        block_number     bigint  NOT NULL,
        tx_index         integer NOT NULL,
        call_index       integer NOT NULL,
        contract_address bytea   NOT NULL,
        selector         bytea   NOT NULL,
        entrypoint       text,
        entrypoint_type  text    NOT NULL DEFAULT 'EXTERNAL',
        call_type        text    NOT NULL DEFAULT 'CALL',
        class_hash       bytea,
        calldata         bytea            DEFAULT '\x'::bytea,
        inputs           jsonb,
        outputs          jsonb,
        calldata_offset  smallint,
        calldata_length  smallint
    ) PARTITION BY RANGE (block_number);
    FOR p IN SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'calls'::regclass ORDER BY c.relname LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF calls_felts %s', p.name || '_felts', p.bound);
        EXECUTE format('INSERT INTO %I SELECT c.block_number, c.tx_index, c.call_index, a.felt, s.felt, c.entrypoint,
                c.entrypoint_type, c.call_type, k.felt, c.calldata, c.inputs, c.outputs, c.calldata_offset, c.calldata_length
            FROM %I c JOIN felt_ids a ON a.id = c.contract_id JOIN felt_ids s ON s.id = c.selector_id
            LEFT JOIN felt_ids k ON k.id = c.class_id
            ORDER BY c.block_number, c.tx_index, c.call_index', p.name || '_felts', p.name);
    END LOOP;
    DROP TABLE calls;
    ALTER TABLE calls_felts RENAME TO calls;
    FOR p IN SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'calls'::regclass LOOP
        EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left(p.name, -length('_felts')));
    END LOOP;
    ALTER TABLE calls
        ADD CONSTRAINT calls_pkey PRIMARY KEY (block_number, tx_index, call_index),
        ADD CONSTRAINT calls_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index)
            REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE;
    COMMENT ON INDEX calls_pkey IS 'a transaction''s calls (read_chain.go, by (block_number, tx_index)), the cascade from transactions';
END $$;
-- +goose StatementEnd
