-- Messages between L1 and L2: L1 -> L2 from L1_HANDLER transactions (the receipt's
-- message hash; the calldata is the L1 sender then the payload), L2 -> L1 from receipts'
-- messages_sent (hash: keccak256 of the sender, recipient, payload length and payload as
-- 32-byte words). Rows go with their transaction on a reorg. The L1 transaction of an
-- L1 -> L2 message is its transaction's l1_transaction_hash.

-- +goose Up
CREATE TABLE messages (
    block_number     bigint   NOT NULL,
    tx_index         integer  NOT NULL,
    direction        smallint NOT NULL CHECK (direction IN (0, 1)), -- 0: L1 -> L2, 1: L2 -> L1
    msg_index        integer  NOT NULL, -- position in messages_sent (0 for an L1 handler)
    message_hash     bytea    NOT NULL,
    from_address     bytea    NOT NULL, -- the L1 sender, or the L2 contract
    to_address       bytea    NOT NULL, -- the L2 contract, or the L1 recipient
    l2_address       bytea    NOT NULL, -- the L2 side of the two, for lists by contract
    selector         bytea,             -- L1 -> L2: the L1 handler's entry point
    payload          bytea[]  NOT NULL,
    transaction_hash bytea    NOT NULL,
    timestamp        bigint   NOT NULL,
    PRIMARY KEY (block_number, tx_index, direction, msg_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX messages_hash ON messages (message_hash, block_number DESC, tx_index DESC, direction DESC, msg_index DESC);
CREATE INDEX messages_contract ON messages (l2_address, block_number DESC, tx_index DESC, direction DESC, msg_index DESC);
CREATE INDEX messages_direction ON messages (direction, block_number DESC, tx_index DESC, msg_index DESC);

-- L1 -> L2 messages of the L1 handlers indexed so far (messages_sent was not kept before).
INSERT INTO messages (block_number, tx_index, direction, msg_index, message_hash, from_address, to_address, l2_address,
                      selector, payload, transaction_hash, timestamp)
SELECT block_number, tx_index, 0, 0, message_hash, coalesce(calldata[1], '\x'::bytea), contract_address, contract_address,
       entry_point_selector, coalesce(calldata[2:], '{}'), hash, timestamp
FROM transactions WHERE type = 'L1_HANDLER' AND message_hash IS NOT NULL AND contract_address IS NOT NULL;

INSERT INTO list_counts (name, count) SELECT 'messages', count(*) FROM messages
ON CONFLICT (name) DO UPDATE SET count = EXCLUDED.count;

-- +goose Down
DROP TABLE messages;
DELETE FROM list_counts WHERE name = 'messages';
