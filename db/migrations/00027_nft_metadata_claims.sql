-- NFT metadata refreshes are claimed for a while (a lease) instead of under a row lock held
-- through the fetch: the fetcher reads a token URI from the node and a document from the
-- web, which may take seconds, and no transaction should stay open meanwhile. A claim is
-- state 'fetching' with the time it was taken; one older than the lease (its fetcher
-- stopped) is taken again. Idempotent, so that it can be applied twice.

-- +goose Up
ALTER TABLE nft_metadata_requests ADD COLUMN IF NOT EXISTS claimed_at timestamptz;
ALTER TABLE nft_metadata_requests DROP CONSTRAINT IF EXISTS nft_metadata_requests_state_check;
ALTER TABLE nft_metadata_requests ADD CONSTRAINT nft_metadata_requests_state_check
    CHECK (state IN ('queued', 'fetching', 'done', 'failed'));
CREATE INDEX IF NOT EXISTS nft_metadata_requests_claimed ON nft_metadata_requests (claimed_at) WHERE state = 'fetching';

-- +goose Down
DROP INDEX IF EXISTS nft_metadata_requests_claimed;
UPDATE nft_metadata_requests SET state = 'queued' WHERE state = 'fetching';
ALTER TABLE nft_metadata_requests DROP CONSTRAINT IF EXISTS nft_metadata_requests_state_check;
ALTER TABLE nft_metadata_requests ADD CONSTRAINT nft_metadata_requests_state_check
    CHECK (state IN ('queued', 'done', 'failed'));
ALTER TABLE nft_metadata_requests DROP COLUMN IF EXISTS claimed_at;
