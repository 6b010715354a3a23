-- Webhooks (issue 57): replays of a closed block range or of one message, and NFT transfers.
--
-- Replays: a webhook's replay job is kept on its row, so that it survives restarts. The job
-- moves the position back to just before what is delivered again; the delivery loop
-- delivers from there, in chain order, up to the job's end (inclusive), then moves the
-- position on to where deliveries stood before the replay (resume), so that what followed
-- the range is not delivered again. The job is the JSON of db.WebhookReplay: {"from": block,
-- "end": position, "resume": position, "resumeHash": hex, "message": id}, positions as
-- {"block", "tx", "event", "sub"}.
--
-- NFT transfers (kind 'nft_transfers', the rows of nft_events): an ERC-1155 batch event makes
-- several rows at one (block, transaction, event) place, told apart by nft_events.sub_index,
-- so a webhook's position and what it was sent get a fourth part, the sub index (0 for every
-- other kind). A column rather than the sub index folded into event_index: nothing bounds a
-- batch's length or a receipt's events for every block ever indexed, and a fold would have
-- had to.

-- +goose Up
ALTER TABLE webhooks ADD COLUMN replay jsonb;
COMMENT ON COLUMN webhooks.replay IS 'the replay under way (db.WebhookReplay: its end, and the position deliveries resume from after it), NULL when none. Written by replayWebhook / replayWebhookMessage and `starkgraph webhooks replay`; ended by the delivery loop (webhooks/dispatch.go).';

ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_kind_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_kind_check
    CHECK (kind IN ('blocks', 'transactions', 'transfers', 'events', 'nft_transfers'));
ALTER TABLE webhooks ADD COLUMN position_sub integer NOT NULL DEFAULT 0;
COMMENT ON COLUMN webhooks.position_sub IS 'the sub index of the position''s item: which row of an ERC-1155 batch event (nft_events.sub_index) of an nft_transfers webhook; 0 for every other kind and item.';
ALTER TABLE webhook_sent ADD COLUMN sub_index integer NOT NULL DEFAULT 0;
COMMENT ON COLUMN webhook_sent.sub_index IS 'the item''s sub index: the row of an ERC-1155 batch event (nft_events.sub_index); 0 for every other item.';
ALTER TABLE webhook_sent DROP CONSTRAINT webhook_sent_pkey;
ALTER TABLE webhook_sent ADD CONSTRAINT webhook_sent_pkey PRIMARY KEY (webhook_id, block_number, tx_index, event_index, sub_index);

-- +goose Down
DELETE FROM webhooks WHERE kind = 'nft_transfers';
ALTER TABLE webhook_sent DROP CONSTRAINT webhook_sent_pkey;
DELETE FROM webhook_sent WHERE sub_index <> 0;
ALTER TABLE webhook_sent ADD CONSTRAINT webhook_sent_pkey PRIMARY KEY (webhook_id, block_number, tx_index, event_index);
ALTER TABLE webhook_sent DROP COLUMN sub_index;
ALTER TABLE webhooks DROP COLUMN position_sub;
ALTER TABLE webhooks DROP CONSTRAINT webhooks_kind_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_kind_check CHECK (kind IN ('blocks', 'transactions', 'transfers', 'events'));
ALTER TABLE webhooks DROP COLUMN replay;
