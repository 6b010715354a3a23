-- Data changes announced: every transaction that writes a table the APIs read queues a
-- notice on the channel starkgraph_data (sent when it commits, never on a rollback), through
-- a statement-level trigger on each such table. API processes count the notices as their data
-- version, and keep an answer for one version (package answercache). The trigger takes no
-- lock: PostgreSQL folds a transaction's identical notices into one, so a batch that writes
-- a hundred statements announces once, and writers never wait for each other because of it
-- (a counter row would have: the bulk load's two transactions deadlocked on it).
-- Tables the answers never show (keys, plans, usage, secrets, goose's) have no trigger.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION announce_data_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('starkgraph_data', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION announce_data_change() IS 'statement trigger of every table the APIs read: announces on starkgraph_data, at commit, that what answers show changed (answercache)';

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT c.relname FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND c.relname NOT IN ('goose_db_version', 'plans', 'api_keys', 'api_key_usage', 'server_secrets')
    LOOP
        EXECUTE format('CREATE TRIGGER announce_data_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
            FOR EACH STATEMENT EXECUTE FUNCTION announce_data_change()', t);
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
    FOR t IN SELECT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
        WHERE g.tgname = 'announce_data_change' AND NOT g.tgisinternal AND NOT c.relispartition
    LOOP
        EXECUTE format('DROP TRIGGER announce_data_change ON %I', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION announce_data_change();
