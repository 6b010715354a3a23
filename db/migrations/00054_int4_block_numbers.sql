-- transactions, events and token_transfers store their block number as integer, not
-- bigint. Each of their secondary indexes leads with a 4-byte id (a sender, an emitter, a
-- token) and then the block: an 8-byte block after a 4-byte id pads the entry by 4 more
-- bytes, so an entry of (id, block, tx, event) took 32 bytes, and takes 24 now. On the 1M
-- bench database that is 96 -> 74 bytes a transaction for events_from alone, and about
-- 130 for the eight such indexes (docs/performance.md, Storage). 2^31 blocks are a
-- thousand years of Starknet blocks at today's pace; the Go side keeps int64, and
-- PostgreSQL compares integer with bigint (parameters, other tables' block numbers)
-- inside one operator family, so every index and partition bound still serves.
--
-- PostgreSQL cannot change the type of a partition key, so retype_block_numbers detaches
-- each table's partitions, converts them one by one (a rewrite each, with their indexes),
-- makes the parent again with the same columns, attaches them back, and puts back the
-- parent's indexes (with the queries they serve as comments), its keys, the foreign keys
-- that reference it and the views that read it: all found in the catalog, so that nothing
-- is written twice here. Like 00050-00052 this needs a maintenance window on a large
-- database and free disk for the largest partition; 00056 vacuums the rewritten tables.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION retype_block_numbers(tables text[], typ text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    it record;
    parent text;
    table_comment text;
    columns text;
    gaps text;
    storage text;
BEGIN
    -- What is made again last: the views that read these tables (and the views that read
    -- those), in the order they were made, then the foreign keys that reference them.
    CREATE TEMP TABLE retype_later (seq serial, stmt text);
    CREATE TEMP TABLE retype_views AS
    WITH RECURSIVE readers(oid) AS (
        SELECT r.ev_class FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
        WHERE d.refobjid IN (SELECT t::regclass FROM unnest(tables) t) AND r.ev_class <> d.refobjid
        UNION
        SELECT r.ev_class FROM readers v JOIN pg_depend d ON d.refobjid = v.oid
        JOIN pg_rewrite r ON r.oid = d.objid WHERE r.ev_class <> v.oid)
    SELECT DISTINCT c.oid, c.relname, pg_get_viewdef(c.oid) AS def, obj_description(c.oid, 'pg_class') AS comment
    FROM readers v JOIN pg_class c ON c.oid = v.oid;
    INSERT INTO retype_later (stmt)
    SELECT format('CREATE VIEW %I AS %s', relname, def) || coalesce(format('; COMMENT ON VIEW %I IS %L', relname, comment), '')
    FROM retype_views ORDER BY oid;
    FOR it IN SELECT relname FROM retype_views ORDER BY oid DESC LOOP
        EXECUTE format('DROP VIEW %I', it.relname);
    END LOOP;
    DROP TABLE retype_views;

    FOREACH parent IN ARRAY tables LOOP
        -- The foreign keys of other tables that reference this one, made again once it is.
        FOR it IN SELECT conrelid::regclass AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
                 WHERE confrelid = parent::regclass AND contype = 'f' AND conparentid = 0
                   AND conrelid <> parent::regclass LOOP
            INSERT INTO retype_later (stmt) VALUES (format('ALTER TABLE %s ADD CONSTRAINT %I %s', it.tbl, it.conname, it.def));
            EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', it.tbl, it.conname);
        END LOOP;

        CREATE TEMP TABLE retype_parent (seq serial, stmt text);
        -- Its keys, checks and foreign keys, then its other indexes with their comments.
        INSERT INTO retype_parent (stmt)
        SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', parent, conname, pg_get_constraintdef(c.oid))
            || coalesce(format('; COMMENT ON INDEX %I IS %L', i.relname, obj_description(i.oid, 'pg_class')), '')
        FROM pg_constraint c LEFT JOIN pg_class i ON i.oid = c.conindid
        WHERE c.conrelid = parent::regclass AND c.contype IN ('p', 'u', 'f', 'c') ORDER BY c.contype DESC, c.conname;
        INSERT INTO retype_parent (stmt)
        SELECT replace(pg_get_indexdef(i.oid), ' ON ONLY ', ' ON ')
            || coalesce(format('; COMMENT ON INDEX %I IS %L', i.relname, obj_description(i.oid, 'pg_class')), '')
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid = parent::regclass
          AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conindid = i.oid AND c.conrelid = parent::regclass)
        ORDER BY i.relname;
        CREATE TEMP TABLE retype_partitions AS
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid WHERE h.inhparent = parent::regclass;

        FOR it IN SELECT relname FROM retype_partitions LOOP
            EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, it.relname);
            EXECUTE format('ALTER TABLE %I ALTER COLUMN block_number TYPE %s', it.relname, typ);
        END LOOP;
        -- The parent again, column by column with the block number's new type: the same
        -- attribute numbers as before, a dropped column's slot kept by a column dropped
        -- again, since PostgreSQL's ALTER COLUMN ... USING of a later migration's down and
        -- up fails on partitions whose layout is not their parent's.
        table_comment := obj_description(parent::regclass, 'pg_class');
        SELECT string_agg(CASE WHEN a.attisdropped THEN format('retype_gap_%s integer', a.attnum)
                   ELSE format('%I %s%s%s', a.attname,
                       CASE WHEN a.attname = 'block_number' THEN typ ELSE format_type(a.atttypid, a.atttypmod) END,
                       CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END,
                       coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')) END, ', ' ORDER BY a.attnum),
               string_agg(format('DROP COLUMN retype_gap_%s', a.attnum), ', ') FILTER (WHERE a.attisdropped),
               string_agg(format('ALTER COLUMN %I SET STORAGE %s', a.attname, CASE a.attstorage
                   WHEN 'p' THEN 'PLAIN' WHEN 'e' THEN 'EXTERNAL' WHEN 'm' THEN 'MAIN' ELSE 'EXTENDED' END), ', ')
                   FILTER (WHERE NOT a.attisdropped AND a.attstorage <> ty.typstorage)
        INTO columns, gaps, storage
        FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        LEFT JOIN pg_type ty ON ty.oid = a.atttypid
        WHERE a.attrelid = parent::regclass AND a.attnum > 0;
        EXECUTE format('DROP TABLE %I', parent);
        EXECUTE format('CREATE TABLE %I (%s) PARTITION BY RANGE (block_number)', parent, columns);
        IF gaps IS NOT NULL THEN
            EXECUTE format('ALTER TABLE %I %s', parent, gaps);
        END IF;
        IF storage IS NOT NULL THEN
            EXECUTE format('ALTER TABLE %I %s', parent, storage);
        END IF;
        EXECUTE format('COMMENT ON TABLE %I IS %L', parent, table_comment);
        FOR it IN SELECT relname, bound FROM retype_partitions LOOP
            EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I %s', parent, it.relname, it.bound);
        END LOOP;
        -- Each index and key of the parent takes the partitions' own as its parts: none
        -- is built again.
        FOR it IN SELECT stmt FROM retype_parent ORDER BY seq LOOP
            EXECUTE it.stmt;
        END LOOP;
        DROP TABLE retype_parent, retype_partitions;
    END LOOP;

    FOR it IN SELECT stmt FROM retype_later ORDER BY seq LOOP
        EXECUTE it.stmt;
    END LOOP;
    DROP TABLE retype_later;
END $$;
-- +goose StatementEnd
COMMENT ON FUNCTION retype_block_numbers(text[], text) IS
    'migration 00054: changes the type of the block number of partitioned tables (the partition key), keeping their partitions, indexes, keys, foreign keys and views';

-- +goose StatementBegin
DO $$
BEGIN
    IF (SELECT atttypid FROM pg_attribute WHERE attrelid = 'transactions'::regclass AND attname = 'block_number')
       = 'integer'::regtype THEN
        RETURN;
    END IF;
    PERFORM retype_block_numbers(ARRAY['transactions', 'events', 'token_transfers'], 'integer');
END $$;
-- +goose StatementEnd
ANALYZE transactions, events, token_transfers;

-- +goose Down
SELECT retype_block_numbers(ARRAY['transactions', 'events', 'token_transfers'], 'bigint');
DROP FUNCTION retype_block_numbers(text[], text);
ANALYZE transactions, events, token_transfers;
