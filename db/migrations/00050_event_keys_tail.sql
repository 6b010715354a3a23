-- An event's first key (its selector) is stored once, as key0_id (00047), and its other
-- keys in keys_tail: keys held the first key a second time, about 33 bytes of each event,
-- 77 bytes a transaction on the 1M bench database (docs/performance.md, Storage). The
-- Store reads key0_id and keys_tail and gives back the whole list (db.Store.nameEvents);
-- events_named shows it whole to SQL written by hand.
--
-- Rewrites the table once (ALTER COLUMN TYPE ... USING), under a lock that stops the
-- indexer and the table's readers, and builds its indexes again: a maintenance window on a
-- large database (like 00047). It needs free space for the rewritten table and indexes.
-- Idempotent: a converted table is skipped.

-- +goose Up
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'events'::regclass
                   AND attname = 'keys' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    DROP VIEW IF EXISTS events_named;
    -- The packed list (00040) less its first element: a length byte, then that many bytes.
    ALTER TABLE events ALTER COLUMN keys TYPE bytea
        USING (CASE WHEN keys = '\x'::bytea THEN keys ELSE substr(keys, get_byte(keys, 0) + 2) END);
    ALTER TABLE events RENAME COLUMN keys TO keys_tail;
END $$;
-- +goose StatementEnd
ANALYZE events;

-- events with its emitter and its whole list of keys, for SQL written by hand.
CREATE OR REPLACE VIEW events_named AS
SELECT e.block_number, e.tx_index, e.event_index, f.felt AS from_address, k.felt AS key0,
       CASE WHEN k.felt IS NULL THEN e.keys_tail
            ELSE set_byte('\x00'::bytea, 0, length(k.felt)) || k.felt || e.keys_tail END AS keys,
       e.data
FROM events e JOIN felt_ids f ON f.id = e.from_id LEFT JOIN felt_ids k ON k.id = e.key0_id;

-- +goose Down
-- The packed form of a felt id's felt: its length byte, then the felt.
CREATE OR REPLACE FUNCTION pg_temp.packed_felt(felt_id integer) RETURNS bytea LANGUAGE sql STABLE AS
$$ SELECT set_byte('\x00'::bytea, 0, length(felt)) || felt FROM felt_ids WHERE id = felt_id $$;
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'events'::regclass
                   AND attname = 'keys_tail' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    DROP VIEW IF EXISTS events_named;
    ALTER TABLE events ALTER COLUMN keys_tail TYPE bytea
        USING (coalesce(pg_temp.packed_felt(key0_id), ''::bytea) || keys_tail);
    ALTER TABLE events RENAME COLUMN keys_tail TO keys;
END $$;
-- +goose StatementEnd
DROP FUNCTION pg_temp.packed_felt;
ANALYZE events;

CREATE OR REPLACE VIEW events_named AS
SELECT e.block_number, e.tx_index, e.event_index, f.felt AS from_address, k.felt AS key0, e.keys, e.data
FROM events e JOIN felt_ids f ON f.id = e.from_id LEFT JOIN felt_ids k ON k.id = e.key0_id;
