package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Webhooks (migration 00059, docs/webhooks.md): the rows of an API key's webhooks, their
// positions in the indexed chain, what was delivered within the reorg window and the
// delivery log. The API's mutations and the delivery loop (webhooks/dispatch.go) write them,
// always on the primary.

// WholeBlock is the transaction and event index of a position that covers its whole block.
const WholeBlock = 2147483647

// Webhook is a row of webhooks.
type Webhook struct {
	ID                int64         `db:"id"`
	KeyID             int64         `db:"key_id"`
	URL               string        `db:"url"`
	Description       string        `db:"description"`
	Kind              string        `db:"kind"`
	Filter            WebhookFilter `db:"filter"`
	Secret            string        `db:"secret"`
	PreviousSecret    *string       `db:"previous_secret"`
	PreviousExpiresAt *time.Time    `db:"previous_expires_at"`
	Status            string        `db:"status"`
	StatusReason      string        `db:"status_reason"`
	CreatedAt         time.Time     `db:"created_at"`
	PositionBlock     int64         `db:"position_block"`
	PositionTx        int           `db:"position_tx"`
	PositionEvent     int           `db:"position_event"`
	PositionSub       int           `db:"position_sub"`
	PositionHash      Felt          `db:"position_hash"`
	Attempts          int           `db:"attempts"`
	FailingSince      *time.Time    `db:"failing_since"`
	NextAttemptAt     *time.Time    `db:"next_attempt_at"`
	LastError         string        `db:"last_error"`
	DeliveredAt       *time.Time    `db:"delivered_at"`
	// StartBlock is the block before the first it was to be told of: a reorg never
	// moves its position below it.
	StartBlock int64 `db:"start_block"`
	// Replay is the replay of a block range or a message under way (migration 00065), nil
	// when none is.
	Replay *WebhookReplay `db:"replay"`
}

// WebhookReplay is a replay under way: the position was moved back to just before the
// first item delivered again; the delivery loop delivers from there up to End (inclusive),
// in chain order, then moves the position on to Resume, where deliveries stood before,
// so that what followed is not delivered again.
type WebhookReplay struct {
	// From is the first block delivered again.
	From int64 `json:"from"`
	// End is the last position delivered again: a block range's last block as a whole
	// (WholeBlock), or the message's item.
	End Position `json:"end"`
	// Resume is the furthest position delivered before the replay (or before an earlier
	// replay still under way), with its block's hash in hex ("" when none).
	Resume     Position `json:"resume"`
	ResumeHash string   `json:"resumeHash,omitempty"`
	// Message is the id of the message replayed, when one is.
	Message string `json:"message,omitempty"`
}

// FromBlock, ToBlock, MessageID and ResumeBlock are the replay as the API shows it.
func (r *WebhookReplay) FromBlock() int   { return int(r.From) }
func (r *WebhookReplay) ToBlock() int     { return int(r.End.Block) }
func (r *WebhookReplay) ResumeBlock() int { return int(r.Resume.Block) }
func (r *WebhookReplay) MessageID() *string {
	if r.Message == "" {
		return nil
	}
	return &r.Message
}

// Value stores the replay as jsonb.
func (r WebhookReplay) Value() (driver.Value, error) { return json.Marshal(r) }

// Scan reads the jsonb column (NULL leaves the pointer nil).
func (r *WebhookReplay) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		return json.Unmarshal(v, r)
	case string:
		return json.Unmarshal([]byte(v), r)
	}
	return fmt.Errorf("webhook replay: cannot scan %T", src)
}

// ResumeAt is where deliveries resume after the replay, with its block's hash.
func (r *WebhookReplay) ResumeAt() (Position, Felt) {
	h, err := ParseFelt(r.ResumeHash)
	if err != nil {
		h = nil
	}
	return r.Resume, h
}

const webhookCols = `id, key_id, url, description, kind, filter, secret, previous_secret, previous_expires_at, status,
	status_reason, created_at, position_block, position_tx, position_event, position_sub, position_hash, attempts, failing_since,
	next_attempt_at, last_error, delivered_at, start_block, replay`

