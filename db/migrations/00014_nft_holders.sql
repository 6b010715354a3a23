-- The holders of an NFT collection, one row per (collection, owner) with what the owner
-- holds of it in all, kept by the indexer from nft_balances (recomputed for the pairs each
-- batch touches, journaled for reorgs). The collection's holder list is then an index scan
-- in its order instead of a GROUP BY over every balance of the collection per request.

-- +goose Up
CREATE TABLE nft_holders (
    contract_address   bytea         NOT NULL,
    owner_address      bytea         NOT NULL,
    -- the smallest token id the owner holds, shown as the row's token
    token_id           numeric(78,0) NOT NULL,
    held               numeric(78,0) NOT NULL CHECK (held > 0),
    last_transfer_time bigint        NOT NULL,
    PRIMARY KEY (contract_address, owner_address)
);
CREATE INDEX nft_holders_order ON nft_holders (contract_address, held DESC, owner_address DESC);

INSERT INTO nft_holders (contract_address, owner_address, token_id, held, last_transfer_time)
SELECT contract_address, owner_address, min(token_id), sum(balance), max(last_transfer_time)
FROM nft_balances WHERE balance > 0 GROUP BY contract_address, owner_address;

-- +goose Down
DROP TABLE nft_holders;
