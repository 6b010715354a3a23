-- Lean storage (issue 38; docs/performance.md "Storage"): every felt-list column (calldata,
-- signatures, event keys and data, message payloads) becomes one packed bytea instead of a
-- bytea[]. A bytea[] costs a 24-byte array header, then 4 bytes of length and up to 3 of
-- padding per element; the packed form holds, for each felt in order, one length byte (0 to
-- 32) then that many bytes of the felt's column form (big-endian, leading zero bytes
-- stripped), behind the value's own varlena header. The empty list is the empty bytea and
-- NULL stays NULL. Go reads and writes it as db.FeltArray (db/felt.go); SQL with the
-- functions below.
--
-- Idempotent, so that it can be applied twice: a column already bytea is left alone.

-- +goose Up
-- +goose StatementBegin
-- The packed form of a felt list (leading zero bytes stripped; a NULL element is zero).
CREATE OR REPLACE FUNCTION felts_pack(felts bytea[]) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    parts bytea[] := '{}';
    f     bytea;
BEGIN
    FOREACH f IN ARRAY felts LOOP
        f := ltrim(coalesce(f, ''::bytea), '\x00'::bytea);
        IF length(f) > 32 THEN
            RAISE EXCEPTION 'felts_pack: a felt of % bytes (at most 32)', length(f);
        END IF;
        parts := parts || (set_byte('\x00'::bytea, 0, length(f)) || f);
    END LOOP;
    RETURN coalesce((SELECT string_agg(p, ''::bytea ORDER BY i) FROM unnest(parts) WITH ORDINALITY AS u(p, i)), ''::bytea);
END $$;

-- The felts of a packed list, as a bytea[] (the down migration; ad-hoc SQL).
CREATE OR REPLACE FUNCTION felts_unpack(packed bytea) RETURNS bytea[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    out bytea[] := '{}';
    pos integer := 0;
    len integer;
BEGIN
    WHILE pos < length(packed) LOOP
        len := get_byte(packed, pos);
        IF len > 32 OR pos + 1 + len > length(packed) THEN
            RAISE EXCEPTION 'felts_unpack: a felt of length % at byte % of %', len, pos, length(packed);
        END IF;
        out := out || substr(packed, pos + 2, len);
        pos := pos + 1 + len;
    END LOOP;
    RETURN out;
END $$;

-- The n-th felt of a packed list, counted from 1 as an array's (keys[2] is felts_at(keys, 2)),
-- or NULL when the list is shorter.
CREATE OR REPLACE FUNCTION felts_at(packed bytea, n integer) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    pos integer := 0;
    k   integer := 1;
    len integer;
BEGIN
    WHILE pos < length(packed) LOOP
        len := get_byte(packed, pos);
        IF k = n THEN
            RETURN substr(packed, pos + 2, len);
        END IF;
        pos := pos + 1 + len;
        k := k + 1;
    END LOOP;
    RETURN NULL;
END $$;

-- How many felts a packed list holds (cardinality of the array it was).
CREATE OR REPLACE FUNCTION felts_count(packed bytea) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    pos integer := 0;
    k   integer := 0;
BEGIN
    WHILE pos < length(packed) LOOP
        pos := pos + 1 + get_byte(packed, pos);
        k := k + 1;
    END LOOP;
    RETURN k;
END $$;

-- Each column is converted on its table (a partitioned table's parent, which converts every
-- partition), all of a table's columns in one rewrite. A default '{}' becomes ''.
DO $$
DECLARE
    t     text;
    cols  text[];
    c     text;
    parts text[];
    dflt  boolean;
BEGIN
    FOR t, cols IN VALUES
        ('transactions', ARRAY['calldata', 'constructor_calldata', 'signature', 'paymaster_data', 'account_deployment_data']),
        ('calls', ARRAY['calldata']),
        ('events', ARRAY['keys', 'data']),
        ('messages', ARRAY['payload'])
    LOOP
        parts := '{}';
        FOREACH c IN ARRAY cols LOOP
            CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_attribute
                WHERE attrelid = t::regclass AND attname = c AND atttypid = 'bytea[]'::regtype AND NOT attisdropped);
            dflt := EXISTS (SELECT 1 FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
                WHERE d.adrelid = t::regclass AND a.attname = c);
            IF dflt THEN
                parts := parts || format('ALTER COLUMN %I DROP DEFAULT', c);
            END IF;
            parts := parts || format('ALTER COLUMN %I TYPE bytea USING felts_pack(%I)', c, c);
            IF dflt THEN
                parts := parts || format('ALTER COLUMN %I SET DEFAULT %L::bytea', c, '');
            END IF;
        END LOOP;
        IF cardinality(parts) > 0 THEN
            EXECUTE format('ALTER TABLE %I %s', t, array_to_string(parts, ', '));
        END IF;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t     text;
    cols  text[];
    c     text;
    parts text[];
    dflt  boolean;
BEGIN
    FOR t, cols IN VALUES
        ('transactions', ARRAY['calldata', 'constructor_calldata', 'signature', 'paymaster_data', 'account_deployment_data']),
        ('calls', ARRAY['calldata']),
        ('events', ARRAY['keys', 'data']),
        ('messages', ARRAY['payload'])
    LOOP
        parts := '{}';
        FOREACH c IN ARRAY cols LOOP
            CONTINUE WHEN NOT EXISTS (SELECT 1 FROM pg_attribute
                WHERE attrelid = t::regclass AND attname = c AND atttypid = 'bytea'::regtype AND NOT attisdropped);
            dflt := EXISTS (SELECT 1 FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
                WHERE d.adrelid = t::regclass AND a.attname = c);
            IF dflt THEN
                parts := parts || format('ALTER COLUMN %I DROP DEFAULT', c);
            END IF;
            parts := parts || format('ALTER COLUMN %I TYPE bytea[] USING felts_unpack(%I)', c, c);
            IF dflt THEN
                parts := parts || format('ALTER COLUMN %I SET DEFAULT %L::bytea[]', c, '{}');
            END IF;
        END LOOP;
        IF cardinality(parts) > 0 THEN
            EXECUTE format('ALTER TABLE %I %s', t, array_to_string(parts, ', '));
        END IF;
    END LOOP;
END $$;
DROP FUNCTION IF EXISTS felts_count(bytea);
DROP FUNCTION IF EXISTS felts_at(bytea, integer);
DROP FUNCTION IF EXISTS felts_unpack(bytea);
DROP FUNCTION IF EXISTS felts_pack(bytea[]);
-- +goose StatementEnd
