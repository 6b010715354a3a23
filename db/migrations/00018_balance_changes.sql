-- A wallet's ERC-20 balance after each block that changed it, so that a balance at any
-- block and a balance's history are index lookups rather than sums of transfers. The
-- indexer writes a block's rows with the block; they go with it on a reorg.

-- +goose Up
CREATE TABLE erc20_balance_changes (
    token_address bytea         NOT NULL,
    owner_address bytea         NOT NULL,
    block_number  bigint        NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    balance       numeric(78,0) NOT NULL, -- after the block
    timestamp     bigint        NOT NULL, -- the block's
    PRIMARY KEY (token_address, owner_address, block_number)
);
-- The cascade from blocks on a reorg.
CREATE INDEX erc20_balance_changes_block ON erc20_balance_changes (block_number);

-- What the transfers already indexed say, block by block.
INSERT INTO erc20_balance_changes (token_address, owner_address, block_number, balance, timestamp)
SELECT token_address, owner, block_number,
       sum(sum(delta)) OVER (PARTITION BY token_address, owner ORDER BY block_number), max(timestamp)
FROM (SELECT token_address, to_address AS owner, block_number, amount AS delta, timestamp
        FROM token_transfers WHERE to_address <> '\x'::bytea
      UNION ALL
      SELECT token_address, from_address, block_number, -amount, timestamp
        FROM token_transfers WHERE from_address <> '\x'::bytea) d
GROUP BY token_address, owner, block_number;

-- +goose Down
DROP TABLE erc20_balance_changes;
