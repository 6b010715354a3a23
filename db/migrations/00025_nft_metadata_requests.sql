-- NFT metadata refreshes (POST /beta/nft/update-metadata/{contract}/{id}): one row per
-- item asked for, which the metadata fetcher (nftmeta) takes in request order. The row
-- stays once done, so that a token is refreshed at most once per interval (the API's
-- per-token limit reads requested_at). Idempotent, so that it can be applied twice.

-- +goose Up
CREATE TABLE IF NOT EXISTS nft_metadata_requests (
    contract_address bytea         NOT NULL,
    token_id         numeric(78,0) NOT NULL,
    requested_at     timestamptz   NOT NULL DEFAULT now(),
    state            text          NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed')),
    attempts         integer       NOT NULL DEFAULT 0,
    error            text,
    finished_at      timestamptz,
    PRIMARY KEY (contract_address, token_id)
);
CREATE INDEX IF NOT EXISTS nft_metadata_requests_queued ON nft_metadata_requests (requested_at) WHERE state = 'queued';

-- +goose Down
DROP TABLE IF EXISTS nft_metadata_requests;
