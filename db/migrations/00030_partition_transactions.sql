-- transactions becomes partitioned by block range like calls, events and token_transfers
-- (00028), with the same partitions, made by the indexer ahead of the blocks it writes.
-- A transaction's hash must stay unique, and PostgreSQL has no unique index across
-- partitions: the hashes move to transaction_hashes, keyed by the hash, and a lookup by
-- hash goes through it to the transaction's (block_number, tx_index), which finds one
-- partition. It is removed on a reorg by the cascade from blocks, like the rows it names.
--
-- The table's rows stay where they are (it becomes the partition transactions_0); their
-- hashes are copied once into transaction_hashes. The foreign keys that reference
-- transactions are made again on the parent, which checks each once against its rows (a
-- join: minutes on a mainnet-sized events table).
-- Idempotent, so that it can be applied twice.

-- +goose Up
CREATE TABLE IF NOT EXISTS transaction_hashes (
    hash         bytea   PRIMARY KEY,
    block_number bigint  NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    tx_index     integer NOT NULL
);
-- The cascade from blocks on a reorg.
CREATE INDEX IF NOT EXISTS transaction_hashes_block ON transaction_hashes (block_number);

-- +goose StatementBegin
DO $$
DECLARE
    size        bigint := (SELECT blocks_per_partition FROM block_partitioning);
    top         bigint;
    referencing text[];
    stmts       text[];
    stmt        text;
    ix          text;
BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = 'transactions'::regclass) = 'p' THEN
        RETURN;
    END IF;
    INSERT INTO transaction_hashes (hash, block_number, tx_index)
    SELECT hash, block_number, tx_index FROM transactions ON CONFLICT DO NOTHING;

    -- The foreign keys of the tables that reference transactions (each partitioned table's
    -- own, which its partitions' follow), dropped until the parent can be referenced.
    SELECT coalesce(array_agg(format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
                              ORDER BY conrelid::regclass::text), '{}')
    INTO referencing
    FROM pg_constraint WHERE confrelid = 'transactions'::regclass AND contype = 'f' AND conparentid = 0;
    FOR stmt IN SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname)
                FROM pg_constraint WHERE confrelid = 'transactions'::regclass AND contype = 'f' AND conparentid = 0 LOOP
        EXECUTE stmt;
    END LOOP;
    DROP INDEX IF EXISTS transactions_hash;

    -- As 00028 does for each of its tables.
    SELECT array_agg(s ORDER BY o) INTO stmts FROM (
        SELECT 1 AS o, format('ALTER TABLE transactions ADD CONSTRAINT %I %s', conname, pg_get_constraintdef(oid)) AS s
        FROM pg_constraint WHERE conrelid = 'transactions'::regclass AND contype = 'p'
        UNION ALL
        SELECT 2, pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'transactions'::regclass AND NOT indisprimary
        UNION ALL
        SELECT 3, format('ALTER TABLE transactions ADD CONSTRAINT %I %s', conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE conrelid = 'transactions'::regclass AND contype = 'f') parts;
    ALTER TABLE transactions RENAME TO transactions_0;
    FOR ix IN SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
              WHERE x.indrelid = 'transactions_0'::regclass LOOP
        EXECUTE format('ALTER INDEX %I RENAME TO %I', ix,
            CASE WHEN starts_with(ix, 'transactions_') THEN 'transactions_0' || substr(ix, length('transactions') + 1)
                 ELSE 'transactions_0_' || ix END);
    END LOOP;
    CREATE TABLE transactions (LIKE transactions_0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS)
        PARTITION BY RANGE (block_number);
    FOREACH stmt IN ARRAY stmts LOOP
        EXECUTE stmt;
    END LOOP;
    SELECT coalesce(max(block_number), -1) INTO top FROM transactions_0;
    EXECUTE format('ALTER TABLE transactions ATTACH PARTITION transactions_0 FOR VALUES FROM (MINVALUE) TO (%s)',
        (top / size + 1) * size);
    -- The foreign keys that referenced the table, now on the parent.
    FOREACH stmt IN ARRAY referencing LOOP
        EXECUTE stmt;
    END LOOP;
END $$;
-- +goose StatementEnd
ANALYZE transactions, transaction_hashes;

-- +goose Down
-- Back to a plain table, copied out of its partitions, with its unique hash index.
-- +goose StatementBegin
DO $$
DECLARE
    referencing text[];
    stmts       text[];
    stmt        text;
BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = 'transactions'::regclass) <> 'p' THEN
        RETURN;
    END IF;
    SELECT coalesce(array_agg(format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
                              ORDER BY conrelid::regclass::text), '{}')
    INTO referencing
    FROM pg_constraint WHERE confrelid = 'transactions'::regclass AND contype = 'f' AND conparentid = 0;
    FOR stmt IN SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname)
                FROM pg_constraint WHERE confrelid = 'transactions'::regclass AND contype = 'f' AND conparentid = 0 LOOP
        EXECUTE stmt;
    END LOOP;
    SELECT array_agg(s ORDER BY o) INTO stmts FROM (
        SELECT 1 AS o, format('ALTER TABLE transactions ADD CONSTRAINT %I %s', conname, pg_get_constraintdef(oid)) AS s
        FROM pg_constraint WHERE conrelid = 'transactions'::regclass AND contype = 'p'
        UNION ALL
        SELECT 2, replace(pg_get_indexdef(indexrelid), ' ON ONLY ', ' ON ') FROM pg_index
        WHERE indrelid = 'transactions'::regclass AND NOT indisprimary
        UNION ALL
        SELECT 3, format('ALTER TABLE transactions ADD CONSTRAINT %I %s', conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE conrelid = 'transactions'::regclass AND contype = 'f') parts;
    ALTER TABLE transactions RENAME TO transactions_partitioned;
    CREATE TABLE transactions (LIKE transactions_partitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS);
    INSERT INTO transactions SELECT * FROM transactions_partitioned;
    DROP TABLE transactions_partitioned;
    FOREACH stmt IN ARRAY stmts LOOP
        EXECUTE stmt;
    END LOOP;
    CREATE UNIQUE INDEX transactions_hash ON transactions (hash);
    FOREACH stmt IN ARRAY referencing LOOP
        EXECUTE stmt;
    END LOOP;
END $$;
-- +goose StatementEnd
DROP TABLE transaction_hashes;
