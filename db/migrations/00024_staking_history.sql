-- The staking history the indexer derives from the staking contract's, its pools' and the
-- attestation contract's events (indexer/staking_history.go):
--
--   staking_activity: one row per staking operation (stake, delegation, exit, claim, ...),
--     for the activity logs of a wallet and of a validator;
--   attestations: one row per StakerAttestationSuccessful, for the attestation list and
--     the validators' liveness;
--   validator_days: each validator's stake and delegator count at the end of every UTC day
--     that changed them, and the network's (staker_address = '\x'), for the series over
--     time.
--
-- The first two go with their transaction on a reorg; validator_days is journaled like
-- every table blocks update in place. Blocks indexed before this migration have no
-- history rows: the series and logs start at the first block indexed after it.
-- Idempotent, so that it can be applied twice.

-- +goose Up
CREATE TABLE IF NOT EXISTS staking_activity (
    block_number     bigint   NOT NULL,
    tx_index         integer  NOT NULL,
    event_index      integer  NOT NULL,
    operation        text     NOT NULL,
    wallet_address   bytea    NOT NULL, -- who acted: the staker, or the pool member
    staker_address   bytea    NOT NULL, -- the validator the operation concerns
    pool_contract    bytea,             -- delegators' operations, and opening a pool
    token_address    bytea,             -- the token staked or delegated
    amount           numeric(78,0),     -- in the token's smallest unit, when the event says
    transaction_hash bytea    NOT NULL,
    timestamp        bigint   NOT NULL,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS staking_activity_wallet ON staking_activity (wallet_address, block_number DESC, tx_index DESC, event_index DESC);
CREATE INDEX IF NOT EXISTS staking_activity_staker ON staking_activity (staker_address, block_number DESC, tx_index DESC, event_index DESC);

CREATE TABLE IF NOT EXISTS attestations (
    block_number     bigint  NOT NULL,
    tx_index         integer NOT NULL,
    event_index      integer NOT NULL,
    staker_address   bytea   NOT NULL,
    epoch            bigint  NOT NULL,
    transaction_hash bytea   NOT NULL,
    timestamp        bigint  NOT NULL,
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS attestations_staker ON attestations (staker_address, block_number DESC, tx_index DESC, event_index DESC);

CREATE TABLE IF NOT EXISTS validator_days (
    staker_address bytea   NOT NULL, -- '\x': the whole network
    day            date    NOT NULL,
    stake_strk     numeric(78,0) NOT NULL, -- own plus delegated STRK
    stake_btc      numeric(78,0) NOT NULL, -- delegated BTC tokens, in their smallest units
    delegators     integer NOT NULL,
    block_number   bigint  NOT NULL,       -- the last block that changed the row
    PRIMARY KEY (staker_address, day)
);

INSERT INTO list_counts (name, count) VALUES ('staking_activity', 0), ('attestations', 0) ON CONFLICT (name) DO NOTHING;

-- +goose Down
DELETE FROM list_counts WHERE name IN ('staking_activity', 'attestations');
DROP TABLE IF EXISTS validator_days;
DROP TABLE IF EXISTS attestations;
DROP TABLE IF EXISTS staking_activity;
