-- Positions in the lists whose order changes (db/rank_spans.go): a token's holders by
-- balance, a collection's holders by items held, a class's contracts by deployment. A page
-- number of those skipped every row above it: at 10M transactions the last page of the most
-- held token read 25,000 index entries, 7 ms of a core, and 20 clients queued behind it for
-- 734 ms. Their rows move (a balance changes, a contract's class is replaced), so an
-- ordinal does not stay with a row as it does in key_marks (00037).
--
-- rank_spans cuts each key's list into spans of consecutive rows and counts the rows of
-- each. A span starts after the sort key (s1, s2), exclusive, in the list's order (largest
-- first), and ends where the next span starts; the first span of a key starts at
-- 'Infinity'. A page at offset N sums the counts of the spans above it, seeks to the start
-- of the span that holds row N, and skips fewer than 2 * rank_span_rows() rows from there.
--
-- The counts stay exact because triggers keep them: after every statement that inserts,
-- updates or deletes rows of the three tables (the indexer's upserts, a reorg's undo, a
-- migration), the rows that left a span are taken off its count and those that came are
-- added, from the statement's transition tables. When the transaction commits, a span that
-- grew past 2 * rank_span_rows() rows is cut, and one that shrank to a quarter of
-- rank_span_rows() is joined to the span before it.
-- The three tables have one writer, the indexer, so the counts are not contended.
--
-- Idempotent, so that it can be applied twice (the spans already there are kept).
--
-- Lists (rank_spans.list, db.rankList): 1 erc20_balances by token_address, ordered by
-- (balance, owner_address), rows with balance > 0; 2 nft_holders by contract_address,
-- (held, owner_address); 3 contracts by class_hash, (coalesce(deployed_block, -1), address).

-- +goose Up
CREATE TABLE IF NOT EXISTS rank_spans (
    list smallint NOT NULL,
    key  bytea    NOT NULL,
    s1   numeric  NOT NULL,
    s2   bytea    NOT NULL,
    n    bigint   NOT NULL,
    PRIMARY KEY (list, key, s1, s2)
);
COMMENT ON TABLE rank_spans IS 'row counts of consecutive spans of the lists whose order changes: deep pages seek to a span (db/rank_spans.go)';

-- How many rows a span is cut at (a span holds up to twice as many); tests lower it with the
-- setting starkgraph.rank_span_rows.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rank_span_rows() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT coalesce(nullif(current_setting('starkgraph.rank_span_rows', true), '')::bigint, 500)
$$;
-- +goose StatementEnd

-- rank_spans_cut is the sort key of the row at position m (from 1) after (s1, s2) in list's
-- key, NULL when there are fewer rows.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rank_spans_cut(p_list smallint, p_key bytea, p_s1 numeric, p_s2 bytea, m bigint,
    OUT c1 numeric, OUT c2 bytea) LANGUAGE plpgsql AS $$
BEGIN
    IF p_list = 1 AND p_s1 = 'Infinity' THEN
        SELECT balance, owner_address INTO c1, c2 FROM erc20_balances
        WHERE token_address = p_key AND balance > 0
        ORDER BY balance DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 1 THEN
        SELECT balance, owner_address INTO c1, c2 FROM erc20_balances
        WHERE token_address = p_key AND balance > 0 AND (balance, owner_address) < (p_s1, p_s2)
        ORDER BY balance DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 2 AND p_s1 = 'Infinity' THEN
        SELECT held, owner_address INTO c1, c2 FROM nft_holders
        WHERE contract_address = p_key
        ORDER BY held DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 2 THEN
        SELECT held, owner_address INTO c1, c2 FROM nft_holders
        WHERE contract_address = p_key AND (held, owner_address) < (p_s1, p_s2)
        ORDER BY held DESC, owner_address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 3 AND p_s1 = 'Infinity' THEN
        SELECT coalesce(deployed_block, -1), address INTO c1, c2 FROM contracts
        WHERE class_hash = p_key
        ORDER BY coalesce(deployed_block, -1) DESC, address DESC OFFSET m - 1 LIMIT 1;
    ELSIF p_list = 3 THEN
        SELECT coalesce(deployed_block, -1), address INTO c1, c2 FROM contracts
        WHERE class_hash = p_key AND (coalesce(deployed_block, -1), address) < (p_s1::bigint, p_s2)
        ORDER BY coalesce(deployed_block, -1) DESC, address DESC OFFSET m - 1 LIMIT 1;
    ELSE
        RAISE EXCEPTION 'rank_spans: no list %', p_list;
    END IF;
