-- The three largest per-block tables (calls, events, token_transfers) become partitioned
-- by block range, so that old ranges stay cold: vacuum, index upkeep and a reorg touch the
-- newest partition, and an old range can be detached and archived as a plain table.
-- Partitions are named after their first block (events_1000000 holds blocks 1000000 to
-- 1999999); the indexer creates each one ahead of the blocks it writes (db/partitions.go),
-- blocks_per_partition blocks long.
--
-- Each table's rows stay where they are: the table is renamed <table>_0 and attached as
-- the partition of every block below the next multiple of blocks_per_partition, with its
-- indexes and foreign keys, which the new parent adopts as they are. Attaching reads the
-- table once to check its range (a sequential scan: minutes on a mainnet-sized events
-- table), and nothing is copied. transactions stays whole: PostgreSQL has no unique index
-- across partitions, and its hash must stay unique (docs/scaling.md).
-- Idempotent, so that it can be applied twice.

-- +goose Up
CREATE TABLE IF NOT EXISTS block_partitioning (
    only_row             boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    blocks_per_partition bigint  NOT NULL DEFAULT 1000000 CHECK (blocks_per_partition > 0)
);
INSERT INTO block_partitioning DEFAULT VALUES ON CONFLICT DO NOTHING;

-- +goose StatementBegin
DO $$
DECLARE
    t       text;
    legacy  text;
    size    bigint := (SELECT blocks_per_partition FROM block_partitioning);
    top     bigint;
    stmts   text[];
    stmt    text;
    ix      text;
BEGIN
    FOREACH t IN ARRAY ARRAY['calls', 'events', 'token_transfers'] LOOP
        CONTINUE WHEN (SELECT relkind FROM pg_class WHERE oid = t::regclass) = 'p';
        legacy := t || '_0';
        -- What the parent needs, read while the names still point at the table: its
        -- primary key, secondary indexes and foreign keys.
        SELECT array_agg(s ORDER BY o) INTO stmts FROM (
            SELECT 1 AS o, format('ALTER TABLE %I ADD CONSTRAINT %I %s', t, conname, pg_get_constraintdef(oid)) AS s
            FROM pg_constraint WHERE conrelid = t::regclass AND contype = 'p'
            UNION ALL
            SELECT 2, pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = t::regclass AND NOT indisprimary
            UNION ALL
            SELECT 3, format('ALTER TABLE %I ADD CONSTRAINT %I %s', t, conname, pg_get_constraintdef(oid))
            FROM pg_constraint WHERE conrelid = t::regclass AND contype = 'f') parts;
        EXECUTE format('ALTER TABLE %I RENAME TO %I', t, legacy);
        -- Free the index names for the parent's: events_from becomes events_0_from.
        FOR ix IN SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                  WHERE x.indrelid = legacy::regclass LOOP
            EXECUTE format('ALTER INDEX %I RENAME TO %I', ix,
                CASE WHEN starts_with(ix, t || '_') THEN legacy || substr(ix, length(t) + 1) ELSE legacy || '_' || ix END);
        END LOOP;
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS)
            PARTITION BY RANGE (block_number)', t, legacy);
        FOREACH stmt IN ARRAY stmts LOOP
            EXECUTE stmt;
        END LOOP;
        EXECUTE format('SELECT coalesce(max(block_number), -1) FROM %I', legacy) INTO top;
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%s)',
            t, legacy, (top / size + 1) * size);
    END LOOP;
END $$;
-- +goose StatementEnd
-- Autovacuum analyzes partitions, never their parents (db.AnalyzePartitioned).
ANALYZE calls, events, token_transfers;

-- +goose Down
-- Back to plain tables: each one's rows are copied out of its partitions.
-- +goose StatementBegin
DO $$
DECLARE
    t      text;
    stmts  text[];
    stmt   text;
BEGIN
    FOREACH t IN ARRAY ARRAY['calls', 'events', 'token_transfers'] LOOP
        CONTINUE WHEN (SELECT relkind FROM pg_class WHERE oid = t::regclass) <> 'p';
        SELECT array_agg(s ORDER BY o) INTO stmts FROM (
            SELECT 1 AS o, format('ALTER TABLE %I ADD CONSTRAINT %I %s', t, conname, pg_get_constraintdef(oid)) AS s
            FROM pg_constraint WHERE conrelid = t::regclass AND contype = 'p'
            UNION ALL
            SELECT 2, replace(pg_get_indexdef(indexrelid), ' ON ONLY ', ' ON ') FROM pg_index
            WHERE indrelid = t::regclass AND NOT indisprimary
            UNION ALL
            SELECT 3, format('ALTER TABLE %I ADD CONSTRAINT %I %s', t, conname, pg_get_constraintdef(oid))
            FROM pg_constraint WHERE conrelid = t::regclass AND contype = 'f') parts;
        EXECUTE format('ALTER TABLE %I RENAME TO %I', t, t || '_partitioned');
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS)',
            t, t || '_partitioned');
        EXECUTE format('INSERT INTO %I SELECT * FROM %I', t, t || '_partitioned');
        EXECUTE format('DROP TABLE %I', t || '_partitioned');
        FOREACH stmt IN ARRAY stmts LOOP
            EXECUTE stmt;
        END LOOP;
    END LOOP;
END $$;
-- +goose StatementEnd
DROP TABLE block_partitioning;
