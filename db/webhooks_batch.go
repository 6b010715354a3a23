package db

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// The delivery loop's statements for many webhooks at once (webhooks/dispatch.go): a round
// reads the webhooks it serves in one statement, and moves the positions of those with
// nothing to deliver, and records the deliveries of several, in one transaction, so that
// its statements do not grow with the webhooks it serves.

// ServedWebhook is a webhook as the delivery loop reads it under its lock, with whether
// its position can be trusted without comparing every item it was sent with the chain.
type ServedWebhook struct {
	Webhook
	// Clean: no replay is under way; the block at its position still has the position's
	// hash (or the position has none and nothing was sent); nothing was sent after its
	// position; and, when it was read with full, every item it was sent is still on the
	// chain. Blocks commit to their parents, so a position still on the chain vouches for
	// the items delivered before it, which the loop read from blocks leading to it.
	Clean bool `db:"clean"`
}

// WebhooksToServe reads the active webhooks among ids, oldest first, with whether each is
// clean; those among full are checked item by item (the first time a process serves them).
func (s *Store) WebhooksToServe(ctx context.Context, ids, full []int64) ([]*ServedWebhook, error) {
	var rows []*ServedWebhook
	err := s.db.SelectContext(ctx, &rows, `SELECT `+prefixed("w.", webhookCols)+`,
		coalesce(w.replay IS NULL AND CASE WHEN w.position_hash IS NULL
			THEN NOT EXISTS (SELECT 1 FROM webhook_sent s WHERE s.webhook_id = w.id)
			ELSE EXISTS (SELECT 1 FROM blocks b WHERE b.number = w.position_block AND b.hash = w.position_hash)
				AND NOT EXISTS (SELECT 1 FROM webhook_sent s WHERE s.webhook_id = w.id AND s.block_number >= w.position_block
					AND (s.block_number, s.tx_index, s.event_index, s.sub_index) >
						(w.position_block, w.position_tx, w.position_event, w.position_sub))
				AND (w.id <> ALL(coalesce($2, '{}'::bigint[])) OR NOT EXISTS (SELECT 1 FROM webhook_sent s WHERE s.webhook_id = w.id
					AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.number = s.block_number AND b.hash = s.block_hash)))
			END, false) AS clean
		FROM webhooks w WHERE w.id = ANY($1) AND w.status = 'active' ORDER BY w.id`, pq.Int64Array(ids), pq.Int64Array(full))
	return rows, storeErr("webhooks to serve", err)
}

// WebhookMove moves a webhook's position from From to To (with To's block's Hash), if it
// is still active at From. With Delivery, the move records the attempt that delivered an
// item (Sent, among those sent); To may then lie past the item,
// at the end of the blocks read after it when they held nothing more for the webhook.
type WebhookMove struct {
	ID       int64
	From, To Position
	Hash     Felt
	Delivery *WebhookDelivery
	Sent     *SentItem
}

