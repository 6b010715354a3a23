-- ERC-20 transfers, one row per Transfer event the indexer reads as an ERC-20 movement
-- (indexer/transfers.go), so transfer lists of a token or a wallet are index scans rather
-- than scans of events. Rows go with their transaction on a reorg.

-- +goose Up
CREATE TABLE token_transfers (
    block_number     bigint   NOT NULL,
    tx_index         integer  NOT NULL,
    event_index      integer  NOT NULL,
    token_address    bytea    NOT NULL,
    from_address     bytea    NOT NULL,
    to_address       bytea    NOT NULL,
    amount           numeric(78,0) NOT NULL,  -- in the token's smallest unit
    transaction_hash bytea    NOT NULL,
    timestamp        bigint   NOT NULL,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
-- Newest first, per token and per side of a wallet.
CREATE INDEX token_transfers_token ON token_transfers (token_address, block_number DESC, tx_index DESC, event_index DESC);
CREATE INDEX token_transfers_from ON token_transfers (from_address, block_number DESC, tx_index DESC, event_index DESC);
CREATE INDEX token_transfers_to ON token_transfers (to_address, block_number DESC, tx_index DESC, event_index DESC);

-- +goose Down
DROP TABLE token_transfers;
