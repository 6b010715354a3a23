-- An ERC-20 Transfer event is stored folded: its row of events keeps its position, its
-- emitter and its selector, and names in transfer_layout how its other keys and its data
-- are made from its row of token_transfers (the sender, the recipient, the amount), which
-- it does not store again. About 87% of events are such transfers on the bench's chains
-- (the fee of every transaction is one), and their keys and data were 76 bytes of each,
-- about 150 bytes a transaction (docs/performance.md, Storage). The layouts, as the
-- indexer reads them (indexer/transfers.go):
--
--   1  keys [Transfer], data [from, to, amount.low, amount.high]   (legacy)
--   2  keys [Transfer, from, to], data [amount.low, amount.high]   (OpenZeppelin Cairo 1)
--   3  keys [Transfer], data [from, to, amount]                    (a felt amount)
--
-- An event is folded only when its lists are exactly those its layout makes (the indexer
-- checks, db/transfer_events.go); any other event is stored whole, transfer_layout NULL.
-- The Store reads a folded event's lists from token_transfers in the same statement;
-- events_named shows every event's lists whole to SQL written by hand.
--
-- Rewrites the table once (ALTER COLUMN TYPE ... USING), under a lock that stops the
-- indexer and the table's readers, and builds its indexes again: a maintenance window on a
-- large database (like 00050). Idempotent: a converted table is skipped.