END $$;
-- +goose StatementEnd

-- rank_spans_split cuts the span of list's key that starts at (s1, s2) and holds n rows
-- into spans of rank_span_rows() rows, the last one holding the rest.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rank_spans_split(p_list smallint, p_key bytea, p_s1 numeric, p_s2 bytea, p_n bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    m bigint := rank_span_rows();
    c record;
BEGIN
    WHILE p_n > 2 * m LOOP
        c := rank_spans_cut(p_list, p_key, p_s1, p_s2, m);
        IF c.c1 IS NULL THEN
            RAISE EXCEPTION 'rank_spans: list % key % counts % rows after (%, %), has fewer',
                p_list, p_key, p_n, p_s1, p_s2;
        END IF;
        UPDATE rank_spans SET n = m WHERE list = p_list AND key = p_key AND s1 = p_s1 AND s2 = p_s2;
        INSERT INTO rank_spans (list, key, s1, s2, n) VALUES (p_list, p_key, c.c1, c.c2, p_n - m);
        p_s1 := c.c1;
        p_s2 := c.c2;
        p_n := p_n - m;
    END LOOP;
END $$;
-- +goose StatementEnd

-- rank_spans_add counts rows into (d = 1) or out of (d = -1) the spans of list that hold
-- their sort keys (v1, v2).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rank_spans_add(p_list smallint, p_keys bytea[], p_v1 numeric[], p_v2 bytea[], p_d int[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rank_spans (list, key, s1, s2, n)
    SELECT DISTINCT p_list, u.k, 'Infinity'::numeric, '\x'::bytea, 0::bigint
    FROM unnest(p_keys, p_d) u (k, d) WHERE u.d > 0
    ON CONFLICT DO NOTHING;
    WITH moved AS (
        SELECT sp.s1, sp.s2, u.k, sum(u.d) AS d
        FROM unnest(p_keys, p_v1, p_v2, p_d) u (k, v1, v2, d)
        CROSS JOIN LATERAL (SELECT s.s1, s.s2 FROM rank_spans s
            WHERE s.list = p_list AND s.key = u.k AND (s.s1, s.s2) > (u.v1, u.v2)
            ORDER BY s.s1, s.s2 LIMIT 1) sp
        GROUP BY sp.s1, sp.s2, u.k HAVING sum(u.d) <> 0)
    UPDATE rank_spans s SET n = s.n + moved.d FROM moved
    WHERE s.list = p_list AND s.key = moved.k AND s.s1 = moved.s1 AND s.s2 = moved.s2;
END $$;
-- +goose StatementEnd

-- At commit, when every statement's counts are in, a span that grew past 2 * rank_span_rows()
-- rows is cut, and one that shrank to rank_span_rows() / 4 or fewer is joined to the span
-- before it (the first span of a key stays): a cut made between the UPDATE and the INSERT
-- triggers of one upsert would count rows that are not counted yet, and joins keep the
-- spans of a key with holders coming and going few.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION rank_spans_resize() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    m bigint := rank_span_rows();
    cur bigint;
    prev record;
BEGIN
    SELECT n INTO cur FROM rank_spans WHERE list = NEW.list AND key = NEW.key AND s1 = NEW.s1 AND s2 = NEW.s2;
    IF cur > 2 * m THEN
        PERFORM rank_spans_split(NEW.list, NEW.key, NEW.s1, NEW.s2, cur);
    ELSIF cur <= m / 4 AND NEW.s1 <> 'Infinity' THEN
        SELECT s1, s2 INTO prev FROM rank_spans WHERE list = NEW.list AND key = NEW.key AND (s1, s2) > (NEW.s1, NEW.s2)
        ORDER BY s1, s2 LIMIT 1;
        DELETE FROM rank_spans WHERE list = NEW.list AND key = NEW.key AND s1 = NEW.s1 AND s2 = NEW.s2;
        UPDATE rank_spans SET n = n + cur WHERE list = NEW.list AND key = NEW.key AND s1 = prev.s1 AND s2 = prev.s2;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS rank_spans_resize ON rank_spans;
CREATE CONSTRAINT TRIGGER rank_spans_resize AFTER UPDATE ON rank_spans DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.n > 2 * rank_span_rows() OR NEW.n <= rank_span_rows() / 4) EXECUTE FUNCTION rank_spans_resize();

-- The triggers: one function per table reads its statement's transition tables.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION erc20_balances_rank() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k bytea[]; v1 numeric[]; v2 bytea[]; d int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(token_address), array_agg(balance), array_agg(owner_address), array_agg(1)
        INTO k, v1, v2, d FROM new_rows WHERE balance > 0;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(token_address), array_agg(balance), array_agg(owner_address), array_agg(-1)
        INTO k, v1, v2, d FROM old_rows WHERE balance > 0;
    ELSE
        SELECT array_agg(x.k), array_agg(x.v1), array_agg(x.v2), array_agg(x.d) INTO k, v1, v2, d FROM (
            SELECT token_address AS k, balance AS v1, owner_address AS v2, -1 AS d FROM old_rows WHERE balance > 0
            UNION ALL
            SELECT token_address, balance, owner_address, 1 FROM new_rows WHERE balance > 0) x;
    END IF;
    IF k IS NOT NULL THEN
        PERFORM rank_spans_add(1::smallint, k, v1, v2, d);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION nft_holders_rank() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k bytea[]; v1 numeric[]; v2 bytea[]; d int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(contract_address), array_agg(held), array_agg(owner_address), array_agg(1)
        INTO k, v1, v2, d FROM new_rows;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(contract_address), array_agg(held), array_agg(owner_address), array_agg(-1)
        INTO k, v1, v2, d FROM old_rows;
    ELSE
        SELECT array_agg(x.k), array_agg(x.v1), array_agg(x.v2), array_agg(x.d) INTO k, v1, v2, d FROM (
            SELECT contract_address AS k, held AS v1, owner_address AS v2, -1 AS d FROM old_rows
            UNION ALL
            SELECT contract_address, held, owner_address, 1 FROM new_rows) x;
    END IF;
    IF k IS NOT NULL THEN
        PERFORM rank_spans_add(2::smallint, k, v1, v2, d);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION contracts_rank() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE k bytea[]; v1 numeric[]; v2 bytea[]; d int[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(class_hash), array_agg(coalesce(deployed_block, -1)), array_agg(address), array_agg(1)
        INTO k, v1, v2, d FROM new_rows WHERE class_hash IS NOT NULL;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(class_hash), array_agg(coalesce(deployed_block, -1)), array_agg(address), array_agg(-1)
        INTO k, v1, v2, d FROM old_rows WHERE class_hash IS NOT NULL;
    ELSE
        -- Most updates of a contract leave its class and deployment as they were.
        SELECT array_agg(x.k), array_agg(x.v1), array_agg(x.v2), array_agg(x.d) INTO k, v1, v2, d FROM (
            SELECT o.class_hash AS k, coalesce(o.deployed_block, -1) AS v1, o.address AS v2, -1 AS d
            FROM old_rows o JOIN new_rows n ON n.address = o.address
            WHERE o.class_hash IS NOT NULL AND (n.class_hash, n.deployed_block) IS DISTINCT FROM (o.class_hash, o.deployed_block)
            UNION ALL
            SELECT n.class_hash, coalesce(n.deployed_block, -1), n.address, 1
            FROM new_rows n JOIN old_rows o ON o.address = n.address
            WHERE n.class_hash IS NOT NULL AND (n.class_hash, n.deployed_block) IS DISTINCT FROM (o.class_hash, o.deployed_block)) x;
    END IF;
    IF k IS NOT NULL THEN
        PERFORM rank_spans_add(3::smallint, k, v1, v2, d);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Transition tables take one event per trigger: three triggers per table.
DROP TRIGGER IF EXISTS erc20_balances_rank_ins ON erc20_balances;
CREATE TRIGGER erc20_balances_rank_ins AFTER INSERT ON erc20_balances REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION erc20_balances_rank();
DROP TRIGGER IF EXISTS erc20_balances_rank_upd ON erc20_balances;
CREATE TRIGGER erc20_balances_rank_upd AFTER UPDATE ON erc20_balances REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION erc20_balances_rank();
DROP TRIGGER IF EXISTS erc20_balances_rank_del ON erc20_balances;
CREATE TRIGGER erc20_balances_rank_del AFTER DELETE ON erc20_balances REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION erc20_balances_rank();
DROP TRIGGER IF EXISTS nft_holders_rank_ins ON nft_holders;
CREATE TRIGGER nft_holders_rank_ins AFTER INSERT ON nft_holders REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION nft_holders_rank();
DROP TRIGGER IF EXISTS nft_holders_rank_upd ON nft_holders;
CREATE TRIGGER nft_holders_rank_upd AFTER UPDATE ON nft_holders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION nft_holders_rank();
DROP TRIGGER IF EXISTS nft_holders_rank_del ON nft_holders;
CREATE TRIGGER nft_holders_rank_del AFTER DELETE ON nft_holders REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION nft_holders_rank();
DROP TRIGGER IF EXISTS contracts_rank_ins ON contracts;
CREATE TRIGGER contracts_rank_ins AFTER INSERT ON contracts REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION contracts_rank();
DROP TRIGGER IF EXISTS contracts_rank_upd ON contracts;
CREATE TRIGGER contracts_rank_upd AFTER UPDATE ON contracts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION contracts_rank();
DROP TRIGGER IF EXISTS contracts_rank_del ON contracts;
CREATE TRIGGER contracts_rank_del AFTER DELETE ON contracts REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION contracts_rank();

-- The spans of the rows already there: one span per key, then cut.
INSERT INTO rank_spans (list, key, s1, s2, n)
SELECT 1::smallint, token_address, 'Infinity'::numeric, '\x'::bytea, count(*) FROM erc20_balances WHERE balance > 0 GROUP BY token_address
UNION ALL
SELECT 2::smallint, contract_address, 'Infinity'::numeric, '\x'::bytea, count(*) FROM nft_holders GROUP BY contract_address
UNION ALL
SELECT 3::smallint, class_hash, 'Infinity'::numeric, '\x'::bytea, count(*) FROM contracts WHERE class_hash IS NOT NULL GROUP BY class_hash
ON CONFLICT DO NOTHING;
SELECT rank_spans_split(list, key, s1, s2, n) FROM rank_spans WHERE n > 2 * rank_span_rows();

-- A class's contracts: the index carries deployed_block, so that a page's keys are read from
-- it alone (an index-only scan cannot rebuild a column from an expression).
CREATE INDEX IF NOT EXISTS contracts_class_order_keys ON contracts (class_hash, (coalesce(deployed_block, -1)) DESC, address DESC) INCLUDE (deployed_block);
DROP INDEX IF EXISTS contracts_class_order;
ALTER INDEX contracts_class_order_keys RENAME TO contracts_class_order;
COMMENT ON INDEX contracts_class_order IS 'contracts of a class, newest deployed first (its keys alone, index-only)';

-- +goose Down
CREATE INDEX contracts_class_order_plain ON contracts (class_hash, (coalesce(deployed_block, -1)) DESC, address DESC);
DROP INDEX contracts_class_order;
ALTER INDEX contracts_class_order_plain RENAME TO contracts_class_order;
COMMENT ON INDEX contracts_class_order IS 'contracts of a class, newest deployed first';
DROP TRIGGER erc20_balances_rank_ins ON erc20_balances;
DROP TRIGGER erc20_balances_rank_upd ON erc20_balances;
DROP TRIGGER erc20_balances_rank_del ON erc20_balances;
DROP TRIGGER nft_holders_rank_ins ON nft_holders;
DROP TRIGGER nft_holders_rank_upd ON nft_holders;
DROP TRIGGER nft_holders_rank_del ON nft_holders;
DROP TRIGGER contracts_rank_ins ON contracts;
DROP TRIGGER contracts_rank_upd ON contracts;
DROP TRIGGER contracts_rank_del ON contracts;
DROP TRIGGER rank_spans_resize ON rank_spans;
DROP FUNCTION rank_spans_resize();
DROP FUNCTION erc20_balances_rank(), nft_holders_rank(), contracts_rank();
DROP FUNCTION rank_spans_add(smallint, bytea[], numeric[], bytea[], int[]);
DROP FUNCTION rank_spans_split(smallint, bytea, numeric, bytea, bigint);
DROP FUNCTION rank_spans_cut(smallint, bytea, numeric, bytea, bigint);
DROP FUNCTION rank_span_rows();
DROP TABLE rank_spans;
