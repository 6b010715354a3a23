-- Active accounts of /beta/stats (the distinct senders of the last day of blocks) from
-- aggregates the indexer keeps with each block, instead of a DISTINCT over a day of
-- transactions per request:
--
-- sender_last_blocks holds each sender's newest block; active_sender_blocks counts, per
-- block, the senders whose newest block it is. The distinct senders since block B are then
-- the sum of the counts from B on: at most one row per block of the window, whatever the
-- number of transactions. Both tables are journaled, so a reorg restores them exactly.

-- +goose Up
CREATE TABLE sender_last_blocks (
    sender_address bytea  PRIMARY KEY,
    block_number   bigint NOT NULL
);

CREATE TABLE active_sender_blocks (
    block_number bigint  PRIMARY KEY REFERENCES blocks (number) ON DELETE CASCADE,
    senders      integer NOT NULL CHECK (senders > 0)
);

INSERT INTO sender_last_blocks (sender_address, block_number)
SELECT sender_address, max(block_number) FROM transactions
WHERE sender_address IS NOT NULL GROUP BY sender_address;

INSERT INTO active_sender_blocks (block_number, senders)
SELECT block_number, count(*) FROM sender_last_blocks GROUP BY block_number;

-- +goose Down
DROP TABLE active_sender_blocks;
DROP TABLE sender_last_blocks;
