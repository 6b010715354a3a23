-- Replays of a closed block range or of one message (issue 57): a webhook's replay job is
-- kept on its row, so that it survives restarts. The job moves the position back to just
-- before what is delivered again; the delivery loop delivers from there, in chain order, up
-- to the job's end (inclusive), then moves the position on to where deliveries stood before
-- the replay (resume), so that what followed the range is not delivered again. The job is
-- the JSON of db.WebhookReplay: {"from": block, "end": position, "resume": position,
-- "resumeHash": hex, "message": id}, positions as {"block", "tx", "event"}.

-- +goose Up
ALTER TABLE webhooks ADD COLUMN replay jsonb;
COMMENT ON COLUMN webhooks.replay IS 'the replay under way (db.WebhookReplay: its end, and the position deliveries resume from after it), NULL when none. Written by replayWebhook / replayWebhookMessage and `starkgraph webhooks replay`; ended by the delivery loop (webhooks/dispatch.go).';

-- +goose Down
ALTER TABLE webhooks DROP COLUMN replay;
