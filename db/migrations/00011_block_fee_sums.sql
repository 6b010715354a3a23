-- Each block's actual fees, summed per fee unit with the number of transactions paying in
-- it, written by the indexer with the block. The average fee of /beta/stats reads 100 of
-- these rows instead of the transactions of 100 blocks.

-- +goose Up
ALTER TABLE blocks
    ADD COLUMN fees_wei    numeric(78,0) NOT NULL DEFAULT 0,
    ADD COLUMN fee_txs_wei integer       NOT NULL DEFAULT 0,
    ADD COLUMN fees_fri    numeric(78,0) NOT NULL DEFAULT 0,
    ADD COLUMN fee_txs_fri integer       NOT NULL DEFAULT 0;

UPDATE blocks b SET fees_wei = t.fees_wei, fee_txs_wei = t.txs_wei, fees_fri = t.fees_fri, fee_txs_fri = t.txs_fri
FROM (SELECT block_number,
        coalesce(sum(actual_fee) FILTER (WHERE actual_fee_unit = 'WEI'), 0) AS fees_wei,
        count(*) FILTER (WHERE actual_fee_unit = 'WEI') AS txs_wei,
        coalesce(sum(actual_fee) FILTER (WHERE actual_fee_unit = 'FRI'), 0) AS fees_fri,
        count(*) FILTER (WHERE actual_fee_unit = 'FRI') AS txs_fri
      FROM transactions GROUP BY block_number) t
WHERE t.block_number = b.number;

-- +goose Down
ALTER TABLE blocks DROP COLUMN fees_wei, DROP COLUMN fee_txs_wei, DROP COLUMN fees_fri, DROP COLUMN fee_txs_fri;
