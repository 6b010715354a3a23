-- A transaction's resource bounds and execution resources become typed columns instead of
-- jsonb (docs/performance.md, "Storage"). As jsonb they took 259 and 80 bytes a row for
-- nine numbers, key names included; as numeric they take 3 to 11 bytes a number.
--
-- * resource_bounds (v3 transactions; NULL before) -> max_l1_gas, max_l1_gas_price,
--   max_l2_gas, max_l2_gas_price, max_l1_data_gas, max_l1_data_gas_price: each resource's
--   max_amount and max_price_per_unit. l1_data_gas's pair is NULL when the stored bounds had
--   no l1_data_gas (the indexer writes 0x0 for a node that leaves it out, as it always did).
-- * execution_resources -> l1_gas_used, l2_gas_used, l1_data_gas_used.
--
-- db.Transaction.ResourceBounds and ExecutionResources render them as the jsonb text the
-- columns held (GraphQL's resourceBounds and executionResources are unchanged to the byte).
-- The indexer has always written exactly these shapes (the JSON of rpc.ResourceBounds and
-- rpc.ExecutionResources); a row of any other shape stops the migration, naming it, instead
-- of losing what it holds.
--
-- The new columns are filled by one rewrite of the table (ALTER COLUMN ... TYPE ... USING,
-- which reads the old row), in which the jsonb columns are set to NULL, so that dropping them
-- leaves nothing behind in the rows: a maintenance window on a large database, like 00031.
-- Applied twice, it does nothing the second time.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pg_temp.hex_numeric(h text) RETURNS numeric LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    d text := substr(h, 3);
    n numeric := 0;
    k int;
BEGIN
    WHILE d <> '' LOOP
        k := least(length(d), 15); -- 15 hex digits fit a bigint
        n := n * (1::bigint << (4 * k)) + ('x' || lpad(left(d, k), 16, '0'))::bit(64)::bigint;
        d := substr(d, k + 1);
    END LOOP;
    RETURN n;
END $$;

-- The shapes the indexer writes: canonical hex (0x, lowercase, no leading zeros) under
-- exactly these keys, l1_data_gas optional; three non-negative integers.
CREATE OR REPLACE FUNCTION pg_temp.bounds_ok(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT j IS NULL OR (jsonb_typeof(j) = 'object'
        AND (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(j) k) IN ('{l1_gas,l2_gas}', '{l1_data_gas,l1_gas,l2_gas}')
        AND NOT EXISTS (SELECT FROM jsonb_each(j) r WHERE jsonb_typeof(r.value) <> 'object'
            OR (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(r.value) k) <> '{max_amount,max_price_per_unit}'
            OR jsonb_typeof(r.value->'max_amount') <> 'string' OR jsonb_typeof(r.value->'max_price_per_unit') <> 'string'
            OR r.value->>'max_amount' !~ '^0x(0|[1-9a-f][0-9a-f]{0,63})$'
            OR r.value->>'max_price_per_unit' !~ '^0x(0|[1-9a-f][0-9a-f]{0,63})$'))
$$;
CREATE OR REPLACE FUNCTION pg_temp.resources_ok(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT j IS NULL OR (jsonb_typeof(j) = 'object'
        AND (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(j) k) = '{l1_data_gas,l1_gas,l2_gas}'
        AND NOT EXISTS (SELECT FROM jsonb_each(j) r WHERE jsonb_typeof(r.value) <> 'number'
            OR r.value::text !~ '^(0|[1-9][0-9]{0,19})$'))
$$;

DO $$
DECLARE
    bad bigint;
    example text;
BEGIN
    -- Applied already (a migration may run twice: db.Migrate after a bulk load).
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'transactions'::regclass
                   AND attname = 'resource_bounds' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    SELECT count(*), min(encode(hash, 'hex')) INTO bad, example FROM transactions
    WHERE NOT pg_temp.bounds_ok(resource_bounds) OR NOT pg_temp.resources_ok(execution_resources);
    IF bad > 0 THEN
        RAISE EXCEPTION '00041: % transactions (e.g. 0x%) have resource_bounds or execution_resources of a shape the typed columns cannot hold; they were not written by this indexer', bad, example;
    END IF;

    ALTER TABLE transactions
        ADD COLUMN max_l1_gas            numeric(78,0),
        ADD COLUMN max_l1_gas_price      numeric(78,0),
        ADD COLUMN max_l2_gas            numeric(78,0),
        ADD COLUMN max_l2_gas_price      numeric(78,0),
        ADD COLUMN max_l1_data_gas       numeric(78,0),
        ADD COLUMN max_l1_data_gas_price numeric(78,0),
        ADD COLUMN l1_gas_used           numeric(20,0),
        ADD COLUMN l2_gas_used           numeric(20,0),
        ADD COLUMN l1_data_gas_used      numeric(20,0);

    ALTER TABLE transactions
        ALTER COLUMN max_l1_gas            TYPE numeric(78,0) USING pg_temp.hex_numeric(resource_bounds #>> '{l1_gas,max_amount}'),
        ALTER COLUMN max_l1_gas_price      TYPE numeric(78,0) USING pg_temp.hex_numeric(resource_bounds #>> '{l1_gas,max_price_per_unit}'),
        ALTER COLUMN max_l2_gas            TYPE numeric(78,0) USING pg_temp.hex_numeric(resource_bounds #>> '{l2_gas,max_amount}'),
        ALTER COLUMN max_l2_gas_price      TYPE numeric(78,0) USING pg_temp.hex_numeric(resource_bounds #>> '{l2_gas,max_price_per_unit}'),
        ALTER COLUMN max_l1_data_gas       TYPE numeric(78,0) USING pg_temp.hex_numeric(resource_bounds #>> '{l1_data_gas,max_amount}'),
        ALTER COLUMN max_l1_data_gas_price TYPE numeric(78,0) USING pg_temp.hex_numeric(resource_bounds #>> '{l1_data_gas,max_price_per_unit}'),
        ALTER COLUMN l1_gas_used           TYPE numeric(20,0) USING (execution_resources ->> 'l1_gas')::numeric,
        ALTER COLUMN l2_gas_used           TYPE numeric(20,0) USING (execution_resources ->> 'l2_gas')::numeric,
        ALTER COLUMN l1_data_gas_used      TYPE numeric(20,0) USING (execution_resources ->> 'l1_data_gas')::numeric,
        ALTER COLUMN resource_bounds       TYPE jsonb USING NULL,
        ALTER COLUMN execution_resources   TYPE jsonb USING NULL;

    ALTER TABLE transactions DROP COLUMN resource_bounds, DROP COLUMN execution_resources;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION pg_temp.numeric_hex(n numeric) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    s text := '';
BEGIN
    IF n = 0 THEN
        RETURN '0x0';
    END IF;
    WHILE n > 0 LOOP
        s := lpad(to_hex((n % 1152921504606846976)::bigint), 15, '0') || s; -- 2^60: 15 hex digits
        n := div(n, 1152921504606846976);
    END LOOP;
    RETURN '0x' || ltrim(s, '0');
END $$;
-- +goose StatementEnd

ALTER TABLE transactions ADD COLUMN resource_bounds jsonb, ADD COLUMN execution_resources jsonb;

ALTER TABLE transactions
    ALTER COLUMN resource_bounds TYPE jsonb USING CASE WHEN max_l1_gas IS NOT NULL THEN
        jsonb_build_object(
            'l1_gas', jsonb_build_object('max_amount', pg_temp.numeric_hex(max_l1_gas), 'max_price_per_unit', pg_temp.numeric_hex(max_l1_gas_price)),
            'l2_gas', jsonb_build_object('max_amount', pg_temp.numeric_hex(max_l2_gas), 'max_price_per_unit', pg_temp.numeric_hex(max_l2_gas_price)))
        || CASE WHEN max_l1_data_gas IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('l1_data_gas',
            jsonb_build_object('max_amount', pg_temp.numeric_hex(max_l1_data_gas), 'max_price_per_unit', pg_temp.numeric_hex(max_l1_data_gas_price))) END
        END,
    ALTER COLUMN execution_resources TYPE jsonb USING CASE WHEN l1_gas_used IS NOT NULL THEN
        jsonb_build_object('l1_gas', l1_gas_used, 'l2_gas', l2_gas_used, 'l1_data_gas', l1_data_gas_used) END,
    ALTER COLUMN max_l1_gas TYPE numeric(78,0) USING NULL,
    ALTER COLUMN max_l1_gas_price TYPE numeric(78,0) USING NULL,
    ALTER COLUMN max_l2_gas TYPE numeric(78,0) USING NULL,
    ALTER COLUMN max_l2_gas_price TYPE numeric(78,0) USING NULL,
    ALTER COLUMN max_l1_data_gas TYPE numeric(78,0) USING NULL,
    ALTER COLUMN max_l1_data_gas_price TYPE numeric(78,0) USING NULL,
    ALTER COLUMN l1_gas_used TYPE numeric(20,0) USING NULL,
    ALTER COLUMN l2_gas_used TYPE numeric(20,0) USING NULL,
    ALTER COLUMN l1_data_gas_used TYPE numeric(20,0) USING NULL;

ALTER TABLE transactions DROP COLUMN max_l1_gas, DROP COLUMN max_l1_gas_price, DROP COLUMN max_l2_gas,
    DROP COLUMN max_l2_gas_price, DROP COLUMN max_l1_data_gas, DROP COLUMN max_l1_data_gas_price,
    DROP COLUMN l1_gas_used, DROP COLUMN l2_gas_used, DROP COLUMN l1_data_gas_used;
