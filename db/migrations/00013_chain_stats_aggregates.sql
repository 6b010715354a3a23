-- The figures of /beta/stats and networkStats that depend on recent blocks, kept in the
-- chain_stats row by the indexer (refresh_chain_stats(), called in the transaction that
-- writes each batch of blocks and after a reorg is undone), so a request reads one row
-- instead of recomputing them:
--
-- * recent_txs, recent_seconds: the transactions of the newest 100 blocks but the first,
--   and the seconds between the first and the last (tps);
-- * avg_fee_wei, avg_fee_fri: the mean actual fee of those blocks' transactions per fee
--   unit, from the blocks' fee sums; null when none paid in the unit;
-- * active_accounts: the distinct senders of the blocks of the last day of block time (up
--   to the newest block's timestamp), from active_sender_blocks;
-- * new_accounts, new_accounts_previous: account contracts deployed in that day and in the
--   day before;
-- * tvl_usd: the USD value of what the staking contract and the delegation pools hold, in
--   the tokens that have a price.

-- +goose Up
ALTER TABLE chain_stats
    ADD COLUMN recent_txs            bigint NOT NULL DEFAULT 0,
    ADD COLUMN recent_seconds        bigint NOT NULL DEFAULT 0,
    ADD COLUMN avg_fee_wei           numeric(78,0),
    ADD COLUMN avg_fee_fri           numeric(78,0),
    ADD COLUMN active_accounts       bigint NOT NULL DEFAULT 0,
    ADD COLUMN new_accounts          bigint NOT NULL DEFAULT 0,
    ADD COLUMN new_accounts_previous bigint NOT NULL DEFAULT 0;

-- +goose StatementBegin
CREATE FUNCTION refresh_chain_stats() RETURNS void LANGUAGE sql AS $$
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
-- +goose StatementEnd

SELECT refresh_chain_stats();

-- +goose Down
DROP FUNCTION refresh_chain_stats();
ALTER TABLE chain_stats DROP COLUMN recent_txs, DROP COLUMN recent_seconds, DROP COLUMN avg_fee_wei,
    DROP COLUMN avg_fee_fri, DROP COLUMN active_accounts, DROP COLUMN new_accounts, DROP COLUMN new_accounts_previous;
