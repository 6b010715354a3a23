-- The schema of a freshly migrated starkgraph database: pg_dump --schema-only --no-owner
-- --no-privileges of PostgreSQL 15, without goose's table and the lines that vary between
-- runs. Generated: do not edit. A migration that changes the schema regenerates it with
--   STARKGRAPH_WRITE_SCHEMA=1 go test ./db -run TestSchemaDump
-- What each table holds, and who writes it, is in its comment (and in
-- db/migrations/00001_baseline.sql, grouped by what the tables hold).

--
-- PostgreSQL database dump
--

--
-- Name: tx_execution_status; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.tx_execution_status AS ENUM (
    'SUCCEEDED',
    'REVERTED'
);

--
-- Name: tx_finality_status; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.tx_finality_status AS ENUM (
    'RECEIVED',
    'CANDIDATE',
    'PRE_CONFIRMED',
    'ACCEPTED_ON_L2',
    'ACCEPTED_ON_L1'
);

--
-- Name: announce_data_change(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.announce_data_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('starkgraph_data', '');
    RETURN NULL;
END
$$;

--
-- Name: FUNCTION announce_data_change(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.announce_data_change() IS 'statement trigger of every table the APIs read: announces on starkgraph_data, at commit, that what answers show changed (answercache)';

--
-- Name: blocks_txs_before(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.blocks_txs_before() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    NEW.txs_before := coalesce((SELECT txs_before + tx_count FROM blocks WHERE number = NEW.number - 1), 0);
    RETURN NEW;
END $$;

--
-- Name: contracts_rank(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.contracts_rank() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: erc20_balances_rank(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.erc20_balances_rank() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: felt_id(bytea); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.felt_id(raw bytea) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    f     bytea := ltrim(raw, '\x00'::bytea);
    found integer;
BEGIN
    SELECT id INTO found FROM felt_ids WHERE felt = f;
    IF found IS NULL THEN
        INSERT INTO felt_ids (felt) VALUES (f) ON CONFLICT (felt) DO NOTHING RETURNING id INTO found;
        IF found IS NULL THEN
            SELECT id INTO found FROM felt_ids WHERE felt = f;
        END IF;
    END IF;
    RETURN found;
END $$;

--
-- Name: felt_packed(bytea); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.felt_packed(f bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT set_byte('\x00'::bytea, 0, length(f)) || f $$;

--
-- Name: felts_at(bytea, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.felts_at(packed bytea, n integer) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
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

--
-- Name: felts_count(bytea); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.felts_count(packed bytea) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
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

--
-- Name: felts_pack(bytea[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.felts_pack(felts bytea[]) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
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

--
-- Name: felts_unpack(bytea); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.felts_unpack(packed bytea) RETURNS bytea[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
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

--
-- Name: fill_key_positions(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.fill_key_positions(every bigint DEFAULT 1000) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events_named',
        'SELECT sender_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named',
        'SELECT contract_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named',
        'SELECT convert_to(type::text, ''UTF8'') AS key, block_number, tx_index, 0 AS event_index FROM transactions',
        'SELECT token_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT to_address AS key, block_number, tx_index, event_index FROM token_transfers_named',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named
            UNION ALL SELECT to_address, block_number, tx_index, event_index FROM token_transfers_named WHERE to_address <> from_address'];
BEGIN
    DELETE FROM key_marks;
    DELETE FROM key_counts;
    FOR i IN 1 .. array_length(lists, 1) LOOP
        -- lists[i]: one row (key, block_number, tx_index, event_index) per row of list i.
        EXECUTE format('INSERT INTO key_counts (list, key, n) SELECT %s, key, count(*) FROM (%s) r
            WHERE key IS NOT NULL GROUP BY key', i, lists[i]);
        EXECUTE format('INSERT INTO key_marks (list, key, ordinal, block_number, tx_index, event_index)
            SELECT %s, key, o, block_number, tx_index, event_index FROM (
                SELECT key, block_number, tx_index, event_index,
                    row_number() OVER (PARTITION BY key ORDER BY block_number, tx_index, event_index) - 1 AS o
                FROM (%s) r WHERE key IN (SELECT key FROM key_counts WHERE list = %s AND n > %s)) x
            WHERE o > 0 AND o %% %s = 0', i, lists[i], i, every, every);
    END LOOP;
END $$;

--
-- Name: isqrt(numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.isqrt(n numeric) RETURNS numeric
    LANGUAGE sql IMMUTABLE STRICT
    AS $$SELECT CASE WHEN n < 1 THEN 0 WHEN s * s > n THEN s - 1 WHEN (s + 1) * (s + 1) <= n THEN s + 1 ELSE s END
     FROM (SELECT CASE WHEN n < 1 THEN 0 ELSE div(s0 + div(n, s0), 2) END AS s
           FROM (SELECT greatest(trunc(sqrt(n)), 1) AS s0) a) b$$;

--
-- Name: nft_holders_rank(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.nft_holders_rank() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: nft_sales_count(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.nft_sales_count() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
DECLARE
    rows_table text;
    sign int;
    sold boolean;
BEGIN
  -- An update takes its old rows off and adds its new ones. The transition tables are seen
  -- by this function's own statements only, so the work is not in a function of its own.
  FOR rows_table, sign IN SELECT * FROM (VALUES ('old_rows', -1), ('new_rows', 1)) o(t, s)
      WHERE (o.s < 0 AND TG_OP IN ('DELETE', 'UPDATE')) OR (o.s > 0 AND TG_OP IN ('INSERT', 'UPDATE'))
  LOOP
    -- Most statements write transfers and no sale (and a reorg's cascade deletes a
    -- transaction's rows at a time): nothing to count.
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE total_price IS NOT NULL)', rows_table) INTO sold;
    CONTINUE WHEN NOT sold;
    -- The statement's sales, by collection and by marketplace, per payment token.
    EXECUTE format($q$
        INSERT INTO nft_sale_volumes AS v (scope, key, payment_token, sales, price)
        SELECT scope, key, payment_token, %2$s * count(*), %2$s * sum(total_price)
        FROM (SELECT 'c'::"char" AS scope, contract_address AS key, coalesce(payment_token_address, '\x'::bytea) AS payment_token, total_price
                FROM %1$I WHERE total_price IS NOT NULL
              UNION ALL
              SELECT 'm', marketplace_contract_address, coalesce(payment_token_address, '\x'::bytea), total_price
                FROM %1$I WHERE total_price IS NOT NULL AND marketplace_contract_address IS NOT NULL) s
        GROUP BY 1, 2, 3
        ON CONFLICT (scope, key, payment_token) DO UPDATE SET sales = v.sales + excluded.sales, price = v.price + excluded.price$q$,
        rows_table, sign);
    -- Their traders and a marketplace's collections, each counted in its key once it
    -- first appears and until its last sale goes.
    EXECUTE format($q$
        WITH m AS (
            SELECT 'c'::"char" AS scope, contract_address AS key, trader AS member
              FROM %1$I, LATERAL (VALUES (from_address), (to_address)) t(trader) WHERE total_price IS NOT NULL
            UNION ALL
            SELECT 'm', marketplace_contract_address, trader
              FROM %1$I, LATERAL (VALUES (from_address), (to_address)) t(trader)
              WHERE total_price IS NOT NULL AND marketplace_contract_address IS NOT NULL
            UNION ALL
            SELECT 'k', marketplace_contract_address, contract_address
              FROM %1$I WHERE total_price IS NOT NULL AND marketplace_contract_address IS NOT NULL),
        up AS (
            INSERT INTO nft_sale_members AS s (scope, key, member, sales)
            SELECT scope, key, member, %2$s * count(*) FROM m GROUP BY 1, 2, 3
            ON CONFLICT (scope, key, member) DO UPDATE SET sales = s.sales + excluded.sales
            RETURNING scope, key, sales, xmax = 0 AS created),
        moved AS (
            SELECT CASE scope WHEN 'k' THEN 'm'::"char" ELSE scope END AS scope, key,
                sum(CASE WHEN scope <> 'k' AND created THEN 1 WHEN scope <> 'k' AND sales = 0 THEN -1 ELSE 0 END) AS traders,
                sum(CASE WHEN scope = 'k' AND created THEN 1 WHEN scope = 'k' AND sales = 0 THEN -1 ELSE 0 END) AS collections
            FROM up GROUP BY 1, 2)
        INSERT INTO nft_sale_keys AS k (scope, key, traders, collections)
        SELECT scope, key, traders, collections FROM moved WHERE traders <> 0 OR collections <> 0
        ON CONFLICT (scope, key) DO UPDATE SET traders = k.traders + excluded.traders, collections = k.collections + excluded.collections$q$,
        rows_table, sign);
    IF sign < 0 THEN
        -- What the deleted sales left at nothing.
        EXECUTE format($q$
            DELETE FROM nft_sale_volumes v USING (SELECT DISTINCT contract_address, marketplace_contract_address FROM %1$I WHERE total_price IS NOT NULL) d
            WHERE v.sales = 0 AND ((v.scope = 'c' AND v.key = d.contract_address) OR (v.scope = 'm' AND v.key = d.marketplace_contract_address))$q$,
            rows_table);
        EXECUTE format($q$
            DELETE FROM nft_sale_members s USING (SELECT DISTINCT contract_address, marketplace_contract_address FROM %1$I WHERE total_price IS NOT NULL) d
            WHERE s.sales = 0 AND ((s.scope = 'c' AND s.key = d.contract_address) OR (s.scope IN ('m', 'k') AND s.key = d.marketplace_contract_address))$q$,
            rows_table);
        EXECUTE format($q$
            DELETE FROM nft_sale_keys k USING (SELECT DISTINCT contract_address, marketplace_contract_address FROM %1$I WHERE total_price IS NOT NULL) d
            WHERE k.traders = 0 AND k.collections = 0 AND ((k.scope = 'c' AND k.key = d.contract_address) OR (k.scope = 'm' AND k.key = d.marketplace_contract_address))$q$,
            rows_table);
    END IF;
  END LOOP;
  RETURN NULL;
END
$_$;

--
-- Name: FUNCTION nft_sales_count(); Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON FUNCTION public.nft_sales_count() IS 'statement trigger of nft_events: adds the sales its statement wrote and takes off those it deleted, in the NFT sale statistics of all time (nft_sale_volumes, nft_sale_members, nft_sale_keys)';

--
-- Name: numeric_felt(numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.numeric_felt(n numeric) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN n < 9223372036854775808 THEN ltrim(int8send(n::bigint), '\x00'::bytea) ELSE numeric_felt_wide(n) END $$;

--
-- Name: numeric_felt_wide(numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.numeric_felt_wide(n numeric) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
DECLARE
    out bytea := ''::bytea;
BEGIN
    WHILE n > 0 LOOP
        out := set_byte('\x00'::bytea, 0, mod(n, 256)::integer) || out;
        n := div(n, 256);
    END LOOP;
    RETURN out;
END $$;

--
-- Name: rank_span_rows(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rank_span_rows() RETURNS bigint
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce(nullif(current_setting('starkgraph.rank_span_rows', true), '')::bigint, 500)
$$;

--
-- Name: rank_spans_add(smallint, bytea[], numeric[], bytea[], integer[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rank_spans_add(p_list smallint, p_keys bytea[], p_v1 numeric[], p_v2 bytea[], p_d integer[]) RETURNS void
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: rank_spans_cut(smallint, bytea, numeric, bytea, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rank_spans_cut(p_list smallint, p_key bytea, p_s1 numeric, p_s2 bytea, m bigint, OUT c1 numeric, OUT c2 bytea) RETURNS record
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: rank_spans_resize(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rank_spans_resize() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: rank_spans_split(smallint, bytea, numeric, bytea, bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.rank_spans_split(p_list smallint, p_key bytea, p_s1 numeric, p_s2 bytea, p_n bigint) RETURNS void
    LANGUAGE plpgsql
    AS $$
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

--
-- Name: refresh_chain_stats(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.refresh_chain_stats() RETURNS void
    LANGUAGE sql
    AS $$
WITH recent AS (
    SELECT number, timestamp, tx_count, fees_wei, fee_txs_wei, fees_fri, fee_txs_fri
    FROM blocks ORDER BY number DESC LIMIT 100),
window_sums AS (
    SELECT coalesce(sum(tx_count) - (SELECT tx_count FROM recent ORDER BY number LIMIT 1), 0) AS txs,
        coalesce(max(timestamp) - min(timestamp), 0) AS seconds,
        round(sum(fees_wei) / nullif(sum(fee_txs_wei), 0)) AS avg_wei,
        round(sum(fees_fri) / nullif(sum(fee_txs_fri), 0)) AS avg_fri
    FROM recent),
head AS (SELECT max(timestamp) AS ts FROM blocks),
bounds AS (
    SELECT (SELECT min(number) FROM blocks, head WHERE timestamp > head.ts - 86400) AS cur_from,
        (SELECT min(number) FROM blocks, head WHERE timestamp > head.ts - 2 * 86400) AS prev_from),
active AS (
    SELECT coalesce(sum(a.senders), 0) AS n FROM active_sender_blocks a, bounds b WHERE a.block_number >= b.cur_from),
new_accounts AS (
    -- coalesce(deployed_block, -1) is the expression of the contracts_type_order index.
    SELECT (SELECT count(*) FROM contracts c, bounds b
                WHERE c.type = 'account' AND coalesce(c.deployed_block, -1) >= b.cur_from) AS cur,
        (SELECT count(*) FROM contracts c, bounds b WHERE c.type = 'account'
                AND coalesce(c.deployed_block, -1) >= b.prev_from AND coalesce(c.deployed_block, -1) < b.cur_from) AS prev),
tvl AS (
    -- Read by owner: an OR of the staking contract and the pools would scan every balance.
    SELECT sum(b.balance / 10::numeric ^ t.decimals * t.usd_price::numeric)::float8 AS usd
    FROM (SELECT staking_contract AS owner FROM staking_overview WHERE id = 1
          UNION SELECT pool_contract FROM pools) o
    JOIN erc20_balances b ON b.owner_address = o.owner
    JOIN tokens t ON t.address = b.token_address
    WHERE t.usd_price IS NOT NULL AND t.decimals IS NOT NULL AND b.balance > 0)
UPDATE chain_stats SET recent_txs = w.txs, recent_seconds = w.seconds,
    avg_fee_wei = w.avg_wei, avg_fee_fri = w.avg_fri, active_accounts = a.n,
    new_accounts = na.cur, new_accounts_previous = na.prev, tvl_usd = tvl.usd
FROM window_sums w, active a, new_accounts na, tvl
WHERE chain_stats.id = 1
$$;

--
-- Name: refresh_staking_figures(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.refresh_staking_figures() RETURNS void
    LANGUAGE sql
    AS $$
INSERT INTO staking_figures (id, total_stake_strk, total_stake_btc, yearly_mint, btc_share, base_apr_strk)
SELECT 1, total_stake_strk, total_stake_btc, yearly_mint, btc_share, base_apr_strk FROM staking_economy
ON CONFLICT (id) DO UPDATE SET total_stake_strk = EXCLUDED.total_stake_strk,
    total_stake_btc = EXCLUDED.total_stake_btc, yearly_mint = EXCLUDED.yearly_mint,
    btc_share = EXCLUDED.btc_share, base_apr_strk = EXCLUDED.base_apr_strk;
DELETE FROM validator_figures f WHERE NOT EXISTS (SELECT 1 FROM validators v WHERE v.staker_address = f.staker_address);
-- Only rows whose figures moved are written: most batches change no stake.
INSERT INTO validator_figures (staker_address, rank, apr, pool_apr_strk)
SELECT staker_address, rank, apr, pool_apr_strk FROM validator_economics
ON CONFLICT (staker_address) DO UPDATE SET rank = EXCLUDED.rank, apr = EXCLUDED.apr, pool_apr_strk = EXCLUDED.pool_apr_strk
WHERE (validator_figures.rank, validator_figures.apr, validator_figures.pool_apr_strk)
    IS DISTINCT FROM (EXCLUDED.rank, EXCLUDED.apr, EXCLUDED.pool_apr_strk);
UPDATE staking_figures SET
    average_commission = (SELECT coalesce(sum(revenue_share_bps * (self_stake + delegated_stake_strk))
            / nullif(sum(self_stake + delegated_stake_strk), 0), 0) / 100.0
        FROM validators WHERE state = 'active')::float8,
    max_apr_strk = (SELECT max(x.pool_apr_strk) FROM validator_figures x JOIN validators v USING (staker_address)
        WHERE v.state = 'active')::float8,
    min_btc_commission_bps = (SELECT min(v.revenue_share_bps) FROM validators v JOIN pools p ON p.staker_address = v.staker_address
        WHERE v.state = 'active' AND p.token_address <> coalesce((SELECT strk_token_address FROM staking_overview WHERE id = 1), ''::bytea)),
    mean_block_seconds = (SELECT (max(timestamp) - min(timestamp))::float8 / nullif(count(*) - 1, 0)
        FROM (SELECT timestamp FROM blocks ORDER BY number DESC LIMIT 100) b)
WHERE id = 1;
$$;

--
-- Name: tokens_market_cap(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tokens_market_cap() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.usd_price IS NOT NULL AND NEW.total_supply IS NOT NULL AND NEW.decimals IS NOT NULL THEN
        NEW.market_cap_usd := (NEW.total_supply / 10::numeric ^ NEW.decimals * NEW.usd_price::numeric)::float8;
    END IF;
    RETURN NEW;
END $$;

--
-- Name: tokens_take_labels(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tokens_take_labels() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.address AND kind = 'token';
    IF FOUND THEN
        NEW.verified := a.verified;
        NEW.logo_url := a.logo_url;
    END IF;
    RETURN NEW;
END $$;

--
-- Name: transfer_event_data(smallint, bytea, bytea, numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.transfer_event_data(layout smallint, from_felt bytea, to_felt bytea, amount numeric) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE layout
    WHEN 1 THEN felt_packed(from_felt) || felt_packed(to_felt) || u256_packed(amount)
    WHEN 2 THEN u256_packed(amount)
    WHEN 3 THEN felt_packed(from_felt) || felt_packed(to_felt) || felt_packed(numeric_felt(amount))
END $$;

--
-- Name: transfer_event_keys_tail(smallint, bytea, bytea); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.transfer_event_keys_tail(layout smallint, from_felt bytea, to_felt bytea) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE layout WHEN 2 THEN felt_packed(from_felt) || felt_packed(to_felt) ELSE ''::bytea END $$;

--
-- Name: u256_packed(numeric); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.u256_packed(amount numeric) RETURNS bytea
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
SELECT CASE WHEN amount < 9223372036854775808 THEN felt_packed(numeric_felt(amount)) || '\x00'::bytea
    ELSE felt_packed(numeric_felt(mod(amount, 340282366920938463463374607431768211456)))
         || felt_packed(numeric_felt(div(amount, 340282366920938463463374607431768211456))) END $$;

--
-- Name: validators_take_labels(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.validators_take_labels() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.staker_address AND kind = 'validator';
    IF FOUND THEN
        NEW.name := a.name;
        NEW.image_url := a.logo_url;
        NEW.is_verified := a.verified;
    END IF;
    RETURN NEW;
END $$;

--
-- Name: active_sender_blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.active_sender_blocks (
    block_number bigint NOT NULL,
    senders integer NOT NULL,
    CONSTRAINT active_sender_blocks_senders_check CHECK ((senders > 0))
);

--
-- Name: TABLE active_sender_blocks; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.active_sender_blocks IS 'how many senders have this block as their newest: the distinct senders since block B are the sum from B on. Written by the indexer (journaled).';

--
-- Name: activity_stats; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activity_stats (
    granularity text NOT NULL,
    starts_at bigint NOT NULL,
    blocks bigint DEFAULT 0 NOT NULL,
    transactions bigint DEFAULT 0 NOT NULL,
    invokes bigint DEFAULT 0 NOT NULL,
    declares bigint DEFAULT 0 NOT NULL,
    deploy_accounts bigint DEFAULT 0 NOT NULL,
    l1_handlers bigint DEFAULT 0 NOT NULL,
    reverted bigint DEFAULT 0 NOT NULL,
    events bigint DEFAULT 0 NOT NULL,
    messages_to_l1 bigint DEFAULT 0 NOT NULL,
    token_transfers bigint DEFAULT 0 NOT NULL,
    fees_wei numeric(78,0) DEFAULT 0 NOT NULL,
    fees_fri numeric(78,0) DEFAULT 0 NOT NULL,
    CONSTRAINT activity_stats_granularity_check CHECK ((granularity = ANY (ARRAY['d'::text, 'h'::text])))
);

--
-- Name: TABLE activity_stats; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.activity_stats IS 'the chain''s activity in one UTC day (''d'') or hour (''h''): blocks, transactions by type, events, messages, transfers, fees. Written by the indexer, adding each batch''s counts (journaled).';

--
-- Name: aliases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.aliases (
    address bytea NOT NULL,
    name text NOT NULL,
    kind text DEFAULT 'contract'::text NOT NULL,
    logo_url text,
    verified boolean DEFAULT false NOT NULL,
    source text DEFAULT ''::text NOT NULL,
    origin text DEFAULT 'cli'::text NOT NULL,
    CONSTRAINT aliases_kind_check CHECK ((kind = ANY (ARRAY['token'::text, 'contract'::text, 'class'::text, 'validator'::text, 'account'::text]))),
    CONSTRAINT aliases_origin_check CHECK ((origin = ANY (ARRAY['default'::text, 'file'::text, 'cli'::text])))
);

--
-- Name: TABLE aliases; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.aliases IS 'one label of an address: a name, a kind, a logo, a verified flag. Written by the embedded default list, the operator''s label file and `starkgraph labels` (labels/, db/labels.go); tokens and validators take theirs when their row is made.';

--
-- Name: api_key_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_key_usage (
    key_id bigint NOT NULL,
    day date NOT NULL,
    requests bigint DEFAULT 0 NOT NULL,
    client_errors bigint DEFAULT 0 NOT NULL,
    rate_limited bigint DEFAULT 0 NOT NULL,
    webhook_deliveries bigint DEFAULT 0 NOT NULL
);

--
-- Name: TABLE api_key_usage; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.api_key_usage IS 'a key''s request counts for one UTC day. Written by auth (auth/store.go) as requests are served.';

--
-- Name: COLUMN api_key_usage.webhook_deliveries; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.api_key_usage.webhook_deliveries IS 'webhook delivery attempts made for the key that day (each counts toward its quotas as a request does). Written by the delivery loop through auth.DeliveryMeter.';

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id bigint NOT NULL,
    key_hash bytea NOT NULL,
    key_prefix text NOT NULL,
    label text DEFAULT ''::text NOT NULL,
    plan text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    CONSTRAINT api_keys_key_hash_check CHECK ((octet_length(key_hash) = 32))
);

--
-- Name: TABLE api_keys; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.api_keys IS 'one API key (its SHA-256 hash, never the key) on a plan. Written by `starkgraph keys` and `dev` (auth/store.go).';

--
-- Name: api_keys_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.api_keys ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.api_keys_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: attestations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.attestations (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    staker_address bytea NOT NULL,
    epoch bigint NOT NULL,
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL
);

--
-- Name: TABLE attestations; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.attestations IS 'one StakerAttestationSuccessful event of a validator. Written by the indexer (per-block rows).';

--
-- Name: balance_corrections; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.balance_corrections (
    token_address bytea NOT NULL,
    owner_address bytea NOT NULL,
    block_number bigint NOT NULL,
    event_balance numeric(78,0) NOT NULL,
    stored_balance numeric(78,0) NOT NULL
);

--
-- Name: block_partitioning; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.block_partitioning (
    only_row boolean DEFAULT true NOT NULL,
    blocks_per_partition bigint DEFAULT 1000000 NOT NULL,
    CONSTRAINT block_partitioning_blocks_per_partition_check CHECK ((blocks_per_partition > 0)),
    CONSTRAINT block_partitioning_only_row_check CHECK (only_row)
);

--
-- Name: TABLE block_partitioning; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.block_partitioning IS 'the one row saying how many blocks a partition of transactions, calls, events and token_transfers holds. Set by the operator before indexing; read by db.Partitions.';

--
-- Name: blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.blocks (
    number bigint NOT NULL,
    hash bytea NOT NULL,
    parent_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    status text NOT NULL,
    state_root bytea,
    sequencer_address bytea,
    starknet_version text DEFAULT ''::text NOT NULL,
    l1_da_mode text,
    l1_gas_price_wei numeric(78,0),
    l1_gas_price_fri numeric(78,0),
    l1_data_gas_price_wei numeric(78,0),
    l1_data_gas_price_fri numeric(78,0),
    l2_gas_price_wei numeric(78,0),
    l2_gas_price_fri numeric(78,0),
    tx_count integer DEFAULT 0 NOT NULL,
    event_count integer DEFAULT 0 NOT NULL,
    message_count integer DEFAULT 0 NOT NULL,
    l1_verification_tx_hash bytea,
    fees_wei numeric(78,0) DEFAULT 0 NOT NULL,
    fee_txs_wei integer DEFAULT 0 NOT NULL,
    fees_fri numeric(78,0) DEFAULT 0 NOT NULL,
    fee_txs_fri integer DEFAULT 0 NOT NULL,
    txs_before bigint DEFAULT 0 NOT NULL
);

--
-- Name: TABLE blocks; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.blocks IS 'one block of the canonical chain, with its counts and fee sums. Written by the indexer; status moves to ACCEPTED_ON_L1 in place (write_state.go); a reorg deletes the blocks above its fork point, and every per-block row with them.';

--
-- Name: call_balances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.call_balances (
    token_address bytea NOT NULL,
    owner_address bytea NOT NULL,
    balance numeric(78,0) NOT NULL,
    read_block bigint NOT NULL
);

--
-- Name: calls; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.calls (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    call_index integer NOT NULL,
    contract_id integer NOT NULL,
    selector_id integer NOT NULL,
    class_id integer,
    calldata_offset smallint,
    calldata_length smallint,
    entrypoint text,
    entrypoint_type text DEFAULT 'EXTERNAL'::text NOT NULL,
    call_type text DEFAULT 'CALL'::text NOT NULL,
    calldata bytea DEFAULT '\x'::bytea,
    inputs jsonb,
    outputs jsonb
)
PARTITION BY RANGE (block_number);

--
-- Name: TABLE calls; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.calls IS 'one call of a transaction''s execution (its trace), in order; contract, selector and class are felt ids. A call''s calldata is a position in its transaction''s calldata when it is there (calldata_offset, calldata_length), else its own. Written by the indexer.';

--
-- Name: calls_0; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.calls_0 (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    call_index integer NOT NULL,
    contract_id integer NOT NULL,
    selector_id integer NOT NULL,
    class_id integer,
    calldata_offset smallint,
    calldata_length smallint,
    entrypoint text,
    entrypoint_type text DEFAULT 'EXTERNAL'::text NOT NULL,
    call_type text DEFAULT 'CALL'::text NOT NULL,
    calldata bytea DEFAULT '\x'::bytea,
    inputs jsonb,
    outputs jsonb
);

--
-- Name: felt_ids; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.felt_ids (
    id integer NOT NULL,
    felt bytea NOT NULL
);

--
-- Name: TABLE felt_ids; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.felt_ids IS 'one felt that rows of the per-block tables name by id. Written by the indexer (ChainRows.assignIDs, db/felt_ids.go) and by felt_id() in SQL; ids are never reused or undone: a felt met only in orphaned blocks keeps its id.';

--
-- Name: calls_named; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.calls_named AS
 SELECT c.block_number,
    c.tx_index,
    c.call_index,
    a.felt AS contract_address,
    s.felt AS selector,
    k.felt AS class_hash,
    c.calldata_offset,
    c.calldata_length,
    c.entrypoint,
    c.entrypoint_type,
    c.call_type,
    c.calldata,
    c.inputs,
    c.outputs
   FROM (((public.calls c
     JOIN public.felt_ids a ON ((a.id = c.contract_id)))
     JOIN public.felt_ids s ON ((s.id = c.selector_id)))
     LEFT JOIN public.felt_ids k ON ((k.id = c.class_id)));

--
-- Name: VIEW calls_named; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.calls_named IS 'calls with their contract, selector and class, for SQL written by hand.';

--
-- Name: chain_stats; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chain_stats (
    id smallint DEFAULT 1 NOT NULL,
    max_tps double precision DEFAULT 0 NOT NULL,
    max_tps_block_hash bytea,
    tvl_usd double precision,
    recent_txs bigint DEFAULT 0 NOT NULL,
    recent_seconds bigint DEFAULT 0 NOT NULL,
    avg_fee_wei numeric(78,0),
    avg_fee_fri numeric(78,0),
    active_accounts bigint DEFAULT 0 NOT NULL,
    new_accounts bigint DEFAULT 0 NOT NULL,
    new_accounts_previous bigint DEFAULT 0 NOT NULL,
    CONSTRAINT chain_stats_id_check CHECK ((id = 1))
);

--
-- Name: TABLE chain_stats; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.chain_stats IS 'the one row of the figures of /beta/stats and networkStats (tps, fees, active and new accounts, TVL). Written by the indexer (max tps, journaled) and refresh_chain_stats().';

--
-- Name: classes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.classes (
    hash bytea NOT NULL,
    kind text NOT NULL,
    cairo_version smallint NOT NULL,
    version text DEFAULT '0'::text NOT NULL,
    compiled_class_hash bytea,
    abi jsonb,
    is_account boolean DEFAULT false NOT NULL,
    is_proxy boolean DEFAULT false NOT NULL,
    erc_standard text,
    declared_block bigint,
    declared_tx_hash bytea,
    declared_at bigint
);

--
-- Name: TABLE classes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.classes IS 'one declared class, with its ABI and what it looks like (account, proxy, ERC standard). Written by the indexer; a verification gives a class without an ABI the verified one (db/verify_queue.go).';

--
-- Name: contracts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.contracts (
    address bytea NOT NULL,
    class_hash bytea NOT NULL,
    type text DEFAULT 'unknown'::text NOT NULL,
    nonce numeric(78,0) DEFAULT 0 NOT NULL,
    implementation_address bytea,
    deployed_block bigint,
    deployed_tx_hash bytea,
    deployed_at bigint,
    class_updated_block bigint
)
WITH (fillfactor='70');

--
-- Name: TABLE contracts; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.contracts IS 'one deployed contract: its class, type and nonce, where it was deployed. Written by the indexer, in place (journaled); a class replacement updates class_hash.';

--
-- Name: deferred_constraints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deferred_constraints (
    name text NOT NULL,
    table_name text NOT NULL,
    kind text NOT NULL,
    definition text NOT NULL,
    comment text,
    CONSTRAINT deferred_constraints_kind_check CHECK ((kind = ANY (ARRAY['index'::text, 'foreign key'::text, 'primary key'::text, 'trigger'::text])))
);

--
-- Name: TABLE deferred_constraints; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.deferred_constraints IS 'the definition of an index, key or foreign key, or the name of a trigger, that a bulk load dropped or turned off (db.DeferConstraints, db/bulk.go), written in the transaction that does it; db.RestoreConstraints builds it again (turns it on) and deletes the row. Empty outside a bulk load.';

--
-- Name: delegations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.delegations (
    pool_contract bytea NOT NULL,
    delegator_address bytea NOT NULL,
    reward_address bytea,
    amount numeric(78,0) DEFAULT 0 NOT NULL,
    rewards_claimed numeric(78,0) DEFAULT 0 NOT NULL,
    rewards_unclaimed numeric(78,0) DEFAULT 0 NOT NULL,
    unpool_amount numeric(78,0) DEFAULT 0 NOT NULL,
    activated_at bigint,
    last_delegation_at bigint,
    unpool_time bigint,
    withdrawal_time bigint,
    status text DEFAULT 'active'::text NOT NULL
);

--
-- Name: TABLE delegations; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.delegations IS 'one delegator''s position in a pool. Written by the indexer (journaled).';

--
-- Name: erc20_balance_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.erc20_balance_changes (
    token_id integer NOT NULL,
    owner_id integer NOT NULL,
    block_number bigint NOT NULL,
    balance numeric(78,0) NOT NULL
);

--
-- Name: TABLE erc20_balance_changes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.erc20_balance_changes IS 'a wallet''s balance of an ERC-20 token after a block that changed it (token and owner are felt ids): balances at a block and balance histories. Written by the indexer.';

--
-- Name: erc20_balance_changes_named; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.erc20_balance_changes_named AS
 SELECT tk.felt AS token_address,
    o.felt AS owner_address,
    c.block_number,
    c.balance
   FROM ((public.erc20_balance_changes c
     JOIN public.felt_ids tk ON ((tk.id = c.token_id)))
     JOIN public.felt_ids o ON ((o.id = c.owner_id)));

--
-- Name: VIEW erc20_balance_changes_named; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.erc20_balance_changes_named IS 'erc20_balance_changes with their token and owner, for SQL written by hand.';

--
-- Name: erc20_balances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.erc20_balances (
    token_address bytea NOT NULL,
    owner_address bytea NOT NULL,
    balance numeric(78,0) NOT NULL,
    last_transfer_block bigint NOT NULL,
    last_transfer_time bigint NOT NULL
)
WITH (fillfactor='50');

--
-- Name: TABLE erc20_balances; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.erc20_balances IS 'a wallet''s current balance of an ERC-20 token. Written by the indexer, in place (journaled).';

--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    from_id integer NOT NULL,
    key0_id integer,
    keys_tail bytea DEFAULT '\x'::bytea NOT NULL,
    data bytea DEFAULT '\x'::bytea NOT NULL,
    transfer_layout smallint
)
PARTITION BY RANGE (block_number);

--
-- Name: TABLE events; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.events IS 'one event a transaction emitted; emitter and first key are felt ids, the other keys and the data packed felts. An ERC-20 Transfer keeps only its layout (transfer_layout): its keys and data are made from its token_transfers row when read (db/transfer_events.go). Written by the indexer.';

--
-- Name: events_0; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events_0 (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    from_id integer NOT NULL,
    key0_id integer,
    keys_tail bytea DEFAULT '\x'::bytea NOT NULL,
    data bytea DEFAULT '\x'::bytea NOT NULL,
    transfer_layout smallint
);

--
-- Name: token_transfers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_transfers (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    token_id integer NOT NULL,
    from_id integer NOT NULL,
    to_id integer NOT NULL,
    amount numeric(78,0) NOT NULL,
    is_fee boolean DEFAULT false NOT NULL
)
PARTITION BY RANGE (block_number);

--
-- Name: TABLE token_transfers; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.token_transfers IS 'one ERC-20 Transfer event (an ERC-721/1155 transfer is an nft_events row): token, sender and receiver are felt ids; is_fee marks the fee a transaction paid. Written by the indexer.';

--
-- Name: events_named; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.events_named AS
 SELECT e.block_number,
    e.tx_index,
    e.event_index,
    f.felt AS from_address,
    k.felt AS key0,
    (
        CASE
            WHEN (k.felt IS NULL) THEN '\x'::bytea
            ELSE public.felt_packed(k.felt)
        END ||
        CASE
            WHEN (e.transfer_layout IS NULL) THEN e.keys_tail
            ELSE public.transfer_event_keys_tail(e.transfer_layout, xf.felt, xt.felt)
        END) AS keys,
        CASE
            WHEN (e.transfer_layout IS NULL) THEN e.data
            ELSE public.transfer_event_data(e.transfer_layout, xf.felt, xt.felt, x.amount)
        END AS data
   FROM (((((public.events e
     JOIN public.felt_ids f ON ((f.id = e.from_id)))
     LEFT JOIN public.felt_ids k ON ((k.id = e.key0_id)))
     LEFT JOIN public.token_transfers x ON (((e.transfer_layout IS NOT NULL) AND (x.block_number = e.block_number) AND (x.tx_index = e.tx_index) AND (x.event_index = e.event_index))))
     LEFT JOIN public.felt_ids xf ON ((xf.id = x.from_id)))
     LEFT JOIN public.felt_ids xt ON ((xt.id = x.to_id)));

--
-- Name: VIEW events_named; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.events_named IS 'events with their emitter, keys and data whole (a Transfer folded into its token_transfers row made again), for SQL written by hand.';

--
-- Name: felt_ids_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.felt_ids ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.felt_ids_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: holders_snapshots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.holders_snapshots (
    token_address bytea NOT NULL,
    computed_at timestamp with time zone NOT NULL,
    total_supply numeric(78,0) NOT NULL,
    burned_supply numeric(78,0) NOT NULL,
    circulating_supply numeric(78,0) NOT NULL,
    holder_count bigint NOT NULL,
    holders_over_1pct integer NOT NULL,
    top_n_concentration jsonb NOT NULL,
    concentration_buckets jsonb NOT NULL,
    tier_distribution jsonb NOT NULL,
    wallet_depth_usd jsonb,
    gini_top_10k double precision NOT NULL,
    token_usd_price double precision,
    is_stale boolean DEFAULT false NOT NULL,
    is_recomputing boolean DEFAULT false NOT NULL
);

--
-- Name: TABLE holders_snapshots; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.holders_snapshots IS 'a holders-analytics snapshot of a verified ERC-20 token; the newest row per token is served. Written by the analytics job (analytics/holders.go).';

--
-- Name: indexer_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.indexer_state (
    id smallint DEFAULT 1 NOT NULL,
    head_block bigint,
    head_hash bytea,
    node_head bigint,
    chain_id text,
    spec_version text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    derived_through bigint,
    CONSTRAINT indexer_state_id_check CHECK ((id = 1))
);

--
-- Name: TABLE indexer_state; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.indexer_state IS 'the one row (id = 1) saying where the indexer is and where the node is. Written by the indexer (db.SetIndexerHead, write_state.go); read by indexerStatus and /beta/api-status.';

--
-- Name: COLUMN indexer_state.derived_through; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.indexer_state.derived_through IS 'while a bulk load defers them: the block through which erc20_balances, key_counts, sender_last_blocks and active_sender_blocks are written (the rows above it derive the rest); NULL: they follow the head';

--
-- Name: key_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.key_counts (
    list smallint NOT NULL,
    key bytea NOT NULL,
    n bigint NOT NULL
)
WITH (fillfactor='50');

--
-- Name: TABLE key_counts; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.key_counts IS 'how many rows a key has in one list that the APIs filter by a key (list: the numbers of db.keyList): the list''s total. Written by the indexer with the rows; a reorg takes back what the orphaned blocks added (db.UndoAbove).';

--
-- Name: key_marks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.key_marks (
    list smallint NOT NULL,
    key bytea NOT NULL,
    ordinal bigint NOT NULL,
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL
);

--
-- Name: TABLE key_marks; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.key_marks IS 'where a key''s row 1000, 2000, ... of a list stands (ordinal counted from its oldest row), for keys with more than a thousand rows. Written by the indexer with the rows; a reorg deletes the marks above its fork point.';

--
-- Name: l1_messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.l1_messages (
    message_hash bytea NOT NULL,
    l1_tx_hash bytea NOT NULL,
    l1_block bigint NOT NULL,
    l1_log_index integer NOT NULL
);

--
-- Name: TABLE l1_messages; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.l1_messages IS 'one L1 -> L2 message seen on Ethereum (the core contract''s LogMessageToL2), with the L1 transaction that sent it. Written by the L1 follower (--l1-rpc, l1/, db/l1.go).';

--
-- Name: l1_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.l1_state (
    id smallint NOT NULL,
    next_block bigint NOT NULL,
    CONSTRAINT l1_state_id_check CHECK ((id = 1))
);

--
-- Name: TABLE l1_state; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.l1_state IS 'the one row saying which Ethereum block the L1 follower reads next. Written by the L1 follower.';

--
-- Name: list_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.list_counts (
    name text NOT NULL,
    count bigint DEFAULT 0 NOT NULL
);

--
-- Name: TABLE list_counts; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.list_counts IS 'the exact total of a list or statistic (''blocks'', ''transactions'', ''contracts:<type>'', ''tokens:<standard>'', ''verified_classes'', ...), so that lastPage and totalCount never count a large table. Written by the indexer in the block''s transaction (journaled) and by the verification workers.';

--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    direction smallint NOT NULL,
    msg_index integer NOT NULL,
    message_hash bytea NOT NULL,
    from_address bytea NOT NULL,
    to_address bytea NOT NULL,
    l2_address bytea NOT NULL,
    selector bytea,
    payload bytea NOT NULL,
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    CONSTRAINT messages_direction_check CHECK ((direction = ANY (ARRAY[0, 1])))
);

--
-- Name: TABLE messages; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.messages IS 'one message between L1 and L2 that a transaction consumed (direction 0, L1 -> L2) or sent (1, L2 -> L1). Written by the indexer.';

--
-- Name: meta_transactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.meta_transactions (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    call_index integer DEFAULT 0 NOT NULL,
    contract_address bytea NOT NULL,
    caller_address bytea,
    version smallint DEFAULT 2 NOT NULL,
    operations text DEFAULT ''::text NOT NULL,
    actions jsonb
);

--
-- Name: TABLE meta_transactions; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.meta_transactions IS 'one outside execution (SNIP-9 execute_from_outside) inside a transaction: the relayer is the transaction''s sender, the account that signed the intent contract_address. Written by the indexer.';

--
-- Name: nft_balances; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_balances (
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    owner_address bytea NOT NULL,
    balance numeric(78,0) NOT NULL,
    last_transfer_time bigint NOT NULL
);

--
-- Name: TABLE nft_balances; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_balances IS 'what a wallet holds of one NFT item. Written by the indexer (journaled).';

--
-- Name: nft_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_events (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    sub_index integer DEFAULT 0 NOT NULL,
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    from_address bytea NOT NULL,
    to_address bytea NOT NULL,
    quantity numeric(78,0) DEFAULT 1 NOT NULL,
    type text NOT NULL,
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL,
    payment_token_address bytea,
    payment_token_symbol text,
    total_price numeric(78,0),
    marketplace_contract_address bytea
);

--
-- Name: TABLE nft_events; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_events IS 'one NFT transfer, mint or burn (sub_index numbers those of one ERC-1155 batch event), with the sale that paid for it when there was one. Written by the indexer (per-block rows).';

--
-- Name: nft_holders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_holders (
    contract_address bytea NOT NULL,
    owner_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    held numeric(78,0) NOT NULL,
    last_transfer_time bigint NOT NULL,
    CONSTRAINT nft_holders_held_check CHECK ((held > (0)::numeric))
);

--
-- Name: TABLE nft_holders; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_holders IS 'what a wallet holds of one collection in all, from nft_balances, so that a collection''s holders are an index scan. Written by the indexer for the pairs each batch touches (journaled).';

--
-- Name: nft_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_items (
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    contract_type smallint NOT NULL,
    owner_address bytea,
    name text,
    description text,
    external_url text,
    image_url text,
    image_small_url text,
    image_large_url text,
    youtube_url text,
    animation_url text,
    attributes jsonb DEFAULT '[]'::jsonb NOT NULL,
    token_uri text,
    minted_by_address bytea,
    minted_at_block bigint,
    minted_at_tx_hash bytea,
    minted_at_timestamp bigint
);

--
-- Name: TABLE nft_items; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_items IS 'one NFT item (collection, token id): its owner (ERC-721), its metadata and its mint. Written by the indexer (journaled); the metadata by the metadata fetcher (db/nft_metadata.go).';

--
-- Name: nft_metadata_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_metadata_requests (
    contract_address bytea NOT NULL,
    token_id numeric(78,0) NOT NULL,
    requested_at timestamp with time zone DEFAULT now() NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    error text,
    finished_at timestamp with time zone,
    claimed_at timestamp with time zone,
    CONSTRAINT nft_metadata_requests_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'fetching'::text, 'done'::text, 'failed'::text])))
);

--
-- Name: TABLE nft_metadata_requests; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_metadata_requests IS 'one NFT item whose metadata was asked to be refreshed (POST /beta/nft/update-metadata/...): queued by the API, claimed for a while and finished by the metadata fetcher (nftmeta, db/nft_metadata.go). The row stays once done: the API''s per-token limit reads requested_at.';

--
-- Name: nft_sale_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_sale_keys (
    scope "char" NOT NULL,
    key bytea NOT NULL,
    traders bigint DEFAULT 0 NOT NULL,
    collections bigint DEFAULT 0 NOT NULL
);

--
-- Name: TABLE nft_sale_keys; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_sale_keys IS 'the distinct traders of a collection (scope c) or marketplace (m) in NFT sales of all time, and a marketplace''s distinct collections: nft_sale_members counted. Kept by the triggers of nft_events (nft_sales_count)';

--
-- Name: nft_sale_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_sale_members (
    scope "char" NOT NULL,
    key bytea NOT NULL,
    member bytea NOT NULL,
    sales bigint NOT NULL
);

--
-- Name: TABLE nft_sale_members; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_sale_members IS 'who took part in NFT sales of all time: a collection''s traders (scope c: buyers and sellers), a marketplace''s traders (m) and collections (k), with the sales of each. Kept by the triggers of nft_events (nft_sales_count)';

--
-- Name: nft_sale_volumes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nft_sale_volumes (
    scope "char" NOT NULL,
    key bytea NOT NULL,
    payment_token bytea NOT NULL,
    sales bigint NOT NULL,
    price numeric NOT NULL
);

--
-- Name: TABLE nft_sale_volumes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.nft_sale_volumes IS 'NFT sales of all time per collection (scope c) or marketplace (scope m) and payment token (empty: none): their number and summed price. Kept by the triggers of nft_events (nft_sales_count)';

--
-- Name: plans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.plans (
    name text NOT NULL,
    rate_per_second double precision NOT NULL,
    burst integer NOT NULL,
    daily_quota bigint,
    monthly_quota bigint,
    allowed_operations text[],
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    max_subscriptions integer DEFAULT 100 NOT NULL,
    max_webhooks integer DEFAULT 10 NOT NULL,
    CONSTRAINT plans_burst_check CHECK ((burst >= 1)),
    CONSTRAINT plans_daily_quota_check CHECK (((daily_quota IS NULL) OR (daily_quota > 0))),
    CONSTRAINT plans_max_subscriptions_check CHECK ((max_subscriptions >= 0)),
    CONSTRAINT plans_max_webhooks_check CHECK ((max_webhooks >= 0)),
    CONSTRAINT plans_monthly_quota_check CHECK (((monthly_quota IS NULL) OR (monthly_quota > 0))),
    CONSTRAINT plans_name_check CHECK ((name <> ''::text)),
    CONSTRAINT plans_rate_per_second_check CHECK ((rate_per_second > (0)::double precision))
);

--
-- Name: TABLE plans; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.plans IS 'one plan: rate, burst, quotas, operations allowed, subscriptions. Seeded below (free, pro, dev); operators edit them by SQL; read by auth.';

--
-- Name: pools; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pools (
    pool_contract bytea NOT NULL,
    staker_address bytea NOT NULL,
    token_address bytea NOT NULL,
    total_delegated numeric(78,0) DEFAULT 0 NOT NULL,
    delegator_count integer DEFAULT 0 NOT NULL,
    created_block bigint
);

--
-- Name: TABLE pools; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.pools IS 'one delegation pool of a validator, for one token (STRK or a BTC wrapper). Written by the indexer (journaled).';

--
-- Name: rank_spans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.rank_spans (
    list smallint NOT NULL,
    key bytea NOT NULL,
    s1 numeric NOT NULL,
    s2 bytea NOT NULL,
    n bigint NOT NULL
);

--
-- Name: TABLE rank_spans; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.rank_spans IS 'the row count of one span of consecutive rows of a list whose order changes (a token''s holders by balance, list 1; a collection''s holders, 2; a class''s contracts by deployment, 3), starting after the sort key (s1, s2). Written by the triggers of erc20_balances, nft_holders and contracts (rank_spans_add); split and merged by rank_spans_resize.';

--
-- Name: sender_last_blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sender_last_blocks (
    sender_address bytea NOT NULL,
    block_number bigint NOT NULL
);

--
-- Name: TABLE sender_last_blocks; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.sender_last_blocks IS 'a sender''s newest block. Written by the indexer (journaled); feeds active_sender_blocks.';

--
-- Name: server_secrets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.server_secrets (
    name text NOT NULL,
    value bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: TABLE server_secrets; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.server_secrets IS 'one secret the API replicas share, generated at first start: ''cursor'' keys the HMAC of the opaque cursors (cursor/cursor.go) unless --cursor-secret gives one.';

--
-- Name: stake_points; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.stake_points (
    wallet_address bytea NOT NULL,
    day date NOT NULL,
    token_address bytea NOT NULL,
    change numeric(78,0) NOT NULL,
    total numeric(78,0) NOT NULL,
    block_number bigint NOT NULL
);

--
-- Name: TABLE stake_points; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.stake_points IS 'a wallet''s delegated stake of a token at the end of a UTC day on which it changed. Written by the indexer (journaled).';

--
-- Name: staking_activity; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staking_activity (
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    operation text NOT NULL,
    wallet_address bytea NOT NULL,
    staker_address bytea NOT NULL,
    pool_contract bytea,
    token_address bytea,
    amount numeric(78,0),
    transaction_hash bytea NOT NULL,
    "timestamp" bigint NOT NULL
);

--
-- Name: TABLE staking_activity; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.staking_activity IS 'one staking operation (stake, delegation, exit, claim, ...) of a wallet with a validator. Written by the indexer (per-block rows).';

--
-- Name: staking_overview; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staking_overview (
    id smallint DEFAULT 1 NOT NULL,
    staking_contract bytea,
    strk_token_address bytea,
    btc_token_address bytea,
    minimum_stake numeric(78,0) DEFAULT 0 NOT NULL,
    total_supply numeric(78,0) DEFAULT 0 NOT NULL,
    total_pending_unstake_strk numeric(78,0) DEFAULT 0 NOT NULL,
    total_pending_unstake_btc numeric(78,0) DEFAULT 0 NOT NULL,
    minting_curve double precision DEFAULT 0 NOT NULL,
    security_lockup_seconds bigint DEFAULT 0 NOT NULL,
    epoch_id bigint DEFAULT 0 NOT NULL,
    epoch_start_time bigint DEFAULT 0 NOT NULL,
    epoch_duration_seconds bigint DEFAULT 0 NOT NULL,
    updated_at bigint DEFAULT 0 NOT NULL,
    minting_curve_contract bytea,
    reward_supplier bytea,
    minting_c_denom integer DEFAULT 0 NOT NULL,
    epoch_starting_block bigint DEFAULT 0 NOT NULL,
    epoch_length_blocks integer DEFAULT 0 NOT NULL,
    figures_block bigint,
    CONSTRAINT staking_overview_id_check CHECK ((id = 1))
);

--
-- Name: TABLE staking_overview; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.staking_overview IS 'the one row of the staking contract''s parameters and epoch, the minting curve and the L1 total supply, as last read from the contracts. Written by the indexer (indexer/figures.go, write_staking.go, write_figures.go), journaled.';

--
-- Name: validators; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.validators (
    staker_address bytea NOT NULL,
    reward_address bytea,
    operational_address bytea,
    name text,
    image_url text,
    is_verified boolean DEFAULT false NOT NULL,
    self_stake numeric(78,0) DEFAULT 0 NOT NULL,
    delegated_stake_strk numeric(78,0) DEFAULT 0 NOT NULL,
    delegated_stake_btc numeric(78,0) DEFAULT 0 NOT NULL,
    revenue_share_bps integer DEFAULT 0 NOT NULL,
    state text DEFAULT 'active'::text NOT NULL,
    start_time bigint,
    unstake_time bigint,
    withdrawal_time bigint,
    total_delegators integer DEFAULT 0 NOT NULL,
    liveness_attested_epochs integer DEFAULT 0 NOT NULL,
    liveness_total_epochs integer DEFAULT 0 NOT NULL,
    liveness_last_epoch bigint,
    created_block bigint
);

--
-- Name: TABLE validators; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.validators IS 'one validator (staker): its stake, commission, state and liveness. Written by the indexer (journaled); its name, image and verified flag come from the labels (aliases).';

--
-- Name: staking_economy; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.staking_economy AS
 WITH o AS (
         SELECT staking_overview.id,
            staking_overview.staking_contract,
            staking_overview.strk_token_address,
            staking_overview.btc_token_address,
            staking_overview.minimum_stake,
            staking_overview.total_supply,
            staking_overview.total_pending_unstake_strk,
            staking_overview.total_pending_unstake_btc,
            staking_overview.minting_curve,
            staking_overview.security_lockup_seconds,
            staking_overview.epoch_id,
            staking_overview.epoch_start_time,
            staking_overview.epoch_duration_seconds,
            staking_overview.updated_at,
            staking_overview.minting_curve_contract,
            staking_overview.reward_supplier,
            staking_overview.minting_c_denom,
            staking_overview.epoch_starting_block,
            staking_overview.epoch_length_blocks,
            staking_overview.figures_block
           FROM public.staking_overview
          WHERE (staking_overview.id = 1)
        ), t AS (
         SELECT COALESCE(sum((validators.self_stake + validators.delegated_stake_strk)), (0)::numeric) AS strk,
            COALESCE(sum(validators.delegated_stake_btc), (0)::numeric) AS btc
           FROM public.validators
          WHERE (validators.state = 'active'::text)
        ), y AS (
         SELECT t.strk,
            t.btc,
                CASE
                    WHEN ((o.minting_c_denom > 0) AND (t.strk > (0)::numeric) AND (o.total_supply > (0)::numeric)) THEN div(((o.minting_curve)::numeric * public.isqrt((t.strk * o.total_supply))), (o.minting_c_denom)::numeric)
                    ELSE NULL::numeric
                END AS yearly_mint,
                CASE
                    WHEN (t.btc > (0)::numeric) THEN 0.25
                    ELSE (0)::numeric
                END AS btc_share
           FROM (t
             LEFT JOIN o ON (true))
        )
 SELECT y.strk AS total_stake_strk,
    y.btc AS total_stake_btc,
    y.yearly_mint,
    y.btc_share,
        CASE
            WHEN (y.strk > (0)::numeric) THEN ((((100)::numeric * ((1)::numeric - y.btc_share)) * y.yearly_mint) / y.strk)
            ELSE NULL::numeric
        END AS base_apr_strk
   FROM y;

--
-- Name: VIEW staking_economy; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.staking_economy IS 'what follows from the staking overview and the stakes: the yearly mint of the minting curve (c_num * sqrt(total STRK stake * L1 total supply) / c_denom), the BTC share of the rewards and the base APR of STRK stake, in percent.';

--
-- Name: staking_figures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.staking_figures (
    id smallint DEFAULT 1 NOT NULL,
    total_stake_strk numeric NOT NULL,
    total_stake_btc numeric NOT NULL,
    yearly_mint numeric,
    btc_share numeric NOT NULL,
    base_apr_strk numeric,
    average_commission double precision DEFAULT 0 NOT NULL,
    max_apr_strk double precision,
    min_btc_commission_bps integer,
    mean_block_seconds double precision,
    CONSTRAINT staking_figures_id_check CHECK ((id = 1))
);

--
-- Name: TABLE staking_figures; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.staking_figures IS 'the one row of staking_economy''s figures and the averages over validators, kept so that requests read a row. Written by refresh_staking_figures(), which the indexer calls after every batch and after a reorg is undone.';

--
-- Name: starknet_id_domains; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.starknet_id_domains (
    domain text NOT NULL,
    expiry bigint NOT NULL
);

--
-- Name: TABLE starknet_id_domains; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.starknet_id_domains IS 'the expiry of a Starknet ID root domain. Written by the indexer (journaled).';

--
-- Name: starknet_id_names; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.starknet_id_names (
    address bytea NOT NULL,
    domain text NOT NULL,
    root text NOT NULL,
    block_number bigint NOT NULL
);

--
-- Name: TABLE starknet_id_names; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.starknet_id_names IS 'an address''s main Starknet ID domain. Written by the indexer from the naming contract''s events (journaled).';

--
-- Name: token_prices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_prices (
    token_address bytea NOT NULL,
    block_number bigint NOT NULL,
    pair text NOT NULL,
    price numeric(78,0) NOT NULL,
    decimals smallint NOT NULL
);

--
-- Name: TABLE token_prices; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.token_prices IS 'one USD price reading of a token from the on-chain oracle at a block. Written by the indexer (indexer/figures.go, write_figures.go); removed with its block on a reorg.';

--
-- Name: token_transfers_0; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.token_transfers_0 (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    token_id integer NOT NULL,
    from_id integer NOT NULL,
    to_id integer NOT NULL,
    amount numeric(78,0) NOT NULL,
    is_fee boolean DEFAULT false NOT NULL
);

--
-- Name: token_transfers_named; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.token_transfers_named AS
 SELECT e.block_number,
    e.tx_index,
    e.event_index,
    tk.felt AS token_address,
    f.felt AS from_address,
    t.felt AS to_address,
    e.amount,
    e.is_fee
   FROM (((public.token_transfers e
     JOIN public.felt_ids tk ON ((tk.id = e.token_id)))
     JOIN public.felt_ids f ON ((f.id = e.from_id)))
     JOIN public.felt_ids t ON ((t.id = e.to_id)));

--
-- Name: VIEW token_transfers_named; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.token_transfers_named IS 'token_transfers with their token, sender and receiver, for SQL written by hand.';

--
-- Name: tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tokens (
    address bytea NOT NULL,
    standard text NOT NULL,
    name text,
    symbol text,
    decimals smallint,
    total_supply numeric(78,0),
    transfer_count bigint DEFAULT 0 NOT NULL,
    holder_count bigint DEFAULT 0 NOT NULL,
    verified boolean DEFAULT false NOT NULL,
    usd_price double precision,
    market_cap_usd double precision,
    logo_url text,
    first_block bigint,
    balances_source text DEFAULT 'events'::text NOT NULL,
    storage_checked_block bigint
);

--
-- Name: TABLE tokens; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.tokens IS 'one token contract (erc20, erc721, erc1155) with its metadata and counters. The indexer writes its db.TokenRow columns (journaled); prices and market caps come from the figures (write_figures.go), logos and verified flags from the labels (aliases, db/labels.go).';

--
-- Name: transactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transactions (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    hash bytea NOT NULL,
    type text NOT NULL,
    version smallint NOT NULL,
    "timestamp" bigint NOT NULL,
    sender_id integer,
    contract_id integer,
    class_id integer,
    entry_point_selector bytea,
    nonce numeric(78,0),
    max_fee numeric(78,0),
    tip numeric(78,0),
    actual_fee numeric(78,0) DEFAULT 0 NOT NULL,
    actual_fee_unit text DEFAULT 'WEI'::text NOT NULL,
    execution_status public.tx_execution_status NOT NULL,
    finality_status public.tx_finality_status NOT NULL,
    revert_reason text,
    calldata bytea DEFAULT '\x'::bytea NOT NULL,
    constructor_calldata bytea,
    signature bytea DEFAULT '\x'::bytea NOT NULL,
    compiled_class_hash bytea,
    contract_address_salt bytea,
    paymaster_data bytea,
    account_deployment_data bytea,
    nonce_da_mode text,
    fee_da_mode text,
    message_hash bytea,
    l1_transaction_hash bytea,
    event_count integer DEFAULT 0 NOT NULL,
    partial_calls_parsing boolean DEFAULT false NOT NULL,
    max_l1_gas numeric(78,0),
    max_l1_gas_price numeric(78,0),
    max_l2_gas numeric(78,0),
    max_l2_gas_price numeric(78,0),
    max_l1_data_gas numeric(78,0),
    max_l1_data_gas_price numeric(78,0),
    l1_gas_used numeric(20,0),
    l2_gas_used numeric(20,0),
    l1_data_gas_used numeric(20,0)
)
PARTITION BY RANGE (block_number);

--
-- Name: TABLE transactions; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.transactions IS 'one transaction, by (block_number, tx_index); its sender, contract and class are felt ids (transactions_named shows them). Written by the indexer; the L1 follower sets l1_transaction_hash of L1_HANDLER transactions (db/l1.go).';

--
-- Name: transactions_0; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transactions_0 (
    block_number integer NOT NULL,
    tx_index integer NOT NULL,
    hash bytea NOT NULL,
    type text NOT NULL,
    version smallint NOT NULL,
    "timestamp" bigint NOT NULL,
    sender_id integer,
    contract_id integer,
    class_id integer,
    entry_point_selector bytea,
    nonce numeric(78,0),
    max_fee numeric(78,0),
    tip numeric(78,0),
    actual_fee numeric(78,0) DEFAULT 0 NOT NULL,
    actual_fee_unit text DEFAULT 'WEI'::text NOT NULL,
    execution_status public.tx_execution_status NOT NULL,
    finality_status public.tx_finality_status NOT NULL,
    revert_reason text,
    calldata bytea DEFAULT '\x'::bytea NOT NULL,
    constructor_calldata bytea,
    signature bytea DEFAULT '\x'::bytea NOT NULL,
    compiled_class_hash bytea,
    contract_address_salt bytea,
    paymaster_data bytea,
    account_deployment_data bytea,
    nonce_da_mode text,
    fee_da_mode text,
    message_hash bytea,
    l1_transaction_hash bytea,
    event_count integer DEFAULT 0 NOT NULL,
    partial_calls_parsing boolean DEFAULT false NOT NULL,
    max_l1_gas numeric(78,0),
    max_l1_gas_price numeric(78,0),
    max_l2_gas numeric(78,0),
    max_l2_gas_price numeric(78,0),
    max_l1_data_gas numeric(78,0),
    max_l1_data_gas_price numeric(78,0),
    l1_gas_used numeric(20,0),
    l2_gas_used numeric(20,0),
    l1_data_gas_used numeric(20,0)
);

--
-- Name: transactions_named; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.transactions_named AS
 SELECT t.block_number,
    t.tx_index,
    t.hash,
    t.type,
    t.version,
    t."timestamp",
    t.sender_id,
    t.contract_id,
    t.class_id,
    t.entry_point_selector,
    t.nonce,
    t.max_fee,
    t.tip,
    t.actual_fee,
    t.actual_fee_unit,
    t.execution_status,
    t.finality_status,
    t.revert_reason,
    t.calldata,
    t.constructor_calldata,
    t.signature,
    t.compiled_class_hash,
    t.contract_address_salt,
    t.paymaster_data,
    t.account_deployment_data,
    t.nonce_da_mode,
    t.fee_da_mode,
    t.message_hash,
    t.l1_transaction_hash,
    t.event_count,
    t.partial_calls_parsing,
    t.max_l1_gas,
    t.max_l1_gas_price,
    t.max_l2_gas,
    t.max_l2_gas_price,
    t.max_l1_data_gas,
    t.max_l1_data_gas_price,
    t.l1_gas_used,
    t.l2_gas_used,
    t.l1_data_gas_used,
    s.felt AS sender_address,
    c.felt AS contract_address,
    k.felt AS class_hash
   FROM (((public.transactions t
     LEFT JOIN public.felt_ids s ON ((s.id = t.sender_id)))
     LEFT JOIN public.felt_ids c ON ((c.id = t.contract_id)))
     LEFT JOIN public.felt_ids k ON ((k.id = t.class_id)));

--
-- Name: VIEW transactions_named; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.transactions_named IS 'transactions with its sender, contract and class, for SQL written by hand.';

--
-- Name: undo_rows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.undo_rows (
    block_number bigint NOT NULL,
    seq bigint NOT NULL,
    tbl text NOT NULL,
    key jsonb NOT NULL,
    old jsonb
);

--
-- Name: TABLE undo_rows; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.undo_rows IS 'one image of a row of a journaled table (db/write_undo.go journaledTables) as it was before a block near the head changed it (old is null when the block made the row). Written by the indexer (db.Journal); db.UndoAbove puts the oldest image above a fork point back; entries older than the reorg window are pruned.';

--
-- Name: undo_rows_seq_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.undo_rows_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: undo_rows_seq_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.undo_rows_seq_seq OWNED BY public.undo_rows.seq;

--
-- Name: validator_days; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.validator_days (
    staker_address bytea NOT NULL,
    day date NOT NULL,
    stake_strk numeric(78,0) NOT NULL,
    stake_btc numeric(78,0) NOT NULL,
    delegators integer NOT NULL,
    block_number bigint NOT NULL
);

--
-- Name: TABLE validator_days; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.validator_days IS 'a validator''s stake and delegators at the end of a UTC day that changed them; the row of staker_address ''\x'' is the network''s. Written by the indexer (journaled).';

--
-- Name: validator_economics; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.validator_economics AS
 SELECT v.staker_address,
    row_number() OVER (ORDER BY (v.self_stake + v.delegated_stake_strk) DESC, v.staker_address) AS rank,
        CASE
            WHEN ((v.self_stake > (0)::numeric) AND (e.base_apr_strk IS NOT NULL)) THEN (((e.base_apr_strk * (v.self_stake + (((v.revenue_share_bps)::numeric / 10000.0) * v.delegated_stake_strk))) / v.self_stake) +
            CASE
                WHEN (e.total_stake_btc > (0)::numeric) THEN ((((((((100)::numeric * e.btc_share) * e.yearly_mint) * v.delegated_stake_btc) / e.total_stake_btc) * (v.revenue_share_bps)::numeric) / 10000.0) / v.self_stake)
                ELSE (0)::numeric
            END)
            ELSE NULL::numeric
        END AS apr,
    (e.base_apr_strk * ((1)::numeric - ((v.revenue_share_bps)::numeric / 10000.0))) AS pool_apr_strk
   FROM (public.validators v
     CROSS JOIN public.staking_economy e);

--
-- Name: VIEW validator_economics; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON VIEW public.validator_economics IS 'each validator''s rank by stake and its APRs, from staking_economy.';

--
-- Name: validator_figures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.validator_figures (
    staker_address bytea NOT NULL,
    rank bigint NOT NULL,
    apr numeric,
    pool_apr_strk numeric
);

--
-- Name: TABLE validator_figures; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.validator_figures IS 'one validator''s rank and APRs from validator_economics. Written by refresh_staking_figures().';

--
-- Name: verification_job_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.verification_job_log (
    job_id uuid NOT NULL,
    status smallint NOT NULL,
    worker text NOT NULL,
    at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);

--
-- Name: TABLE verification_job_log; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.verification_job_log IS 'one status change of a verification job, by which worker. Written by the workers.';

--
-- Name: verification_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.verification_jobs (
    id uuid NOT NULL,
    class_hash bytea NOT NULL,
    status smallint DEFAULT 0 NOT NULL,
    name text,
    compiler_version text,
    scarb_version text,
    dojo_version text,
    project_dir_path text,
    package_name text,
    license text,
    contract_file text,
    build_tool text,
    files jsonb NOT NULL,
    message text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_token uuid,
    lease_until timestamp with time zone,
    worker text,
    attempts integer DEFAULT 0 NOT NULL,
    obtained_class_hash bytea,
    compiler_output text,
    finished_at timestamp with time zone
);

--
-- Name: TABLE verification_jobs; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.verification_jobs IS 'one request to verify a class from its sources. Written by the API (submission) and the verification workers (claims, status, output).';

--
-- Name: verified_classes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.verified_classes (
    class_hash bytea NOT NULL,
    name text NOT NULL,
    verified_at bigint NOT NULL,
    compiler_version text,
    scarb_version text,
    license text,
    package_name text,
    contract_file text,
    files jsonb,
    build_tool text,
    project_dir_path text,
    file_paths text[] DEFAULT '{}'::text[] NOT NULL,
    abi jsonb,
    job_id uuid
);

--
-- Name: TABLE verified_classes; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.verified_classes IS 'one class whose sources were verified to compile to it, with the sources. Written by the verification workers.';

--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id bigint NOT NULL,
    webhook_id bigint NOT NULL,
    message_id text NOT NULL,
    block_number bigint NOT NULL,
    attempt integer NOT NULL,
    started_at timestamp with time zone NOT NULL,
    latency_ms integer NOT NULL,
    outcome text NOT NULL,
    status integer DEFAULT 0 NOT NULL,
    response text DEFAULT ''::text NOT NULL,
    error text DEFAULT ''::text NOT NULL
);

--
-- Name: TABLE webhook_deliveries; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.webhook_deliveries IS 'one delivery attempt of a webhook (the delivery log): status, latency, the first KiB of the answer. Written by the delivery loop, pruned by it to the newest rows of each webhook and by age.';

--
-- Name: webhook_deliveries_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.webhook_deliveries ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: webhook_sent; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_sent (
    webhook_id bigint NOT NULL,
    block_number bigint NOT NULL,
    tx_index integer NOT NULL,
    event_index integer NOT NULL,
    block_hash bytea NOT NULL,
    message_id text NOT NULL,
    payload jsonb NOT NULL,
    sub_index integer DEFAULT 0 NOT NULL
);

--
-- Name: TABLE webhook_sent; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.webhook_sent IS 'an item delivered to a webhook within the reorg window, with its block hash and message, for retractions after a reorg. Written and pruned by the delivery loop (webhooks/dispatch.go).';

--
-- Name: COLUMN webhook_sent.sub_index; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.webhook_sent.sub_index IS 'the item''s sub index: the row of an ERC-1155 batch event (nft_events.sub_index); 0 for every other item.';

--
-- Name: webhooks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhooks (
    id bigint NOT NULL,
    key_id bigint NOT NULL,
    url text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    kind text NOT NULL,
    filter jsonb DEFAULT '{}'::jsonb NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_expires_at timestamp with time zone,
    status text DEFAULT 'active'::text NOT NULL,
    status_reason text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    position_block bigint NOT NULL,
    position_tx integer DEFAULT 2147483647 NOT NULL,
    position_event integer DEFAULT 2147483647 NOT NULL,
    position_hash bytea,
    attempts integer DEFAULT 0 NOT NULL,
    failing_since timestamp with time zone,
    next_attempt_at timestamp with time zone,
    last_error text DEFAULT ''::text NOT NULL,
    delivered_at timestamp with time zone,
    start_block bigint DEFAULT '-1'::integer NOT NULL,
    replay jsonb,
    position_sub integer DEFAULT 0 NOT NULL,
    CONSTRAINT webhooks_description_check CHECK ((length(description) <= 200)),
    CONSTRAINT webhooks_kind_check CHECK ((kind = ANY (ARRAY['blocks'::text, 'transactions'::text, 'transfers'::text, 'events'::text, 'nft_transfers'::text]))),
    CONSTRAINT webhooks_status_check CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text, 'disabled'::text]))),
    CONSTRAINT webhooks_url_check CHECK (((url <> ''::text) AND (length(url) <= 2048)))
);

--
-- Name: TABLE webhooks; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON TABLE public.webhooks IS 'one webhook of an API key: its URL, filter, secrets, status and position in the indexed chain (the last item its receiver acknowledged). Written by the GraphQL mutations and the delivery loop (webhooks/dispatch.go).';

--
-- Name: COLUMN webhooks.start_block; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.webhooks.start_block IS 'the block before the first the webhook was to be told of (fromBlock - 1, the head at creation, or a replay''s block - 1): a reorg never moves its position below it.';

--
-- Name: COLUMN webhooks.replay; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.webhooks.replay IS 'the replay under way (db.WebhookReplay: its end, and the position deliveries resume from after it), NULL when none. Written by replayWebhook / replayWebhookMessage and `starkgraph webhooks replay`; ended by the delivery loop (webhooks/dispatch.go).';

--
-- Name: COLUMN webhooks.position_sub; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.webhooks.position_sub IS 'the sub index of the position''s item: which row of an ERC-1155 batch event (nft_events.sub_index) of an nft_transfers webhook; 0 for every other kind and item.';

--
-- Name: webhooks_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.webhooks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.webhooks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: calls_0; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calls ATTACH PARTITION public.calls_0 FOR VALUES FROM (MINVALUE) TO ('1000000');

--
-- Name: events_0; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_0 FOR VALUES FROM (MINVALUE) TO (1000000);

--
-- Name: token_transfers_0; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_transfers ATTACH PARTITION public.token_transfers_0 FOR VALUES FROM (MINVALUE) TO (1000000);

--
-- Name: transactions_0; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transactions ATTACH PARTITION public.transactions_0 FOR VALUES FROM (MINVALUE) TO (1000000);

--
-- Name: undo_rows seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.undo_rows ALTER COLUMN seq SET DEFAULT nextval('public.undo_rows_seq_seq'::regclass);

--
-- Name: active_sender_blocks active_sender_blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.active_sender_blocks
    ADD CONSTRAINT active_sender_blocks_pkey PRIMARY KEY (block_number);

--
-- Name: activity_stats activity_stats_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity_stats
    ADD CONSTRAINT activity_stats_pkey PRIMARY KEY (granularity, starts_at);

--
-- Name: aliases aliases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aliases
    ADD CONSTRAINT aliases_pkey PRIMARY KEY (address);

--
-- Name: api_key_usage api_key_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_key_usage
    ADD CONSTRAINT api_key_usage_pkey PRIMARY KEY (key_id, day);

--
-- Name: api_keys api_keys_key_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);

--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

--
-- Name: attestations attestations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attestations
    ADD CONSTRAINT attestations_pkey PRIMARY KEY (block_number, tx_index, event_index);

--
-- Name: balance_corrections balance_corrections_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.balance_corrections
    ADD CONSTRAINT balance_corrections_pkey PRIMARY KEY (token_address, owner_address, block_number);

--
-- Name: block_partitioning block_partitioning_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.block_partitioning
    ADD CONSTRAINT block_partitioning_pkey PRIMARY KEY (only_row);

--
-- Name: blocks blocks_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_hash_key UNIQUE (hash);

--
-- Name: blocks blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.blocks
    ADD CONSTRAINT blocks_pkey PRIMARY KEY (number);

--
-- Name: call_balances call_balances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.call_balances
    ADD CONSTRAINT call_balances_pkey PRIMARY KEY (token_address, owner_address);

--
-- Name: calls calls_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calls
    ADD CONSTRAINT calls_pkey PRIMARY KEY (block_number, tx_index, call_index);

--
-- Name: calls_0 calls_0_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calls_0
    ADD CONSTRAINT calls_0_pkey PRIMARY KEY (block_number, tx_index, call_index);

--
-- Name: chain_stats chain_stats_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chain_stats
    ADD CONSTRAINT chain_stats_pkey PRIMARY KEY (id);

--
-- Name: classes classes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.classes
    ADD CONSTRAINT classes_pkey PRIMARY KEY (hash);

--
-- Name: contracts contracts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contracts
    ADD CONSTRAINT contracts_pkey PRIMARY KEY (address);

--
-- Name: deferred_constraints deferred_constraints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deferred_constraints
    ADD CONSTRAINT deferred_constraints_pkey PRIMARY KEY (name);

--
-- Name: delegations delegations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delegations
    ADD CONSTRAINT delegations_pkey PRIMARY KEY (pool_contract, delegator_address);

--
-- Name: erc20_balance_changes erc20_balance_changes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erc20_balance_changes
    ADD CONSTRAINT erc20_balance_changes_pkey PRIMARY KEY (token_id, owner_id, block_number);

--
-- Name: erc20_balances erc20_balances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erc20_balances
    ADD CONSTRAINT erc20_balances_pkey PRIMARY KEY (token_address, owner_address);

--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (block_number, tx_index, event_index);

--
-- Name: events_0 events_0_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events_0
    ADD CONSTRAINT events_0_pkey PRIMARY KEY (block_number, tx_index, event_index);

--
-- Name: felt_ids felt_ids_felt; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.felt_ids
    ADD CONSTRAINT felt_ids_felt UNIQUE (felt);

--
-- Name: felt_ids felt_ids_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.felt_ids
    ADD CONSTRAINT felt_ids_pkey PRIMARY KEY (id);

--
-- Name: holders_snapshots holders_snapshots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.holders_snapshots
    ADD CONSTRAINT holders_snapshots_pkey PRIMARY KEY (token_address, computed_at);

--
-- Name: indexer_state indexer_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.indexer_state
    ADD CONSTRAINT indexer_state_pkey PRIMARY KEY (id);

--
-- Name: key_counts key_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.key_counts
    ADD CONSTRAINT key_counts_pkey PRIMARY KEY (list, key);

--
-- Name: key_marks key_marks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.key_marks
    ADD CONSTRAINT key_marks_pkey PRIMARY KEY (list, key, ordinal);

--
-- Name: l1_messages l1_messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.l1_messages
    ADD CONSTRAINT l1_messages_pkey PRIMARY KEY (message_hash);

--
-- Name: l1_state l1_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.l1_state
    ADD CONSTRAINT l1_state_pkey PRIMARY KEY (id);

--
-- Name: list_counts list_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.list_counts
    ADD CONSTRAINT list_counts_pkey PRIMARY KEY (name);

--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (block_number, tx_index, direction, msg_index);

--
-- Name: meta_transactions meta_transactions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.meta_transactions
    ADD CONSTRAINT meta_transactions_pkey PRIMARY KEY (block_number, tx_index, call_index);

--
-- Name: nft_balances nft_balances_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_balances
    ADD CONSTRAINT nft_balances_pkey PRIMARY KEY (contract_address, token_id, owner_address);

--
-- Name: nft_events nft_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_events
    ADD CONSTRAINT nft_events_pkey PRIMARY KEY (block_number, tx_index, event_index, sub_index);

--
-- Name: nft_holders nft_holders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_holders
    ADD CONSTRAINT nft_holders_pkey PRIMARY KEY (contract_address, owner_address);

--
-- Name: nft_items nft_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_items
    ADD CONSTRAINT nft_items_pkey PRIMARY KEY (contract_address, token_id);

--
-- Name: nft_metadata_requests nft_metadata_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_metadata_requests
    ADD CONSTRAINT nft_metadata_requests_pkey PRIMARY KEY (contract_address, token_id);

--
-- Name: nft_sale_keys nft_sale_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_sale_keys
    ADD CONSTRAINT nft_sale_keys_pkey PRIMARY KEY (scope, key);

--
-- Name: nft_sale_members nft_sale_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_sale_members
    ADD CONSTRAINT nft_sale_members_pkey PRIMARY KEY (scope, key, member);

--
-- Name: nft_sale_volumes nft_sale_volumes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_sale_volumes
    ADD CONSTRAINT nft_sale_volumes_pkey PRIMARY KEY (scope, key, payment_token);

--
-- Name: plans plans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.plans
    ADD CONSTRAINT plans_pkey PRIMARY KEY (name);

--
-- Name: pools pools_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pools
    ADD CONSTRAINT pools_pkey PRIMARY KEY (pool_contract);

--
-- Name: rank_spans rank_spans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.rank_spans
    ADD CONSTRAINT rank_spans_pkey PRIMARY KEY (list, key, s1, s2);

--
-- Name: sender_last_blocks sender_last_blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sender_last_blocks
    ADD CONSTRAINT sender_last_blocks_pkey PRIMARY KEY (sender_address);

--
-- Name: server_secrets server_secrets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.server_secrets
    ADD CONSTRAINT server_secrets_pkey PRIMARY KEY (name);

--
-- Name: stake_points stake_points_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.stake_points
    ADD CONSTRAINT stake_points_pkey PRIMARY KEY (wallet_address, token_address, day);

--
-- Name: staking_activity staking_activity_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staking_activity
    ADD CONSTRAINT staking_activity_pkey PRIMARY KEY (block_number, tx_index, event_index);

--
-- Name: staking_figures staking_figures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staking_figures
    ADD CONSTRAINT staking_figures_pkey PRIMARY KEY (id);

--
-- Name: staking_overview staking_overview_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staking_overview
    ADD CONSTRAINT staking_overview_pkey PRIMARY KEY (id);

--
-- Name: starknet_id_domains starknet_id_domains_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.starknet_id_domains
    ADD CONSTRAINT starknet_id_domains_pkey PRIMARY KEY (domain);

--
-- Name: starknet_id_names starknet_id_names_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.starknet_id_names
    ADD CONSTRAINT starknet_id_names_pkey PRIMARY KEY (address);

--
-- Name: token_prices token_prices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_prices
    ADD CONSTRAINT token_prices_pkey PRIMARY KEY (token_address, block_number);

--
-- Name: token_transfers token_transfers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_transfers
    ADD CONSTRAINT token_transfers_pkey PRIMARY KEY (block_number, tx_index, event_index);

--
-- Name: token_transfers_0 token_transfers_0_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_transfers_0
    ADD CONSTRAINT token_transfers_0_pkey PRIMARY KEY (block_number, tx_index, event_index);

--
-- Name: tokens tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT tokens_pkey PRIMARY KEY (address);

--
-- Name: transactions transactions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transactions
    ADD CONSTRAINT transactions_pkey PRIMARY KEY (block_number, tx_index);

--
-- Name: transactions_0 transactions_0_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transactions_0
    ADD CONSTRAINT transactions_0_pkey PRIMARY KEY (block_number, tx_index);

--
-- Name: undo_rows undo_rows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.undo_rows
    ADD CONSTRAINT undo_rows_pkey PRIMARY KEY (block_number, seq);

--
-- Name: validator_days validator_days_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.validator_days
    ADD CONSTRAINT validator_days_pkey PRIMARY KEY (staker_address, day);

--
-- Name: validator_figures validator_figures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.validator_figures
    ADD CONSTRAINT validator_figures_pkey PRIMARY KEY (staker_address);

--
-- Name: validators validators_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.validators
    ADD CONSTRAINT validators_pkey PRIMARY KEY (staker_address);

--
-- Name: verification_jobs verification_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.verification_jobs
    ADD CONSTRAINT verification_jobs_pkey PRIMARY KEY (id);

--
-- Name: verified_classes verified_classes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.verified_classes
    ADD CONSTRAINT verified_classes_pkey PRIMARY KEY (class_hash);

--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);

--
-- Name: webhook_sent webhook_sent_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_sent
    ADD CONSTRAINT webhook_sent_pkey PRIMARY KEY (webhook_id, block_number, tx_index, event_index, sub_index);

--
-- Name: webhooks webhooks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_pkey PRIMARY KEY (id);

--
-- Name: aliases_name_prefix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX aliases_name_prefix ON public.aliases USING btree (lower(name) text_pattern_ops);

--
-- Name: INDEX aliases_name_prefix; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.aliases_name_prefix IS 'search: curated names by prefix';

--
-- Name: api_keys_key_prefix_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_key_prefix_idx ON public.api_keys USING btree (key_prefix);

--
-- Name: INDEX api_keys_key_prefix_idx; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.api_keys_key_prefix_idx IS 'an API key by its prefix (admin look-up, auth/store.go)';

--
-- Name: INDEX attestations_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.attestations_pkey IS 'a transaction''s attestations, the cascade from transactions';

--
-- Name: attestations_staker; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX attestations_staker ON public.attestations USING btree (staker_address, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX attestations_staker; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.attestations_staker IS 'a validator''s attestations, newest first';

--
-- Name: balance_corrections_block; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX balance_corrections_block ON public.balance_corrections USING btree (block_number);

--
-- Name: INDEX balance_corrections_block; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.balance_corrections_block IS 'UndoAbove: DELETE FROM balance_corrections WHERE block_number > $1; the newest corrections first';

--
-- Name: blocks_accepted_on_l2; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blocks_accepted_on_l2 ON public.blocks USING btree (number) WHERE (status = 'ACCEPTED_ON_L2'::text);

--
-- Name: INDEX blocks_accepted_on_l2; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.blocks_accepted_on_l2 IS 'finality updates: the oldest block not yet accepted on L1 (write_state.go)';

--
-- Name: blocks_time_number; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blocks_time_number ON public.blocks USING btree ("timestamp", number);

--
-- Name: INDEX blocks_time_number; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.blocks_time_number IS 'the block at a time: transfers'' time bounds, daily figures';

--
-- Name: blocks_txs_before; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX blocks_txs_before ON public.blocks USING btree (txs_before, number);

--
-- Name: INDEX blocks_txs_before; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.blocks_txs_before IS 'the block holding the n-th transaction: /beta/txns pages by position (read_chain.go)';

--
-- Name: call_balances_block; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX call_balances_block ON public.call_balances USING btree (read_block);

--
-- Name: INDEX call_balances_block; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.call_balances_block IS 'UndoAbove: DELETE FROM call_balances WHERE read_block > $1';

--
-- Name: INDEX calls_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.calls_pkey IS 'a transaction''s calls (read_chain.go, by (block_number, tx_index)), the cascade from transactions';

--
-- Name: classes_declared_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX classes_declared_order ON public.classes USING btree (COALESCE(declared_block, ('-1'::integer)::bigint) DESC, hash DESC);

--
-- Name: INDEX classes_declared_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.classes_declared_order IS 'classes, newest declared first';

--
-- Name: contracts_class_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contracts_class_order ON public.contracts USING btree (class_hash, COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC) INCLUDE (deployed_block);

--
-- Name: INDEX contracts_class_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.contracts_class_order IS 'contracts of a class, newest deployed first (its keys alone, index-only)';

--
-- Name: contracts_deployed_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contracts_deployed_order ON public.contracts USING btree (COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC) INCLUDE (deployed_block);

--
-- Name: INDEX contracts_deployed_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.contracts_deployed_order IS 'contracts, newest deployed first; deployed_block included for index-only scans of deep pages';

--
-- Name: contracts_type_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contracts_type_order ON public.contracts USING btree (type, COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC);

--
-- Name: INDEX contracts_type_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.contracts_type_order IS 'contracts of a type, newest deployed first';

--
-- Name: delegations_delegator; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX delegations_delegator ON public.delegations USING btree (delegator_address);

--
-- Name: INDEX delegations_delegator; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.delegations_delegator IS 'a wallet''s delegations (read_staking.go)';

--
-- Name: delegations_pool_amount; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX delegations_pool_amount ON public.delegations USING btree (pool_contract, amount DESC, delegator_address);

--
-- Name: INDEX delegations_pool_amount; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.delegations_pool_amount IS 'a pool''s delegators, largest first';

--
-- Name: erc20_balance_changes_block; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erc20_balance_changes_block ON public.erc20_balance_changes USING brin (block_number) WITH (autosummarize='on');

--
-- Name: INDEX erc20_balance_changes_block; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.erc20_balance_changes_block IS 'BRIN: the cascade from blocks on a reorg, the removal of a bulk load''s rows above the head';

--
-- Name: INDEX erc20_balance_changes_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.erc20_balance_changes_pkey IS 'a wallet''s balance of a token at a block and its history (read_transfers.go BalancesAt, balance history)';

--
-- Name: erc20_balances_holders_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erc20_balances_holders_order ON public.erc20_balances USING btree (token_address, balance DESC, owner_address DESC) WHERE (balance > (0)::numeric);

--
-- Name: INDEX erc20_balances_holders_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.erc20_balances_holders_order IS 'a token''s holders, largest balance first';

--
-- Name: erc20_balances_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erc20_balances_owner ON public.erc20_balances USING btree (owner_address, token_address);

--
-- Name: INDEX erc20_balances_owner; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.erc20_balances_owner IS 'a wallet''s balances by owner, zero balances included';

--
-- Name: erc20_balances_owner_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX erc20_balances_owner_order ON public.erc20_balances USING btree (owner_address, last_transfer_time DESC, token_address) WHERE (balance > (0)::numeric);

--
-- Name: INDEX erc20_balances_owner_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.erc20_balances_owner_order IS 'a wallet''s tokens, newest transfer first';

--
-- Name: events_from; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_from ON ONLY public.events USING btree (from_id, block_number, tx_index, event_index);

--
-- Name: INDEX events_from; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.events_from IS 'events of a contract in chain order: /beta/events?contract=, GraphQL events(filter: {contract})';

--
-- Name: events_0_from_id_block_number_tx_index_event_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_0_from_id_block_number_tx_index_event_index_idx ON public.events_0 USING btree (from_id, block_number, tx_index, event_index);

--
-- Name: events_key0; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_key0 ON ONLY public.events USING btree (key0_id, block_number, tx_index, event_index);

--
-- Name: INDEX events_key0; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.events_key0 IS 'events of a key (selector) in chain order: GraphQL events(filter: {key})';

--
-- Name: events_0_key0_id_block_number_tx_index_event_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_0_key0_id_block_number_tx_index_event_index_idx ON public.events_0 USING btree (key0_id, block_number, tx_index, event_index);

--
-- Name: INDEX events_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.events_pkey IS 'a transaction''s events, events of a block range in chain order, the cascade from transactions';

--
-- Name: INDEX felt_ids_felt; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.felt_ids_felt IS 'a felt''s id, in every statement that filters by a felt stored as an id (db/felt_ids.go feltID), and its assignment';

--
-- Name: INDEX felt_ids_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.felt_ids_pkey IS 'a felt by its id, for the rows that name it by id';

--
-- Name: key_marks_block; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX key_marks_block ON public.key_marks USING btree (block_number);

--
-- Name: INDEX key_marks_block; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.key_marks_block IS 'a reorg deletes the marks above its fork point (db.UndoAbove)';

--
-- Name: messages_contract; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_contract ON public.messages USING btree (l2_address, block_number DESC, tx_index DESC, direction DESC, msg_index DESC);

--
-- Name: INDEX messages_contract; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.messages_contract IS 'messages of an L2 contract, newest first';

--
-- Name: messages_direction; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_direction ON public.messages USING btree (direction, block_number DESC, tx_index DESC, msg_index DESC);

--
-- Name: INDEX messages_direction; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.messages_direction IS 'messages of one direction, newest first';

--
-- Name: messages_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_hash ON public.messages USING btree (message_hash, block_number DESC, tx_index DESC, direction DESC, msg_index DESC);

--
-- Name: INDEX messages_hash; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.messages_hash IS 'messages by message hash';

--
-- Name: INDEX messages_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.messages_pkey IS 'a transaction''s L1<->L2 messages, the cascade from transactions';

--
-- Name: meta_transactions_contract; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX meta_transactions_contract ON public.meta_transactions USING btree (contract_address, block_number DESC, tx_index DESC);

--
-- Name: INDEX meta_transactions_contract; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.meta_transactions_contract IS 'meta transactions of a contract, newest first';

--
-- Name: INDEX meta_transactions_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.meta_transactions_pkey IS 'a transaction''s meta transactions, the cascade from transactions';

--
-- Name: meta_transactions_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX meta_transactions_recent ON public.meta_transactions USING btree (block_number DESC, tx_index DESC);

--
-- Name: INDEX meta_transactions_recent; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.meta_transactions_recent IS 'the newest meta transactions';

--
-- Name: nft_balances_item_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_balances_item_order ON public.nft_balances USING btree (contract_address, token_id, balance DESC, owner_address DESC) WHERE (balance > (0)::numeric);

--
-- Name: INDEX nft_balances_item_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_balances_item_order IS 'an NFT item''s holders, largest balance first';

--
-- Name: nft_balances_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_balances_owner ON public.nft_balances USING btree (owner_address, contract_address, token_id) WHERE (balance > (0)::numeric);

--
-- Name: INDEX nft_balances_owner; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_balances_owner IS 'a wallet''s NFT balances';

--
-- Name: nft_events_contract; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_events_contract ON public.nft_events USING btree (contract_address, block_number DESC, tx_index DESC, event_index DESC, sub_index DESC);

--
-- Name: INDEX nft_events_contract; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_events_contract IS 'NFT transfers of a collection, newest first';

--
-- Name: INDEX nft_events_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_events_pkey IS 'a transaction''s NFT transfers, the cascade from transactions';

--
-- Name: nft_events_sales; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_events_sales ON public.nft_events USING btree ("timestamp") INCLUDE (contract_address, marketplace_contract_address) WHERE (total_price IS NOT NULL);

--
-- Name: INDEX nft_events_sales; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_events_sales IS 'NFT sales in a time window (marketplace figures), index-only';

--
-- Name: nft_events_token; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_events_token ON public.nft_events USING btree (contract_address, token_id, block_number DESC, tx_index DESC, event_index DESC, sub_index DESC);

--
-- Name: INDEX nft_events_token; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_events_token IS 'transfers of one NFT item, newest first';

--
-- Name: nft_holders_order; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_holders_order ON public.nft_holders USING btree (contract_address, held DESC, owner_address DESC);

--
-- Name: INDEX nft_holders_order; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_holders_order IS 'a collection''s holders, most held first';

--
-- Name: nft_items_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_items_owner ON public.nft_items USING btree (owner_address, contract_address, token_id);

--
-- Name: INDEX nft_items_owner; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_items_owner IS 'a wallet''s NFT items';

--
-- Name: nft_metadata_requests_claimed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_metadata_requests_claimed ON public.nft_metadata_requests USING btree (claimed_at) WHERE (state = 'fetching'::text);

--
-- Name: INDEX nft_metadata_requests_claimed; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_metadata_requests_claimed IS 'NFT metadata claims left stale, to hand out again';

--
-- Name: nft_metadata_requests_queued; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nft_metadata_requests_queued ON public.nft_metadata_requests USING btree (requested_at) WHERE (state = 'queued'::text);

--
-- Name: INDEX nft_metadata_requests_queued; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.nft_metadata_requests_queued IS 'the NFT metadata queue, oldest request first';

--
-- Name: pools_staker; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pools_staker ON public.pools USING btree (staker_address);

--
-- Name: INDEX pools_staker; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.pools_staker IS 'a validator''s delegation pools (read_staking.go)';

--
-- Name: INDEX staking_activity_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.staking_activity_pkey IS 'a transaction''s staking operations, the cascade from transactions';

--
-- Name: staking_activity_staker; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staking_activity_staker ON public.staking_activity USING btree (staker_address, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX staking_activity_staker; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.staking_activity_staker IS 'a validator''s staking history, newest first';

--
-- Name: staking_activity_wallet; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX staking_activity_wallet ON public.staking_activity USING btree (wallet_address, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX staking_activity_wallet; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.staking_activity_wallet IS 'a wallet''s staking history, newest first';

--
-- Name: starknet_id_names_domain; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX starknet_id_names_domain ON public.starknet_id_names USING btree (domain text_pattern_ops);

--
-- Name: INDEX starknet_id_names_domain; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.starknet_id_names_domain IS 'search: Starknet ID domains by prefix';

--
-- Name: token_prices_block; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_prices_block ON public.token_prices USING btree (block_number);

--
-- Name: INDEX token_prices_block; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.token_prices_block IS 'the cascade from blocks on a reorg';

--
-- Name: token_transfers_from; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_transfers_from ON ONLY public.token_transfers USING btree (from_id, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX token_transfers_from; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.token_transfers_from IS 'transfers of a wallet, the sending side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';

--
-- Name: token_transfers_0_from_id_block_number_tx_index_event_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_transfers_0_from_id_block_number_tx_index_event_index_idx ON public.token_transfers_0 USING btree (from_id, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX token_transfers_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.token_transfers_pkey IS 'a transaction''s transfers (read_transfers.go, by (block_number, tx_index)), the live feed by block, the cascade from transactions';

--
-- Name: token_transfers_to; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_transfers_to ON ONLY public.token_transfers USING btree (to_id, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX token_transfers_to; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.token_transfers_to IS 'transfers of a wallet, the receiving side, newest first (/beta/transfers, GraphQL transfers(filter: {wallet}))';

--
-- Name: token_transfers_0_to_id_block_number_tx_index_event_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_transfers_0_to_id_block_number_tx_index_event_index_idx ON public.token_transfers_0 USING btree (to_id, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: token_transfers_token; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_transfers_token ON ONLY public.token_transfers USING btree (token_id, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: INDEX token_transfers_token; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.token_transfers_token IS 'transfers of a token, newest first (/beta/transfers?token=, GraphQL transfers(filter: {token}))';

--
-- Name: token_transfers_0_token_id_block_number_tx_index_event_inde_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX token_transfers_0_token_id_block_number_tx_index_event_inde_idx ON public.token_transfers_0 USING btree (token_id, block_number DESC, tx_index DESC, event_index DESC);

--
-- Name: tokens_by_holders; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tokens_by_holders ON public.tokens USING btree (standard, holder_count DESC, address);

--
-- Name: INDEX tokens_by_holders; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.tokens_by_holders IS 'tokens of a standard by holder count';

--
-- Name: tokens_by_market_cap; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tokens_by_market_cap ON public.tokens USING btree (standard, market_cap_usd DESC NULLS LAST, address);

--
-- Name: INDEX tokens_by_market_cap; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.tokens_by_market_cap IS 'tokens of a standard by market cap';

--
-- Name: tokens_by_transfers; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tokens_by_transfers ON public.tokens USING btree (standard, transfer_count DESC, address);

--
-- Name: INDEX tokens_by_transfers; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.tokens_by_transfers IS 'tokens of a standard by transfer count';

--
-- Name: tokens_name_prefix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tokens_name_prefix ON public.tokens USING btree (lower(name) text_pattern_ops);

--
-- Name: INDEX tokens_name_prefix; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.tokens_name_prefix IS 'search: tokens by name prefix';

--
-- Name: tokens_symbol_prefix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tokens_symbol_prefix ON public.tokens USING btree (lower(symbol) text_pattern_ops);

--
-- Name: INDEX tokens_symbol_prefix; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.tokens_symbol_prefix IS 'search: tokens by symbol prefix';

--
-- Name: transactions_contract; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_contract ON ONLY public.transactions USING btree (contract_id, block_number, tx_index);

--
-- Name: INDEX transactions_contract; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.transactions_contract IS 'transactions to a contract in chain order: /beta/txns?to=, GraphQL transactions(filter: {contract})';

--
-- Name: transactions_0_contract_id_block_number_tx_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_0_contract_id_block_number_tx_index_idx ON public.transactions_0 USING btree (contract_id, block_number, tx_index);

--
-- Name: transactions_message_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_message_hash ON ONLY public.transactions USING btree (message_hash) WHERE (message_hash IS NOT NULL);

--
-- Name: INDEX transactions_message_hash; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.transactions_message_hash IS 'the L1 follower finds an L1_HANDLER transaction by its message hash';

--
-- Name: transactions_0_message_hash_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_0_message_hash_idx ON public.transactions_0 USING btree (message_hash) WHERE (message_hash IS NOT NULL);

--
-- Name: INDEX transactions_pkey; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.transactions_pkey IS 'a transaction by position, joins from every per-transaction table, the foreign keys that reference it and chain-order pages of /beta/txns';

--
-- Name: transactions_sender; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_sender ON ONLY public.transactions USING btree (sender_id, block_number, tx_index);

--
-- Name: INDEX transactions_sender; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.transactions_sender IS 'a sender''s transactions in chain order: /beta/txns?sender_address=, GraphQL transactions(filter: {sender})';

--
-- Name: transactions_0_sender_id_block_number_tx_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_0_sender_id_block_number_tx_index_idx ON public.transactions_0 USING btree (sender_id, block_number, tx_index);

--
-- Name: transactions_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_hash ON ONLY public.transactions USING btree ("substring"(hash, 1, 6));

--
-- Name: INDEX transactions_hash; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.transactions_hash IS 'a transaction by hash (/beta/txns/{hash}, GraphQL transaction(hash)) and by hex prefix (search): the first six bytes of the hash, compared whole in the row';

--
-- Name: transactions_0_substring_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_0_substring_idx ON public.transactions_0 USING btree ("substring"(hash, 1, 6));

--
-- Name: transactions_type; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_type ON ONLY public.transactions USING btree (type, block_number, tx_index);

--
-- Name: INDEX transactions_type; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.transactions_type IS 'transactions of a type in chain order: /beta/txns?type=, GraphQL transactions(filter: {type})';

--
-- Name: transactions_0_type_block_number_tx_index_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX transactions_0_type_block_number_tx_index_idx ON public.transactions_0 USING btree (type, block_number, tx_index);

--
-- Name: validators_by_stake; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX validators_by_stake ON public.validators USING btree (((self_stake + delegated_stake_strk)) DESC, staker_address);

--
-- Name: INDEX validators_by_stake; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.validators_by_stake IS 'validators, largest stake first';

--
-- Name: verification_job_log_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verification_job_log_job ON public.verification_job_log USING btree (job_id, at);

--
-- Name: INDEX verification_job_log_job; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.verification_job_log_job IS 'a verification job''s log in time order';

--
-- Name: verification_jobs_queue; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verification_jobs_queue ON public.verification_jobs USING btree (created_at) WHERE (status = ANY (ARRAY[0, 1, 5]));

--
-- Name: INDEX verification_jobs_queue; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.verification_jobs_queue IS 'the verification queue, oldest job first';

--
-- Name: verified_classes_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verified_classes_at ON public.verified_classes USING btree (verified_at DESC, class_hash);

--
-- Name: INDEX verified_classes_at; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.verified_classes_at IS 'verified classes, newest first';

--
-- Name: webhook_deliveries_started; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_started ON public.webhook_deliveries USING btree (started_at);

--
-- Name: INDEX webhook_deliveries_started; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.webhook_deliveries_started IS 'pruning the log by age: DELETE FROM webhook_deliveries WHERE started_at < $1';

--
-- Name: webhook_deliveries_webhook; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_webhook ON public.webhook_deliveries USING btree (webhook_id, id);

--
-- Name: INDEX webhook_deliveries_webhook; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.webhook_deliveries_webhook IS 'a webhook''s delivery log, newest first (the webhookDeliveries query), and its pruning';

--
-- Name: webhooks_active; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhooks_active ON public.webhooks USING btree (id) WHERE (status = 'active'::text);

--
-- Name: INDEX webhooks_active; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.webhooks_active IS 'the delivery loop''s list of active webhooks';

--
-- Name: webhooks_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhooks_key ON public.webhooks USING btree (key_id, id);

--
-- Name: INDEX webhooks_key; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON INDEX public.webhooks_key IS 'a key''s webhooks, newest last (the webhooks query; the plan''s bound counted at creation)';

--
-- Name: calls_0_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.calls_pkey ATTACH PARTITION public.calls_0_pkey;

--
-- Name: events_0_from_id_block_number_tx_index_event_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_from ATTACH PARTITION public.events_0_from_id_block_number_tx_index_event_index_idx;

--
-- Name: events_0_key0_id_block_number_tx_index_event_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_key0 ATTACH PARTITION public.events_0_key0_id_block_number_tx_index_event_index_idx;

--
-- Name: events_0_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_0_pkey;

--
-- Name: token_transfers_0_from_id_block_number_tx_index_event_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.token_transfers_from ATTACH PARTITION public.token_transfers_0_from_id_block_number_tx_index_event_index_idx;

--
-- Name: token_transfers_0_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.token_transfers_pkey ATTACH PARTITION public.token_transfers_0_pkey;

--
-- Name: token_transfers_0_to_id_block_number_tx_index_event_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.token_transfers_to ATTACH PARTITION public.token_transfers_0_to_id_block_number_tx_index_event_index_idx;

--
-- Name: token_transfers_0_token_id_block_number_tx_index_event_inde_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.token_transfers_token ATTACH PARTITION public.token_transfers_0_token_id_block_number_tx_index_event_inde_idx;

--
-- Name: transactions_0_contract_id_block_number_tx_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.transactions_contract ATTACH PARTITION public.transactions_0_contract_id_block_number_tx_index_idx;

--
-- Name: transactions_0_message_hash_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.transactions_message_hash ATTACH PARTITION public.transactions_0_message_hash_idx;

--
-- Name: transactions_0_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.transactions_pkey ATTACH PARTITION public.transactions_0_pkey;

--
-- Name: transactions_0_sender_id_block_number_tx_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.transactions_sender ATTACH PARTITION public.transactions_0_sender_id_block_number_tx_index_idx;

--
-- Name: transactions_0_substring_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.transactions_hash ATTACH PARTITION public.transactions_0_substring_idx;

--
-- Name: transactions_0_type_block_number_tx_index_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.transactions_type ATTACH PARTITION public.transactions_0_type_block_number_tx_index_idx;

--
-- Name: active_sender_blocks announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.active_sender_blocks FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: activity_stats announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.activity_stats FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: aliases announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.aliases FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: attestations announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.attestations FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: balance_corrections announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.balance_corrections FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: block_partitioning announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.block_partitioning FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: blocks announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.blocks FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: call_balances announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.call_balances FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: calls announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.calls FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: chain_stats announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.chain_stats FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: classes announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.classes FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: contracts announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.contracts FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: deferred_constraints announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.deferred_constraints FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: delegations announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.delegations FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: erc20_balance_changes announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.erc20_balance_changes FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: erc20_balances announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.erc20_balances FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: events announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.events FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: holders_snapshots announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.holders_snapshots FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: indexer_state announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.indexer_state FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: key_counts announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.key_counts FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: key_marks announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.key_marks FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: l1_messages announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.l1_messages FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: l1_state announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.l1_state FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: list_counts announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.list_counts FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: messages announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.messages FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: meta_transactions announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.meta_transactions FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_balances announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_balances FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_events announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_events FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_holders announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_holders FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_items announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_items FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_metadata_requests announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_metadata_requests FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_sale_keys announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_sale_keys FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_sale_members announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_sale_members FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: nft_sale_volumes announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.nft_sale_volumes FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: pools announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.pools FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: rank_spans announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.rank_spans FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: sender_last_blocks announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.sender_last_blocks FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: stake_points announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.stake_points FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: staking_activity announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.staking_activity FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: staking_figures announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.staking_figures FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: staking_overview announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.staking_overview FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: starknet_id_domains announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.starknet_id_domains FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: starknet_id_names announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.starknet_id_names FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: token_prices announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.token_prices FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: token_transfers announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.token_transfers FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: tokens announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.tokens FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: transactions announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.transactions FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: undo_rows announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.undo_rows FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: validator_days announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.validator_days FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: validator_figures announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.validator_figures FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: validators announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.validators FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: verification_job_log announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.verification_job_log FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: verification_jobs announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.verification_jobs FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: verified_classes announce_data_change; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER announce_data_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON public.verified_classes FOR EACH STATEMENT EXECUTE FUNCTION public.announce_data_change();

--
-- Name: blocks blocks_txs_before; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER blocks_txs_before BEFORE INSERT ON public.blocks FOR EACH ROW EXECUTE FUNCTION public.blocks_txs_before();

--
-- Name: contracts contracts_rank_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER contracts_rank_del AFTER DELETE ON public.contracts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contracts_rank();

--
-- Name: contracts contracts_rank_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER contracts_rank_ins AFTER INSERT ON public.contracts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contracts_rank();

--
-- Name: contracts contracts_rank_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER contracts_rank_upd AFTER UPDATE ON public.contracts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contracts_rank();

--
-- Name: erc20_balances erc20_balances_rank_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER erc20_balances_rank_del AFTER DELETE ON public.erc20_balances REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.erc20_balances_rank();

--
-- Name: erc20_balances erc20_balances_rank_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER erc20_balances_rank_ins AFTER INSERT ON public.erc20_balances REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.erc20_balances_rank();

--
-- Name: erc20_balances erc20_balances_rank_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER erc20_balances_rank_upd AFTER UPDATE ON public.erc20_balances REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.erc20_balances_rank();

--
-- Name: nft_holders nft_holders_rank_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER nft_holders_rank_del AFTER DELETE ON public.nft_holders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.nft_holders_rank();

--
-- Name: nft_holders nft_holders_rank_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER nft_holders_rank_ins AFTER INSERT ON public.nft_holders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.nft_holders_rank();

--
-- Name: nft_holders nft_holders_rank_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER nft_holders_rank_upd AFTER UPDATE ON public.nft_holders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.nft_holders_rank();

--
-- Name: nft_events nft_sales_count_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER nft_sales_count_del AFTER DELETE ON public.nft_events REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.nft_sales_count();

--
-- Name: nft_events nft_sales_count_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER nft_sales_count_ins AFTER INSERT ON public.nft_events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.nft_sales_count();

--
-- Name: nft_events nft_sales_count_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER nft_sales_count_upd AFTER UPDATE ON public.nft_events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.nft_sales_count();

--
-- Name: rank_spans rank_spans_resize; Type: TRIGGER; Schema: public; Owner: -
--

CREATE CONSTRAINT TRIGGER rank_spans_resize AFTER UPDATE ON public.rank_spans DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((new.n > (2 * public.rank_span_rows())) OR (new.n <= (public.rank_span_rows() / 4)))) EXECUTE FUNCTION public.rank_spans_resize();

--
-- Name: tokens tokens_market_cap; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tokens_market_cap BEFORE INSERT OR UPDATE OF usd_price, total_supply, decimals ON public.tokens FOR EACH ROW EXECUTE FUNCTION public.tokens_market_cap();

--
-- Name: tokens tokens_take_labels; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tokens_take_labels BEFORE INSERT ON public.tokens FOR EACH ROW EXECUTE FUNCTION public.tokens_take_labels();

--
-- Name: validators validators_take_labels; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER validators_take_labels BEFORE INSERT ON public.validators FOR EACH ROW EXECUTE FUNCTION public.validators_take_labels();

--
-- Name: active_sender_blocks active_sender_blocks_block_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.active_sender_blocks
    ADD CONSTRAINT active_sender_blocks_block_number_fkey FOREIGN KEY (block_number) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: api_key_usage api_key_usage_key_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_key_usage
    ADD CONSTRAINT api_key_usage_key_id_fkey FOREIGN KEY (key_id) REFERENCES public.api_keys(id) ON DELETE CASCADE;

--
-- Name: api_keys api_keys_plan_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_plan_fkey FOREIGN KEY (plan) REFERENCES public.plans(name) ON UPDATE CASCADE;

--
-- Name: attestations attestations_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attestations
    ADD CONSTRAINT attestations_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: calls calls_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.calls
    ADD CONSTRAINT calls_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: classes classes_declared_block_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.classes
    ADD CONSTRAINT classes_declared_block_fkey FOREIGN KEY (declared_block) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: contracts contracts_deployed_block_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contracts
    ADD CONSTRAINT contracts_deployed_block_fkey FOREIGN KEY (deployed_block) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: delegations delegations_pool_contract_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delegations
    ADD CONSTRAINT delegations_pool_contract_fkey FOREIGN KEY (pool_contract) REFERENCES public.pools(pool_contract) ON DELETE CASCADE;

--
-- Name: erc20_balance_changes erc20_balance_changes_block_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.erc20_balance_changes
    ADD CONSTRAINT erc20_balance_changes_block_number_fkey FOREIGN KEY (block_number) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: events events_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.events
    ADD CONSTRAINT events_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: messages messages_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: meta_transactions meta_transactions_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.meta_transactions
    ADD CONSTRAINT meta_transactions_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: nft_events nft_events_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nft_events
    ADD CONSTRAINT nft_events_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: pools pools_created_block_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pools
    ADD CONSTRAINT pools_created_block_fkey FOREIGN KEY (created_block) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: pools pools_staker_address_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pools
    ADD CONSTRAINT pools_staker_address_fkey FOREIGN KEY (staker_address) REFERENCES public.validators(staker_address) ON DELETE CASCADE;

--
-- Name: staking_activity staking_activity_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.staking_activity
    ADD CONSTRAINT staking_activity_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: token_prices token_prices_block_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.token_prices
    ADD CONSTRAINT token_prices_block_number_fkey FOREIGN KEY (block_number) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: token_transfers token_transfers_block_number_tx_index_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.token_transfers
    ADD CONSTRAINT token_transfers_block_number_tx_index_fkey FOREIGN KEY (block_number, tx_index) REFERENCES public.transactions(block_number, tx_index) ON DELETE CASCADE;

--
-- Name: transactions transactions_block_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.transactions
    ADD CONSTRAINT transactions_block_number_fkey FOREIGN KEY (block_number) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: validators validators_created_block_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.validators
    ADD CONSTRAINT validators_created_block_fkey FOREIGN KEY (created_block) REFERENCES public.blocks(number) ON DELETE CASCADE;

--
-- Name: verification_job_log verification_job_log_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.verification_job_log
    ADD CONSTRAINT verification_job_log_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.verification_jobs(id) ON DELETE CASCADE;

--
-- Name: webhook_deliveries webhook_deliveries_webhook_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id) ON DELETE CASCADE;

--
-- Name: webhook_sent webhook_sent_webhook_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_sent
    ADD CONSTRAINT webhook_sent_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id) ON DELETE CASCADE;

--
-- Name: webhooks webhooks_key_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT webhooks_key_id_fkey FOREIGN KEY (key_id) REFERENCES public.api_keys(id) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--
