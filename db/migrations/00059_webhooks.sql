-- Webhooks (issue 57, docs/webhooks.md): an API key's URLs that are told of the indexed
-- chain's activity, in the Standard Webhooks format (package webhooks).
--
-- Durability is a position per webhook in the indexed chain, not an outbox: the messages are
-- rebuilt from the rows the indexer wrote (blocks, transactions, token_transfers, events),
-- and the position moves past an item only once its receiver answered 2xx. The indexer
-- writes nothing for webhooks. What was delivered within the reorg window is kept in
-- webhook_sent with its block's hash, so that a reorg is seen (the hash at that number
-- changed) and the undone items retracted. None of these tables announces data changes
-- (migration 00058's trigger): no answer of the APIs shows them, and the delivery loop
-- listens on starkgraph_chain, which its own writes must not wake.

-- +goose Up
-- How many webhooks a key of the plan may hold.
ALTER TABLE plans ADD COLUMN IF NOT EXISTS max_webhooks integer NOT NULL DEFAULT 10;
ALTER TABLE plans DROP CONSTRAINT IF EXISTS plans_max_webhooks_check;
ALTER TABLE plans ADD CONSTRAINT plans_max_webhooks_check CHECK (max_webhooks >= 0);
UPDATE plans SET max_webhooks = 5 WHERE name = 'free';
UPDATE plans SET max_webhooks = 100 WHERE name = 'pro';
UPDATE plans SET max_webhooks = 10000 WHERE name = 'dev';

CREATE TABLE IF NOT EXISTS webhooks (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id           bigint      NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    url              text        NOT NULL CHECK (url <> '' AND length(url) <= 2048),
    description      text        NOT NULL DEFAULT '' CHECK (length(description) <= 200),
    -- What it is told of: 'blocks', 'transactions', 'transfers' or 'events', narrowed by
    -- filter (the subscriptions' arguments: senderAddress, contractAddress, type; token,
    -- wallet; contract, keys), addresses and felts as 0x hex.
    kind             text        NOT NULL CHECK (kind IN ('blocks', 'transactions', 'transfers', 'events')),
    filter           jsonb       NOT NULL DEFAULT '{}',
    -- The secret signing every message, and during a rotation the one before it, which
    -- signs too until previous_expires_at.
    secret           text        NOT NULL,
    previous_secret  text,
    previous_expires_at timestamptz,
    status           text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'disabled')),
    status_reason    text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- The position: the last item delivered (block, transaction index, event index; -1 for
    -- what a block or a transaction is as a whole; 2147483647 for "the whole block") and its
    -- block's hash. Items after it are the next to deliver.
    position_block   bigint      NOT NULL,
    position_tx      integer     NOT NULL DEFAULT 2147483647,
    position_event   integer     NOT NULL DEFAULT 2147483647,
    position_hash    bytea,
    -- The message being retried: how many attempts failed, since when, and when the next is
    -- due (Backoff, or a receiver's Retry-After).
    attempts         integer     NOT NULL DEFAULT 0,
    failing_since    timestamptz,
    next_attempt_at  timestamptz,
    last_error       text        NOT NULL DEFAULT '',
    delivered_at     timestamptz
);
COMMENT ON TABLE webhooks IS 'one webhook of an API key: its URL, filter, secrets, status and position in the indexed chain (the last item its receiver acknowledged). Written by the GraphQL mutations and the delivery loop (webhooks/dispatch.go).';
CREATE INDEX IF NOT EXISTS webhooks_key ON webhooks (key_id, id);
COMMENT ON INDEX webhooks_key IS 'a key''s webhooks, newest last (the webhooks query; the plan''s bound counted at creation)';
CREATE INDEX IF NOT EXISTS webhooks_active ON webhooks (id) WHERE status = 'active';
COMMENT ON INDEX webhooks_active IS 'the delivery loop''s list of active webhooks';

-- What was delivered within the reorg window: a reorg that changes the hash of one of
-- these blocks has its items retracted ("removed": true), newest first.
CREATE TABLE IF NOT EXISTS webhook_sent (
    webhook_id   bigint  NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    block_number bigint  NOT NULL,
    tx_index     integer NOT NULL,
    event_index  integer NOT NULL,
    block_hash   bytea   NOT NULL,
    message_id   text    NOT NULL,
    payload      jsonb   NOT NULL,
    PRIMARY KEY (webhook_id, block_number, tx_index, event_index)
);
COMMENT ON TABLE webhook_sent IS 'an item delivered to a webhook within the reorg window, with its block hash and message, for retractions after a reorg. Written and pruned by the delivery loop (webhooks/dispatch.go).';

-- The delivery log: one row per attempt, pruned by age and to the newest rows per webhook.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id   bigint      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    message_id   text        NOT NULL,
    block_number bigint      NOT NULL,
    attempt      integer     NOT NULL,
    started_at   timestamptz NOT NULL,
    latency_ms   integer     NOT NULL,
    outcome      text        NOT NULL,
    status       integer     NOT NULL DEFAULT 0,
    response     text        NOT NULL DEFAULT '',
    error        text        NOT NULL DEFAULT ''
);
COMMENT ON TABLE webhook_deliveries IS 'one delivery attempt of a webhook (the delivery log): status, latency, the first KiB of the answer. Written by the delivery loop, pruned by it to the newest rows of each webhook and by age.';
CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
COMMENT ON INDEX webhook_deliveries_webhook IS 'a webhook''s delivery log, newest first (the webhookDeliveries query), and its pruning';
CREATE INDEX IF NOT EXISTS webhook_deliveries_started ON webhook_deliveries (started_at);
COMMENT ON INDEX webhook_deliveries_started IS 'pruning the log by age: DELETE FROM webhook_deliveries WHERE started_at < $1';

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_sent;
DROP TABLE webhooks;
ALTER TABLE plans DROP COLUMN max_webhooks;
