-- The data version: a number that changes whenever anything an answer of the APIs can show
-- changes, so that the answer cache (package answercache) can keep an answer until then.
-- Every transaction that writes a table the APIs read advances it once, through a
-- statement-level trigger on each such table, and announces the new version on the
-- NOTIFY channel starkgraph_data when it commits. API processes follow it (answercache.Follower).
-- Tables the answers never show (keys, plans, usage, secrets, goose's) have no trigger.

-- +goose Up
-- data_version: the one row holding the data version. Written by bump_data_version().
CREATE TABLE data_version (
    id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    v bigint NOT NULL
);
COMMENT ON TABLE data_version IS 'the one row holding the data version: advanced once by every transaction that writes a table the APIs read (bump_data_version), followed by the answer cache';
INSERT INTO data_version (id, v) VALUES (1, 1);

-- +goose StatementBegin
-- bump_data_version: the statement trigger of every table the APIs read. The first write of
-- a transaction advances data_version and queues the new version on starkgraph_data (sent
-- at commit, never on rollback); later writes of the same transaction find it done.
CREATE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    bumped bigint;
BEGIN
    IF current_setting('starkgraph.data_version_bumped', true) IS DISTINCT FROM txid_current()::text THEN
        UPDATE data_version SET v = v + 1 WHERE id = 1 RETURNING v INTO bumped;
        PERFORM pg_notify('starkgraph_data', bumped::text);
        PERFORM set_config('starkgraph.data_version_bumped', txid_current()::text, true);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND c.relname NOT IN ('data_version', 'goose_db_version', 'plans', 'api_keys', 'api_key_usage', 'server_secrets')
    LOOP
        EXECUTE format('CREATE TRIGGER data_version_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
            FOR EACH STATEMENT EXECUTE FUNCTION bump_data_version()', t);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.tgname = 'data_version_bump' AND NOT g.tgisinternal
    LOOP
        EXECUTE format('DROP TRIGGER data_version_bump ON %I', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION bump_data_version();
DROP TABLE data_version;