-- +goose Up
-- The packed form of one felt (00040): its length byte, then its bytes.
CREATE OR REPLACE FUNCTION felt_packed(f bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT set_byte('\x00'::bytea, 0, length(f)) || f $$;

-- numeric_felt's loop, for integers of 8 bytes and more.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION numeric_felt_wide(n numeric) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    out bytea := ''::bytea;
BEGIN
    WHILE n > 0 LOOP
        out := set_byte('\x00'::bytea, 0, mod(n, 256)::integer) || out;
        n := div(n, 256);
    END LOOP;
    RETURN out;
END $$;
-- +goose StatementEnd

-- A non-negative integer as a felt's column form: big-endian, no leading zero byte. Most
-- amounts fit in a bigint, whose bytes int8send gives at once; the loop, byte by byte in
-- numeric, is 25 times slower. (Not STRICT, so that PostgreSQL can inline it.)
CREATE OR REPLACE FUNCTION numeric_felt(n numeric) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN n < 9223372036854775808 THEN ltrim(int8send(n::bigint), '\x00'::bytea) ELSE numeric_felt_wide(n) END $$;

-- A u256 amount as its two felts, low and high, packed.
CREATE OR REPLACE FUNCTION u256_packed(amount numeric) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE WHEN amount < 9223372036854775808 THEN felt_packed(numeric_felt(amount)) || '\x00'::bytea
    ELSE felt_packed(numeric_felt(mod(amount, 340282366920938463463374607431768211456)))
         || felt_packed(numeric_felt(div(amount, 340282366920938463463374607431768211456))) END $$;

-- The keys after the first of a folded Transfer event, packed.
CREATE OR REPLACE FUNCTION transfer_event_keys_tail(layout smallint, from_felt bytea, to_felt bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE layout WHEN 2 THEN felt_packed(from_felt) || felt_packed(to_felt) ELSE ''::bytea END $$;

-- The data of a folded Transfer event, packed.
CREATE OR REPLACE FUNCTION transfer_event_data(layout smallint, from_felt bytea, to_felt bytea, amount numeric) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
SELECT CASE layout
    WHEN 1 THEN felt_packed(from_felt) || felt_packed(to_felt) || u256_packed(amount)
    WHEN 2 THEN u256_packed(amount)
    WHEN 3 THEN felt_packed(from_felt) || felt_packed(to_felt) || felt_packed(numeric_felt(amount))
END $$;

-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'events'::regclass
               AND attname = 'transfer_layout' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    -- The events that fold, with their layout: those whose lists are exactly their layout's.
    CREATE TEMP TABLE folded ON COMMIT DROP AS
    SELECT e.block_number, e.tx_index, e.event_index, l.layout
    FROM events e
    JOIN token_transfers x ON x.block_number = e.block_number AND x.tx_index = e.tx_index AND x.event_index = e.event_index
    JOIN felt_ids f ON f.id = x.from_id
    JOIN felt_ids t ON t.id = x.to_id
    CROSS JOIN LATERAL (SELECT u.layout FROM unnest('{1,2,3}'::smallint[]) u (layout)
                        WHERE e.keys_tail = transfer_event_keys_tail(u.layout, f.felt, t.felt)
                          AND e.data = transfer_event_data(u.layout, f.felt, t.felt, x.amount)
                        LIMIT 1) l;
    ALTER TABLE folded ADD PRIMARY KEY (block_number, tx_index, event_index);
    ANALYZE folded;
    -- An event's layout, and a list it stores: the list itself, or empty when it folds.
    -- (The rewrite's expressions are function calls: PostgreSQL 15 fails on a CASE in two
    -- of them at once, "unrecognized node type".)
    CREATE FUNCTION pg_temp.folded_layout(b bigint, t integer, x integer) RETURNS smallint LANGUAGE sql STABLE AS
    $f$ SELECT layout FROM folded WHERE block_number = b AND tx_index = t AND event_index = x $f$;
    CREATE FUNCTION pg_temp.stored_list(b bigint, t integer, x integer, list bytea) RETURNS bytea LANGUAGE sql STABLE AS
    $f$ SELECT CASE WHEN pg_temp.folded_layout(b, t, x) IS NULL THEN list ELSE ''::bytea END $f$;

    DROP VIEW IF EXISTS events_named;
    ALTER TABLE events ADD COLUMN transfer_layout smallint;
    ALTER TABLE events
        ALTER COLUMN transfer_layout TYPE smallint USING pg_temp.folded_layout(block_number, tx_index, event_index),
        ALTER COLUMN keys_tail TYPE bytea USING pg_temp.stored_list(block_number, tx_index, event_index, keys_tail),
        ALTER COLUMN data TYPE bytea USING pg_temp.stored_list(block_number, tx_index, event_index, data);
    DROP FUNCTION pg_temp.stored_list;
    DROP FUNCTION pg_temp.folded_layout;
END $$;
-- +goose StatementEnd
ANALYZE events;

-- events with its emitter and its whole lists of keys and data, for SQL written by hand.
CREATE OR REPLACE VIEW events_named AS
SELECT e.block_number, e.tx_index, e.event_index, f.felt AS from_address, k.felt AS key0,
       CASE WHEN k.felt IS NULL THEN ''::bytea ELSE felt_packed(k.felt) END
         || CASE WHEN e.transfer_layout IS NULL THEN e.keys_tail
                 ELSE transfer_event_keys_tail(e.transfer_layout, xf.felt, xt.felt) END AS keys,
       CASE WHEN e.transfer_layout IS NULL THEN e.data
            ELSE transfer_event_data(e.transfer_layout, xf.felt, xt.felt, x.amount) END AS data
FROM events e
JOIN felt_ids f ON f.id = e.from_id
LEFT JOIN felt_ids k ON k.id = e.key0_id
LEFT JOIN token_transfers x ON e.transfer_layout IS NOT NULL
      AND x.block_number = e.block_number AND x.tx_index = e.tx_index AND x.event_index = e.event_index
LEFT JOIN felt_ids xf ON xf.id = x.from_id
LEFT JOIN felt_ids xt ON xt.id = x.to_id;

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'events'::regclass
                   AND attname = 'transfer_layout' AND NOT attisdropped) THEN
        RETURN;
    END IF;
    -- Each folded event's lists, made again from its transfer.
    CREATE TEMP TABLE unfolded ON COMMIT DROP AS
    SELECT e.block_number, e.tx_index, e.event_index,
           transfer_event_keys_tail(e.transfer_layout, f.felt, t.felt) AS keys_tail,
           transfer_event_data(e.transfer_layout, f.felt, t.felt, x.amount) AS data
    FROM events e
    JOIN token_transfers x ON x.block_number = e.block_number AND x.tx_index = e.tx_index AND x.event_index = e.event_index
    JOIN felt_ids f ON f.id = x.from_id
    JOIN felt_ids t ON t.id = x.to_id
    WHERE e.transfer_layout IS NOT NULL;
    ALTER TABLE unfolded ADD PRIMARY KEY (block_number, tx_index, event_index);
    -- A list as the row stored it, or made again when it folded (function calls, as above).
    CREATE FUNCTION pg_temp.unfolded_keys_tail(b bigint, t integer, x integer, list bytea) RETURNS bytea LANGUAGE sql STABLE AS
    $f$ SELECT coalesce((SELECT keys_tail FROM unfolded WHERE block_number = b AND tx_index = t AND event_index = x), list) $f$;
    CREATE FUNCTION pg_temp.unfolded_data(b bigint, t integer, x integer, list bytea) RETURNS bytea LANGUAGE sql STABLE AS
    $f$ SELECT coalesce((SELECT data FROM unfolded WHERE block_number = b AND tx_index = t AND event_index = x), list) $f$;

    DROP VIEW IF EXISTS events_named;
    ALTER TABLE events
        ALTER COLUMN keys_tail TYPE bytea USING pg_temp.unfolded_keys_tail(block_number, tx_index, event_index, keys_tail),
        ALTER COLUMN data TYPE bytea USING pg_temp.unfolded_data(block_number, tx_index, event_index, data);
    ALTER TABLE events DROP COLUMN transfer_layout;
    DROP FUNCTION pg_temp.unfolded_keys_tail;
    DROP FUNCTION pg_temp.unfolded_data;
END $$;
-- +goose StatementEnd
ANALYZE events;

CREATE OR REPLACE VIEW events_named AS
SELECT e.block_number, e.tx_index, e.event_index, f.felt AS from_address, k.felt AS key0,
       CASE WHEN k.felt IS NULL THEN e.keys_tail
            ELSE set_byte('\x00'::bytea, 0, length(k.felt)) || k.felt || e.keys_tail END AS keys,
       e.data
FROM events e JOIN felt_ids f ON f.id = e.from_id LEFT JOIN felt_ids k ON k.id = e.key0_id;
DROP FUNCTION IF EXISTS transfer_event_data(smallint, bytea, bytea, numeric);
DROP FUNCTION IF EXISTS transfer_event_keys_tail(smallint, bytea, bytea);
DROP FUNCTION IF EXISTS u256_packed(numeric);
DROP FUNCTION IF EXISTS numeric_felt(numeric);
DROP FUNCTION IF EXISTS numeric_felt_wide(numeric);
DROP FUNCTION IF EXISTS felt_packed(bytea);