// MoveWebhooks makes moves, at most one per webhook, in one transaction of at most five
// statements, whatever their number. moved[i] says whether moves[i] was made: false when
// its webhook's position or status changed (ErrPositionMoved), its delivery then not
// recorded.
func (s *Store) MoveWebhooks(ctx context.Context, moves []WebhookMove) (moved []bool, err error) {
	moved = make([]bool, len(moves))
	if len(moves) == 0 {
		return moved, nil
	}
	seen := make(map[int64]bool, len(moves))
	for _, m := range moves {
		if seen[m.ID] {
			return nil, fmt.Errorf("move webhooks: webhook %d moved twice in one batch", m.ID)
		}
		seen[m.ID] = true
	}
	n := len(moves)
	var (
		ids, fromBlock, toBlock                          = make(pq.Int64Array, n), make(pq.Int64Array, n), make(pq.Int64Array, n)
		fromTx, fromEvent, fromSub, toTx, toEvent, toSub = make(pq.Int64Array, n), make(pq.Int64Array, n), make(pq.Int64Array, n),
			make(pq.Int64Array, n), make(pq.Int64Array, n), make(pq.Int64Array, n)
		hashes    = make(pq.ByteaArray, n)
		delivered = make(pq.BoolArray, n)
	)
	for i, m := range moves {
		ids[i], fromBlock[i], fromTx[i], fromEvent[i], fromSub[i] = m.ID, m.From.Block, int64(m.From.Tx), int64(m.From.Event), int64(m.From.Sub)
		toBlock[i], toTx[i], toEvent[i], toSub[i] = m.To.Block, int64(m.To.Tx), int64(m.To.Event), int64(m.To.Sub)
		hashes[i] = []byte(m.Hash) // nil: empty, NULL in the table
		delivered[i] = m.Delivery != nil
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, storeErr("move webhooks", err)
	}
	defer tx.Rollback()
	var done []int64
	if err := tx.SelectContext(ctx, &done, `UPDATE webhooks w SET position_block = u.tb, position_tx = u.tt,
			position_event = u.te, position_sub = u.ts, position_hash = nullif(u.h, ''::bytea),
			attempts = CASE WHEN u.d THEN 0 ELSE w.attempts END,
			failing_since = CASE WHEN u.d THEN NULL ELSE w.failing_since END,
			next_attempt_at = CASE WHEN u.d THEN NULL ELSE w.next_attempt_at END,
			last_error = CASE WHEN u.d THEN '' ELSE w.last_error END,
			delivered_at = CASE WHEN u.d THEN now() ELSE w.delivered_at END
		FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::bigint[], $7::int[], $8::int[], $9::int[],
			$10::bytea[], $11::bool[]) AS u(id, fb, ft, fe, fs, tb, tt, te, ts, h, d)
		WHERE w.id = u.id AND w.status = 'active' AND w.position_block = u.fb AND w.position_tx = u.ft
			AND w.position_event = u.fe AND w.position_sub = u.fs
		RETURNING w.id`, ids, fromBlock, fromTx, fromEvent, fromSub, toBlock, toTx, toEvent, toSub, hashes, delivered); err != nil {
		return nil, storeErr("move webhooks", err)
	}
	isDone := make(map[int64]bool, len(done))
	for _, id := range done {
		isDone[id] = true
	}
	for i, m := range moves {
		moved[i] = isDone[m.ID]
	}
	var (
		logHook, logBlock, sentHook, sentBlock                  pq.Int64Array
		logAttempt, logLatency, logStatus                       pq.Int64Array
		sentTx, sentEvent, sentSub                              pq.Int64Array
		logMessage, logStarted, logOutcome, logResponse, logErr pq.StringArray
		sentHash                                                pq.ByteaArray
		sentMessage, sentPayload                                pq.StringArray
	)
	for i, m := range moves {
		if !moved[i] || m.Delivery == nil {
			continue
		}
		d := m.Delivery
		logHook, logMessage, logBlock = append(logHook, m.ID), append(logMessage, d.MessageID), append(logBlock, d.BlockNumber)
		logAttempt, logStarted = append(logAttempt, int64(d.Attempt)), append(logStarted, d.StartedAt.Format(time.RFC3339Nano))
		logLatency, logOutcome, logStatus = append(logLatency, int64(d.LatencyMs)), append(logOutcome, d.Outcome), append(logStatus, int64(d.Status))
		logResponse, logErr = append(logResponse, d.Response), append(logErr, d.Error)
		if it := m.Sent; it != nil {
			sentHook, sentBlock = append(sentHook, m.ID), append(sentBlock, it.BlockNumber)
			sentTx, sentEvent, sentSub = append(sentTx, int64(it.TxIndex)), append(sentEvent, int64(it.EventIndex)), append(sentSub, int64(it.SubIndex))
			sentHash, sentMessage, sentPayload = append(sentHash, []byte(it.BlockHash)), append(sentMessage, it.MessageID), append(sentPayload, string(it.Payload))
		}
	}
	if len(logHook) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (webhook_id, message_id, block_number, attempt,
				started_at, latency_ms, outcome, status, response, error)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::int[], $5::timestamptz[], $6::int[], $7::text[],
				$8::int[], $9::text[], $10::text[])`,
			logHook, logMessage, logBlock, logAttempt, logStarted, logLatency, logOutcome, logStatus, logResponse, logErr); err != nil {
			return nil, storeErr("move webhooks: log", err)
		}
	}
	if len(sentHook) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_sent (webhook_id, block_number, tx_index, event_index, sub_index,
				block_hash, message_id, payload)
			SELECT u.id, u.b, u.t, u.e, u.s, u.h, u.m, u.p::jsonb FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[],
				$5::int[], $6::bytea[], $7::text[], $8::text[]) AS u(id, b, t, e, s, h, m, p)
			ON CONFLICT (webhook_id, block_number, tx_index, event_index, sub_index) DO UPDATE
			SET block_hash = excluded.block_hash, message_id = excluded.message_id, payload = excluded.payload`,
			sentHook, sentBlock, sentTx, sentEvent, sentSub, sentHash, sentMessage, sentPayload); err != nil {
			return nil, storeErr("move webhooks: sent", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, storeErr("move webhooks: commit", err)
	}
	return moved, nil
}

