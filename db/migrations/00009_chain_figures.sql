-- Figures read from contracts (indexer/figures.go): the staking contract's parameters and
-- epoch, the minting curve's c and the L1 total supply, and USD prices from an on-chain
-- oracle. staking_overview keeps the newest reading (journaled, so reorgs put the previous
-- one back); token_prices keeps every price reading, removed with its block on a reorg.
--
-- staking_economy derives what follows from them and from the indexed stakes: the yearly
-- mint of the minting curve, c_num * sqrt(total STRK stake * L1 total supply) / c_denom, the
-- share of rewards that goes to BTC stake, and the base APR of STRK stake, in percent.
-- validator_economics adds each validator's rank and APRs.

-- +goose Up
ALTER TABLE staking_overview
    ADD COLUMN minting_curve_contract bytea,
    ADD COLUMN reward_supplier        bytea,
    ADD COLUMN minting_c_denom        integer NOT NULL DEFAULT 0,   -- minting_curve holds c_num
    ADD COLUMN epoch_starting_block   bigint  NOT NULL DEFAULT 0,
    ADD COLUMN epoch_length_blocks    integer NOT NULL DEFAULT 0,
    ADD COLUMN figures_block          bigint;                       -- the block they were read at

CREATE TABLE token_prices (
    token_address bytea    NOT NULL,
    block_number  bigint   NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    pair          text     NOT NULL,       -- the oracle feed, e.g. STRK/USD
    price         numeric(78,0) NOT NULL,  -- USD, in units of 10^-decimals
    decimals      smallint NOT NULL,
    PRIMARY KEY (token_address, block_number)
);
CREATE INDEX token_prices_block ON token_prices (block_number);

-- isqrt is the integer square root (floor), as the minting curve computes it. numeric sqrt
-- keeps about 16 significant digits, too few for 10^50-sized products: one Newton step
-- from it is exact to within one, which the last step corrects. Divisions are div(), the
-- exact integer quotient: numeric "/" rounds large quotients to a few digits.
CREATE FUNCTION isqrt(n numeric) RETURNS numeric IMMUTABLE STRICT LANGUAGE sql AS
    'SELECT CASE WHEN n < 1 THEN 0 WHEN s * s > n THEN s - 1 WHEN (s + 1) * (s + 1) <= n THEN s + 1 ELSE s END
     FROM (SELECT CASE WHEN n < 1 THEN 0 ELSE div(s0 + div(n, s0), 2) END AS s
           FROM (SELECT greatest(trunc(sqrt(n)), 1) AS s0) a) b';

CREATE VIEW staking_economy AS
WITH o AS (SELECT * FROM staking_overview WHERE id = 1),
t AS (SELECT coalesce(sum(self_stake + delegated_stake_strk), 0) AS strk,
             coalesce(sum(delegated_stake_btc), 0) AS btc
      FROM validators WHERE state = 'active'),
y AS (SELECT t.strk, t.btc,
             CASE WHEN o.minting_c_denom > 0 AND t.strk > 0 AND o.total_supply > 0
                  THEN div(o.minting_curve::numeric * isqrt(t.strk * o.total_supply), o.minting_c_denom)
             END AS yearly_mint,
             -- Staking v2 gives BTC stake a quarter of the rewards once there is any.
             CASE WHEN t.btc > 0 THEN 0.25 ELSE 0 END AS btc_share
      FROM t LEFT JOIN o ON true)
SELECT strk AS total_stake_strk, btc AS total_stake_btc, yearly_mint, btc_share,
       CASE WHEN strk > 0 THEN 100 * (1 - btc_share) * yearly_mint / strk END AS base_apr_strk
FROM y;

CREATE VIEW validator_economics AS
SELECT v.staker_address,
       row_number() OVER (ORDER BY v.self_stake + v.delegated_stake_strk DESC, v.staker_address) AS rank,
       -- Own stake earns the base APR, plus the commission on what the pools earn.
       CASE WHEN v.self_stake > 0 AND e.base_apr_strk IS NOT NULL THEN
            e.base_apr_strk * (v.self_stake + v.revenue_share_bps / 10000.0 * v.delegated_stake_strk) / v.self_stake
            + CASE WHEN e.total_stake_btc > 0 THEN 100 * e.btc_share * e.yearly_mint * v.delegated_stake_btc
                   / e.total_stake_btc * v.revenue_share_bps / 10000.0 / v.self_stake ELSE 0 END
       END AS apr,
       e.base_apr_strk * (1 - v.revenue_share_bps / 10000.0) AS pool_apr_strk
FROM validators v CROSS JOIN staking_economy e;

-- A token's market cap is its supply in whole tokens times its price, whichever of the two
-- changed last; kept in the row so that tokens can be listed by it.
-- +goose StatementBegin
CREATE FUNCTION tokens_market_cap() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.usd_price IS NOT NULL AND NEW.total_supply IS NOT NULL AND NEW.decimals IS NOT NULL THEN
        NEW.market_cap_usd := (NEW.total_supply / 10::numeric ^ NEW.decimals * NEW.usd_price::numeric)::float8;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER tokens_market_cap BEFORE INSERT OR UPDATE OF usd_price, total_supply, decimals ON tokens
    FOR EACH ROW EXECUTE FUNCTION tokens_market_cap();

-- +goose Down
DROP TRIGGER tokens_market_cap ON tokens;
DROP FUNCTION tokens_market_cap();
DROP VIEW validator_economics;
DROP VIEW staking_economy;
DROP FUNCTION isqrt(numeric);
DROP TABLE token_prices;
ALTER TABLE staking_overview DROP COLUMN minting_curve_contract, DROP COLUMN reward_supplier,
    DROP COLUMN minting_c_denom, DROP COLUMN epoch_starting_block, DROP COLUMN epoch_length_blocks,
    DROP COLUMN figures_block;