// Secrets are the secrets that sign the webhook's messages at now: its secret, and the one
// before it until that expires.
func (w *Webhook) Secrets(now time.Time) []string {
	s := []string{w.Secret}
	if w.PreviousSecret != nil && w.PreviousExpiresAt != nil && now.Before(*w.PreviousExpiresAt) {
		s = append(s, *w.PreviousSecret)
	}
	return s
}

// SetPosition sets the webhook's position, with its block's hash.
func (w *Webhook) SetPosition(p Position, hash Felt) {
	w.PositionBlock, w.PositionTx, w.PositionEvent, w.PositionSub, w.PositionHash = p.Block, p.Tx, p.Event, p.Sub, hash
}

// AcceptedOnL1Only: the webhook is told of items of ACCEPTED_ON_L1 blocks only.
func (w *Webhook) AcceptedOnL1Only() bool { return w.Filter.AcceptedOnL1Only }

// Position is a place in the chain's order of items: a block, a transaction index, an
// event index (-1 for a block or transaction as a whole, WholeBlock past every item) and a
// sub index (the row of an ERC-1155 batch event among those of one event, nft_events'
// sub_index; 0 for every other item).
type Position struct {
	Block int64 `json:"block"`
	Tx    int   `json:"tx"`
	Event int   `json:"event"`
	Sub   int   `json:"sub"`
}

// Less orders positions as the chain does.
func (p Position) Less(q Position) bool {
	if p.Block != q.Block {
		return p.Block < q.Block
	}
	if p.Tx != q.Tx {
		return p.Tx < q.Tx
	}
	if p.Event != q.Event {
		return p.Event < q.Event
	}
	return p.Sub < q.Sub
}

// Position is the webhook's position: the last item delivered.
func (w *Webhook) Position() Position {
	return Position{w.PositionBlock, w.PositionTx, w.PositionEvent, w.PositionSub}
}

// WebhookFilter narrows a webhook's items, in the shapes of the subscriptions' arguments;
// addresses and felts in the 0x form. Unset fields match any.
type WebhookFilter struct {
	// transactions
	SenderAddress   string `json:"senderAddress,omitempty"`
	ContractAddress string `json:"contractAddress,omitempty"` // also the emitter of events
	Type            string `json:"type,omitempty"`
	// transfers, and wallet of NFT transfers too
	Token  string `json:"token,omitempty"`
	Wallet string `json:"wallet,omitempty"`
	// NFT transfers: the collection (an ERC-721 or ERC-1155 contract)
	Collection string `json:"collection,omitempty"`
	// events
	Keys []string `json:"keys,omitempty"`
	// AcceptedOnL1Only holds every item back until its block is ACCEPTED_ON_L1 (any kind):
	// such a webhook is told of final blocks only, and its payloads say ACCEPTED_ON_L1.
	AcceptedOnL1Only bool `json:"acceptedOnL1Only,omitempty"`
}

// Value stores the filter as jsonb.
func (f WebhookFilter) Value() (driver.Value, error) { return json.Marshal(f) }

// Scan reads the jsonb column.
func (f *WebhookFilter) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		return json.Unmarshal(v, f)
	case string:
		return json.Unmarshal([]byte(v), f)
	case nil:
		*f = WebhookFilter{}
		return nil
	}
	return fmt.Errorf("webhook filter: cannot scan %T", src)
}

// ErrWebhookLimit refuses a webhook beyond the plan's bound.
var ErrWebhookLimit = errors.New("the API key's plan allows no more webhooks")

func storeErr(q string, err error) error {
	if err == nil {
		return nil
	}
	return &StoreError{Query: q, Err: err}
}

