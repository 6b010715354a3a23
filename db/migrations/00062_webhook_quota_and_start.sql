-- +goose Up
-- Webhook deliveries count toward their key's quota (issue 57): each attempt, as each
-- request does, and the day's attempts are kept beside its requests.
ALTER TABLE api_key_usage ADD COLUMN webhook_deliveries bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN api_key_usage.webhook_deliveries IS 'webhook delivery attempts made for the key that day (each counts toward its quotas as a request does). Written by the delivery loop through auth.DeliveryMeter.';

-- A webhook's start: the block before the first it was to be told of (fromBlock - 1, or
-- the head at creation; moved by a replay). A reorg that moves its position back without
-- knowing where the branches part goes back the reorg window, never before the start (it
-- went back to block 0, delivering items its owner never asked for). -1 for the webhooks
-- created before: their start is not known.
ALTER TABLE webhooks ADD COLUMN start_block bigint NOT NULL DEFAULT -1;
COMMENT ON COLUMN webhooks.start_block IS 'the block before the first the webhook was to be told of (fromBlock - 1, the head at creation, or a replay''s block - 1): a reorg never moves its position below it.';

-- +goose Down
ALTER TABLE webhooks DROP COLUMN start_block;
ALTER TABLE api_key_usage DROP COLUMN webhook_deliveries;
