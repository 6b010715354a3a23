-- Two orders of issue 59's lists whose deep pages could not skip the rows above them by their
-- index alone (keysFrom, docs/planning.md rule 2), so that every row skipped by an offset was
-- fetched from the table before it was thrown away (at 10M transactions, 5,000 rows deep, 81
-- ms at p99 for the contracts and 115 ms for an NFT item's transfers):
--
--   - contracts_deployed_order (all contracts, newest deployed first) orders by the
--     expression coalesce(deployed_block, -1), which PostgreSQL does not read back out of an
--     index for an index-only scan, since the column deployed_block is not in it: it now
--     holds deployed_block too (INCLUDE), as contracts_class_order does.
--   - nft_events_token (an NFT item's transfers) held only the block of the list's order, so
--     a page sorted each block's rows and skipped them through the table: it now holds the
--     whole order (block, transaction, event, sub index), as nft_events_contract does.

-- +goose Up
DROP INDEX IF EXISTS contracts_deployed_order;
CREATE INDEX contracts_deployed_order ON contracts (COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC)
    INCLUDE (deployed_block);
COMMENT ON INDEX contracts_deployed_order IS 'contracts, newest deployed first; deployed_block included for index-only scans of deep pages';

DROP INDEX IF EXISTS nft_events_token;
CREATE INDEX nft_events_token ON nft_events (contract_address, token_id, block_number DESC, tx_index DESC, event_index DESC, sub_index DESC);
COMMENT ON INDEX nft_events_token IS 'transfers of one NFT item, newest first';

-- +goose Down
DROP INDEX IF EXISTS nft_events_token;
CREATE INDEX nft_events_token ON nft_events (contract_address, token_id, block_number DESC);
COMMENT ON INDEX nft_events_token IS 'transfers of one NFT item, newest first';

DROP INDEX IF EXISTS contracts_deployed_order;
CREATE INDEX contracts_deployed_order ON contracts (COALESCE(deployed_block, ('-1'::integer)::bigint) DESC, address DESC);
COMMENT ON INDEX contracts_deployed_order IS 'contracts, newest deployed first';
