-- The chain data model. Conventions:
-- * felts (addresses, hashes, selectors, calldata words) are bytea in the compact form of
--   db.Felt: big-endian, leading zero bytes stripped, zero as the empty string; arrays of
--   felts are bytea[].
-- * u256 amounts and balances are numeric(78,0); gas prices and fees numeric(78,0) too.
-- * times are Unix seconds (bigint), as the chain gives them.
-- * raw RPC enum values are stored as the node sends them (ACCEPTED_ON_L2, SUCCEEDED, ...);
--   the APIs map them to display strings.
-- * every filter and sort the APIs offer has an index; list totals come from list_counts,
--   maintained by the indexer in the same transaction as the rows they count.

-- +goose Up
CREATE TABLE blocks (
    number                 bigint PRIMARY KEY,
    hash                   bytea  NOT NULL UNIQUE,
    parent_hash            bytea  NOT NULL,
    timestamp              bigint NOT NULL,
    status                 text   NOT NULL,              -- ACCEPTED_ON_L2 | ACCEPTED_ON_L1 | PRE_CONFIRMED
    state_root             bytea,
    sequencer_address      bytea,
    starknet_version       text   NOT NULL DEFAULT '',
    l1_da_mode             text,
    l1_gas_price_wei       numeric(78,0),
    l1_gas_price_fri       numeric(78,0),
    l1_data_gas_price_wei  numeric(78,0),
    l1_data_gas_price_fri  numeric(78,0),
    l2_gas_price_wei       numeric(78,0),
    l2_gas_price_fri       numeric(78,0),
    tx_count               integer NOT NULL DEFAULT 0,
    event_count            integer NOT NULL DEFAULT 0,
    message_count          integer NOT NULL DEFAULT 0,   -- L2 -> L1 messages sent
    l1_verification_tx_hash bytea
);
CREATE INDEX blocks_timestamp ON blocks (timestamp);

CREATE TABLE transactions (
    block_number          bigint   NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    tx_index              integer  NOT NULL,
    hash                  bytea    NOT NULL,
    type                  text     NOT NULL,             -- INVOKE | DECLARE | DEPLOY | DEPLOY_ACCOUNT | L1_HANDLER
    version               smallint NOT NULL,
    timestamp             bigint   NOT NULL,             -- the block's, copied for sorting without a join
    sender_address        bytea,                         -- account (INVOKE v1+/DECLARE/DEPLOY_ACCOUNT)
    contract_address      bytea,                         -- called (INVOKE v0, L1_HANDLER) or deployed contract
    class_hash            bytea,                         -- declared / deployed class, or the sender's class
    entry_point_selector  bytea,
    nonce                 numeric(78,0),
    max_fee               numeric(78,0),
    tip                   numeric(78,0),
    resource_bounds       jsonb,
    actual_fee            numeric(78,0) NOT NULL DEFAULT 0,
    actual_fee_unit       text     NOT NULL DEFAULT 'WEI', -- WEI | FRI
    execution_status      text     NOT NULL,             -- SUCCEEDED | REVERTED
    finality_status       text     NOT NULL,             -- ACCEPTED_ON_L2 | ACCEPTED_ON_L1
    revert_reason         text,
    calldata              bytea[]  NOT NULL DEFAULT '{}',
    constructor_calldata  bytea[],
    signature             bytea[]  NOT NULL DEFAULT '{}',
    compiled_class_hash   bytea,
    contract_address_salt bytea,
    paymaster_data        bytea[],
    account_deployment_data bytea[],
    nonce_da_mode         text,
    fee_da_mode           text,
    message_hash          bytea,                         -- L1_HANDLER: hash of the L1 -> L2 message
    l1_transaction_hash   bytea,                         -- L1_HANDLER: the L1 transaction, when known
    execution_resources   jsonb,
    event_count           integer  NOT NULL DEFAULT 0,
    partial_calls_parsing boolean  NOT NULL DEFAULT false,
    PRIMARY KEY (block_number, tx_index)
);
CREATE UNIQUE INDEX transactions_hash ON transactions (hash);
CREATE INDEX transactions_sender ON transactions (sender_address, block_number, tx_index);
CREATE INDEX transactions_contract ON transactions (contract_address, block_number, tx_index);
CREATE INDEX transactions_type ON transactions (type, block_number, tx_index);