// WebhookState is what the delivery loop's round needs of an active webhook to decide
// whether to serve it.
type WebhookState struct {
	ID            int64      `db:"id"`
	NextAttemptAt *time.Time `db:"next_attempt_at"`
	// From is the first block it still has items of to be told (its position's block, or
	// the next when the position covers its whole block).
	From int64 `db:"from_block"`
	// AtHead: its position is past the head given, at the head's hash, without a replay
	// under way and not waiting for final blocks: nothing to deliver until a block comes.
	AtHead bool `db:"at_head"`
}

// ActiveWebhookStates lists the active webhooks' states, oldest first, head (with its
// hash) being the indexed head.
func (s *Store) ActiveWebhookStates(ctx context.Context, head int64, headHash Felt) ([]WebhookState, error) {
	var rows []WebhookState
	err := s.db.SelectContext(ctx, &rows, `SELECT id, next_attempt_at,
			position_block + CASE WHEN position_tx = $3 THEN 1 ELSE 0 END AS from_block,
			(position_block = $1 AND position_tx = $3 AND position_hash = $2 AND replay IS NULL
				AND filter->'acceptedOnL1Only' IS DISTINCT FROM 'true'::jsonb) IS TRUE AS at_head
		FROM webhooks WHERE status = 'active' ORDER BY id`, head, headHash, WholeBlock)
	return rows, storeErr("active webhook states", err)
}

// WebhookAt is a webhook and the position the delivery loop holds it at.
type WebhookAt struct {
	ID  int64
	Pos Position
}

// WebhooksStillAt says, in one statement, which of hooks are still active at the position
// given: a worker asks before its first attempt, which may come a while after the round read
// the webhook (a pause, a deletion or a replay since stops it).
func (s *Store) WebhooksStillAt(ctx context.Context, hooks []WebhookAt) ([]bool, error) {
	n := len(hooks)
	ids, blocks, txs, events, subs := make(pq.Int64Array, n), make(pq.Int64Array, n), make(pq.Int64Array, n),
		make(pq.Int64Array, n), make(pq.Int64Array, n)
	for i, h := range hooks {
		ids[i], blocks[i], txs[i], events[i], subs[i] = h.ID, h.Pos.Block, int64(h.Pos.Tx), int64(h.Pos.Event), int64(h.Pos.Sub)
	}
	var still []int64
	err := s.db.SelectContext(ctx, &still, `SELECT w.id FROM webhooks w
		JOIN unnest($1::bigint[], $2::bigint[], $3::int[], $4::int[], $5::int[]) AS u(id, b, t, e, s) ON w.id = u.id
		WHERE w.status = 'active' AND w.position_block = u.b AND w.position_tx = u.t AND w.position_event = u.e
			AND w.position_sub = u.s`, ids, blocks, txs, events, subs)
	if err != nil {
		return nil, storeErr("webhooks still at", err)
	}
	is := make(map[int64]bool, len(still))
	for _, id := range still {
		is[id] = true
	}
	out := make([]bool, n)
	for i, h := range hooks {
		out[i] = is[h.ID]
	}
	return out, nil
}