// BlockHashesOf are the hashes of the stored blocks among numbers (BlockHashes reads a range).
func (s *Store) BlockHashesOf(ctx context.Context, numbers []int64) (map[int64]Felt, error) {
	var rows []struct {
		Number int64 `db:"number"`
		Hash   Felt  `db:"hash"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT number, hash FROM blocks WHERE number = ANY($1)`, pq.Int64Array(numbers)); err != nil {
		return nil, storeErr("block hashes", err)
	}
	out := make(map[int64]Felt, len(rows))
	for _, r := range rows {
		out[r.Number] = r.Hash
	}
	return out, nil
}

// L1Head is the newest block of the run of ACCEPTED_ON_L1 blocks the stored chain starts
// with: blocks become final in order (indexer.updateFinality marks every block up to the
// newest the node reports ACCEPTED_ON_L1), so it is the block before the oldest still
// ACCEPTED_ON_L2 (found in blocks_accepted_on_l2), or the head when none is. It is below
// the oldest stored block when that one is not final yet; ok is false when no block is
// stored.
func L1Head(ctx context.Context, q sqlx.QueryerContext) (number int64, ok bool, err error) {
	var n sql.NullInt64
	err = q.QueryRowxContext(ctx, `SELECT coalesce((SELECT min(number) - 1 FROM blocks WHERE status = 'ACCEPTED_ON_L2'),
		(SELECT max(number) FROM blocks))`).Scan(&n)
	return n.Int64, n.Valid, err
}

// CreateWebhook stores w for its key, starting after position (the indexer's head when
// from is nil, else block *from - 1), unless the key's plan holds no more. It fills in w's
// id, created_at and position.
func (s *Store) CreateWebhook(ctx context.Context, w *Webhook, from *int64) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return storeErr("create webhook", err)
	}
	defer tx.Rollback()
	// The key's row is locked, so that two creations at once count each other.
	var limit int
	if err := tx.GetContext(ctx, &limit, `SELECT p.max_webhooks FROM api_keys k JOIN plans p ON p.name = k.plan
		WHERE k.id = $1 FOR UPDATE OF k`, w.KeyID); err != nil {
		return storeErr("create webhook: plan", err)
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM webhooks WHERE key_id = $1`, w.KeyID); err != nil {
		return storeErr("create webhook: count", err)
	}
	if n >= limit {
		return fmt.Errorf("%w (%d)", ErrWebhookLimit, limit)
	}
	var pos sql.NullInt64
	if from != nil {
		pos = sql.NullInt64{Int64: *from - 1, Valid: true}
	}
	err = tx.GetContext(ctx, w, `WITH start AS (
			SELECT coalesce($7, (SELECT max(number) FROM blocks), -1) AS b)
		INSERT INTO webhooks (key_id, url, description, kind, filter, secret, position_block, position_hash, start_block)
		SELECT $1, $2, $3, $4, $5, $6, start.b, (SELECT hash FROM blocks WHERE number = start.b), start.b FROM start
		RETURNING `+webhookCols, w.KeyID, w.URL, w.Description, w.Kind, w.Filter, w.Secret, pos)
	if err != nil {
		return storeErr("create webhook", err)
	}
	return storeErr("create webhook: commit", tx.Commit())
}

// Webhooks lists the key's webhooks, oldest first.
func (s *Store) Webhooks(ctx context.Context, keyID int64) ([]*Webhook, error) {
	var rows []*Webhook
	err := s.db.SelectContext(ctx, &rows, `SELECT `+webhookCols+` FROM webhooks WHERE key_id = $1 ORDER BY id`, keyID)
	return rows, storeErr("webhooks", err)
}

// KeyWebhook is the key's webhook id, or nil when the key has none of that id.
func (s *Store) KeyWebhook(ctx context.Context, keyID, id int64) (*Webhook, error) {
	var w Webhook
	err := s.db.GetContext(ctx, &w, `SELECT `+webhookCols+` FROM webhooks WHERE key_id = $1 AND id = $2`, keyID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &w, storeErr("webhook", err)
}

// Webhook is the webhook id (the delivery loop's read), or nil.
func (s *Store) Webhook(ctx context.Context, id int64) (*Webhook, error) {
	var w Webhook
	err := s.db.GetContext(ctx, &w, `SELECT `+webhookCols+` FROM webhooks WHERE id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &w, storeErr("webhook", err)
}

