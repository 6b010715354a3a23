-- The staking figures of the views staking_economy and validator_economics (migration
-- 00009), kept in tables by the indexer (refresh_staking_figures(), called with
-- refresh_chain_stats() after every batch and after a reorg is undone): validator lists
-- sorted by rank or APR and the staking overview read rows instead of planning and
-- computing the views, with their window function over every validator, per request.

-- +goose Up
CREATE TABLE staking_figures (
    id               smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    total_stake_strk numeric NOT NULL,
    total_stake_btc  numeric NOT NULL,
    yearly_mint      numeric,
    btc_share        numeric NOT NULL,
    base_apr_strk    numeric,
    -- for the overview: the commission of active validators weighted by stake, in percent;
    -- the best STRK pool APR and the lowest commission of a BTC pool among active
    -- validators; the mean block time over the newest 100 blocks
    average_commission     float8 NOT NULL DEFAULT 0,
    max_apr_strk           float8,
    min_btc_commission_bps integer,
    mean_block_seconds     float8
);

CREATE TABLE validator_figures (
    staker_address bytea   PRIMARY KEY,
    rank           bigint  NOT NULL,
    apr            numeric,
    pool_apr_strk  numeric
);

-- +goose StatementBegin
CREATE FUNCTION refresh_staking_figures() RETURNS void LANGUAGE sql AS $$
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
-- +goose StatementEnd

SELECT refresh_staking_figures();

-- +goose Down
DROP FUNCTION refresh_staking_figures();
DROP TABLE validator_figures;
DROP TABLE staking_figures;
