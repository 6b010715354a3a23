-- NFT sale statistics of all time, kept as the sales are written: GET /nft-stats and
-- /marketplace-stats (and GraphQL nftCollectionStats, marketplaceStats) with the timeframe
-- `all` aggregated every sale at every request (5,055 sales on the 1M bench: 312-463 ms
-- at p99 under 20 clients, and growing with the chain). Statement-level triggers on
-- nft_events keep three tables exact through every write: the indexer's COPY, a reorg's
-- cascade from its transactions, anything by hand. The answers are those of the
-- aggregation; a sale's USD value is still taken at its payment token's current price, at
-- read time, from the price sums per payment token.

-- +goose Up
CREATE TABLE nft_sale_volumes (
    scope "char" NOT NULL,
    key bytea NOT NULL,
    payment_token bytea NOT NULL,
    sales bigint NOT NULL,
    price numeric NOT NULL,
    PRIMARY KEY (scope, key, payment_token)
);
COMMENT ON TABLE nft_sale_volumes IS 'NFT sales of all time per collection (scope c) or marketplace (scope m) and payment token (empty: none): their number and summed price. Kept by the triggers of nft_events (nft_sales_count)';

CREATE TABLE nft_sale_members (
    scope "char" NOT NULL,
    key bytea NOT NULL,
    member bytea NOT NULL,
    sales bigint NOT NULL,
    PRIMARY KEY (scope, key, member)
);
COMMENT ON TABLE nft_sale_members IS 'who took part in NFT sales of all time: a collection''s traders (scope c: buyers and sellers), a marketplace''s traders (m) and collections (k), with the sales of each. Kept by the triggers of nft_events (nft_sales_count)';

CREATE TABLE nft_sale_keys (
    scope "char" NOT NULL,
    key bytea NOT NULL,
    traders bigint NOT NULL DEFAULT 0,
    collections bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, key)
);
COMMENT ON TABLE nft_sale_keys IS 'the distinct traders of a collection (scope c) or marketplace (m) in NFT sales of all time, and a marketplace''s distinct collections: nft_sale_members counted. Kept by the triggers of nft_events (nft_sales_count)';

-- +goose StatementBegin
CREATE FUNCTION nft_sales_count() RETURNS trigger LANGUAGE plpgsql AS $$
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
$$;
-- +goose StatementEnd
COMMENT ON FUNCTION nft_sales_count() IS 'statement trigger of nft_events: adds the sales its statement wrote and takes off those it deleted, in the NFT sale statistics of all time (nft_sale_volumes, nft_sale_members, nft_sale_keys)';

CREATE TRIGGER nft_sales_count_ins AFTER INSERT ON nft_events REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_sales_count();
CREATE TRIGGER nft_sales_count_del AFTER DELETE ON nft_events REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_sales_count();
CREATE TRIGGER nft_sales_count_upd AFTER UPDATE ON nft_events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_sales_count();

-- The sales already written, added by the same trigger on a copy of them.
CREATE TEMP TABLE nft_sales_fill (LIKE nft_events);
CREATE TRIGGER nft_sales_fill AFTER INSERT ON nft_sales_fill REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nft_sales_count();
INSERT INTO nft_sales_fill SELECT * FROM nft_events WHERE total_price IS NOT NULL;
DROP TABLE nft_sales_fill;

CREATE TRIGGER announce_data_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON nft_sale_volumes FOR EACH STATEMENT EXECUTE FUNCTION announce_data_change();
CREATE TRIGGER announce_data_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON nft_sale_members FOR EACH STATEMENT EXECUTE FUNCTION announce_data_change();
CREATE TRIGGER announce_data_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON nft_sale_keys FOR EACH STATEMENT EXECUTE FUNCTION announce_data_change();

-- +goose Down
DROP TRIGGER nft_sales_count_ins ON nft_events;
DROP TRIGGER nft_sales_count_del ON nft_events;
DROP TRIGGER nft_sales_count_upd ON nft_events;
DROP FUNCTION nft_sales_count();
DROP TABLE nft_sale_keys;
DROP TABLE nft_sale_members;
DROP TABLE nft_sale_volumes;