// AnyKey, as the key of the operations on a webhook, lets them act on any key's webhook:
// the operator's `starkgraph webhooks`, never the API (whose keys' ids are positive).
const AnyKey int64 = -1

// updateKeyWebhook runs set (an UPDATE's SET list, its arguments from $3) on the key's
// webhook id (any key's with AnyKey) and returns the row after, or nil when the key has
// none of that id.
func (s *Store) updateKeyWebhook(ctx context.Context, keyID, id int64, set string, args ...any) (*Webhook, error) {
	var w Webhook
	err := s.db.GetContext(ctx, &w, `UPDATE webhooks SET `+set+` WHERE ($1 = -1 OR key_id = $1) AND id = $2 RETURNING `+webhookCols,
		append([]any{keyID, id}, args...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &w, storeErr("update webhook", err)
}

// PauseWebhook stops deliveries to the key's webhook until it is resumed.
func (s *Store) PauseWebhook(ctx context.Context, keyID, id int64) (*Webhook, error) {
	by := "its owner"
	if keyID == AnyKey {
		by = "an operator"
	}
	return s.updateKeyWebhook(ctx, keyID, id, `status = 'paused', status_reason = $3`, "paused by "+by)
}

// ResumeWebhook makes the key's paused or disabled webhook active again, the message it
// was failing on tried at once.
func (s *Store) ResumeWebhook(ctx context.Context, keyID, id int64) (*Webhook, error) {
	return s.updateKeyWebhook(ctx, keyID, id, `status = 'active', status_reason = '', attempts = 0, failing_since = NULL,
		next_attempt_at = NULL`)
}

// RotateWebhookSecret makes secret the key's webhook's secret; the one before signs too
// for overlap.
func (s *Store) RotateWebhookSecret(ctx context.Context, keyID, id int64, secret string, overlap time.Duration) (*Webhook, error) {
	return s.updateKeyWebhook(ctx, keyID, id, `previous_secret = secret, secret = $3,
		previous_expires_at = now() + make_interval(secs => $4)`, secret, overlap.Seconds())
}

// ReplayWebhook moves the key's webhook back to just before block from: everything from
// there is delivered again, with the ids it had. A replay under way is dropped.
func (s *Store) ReplayWebhook(ctx context.Context, keyID, id, from int64) (*Webhook, error) {
	return s.updateKeyWebhook(ctx, keyID, id, `position_block = $3 - 1, position_tx = `+fmt.Sprint(WholeBlock)+`,
		position_event = `+fmt.Sprint(WholeBlock)+`, position_sub = 0, position_hash = (SELECT hash FROM blocks WHERE number = $3 - 1),
		start_block = $3 - 1, attempts = 0, failing_since = NULL, next_attempt_at = NULL, replay = NULL`, from)
}

// Furthest is the furthest position the webhook was delivered: its position, or where it
// resumes after the replay under way when that is further.
func (w *Webhook) Furthest() Position {
	if w.Replay != nil && w.Position().Less(w.Replay.Resume) {
		return w.Replay.Resume
	}
	return w.Position()
}

// StartWebhookReplay starts the replay job on the key's webhook (any key's with AnyKey):
// its position moves back to start (the position just before the first item delivered
// again) and job.Resume is set to the furthest position delivered (kept from a replay
// under way, which this one replaces). The message being retried is tried again at once.
// It returns the row after, or nil when the key has no webhook of that id.
func (s *Store) StartWebhookReplay(ctx context.Context, keyID, id int64, start Position, job WebhookReplay) (*Webhook, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, storeErr("replay webhook", err)
	}
	defer tx.Rollback()
	var w Webhook
	err = tx.GetContext(ctx, &w, `SELECT `+webhookCols+` FROM webhooks WHERE ($1 = -1 OR key_id = $1) AND id = $2 FOR UPDATE`, keyID, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr("replay webhook", err)
	}
	job.Resume, job.ResumeHash = w.Position(), ""
	if w.PositionHash != nil {
		job.ResumeHash = w.PositionHash.Hex()
	}
	if w.Replay != nil && job.Resume.Less(w.Replay.Resume) {
		job.Resume, job.ResumeHash = w.Replay.Resume, w.Replay.ResumeHash
	}
	err = tx.GetContext(ctx, &w, `UPDATE webhooks SET position_block = $2, position_tx = $3, position_event = $4,
		position_sub = $5, position_hash = (SELECT hash FROM blocks WHERE number = $2), attempts = 0, failing_since = NULL,
		next_attempt_at = NULL, replay = $6 WHERE id = $1 RETURNING `+webhookCols, id, start.Block, start.Tx, start.Event,
		start.Sub, job)
	if err != nil {
		return nil, storeErr("replay webhook", err)
	}
	return &w, storeErr("replay webhook: commit", tx.Commit())
}

// EndWebhookReplay ends the webhook's replay job, if it is still active at position from
// with that job: the position moves to to (with its block's hash).
func (s *Store) EndWebhookReplay(ctx context.Context, id int64, from Position, job *WebhookReplay, to Position, hash Felt) error {
	res, err := s.db.ExecContext(ctx, `UPDATE webhooks SET position_block = $5, position_tx = $6, position_event = $7,
		position_hash = $8, position_sub = $10, replay = NULL WHERE id = $1 AND status = 'active'
		AND position_block = $2 AND position_tx = $3 AND position_event = $4 AND replay = $9::jsonb AND position_sub = $11`,
		id, from.Block, from.Tx, from.Event, to.Block, to.Tx, to.Event, hash, job, to.Sub, from.Sub)
	if err != nil {
		return storeErr("end webhook replay", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrPositionMoved
	}
	return nil
}

// DeleteWebhook deletes the key's webhook with its log; false when it had none of that id.
func (s *Store) DeleteWebhook(ctx context.Context, keyID, id int64) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM webhooks WHERE ($1 = -1 OR key_id = $1) AND id = $2`, keyID, id)
	if err != nil {
		return false, storeErr("delete webhook", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// ListedWebhook is a webhook as an operator lists it: with its key, and how far its
// position is behind the indexed head.
type ListedWebhook struct {
	Webhook
	KeyPrefix string `db:"key_prefix"`
	KeyLabel  string `db:"key_label"`
	// BehindBlocks are the indexed blocks after its position's block (0: caught up).
	BehindBlocks int64 `db:"behind_blocks"`
	// PendingSince is the timestamp of the first block it has still to be told of, when
	// it is behind.
	PendingSince *int64 `db:"pending_since"`
}

// AllWebhooks lists every key's webhooks (of one key when keyID > 0), oldest first.
func (s *Store) AllWebhooks(ctx context.Context, keyID int64) ([]*ListedWebhook, error) {
	var rows []*ListedWebhook
	err := s.db.SelectContext(ctx, &rows, `WITH head AS (SELECT coalesce(max(number), -1) AS n FROM blocks)
		SELECT `+prefixed("w.", webhookCols)+`, k.key_prefix, k.label AS key_label,
			greatest(head.n - w.position_block, 0) AS behind_blocks,
			(SELECT b.timestamp FROM blocks b WHERE b.number = w.position_block + 1) AS pending_since
		FROM webhooks w JOIN api_keys k ON k.id = w.key_id, head
		WHERE $1 <= 0 OR w.key_id = $1 ORDER BY w.id`, keyID)
	return rows, storeErr("all webhooks", err)
}

// prefixed is the comma-separated columns cols, each with prefix.
func prefixed(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// WebhookDelivery is a row of webhook_deliveries: one attempt.
type WebhookDelivery struct {
	ID          int64     `db:"id"`
	WebhookID   int64     `db:"webhook_id"`
	MessageID   string    `db:"message_id"`
	BlockNumber int64     `db:"block_number"`
	Attempt     int       `db:"attempt"`
	StartedAt   time.Time `db:"started_at"`
	LatencyMs   int       `db:"latency_ms"`
	Outcome     string    `db:"outcome"`
	Status      int       `db:"status"`
	Response    string    `db:"response"`
	Error       string    `db:"error"`
}

// WebhookDeliveries lists the newest attempts of a webhook, newest first, before the
// attempt id before (0: from the newest).
func (s *Store) WebhookDeliveries(ctx context.Context, webhookID int64, first int, before int64) ([]*WebhookDelivery, error) {
	var rows []*WebhookDelivery
	err := s.db.SelectContext(ctx, &rows, `SELECT id, webhook_id, message_id, block_number, attempt, started_at, latency_ms,
		outcome, status, response, error FROM webhook_deliveries
		WHERE webhook_id = $1 AND ($3 = 0 OR id < $3) ORDER BY id DESC LIMIT $2`, webhookID, first, before)
	return rows, storeErr("webhook deliveries", err)
}

// SentItem is a row of webhook_sent: an item delivered within the reorg window.
type SentItem struct {
	WebhookID   int64  `db:"webhook_id"`
	BlockNumber int64  `db:"block_number"`
	TxIndex     int    `db:"tx_index"`
	EventIndex  int    `db:"event_index"`
	SubIndex    int    `db:"sub_index"`
	BlockHash   Felt   `db:"block_hash"`
	MessageID   string `db:"message_id"`
	Payload     JSON   `db:"payload"`
}

// Position is the item's place in the chain.
func (it *SentItem) Position() Position {
	return Position{it.BlockNumber, it.TxIndex, it.EventIndex, it.SubIndex}
}

// WebhookSent lists what the webhook was sent within the reorg window, in chain order.
func (s *Store) WebhookSent(ctx context.Context, webhookID int64) ([]*SentItem, error) {
	var rows []*SentItem
	err := s.db.SelectContext(ctx, &rows, `SELECT webhook_id, block_number, tx_index, event_index, sub_index, block_hash,
		message_id, payload FROM webhook_sent WHERE webhook_id = $1 ORDER BY block_number, tx_index, event_index, sub_index`, webhookID)
	return rows, storeErr("webhook sent", err)
}

// ErrPositionMoved: the webhook's position or status changed under the delivery loop (a
// replay, a pause, a deletion); it reads the webhook again.
var ErrPositionMoved = errors.New("the webhook's position moved or it is no longer active")

func logAttempt(ctx context.Context, tx *sqlx.Tx, d *WebhookDelivery) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (webhook_id, message_id, block_number, attempt, started_at,
		latency_ms, outcome, status, response, error) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		d.WebhookID, d.MessageID, d.BlockNumber, d.Attempt, d.StartedAt, d.LatencyMs, d.Outcome, d.Status, d.Response, d.Error)
	return err
}

// moveFrom updates the webhook if it is still active at position from: set, an UPDATE's
// SET list, takes its arguments args from $5 on.
func moveFrom(ctx context.Context, tx *sqlx.Tx, id int64, from Position, set string, args ...any) error {
	res, err := tx.ExecContext(ctx, `UPDATE webhooks SET `+set+` WHERE id = $1 AND status = 'active'
		AND position_block = $2 AND position_tx = $3 AND position_event = $4 AND position_sub = $`+fmt.Sprint(5+len(args)),
		append(append([]any{id, from.Block, from.Tx, from.Event}, args...), from.Sub)...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrPositionMoved
	}
	return nil
}

// WebhookRetracted records the attempt d that delivered the retraction of item: the log
// row, and the item no longer among those sent.
func (s *Store) WebhookRetracted(ctx context.Context, d *WebhookDelivery, from Position, item *SentItem) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return storeErr("webhook retracted", err)
	}
	defer tx.Rollback()
	if err := moveFrom(ctx, tx, d.WebhookID, from, `attempts = 0, failing_since = NULL, next_attempt_at = NULL,
		last_error = '', delivered_at = now()`); err != nil {
		return storeErr("webhook retracted", err)
	}
	if err := logAttempt(ctx, tx, d); err != nil {
		return storeErr("webhook retracted: log", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_sent WHERE webhook_id = $1 AND block_number = $2
		AND tx_index = $3 AND event_index = $4 AND sub_index = $5`, d.WebhookID, item.BlockNumber, item.TxIndex,
		item.EventIndex, item.SubIndex); err != nil {
		return storeErr("webhook retracted: sent", err)
	}
	return storeErr("webhook retracted: commit", tx.Commit())
}

