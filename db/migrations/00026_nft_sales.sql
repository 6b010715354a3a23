-- NFT sales: nft_events rows whose transaction paid the seller (indexer/sales.go fills
-- payment_token_address, total_price and marketplace_contract_address). The statistics of
-- GET /beta/nft-stats and /marketplace-stats aggregate the sales of a time window through
-- this index, so that their cost follows the sales in the window, not the NFT events.
-- Idempotent, so that it can be applied twice.

-- +goose Up
CREATE INDEX IF NOT EXISTS nft_events_sales ON nft_events (timestamp) INCLUDE (contract_address, marketplace_contract_address)
    WHERE total_price IS NOT NULL;

-- +goose Down
DROP INDEX IF EXISTS nft_events_sales;
