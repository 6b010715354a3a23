-- L1 -> L2 messages seen on Ethereum (the Starknet core contract's LogMessageToL2 events),
-- read by the L1 follower (--l1-rpc): they give L1_HANDLER transactions the hash of the
-- L1 transaction that sent their message. l1_state keeps how far the follower has read.

-- +goose Up
CREATE TABLE l1_messages (
    message_hash  bytea PRIMARY KEY,   -- keccak of the message, as L1_HANDLER receipts carry it
    l1_tx_hash    bytea NOT NULL,
    l1_block      bigint NOT NULL,
    l1_log_index  int NOT NULL
);
CREATE TABLE l1_state (
    id          smallint PRIMARY KEY CHECK (id = 1),
    next_block  bigint NOT NULL        -- the first L1 block not read yet
);
CREATE INDEX transactions_message_hash ON transactions (message_hash) WHERE message_hash IS NOT NULL;

-- +goose Down
DROP INDEX transactions_message_hash;
DROP TABLE l1_state, l1_messages;