// WebhookFailed records the failed attempt d: the log row, the failures counted, the next
// attempt at next; disabled (with reason) instead when disable is set.
func (s *Store) WebhookFailed(ctx context.Context, d *WebhookDelivery, from Position, next time.Time, disable bool, reason string) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return storeErr("webhook failed", err)
	}
	defer tx.Rollback()
	set := `attempts = attempts + 1, failing_since = coalesce(failing_since, $5), next_attempt_at = $6, last_error = $7`
	if disable {
		set += `, status = 'disabled', status_reason = $8`
	} else {
		set += `, status_reason = $8` // unused when active; keeps the argument count fixed
	}
	if err := moveFrom(ctx, tx, d.WebhookID, from, set, d.StartedAt, next, d.Error, reason); err != nil {
		return storeErr("webhook failed", err)
	}
	if err := logAttempt(ctx, tx, d); err != nil {
		return storeErr("webhook failed: log", err)
	}
	return storeErr("webhook failed: commit", tx.Commit())
}

// WebhookDeferred puts off the webhook's next attempt until next without counting a
// failure (its key's quota is used up: reason), if it is still active at from.
func (s *Store) WebhookDeferred(ctx context.Context, id int64, from Position, next time.Time, reason string) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return storeErr("webhook deferred", err)
	}
	defer tx.Rollback()
	if err := moveFrom(ctx, tx, id, from, `next_attempt_at = $5, last_error = $6`, next, reason); err != nil {
		return storeErr("webhook deferred", err)
	}
	return storeErr("webhook deferred: commit", tx.Commit())
}