-- Decoded calls of a transaction (the multicall of an account's __execute__, or the single
-- call of an INVOKE v0 / L1_HANDLER).
CREATE TABLE calls (
    block_number     bigint  NOT NULL,
    tx_index         integer NOT NULL,
    call_index       integer NOT NULL,
    contract_address bytea   NOT NULL,
    selector         bytea   NOT NULL,
    entrypoint       text,                               -- function name, when the ABI or a known name gives it
    entrypoint_type  text    NOT NULL DEFAULT 'EXTERNAL',
    call_type        text    NOT NULL DEFAULT 'CALL',
    class_hash       bytea,
    calldata         bytea[] NOT NULL DEFAULT '{}',
    inputs           jsonb,
    outputs          jsonb,
    PRIMARY KEY (block_number, tx_index, call_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX calls_contract ON calls (contract_address, block_number);

CREATE TABLE events (
    block_number  bigint  NOT NULL,
    tx_index      integer NOT NULL,
    event_index   integer NOT NULL,                      -- position within the transaction's receipt
    from_address  bytea   NOT NULL,
    key0          bytea,                                 -- keys[0], usually the event selector
    keys          bytea[] NOT NULL DEFAULT '{}',
    data          bytea[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (block_number, tx_index, event_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX events_from ON events (from_address, block_number, tx_index, event_index);
CREATE INDEX events_key0 ON events (key0, block_number);

CREATE TABLE classes (
    hash                bytea PRIMARY KEY,
    kind                text     NOT NULL,               -- sierra | legacy
    cairo_version       smallint NOT NULL,               -- 0 | 1
    version             text     NOT NULL DEFAULT '0',   -- contract_class_version ("0.1.0") or "0"
    compiled_class_hash bytea,
    abi                 jsonb,
    is_account          boolean NOT NULL DEFAULT false,
    is_proxy            boolean NOT NULL DEFAULT false,
    erc_standard        text,                            -- erc20 | erc721 | erc1155 when the ABI says so
    declared_block      bigint REFERENCES blocks (number) ON DELETE CASCADE,
    declared_tx_hash    bytea,
    declared_at         bigint
);
CREATE INDEX classes_declared ON classes (declared_block DESC, hash);

CREATE TABLE verified_classes (
    class_hash       bytea PRIMARY KEY,
    name             text   NOT NULL,
    verified_at      bigint NOT NULL,
    compiler_version text,
    scarb_version    text,
    license          text,
    package_name     text,
    contract_file    text,
    files            jsonb
);
CREATE INDEX verified_classes_at ON verified_classes (verified_at DESC, class_hash);

CREATE TABLE contracts (
    address                bytea PRIMARY KEY,
    class_hash             bytea  NOT NULL,
    type                   text   NOT NULL DEFAULT 'unknown', -- account | erc20 | erc721 | erc1155 | proxy | unknown
    nonce                  numeric(78,0) NOT NULL DEFAULT 0,
    implementation_address bytea,                        -- proxies: the current implementation
    deployed_block         bigint REFERENCES blocks (number) ON DELETE CASCADE,
    deployed_tx_hash       bytea,
    deployed_at            bigint,
    class_updated_block    bigint                        -- last replace_class
);
CREATE INDEX contracts_class ON contracts (class_hash, deployed_block DESC, address);
CREATE INDEX contracts_type ON contracts (type, deployed_block DESC, address);
CREATE INDEX contracts_deployed ON contracts (deployed_block DESC, address);

-- Contract history needed to undo a reorg: the previous class and nonce of a contract
-- changed in a block.
CREATE TABLE contract_changes (
    block_number   bigint NOT NULL REFERENCES blocks (number) ON DELETE CASCADE,
    address        bytea  NOT NULL,
    old_class_hash bytea,
    old_nonce      numeric(78,0),
    PRIMARY KEY (block_number, address)
);

CREATE TABLE tokens (
    address        bytea PRIMARY KEY,
    standard       text   NOT NULL,                      -- erc20 | erc721 | erc1155
    name           text,
    symbol         text,
    decimals       smallint,
    total_supply   numeric(78,0),
    transfer_count bigint  NOT NULL DEFAULT 0,
    holder_count   bigint  NOT NULL DEFAULT 0,
    verified       boolean NOT NULL DEFAULT false,
    usd_price      double precision,                     -- when a price source knows it
    market_cap_usd double precision,                     -- usd_price * circulating supply
    logo_url       text,
    first_block    bigint
);
CREATE INDEX tokens_by_holders ON tokens (standard, holder_count DESC, address);
CREATE INDEX tokens_by_transfers ON tokens (standard, transfer_count DESC, address);
CREATE INDEX tokens_by_market_cap ON tokens (standard, market_cap_usd DESC NULLS LAST, address);

CREATE TABLE erc20_balances (
    token_address      bytea NOT NULL,
    owner_address      bytea NOT NULL,
    balance            numeric(78,0) NOT NULL,
    last_transfer_block bigint NOT NULL,
    last_transfer_time bigint NOT NULL,
    PRIMARY KEY (token_address, owner_address)
);
CREATE INDEX erc20_balances_holders ON erc20_balances (token_address, balance DESC, owner_address) WHERE balance > 0;
CREATE INDEX erc20_balances_owner ON erc20_balances (owner_address, token_address);

CREATE TABLE nft_items (
    contract_address     bytea NOT NULL,
    token_id             numeric(78,0) NOT NULL,
    contract_type        smallint NOT NULL,              -- 721 | 1155
    owner_address        bytea,                          -- ERC-721 owner; null for ERC-1155 and burned items
    name                 text,
    description          text,
    external_url         text,
    image_url            text,
    image_small_url      text,
    image_large_url      text,
    youtube_url          text,
    animation_url        text,
    attributes           jsonb NOT NULL DEFAULT '[]',
    token_uri            text,
    minted_by_address    bytea,
    minted_at_block      bigint,
    minted_at_tx_hash    bytea,
    minted_at_timestamp  bigint,
    PRIMARY KEY (contract_address, token_id)
);
CREATE INDEX nft_items_owner ON nft_items (owner_address, contract_address, token_id);

CREATE TABLE nft_balances (
    contract_address   bytea NOT NULL,
    token_id           numeric(78,0) NOT NULL,
    owner_address      bytea NOT NULL,
    balance            numeric(78,0) NOT NULL,
    last_transfer_time bigint NOT NULL,
    PRIMARY KEY (contract_address, token_id, owner_address)
);
CREATE INDEX nft_balances_owner ON nft_balances (owner_address, contract_address, token_id) WHERE balance > 0;

CREATE TABLE nft_events (
    block_number     bigint  NOT NULL,
    tx_index         integer NOT NULL,
    event_index      integer NOT NULL,
    sub_index        integer NOT NULL DEFAULT 0,          -- position inside an ERC-1155 TransferBatch
    contract_address bytea   NOT NULL,
    token_id         numeric(78,0) NOT NULL,
    from_address     bytea   NOT NULL,
    to_address       bytea   NOT NULL,
    quantity         numeric(78,0) NOT NULL DEFAULT 1,
    type             text    NOT NULL,                   -- Mint | Transfer | Burn
    transaction_hash bytea   NOT NULL,
    timestamp        bigint  NOT NULL,
    payment_token_address bytea,
    payment_token_symbol  text,
    total_price      numeric(78,0),
    marketplace_contract_address bytea,
    PRIMARY KEY (block_number, tx_index, event_index, sub_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX nft_events_contract ON nft_events (contract_address, block_number DESC, tx_index DESC, event_index DESC, sub_index DESC);
CREATE INDEX nft_events_token ON nft_events (contract_address, token_id, block_number DESC);

-- Holders-analytics snapshots of verified ERC-20 tokens; the newest row per token is served.
CREATE TABLE holders_snapshots (
    token_address        bytea  NOT NULL,
    computed_at          timestamptz NOT NULL,
    total_supply         numeric(78,0) NOT NULL,
    burned_supply        numeric(78,0) NOT NULL,
    circulating_supply   numeric(78,0) NOT NULL,
    holder_count         bigint NOT NULL,
    holders_over_1pct    integer NOT NULL,
    top_n_concentration  jsonb  NOT NULL,   -- {top5, top10, top100}
    concentration_buckets jsonb NOT NULL,   -- {top_1_5, ..., outside_100}
    tier_distribution    jsonb  NOT NULL,   -- [{tier, count, supplyShare}]
    wallet_depth_usd     jsonb,             -- [{usdThreshold, walletCount}]
    gini_top_10k         double precision NOT NULL,
    token_usd_price      double precision,
    is_stale             boolean NOT NULL DEFAULT false,
    is_recomputing       boolean NOT NULL DEFAULT false,
    PRIMARY KEY (token_address, computed_at)
);

-- Staking (the staking contract's stakers, their delegation pools and the delegators).
CREATE TABLE validators (
    staker_address        bytea PRIMARY KEY,
    reward_address        bytea,
    operational_address   bytea,
    name                  text,
    image_url             text,
    is_verified           boolean NOT NULL DEFAULT false,
    self_stake            numeric(78,0) NOT NULL DEFAULT 0,   -- STRK, own stake
    delegated_stake_strk  numeric(78,0) NOT NULL DEFAULT 0,
    delegated_stake_btc   numeric(78,0) NOT NULL DEFAULT 0,
    revenue_share_bps     integer NOT NULL DEFAULT 0,         -- commission, basis points
    state                 text    NOT NULL DEFAULT 'active',  -- active | unstaking | withdrawn
    start_time            bigint,
    unstake_time          bigint,
    withdrawal_time       bigint,
    total_delegators      integer NOT NULL DEFAULT 0,
    liveness_attested_epochs integer NOT NULL DEFAULT 0,
    liveness_total_epochs    integer NOT NULL DEFAULT 0,
    liveness_last_epoch      bigint,
    created_block         bigint REFERENCES blocks (number) ON DELETE CASCADE
);
CREATE INDEX validators_by_stake ON validators ((self_stake + delegated_stake_strk) DESC, staker_address);

CREATE TABLE pools (
    pool_contract     bytea PRIMARY KEY,
    staker_address    bytea NOT NULL REFERENCES validators (staker_address) ON DELETE CASCADE,
    token_address     bytea NOT NULL,
    total_delegated   numeric(78,0) NOT NULL DEFAULT 0,
    delegator_count   integer NOT NULL DEFAULT 0,
    created_block     bigint REFERENCES blocks (number) ON DELETE CASCADE
);
CREATE INDEX pools_staker ON pools (staker_address);

CREATE TABLE delegations (
    pool_contract       bytea NOT NULL REFERENCES pools (pool_contract) ON DELETE CASCADE,
    delegator_address   bytea NOT NULL,
    reward_address      bytea,
    amount              numeric(78,0) NOT NULL DEFAULT 0,
    rewards_claimed     numeric(78,0) NOT NULL DEFAULT 0,
    rewards_unclaimed   numeric(78,0) NOT NULL DEFAULT 0,
    unpool_amount       numeric(78,0) NOT NULL DEFAULT 0,
    activated_at        bigint,
    last_delegation_at  bigint,
    unpool_time         bigint,
    withdrawal_time     bigint,
    status              text NOT NULL DEFAULT 'active',     -- active | exiting | exited
    PRIMARY KEY (pool_contract, delegator_address)
);
CREATE INDEX delegations_delegator ON delegations (delegator_address);
CREATE INDEX delegations_pool_amount ON delegations (pool_contract, amount DESC, delegator_address);

-- One point per wallet, token and day on which the wallet's delegated stake changed.
CREATE TABLE stake_points (
    wallet_address bytea NOT NULL,
    day            date  NOT NULL,
    token_address  bytea NOT NULL,
    change         numeric(78,0) NOT NULL,   -- may be negative
    total          numeric(78,0) NOT NULL,
    block_number   bigint NOT NULL,
    PRIMARY KEY (wallet_address, token_address, day)
);

CREATE TABLE staking_overview (
    id                      smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    staking_contract        bytea,
    strk_token_address      bytea,
    btc_token_address       bytea,
    minimum_stake           numeric(78,0) NOT NULL DEFAULT 0,
    total_supply            numeric(78,0) NOT NULL DEFAULT 0,
    total_pending_unstake_strk numeric(78,0) NOT NULL DEFAULT 0,
    total_pending_unstake_btc  numeric(78,0) NOT NULL DEFAULT 0,
    minting_curve           double precision NOT NULL DEFAULT 0,
    security_lockup_seconds bigint NOT NULL DEFAULT 0,
    epoch_id                bigint NOT NULL DEFAULT 0,
    epoch_start_time        bigint NOT NULL DEFAULT 0,
    epoch_duration_seconds  bigint NOT NULL DEFAULT 0,
    updated_at              bigint NOT NULL DEFAULT 0   -- Unix ms (lastUpdated)
);

-- Transactions that run an outside execution (SNIP-9 execute_from_outside): the relayer is the
-- transaction's sender, the account that signed the intent is contract_address.
CREATE TABLE meta_transactions (
    block_number     bigint  NOT NULL,
    tx_index         integer NOT NULL,
    call_index       integer NOT NULL DEFAULT 0,
    contract_address bytea   NOT NULL,                    -- the account executing from outside
    caller_address   bytea,                               -- the allowed caller in the outside execution
    version          smallint NOT NULL DEFAULT 2,         -- execute_from_outside version
    operations       text    NOT NULL DEFAULT '',         -- comma-separated entry points of the inner calls
    actions          jsonb,
    PRIMARY KEY (block_number, tx_index, call_index),
    FOREIGN KEY (block_number, tx_index) REFERENCES transactions (block_number, tx_index) ON DELETE CASCADE
);
CREATE INDEX meta_transactions_contract ON meta_transactions (contract_address, block_number DESC, tx_index DESC);
CREATE INDEX meta_transactions_recent ON meta_transactions (block_number DESC, tx_index DESC);

-- Human names for addresses and classes (Account, Ether, ...).
CREATE TABLE aliases (
    address bytea PRIMARY KEY,
    name    text NOT NULL
);

CREATE TABLE verification_jobs (
    id               uuid PRIMARY KEY,
    class_hash       bytea NOT NULL,
    status           smallint NOT NULL DEFAULT 0,  -- 0 Submitted, 1 Compiled, 2 CompileFailed, 3 Fail, 4 Success, 5 Processing
    name             text,
    compiler_version text,
    scarb_version    text,
    dojo_version     text,
    project_dir_path text,
    package_name     text,
    license          text,
    contract_file    text,
    build_tool       text,                          -- scarb | sozo
    files            jsonb NOT NULL,
    message          text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verification_jobs_pending ON verification_jobs (created_at) WHERE status IN (0, 5);

-- Exact totals for lists and statistics, kept by the indexer in the block's transaction, so
-- that lastPage/totalCount never scan a large table. Names: 'blocks', 'transactions',
-- 'events', 'contracts', 'contracts:<type>', 'classes', 'tokens:<standard>',
-- 'verified_classes', 'meta_transactions', 'validators', 'delegators', ...
CREATE TABLE list_counts (
    name  text PRIMARY KEY,
    count bigint NOT NULL DEFAULT 0
);

-- Transactions per block window, for tps and max recorded tps.
CREATE TABLE chain_stats (
    id                    smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    max_tps               double precision NOT NULL DEFAULT 0,
    max_tps_block_hash    bytea,
    tvl_usd               double precision
);
INSERT INTO chain_stats DEFAULT VALUES;

-- Where the indexer is, and where the node is; read by indexerStatus and /beta/api-status.
CREATE TABLE indexer_state (
    id             smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    head_block     bigint,
    head_hash      bytea,
    node_head      bigint,
    chain_id       text,
    spec_version   text,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO indexer_state DEFAULT VALUES;

-- +goose Down
DROP TABLE indexer_state, chain_stats, list_counts, verification_jobs, aliases, meta_transactions,
    staking_overview, stake_points, delegations, pools, validators, holders_snapshots,
    nft_events, nft_balances, nft_items, erc20_balances, tokens, contract_changes, contracts,
    verified_classes, classes, events, calls, transactions, blocks;