// RewindWebhook moves the webhook's position from from back to to (with its block's hash)
// after a reorg undid what lay between.
func (s *Store) RewindWebhook(ctx context.Context, id int64, from, to Position, hash Felt) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return storeErr("rewind webhook", err)
	}
	defer tx.Rollback()
	if err := moveFrom(ctx, tx, id, from, `position_block = $5, position_tx = $6, position_event = $7, position_hash = $8,
		position_sub = $9`, to.Block, to.Tx, to.Event, hash, to.Sub); err != nil {
		return storeErr("rewind webhook", err)
	}
	return storeErr("rewind webhook: commit", tx.Commit())
}

// PruneWebhooks forgets the items sent below block keepFrom (out of the reorg window), the
// delivery log older than before, and all but the newest keep rows of each webhook's log.
func (s *Store) PruneWebhooks(ctx context.Context, keepFrom int64, before time.Time, keep int) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM webhook_sent WHERE block_number < $1`, keepFrom); err != nil {
		return storeErr("prune webhook_sent", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE started_at < $1`, before); err != nil {
		return storeErr("prune webhook_deliveries", err)
	}
	_, err := s.db.ExecContext(ctx, `DELETE FROM webhook_deliveries d USING (
			SELECT w.id, (SELECT x.id FROM webhook_deliveries x WHERE x.webhook_id = w.id ORDER BY x.id DESC OFFSET $1 LIMIT 1) AS below
			FROM webhooks w) c
		WHERE d.webhook_id = c.id AND d.id <= c.below`, keep)
	return storeErr("prune webhook_deliveries per webhook", err)
}
