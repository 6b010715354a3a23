package webhooks

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/starkgraph/starkgraph/db"
)

// Replays (replayWebhook with toBlock, replayWebhookMessage, `starkgraph webhooks replay`).
//
// A replay of a closed block range or of one message is a job kept on the webhook's row
// (db.WebhookReplay, migration 00065), so that it survives restarts. Starting one moves
// the webhook's position back to just before what is delivered again and remembers where
// deliveries stood (the furthest position delivered). The delivery loop then delivers as
// always, in chain order, one message in flight, with the ids the items had, up to the
// job's end; there the job ends and the position moves on to where deliveries stood, so
// that what followed the range is not delivered again. A webhook's order is thus simple:
// the replayed items come first, in chain order, then the items after where it stood.
// A replay started while another is under way replaces it and keeps where deliveries stood
// before the first. An open replay (replayWebhook without toBlock) drops the job and
// delivers everything after fromBlock again.

// InputError is a replay refused for what its caller gave: Arg names the argument.
type InputError struct{ Arg, Msg string }

func (e *InputError) Error() string { return e.Arg + ": " + e.Msg }

// maxMessageID bounds the message ids parsed: the longest MessageID makes is about 130
// bytes.
const maxMessageID = 200

// ParseMessageID reads a message id as MessageID makes it: the webhook, the block's hash
// and the item's position; removed when it is a retraction's (RetractionID).
func ParseMessageID(id string) (webhook int64, hash db.Felt, pos db.Position, removed bool, err error) {
	bad := func() (int64, db.Felt, db.Position, bool, error) {
		return 0, nil, db.Position{}, false, errors.New("is not a message id (wh<webhook>_<block>_<block hash>_<transaction>_<event>, " +
			"and _<sub index> for a row of an ERC-1155 batch after the first, as the webhook-id header and webhookDeliveries show it)")
	}
	if len(id) > maxMessageID {
		return bad()
	}
	id, removed = strings.CutSuffix(id, ":removed")
	rest, ok := strings.CutPrefix(id, "wh")
	if !ok {
		return bad()
	}
	parts := strings.Split(rest, "_")
	if len(parts) != 5 && len(parts) != 6 {
		return bad()
	}
	if webhook, err = strconv.ParseInt(parts[0], 10, 64); err != nil || webhook <= 0 {
		return bad()
	}
	if pos.Block, err = strconv.ParseInt(parts[1], 10, 64); err != nil || pos.Block < 0 {
		return bad()
	}
	if !strings.HasPrefix(parts[2], "0x") {
		return bad()
	}
	if hash, err = db.ParseFelt(parts[2]); err != nil {
		return bad()
	}
	for i, dst := range []*int{&pos.Tx, &pos.Event, &pos.Sub} {
		if 3+i == len(parts) {
			break
		}
		v, err := strconv.ParseInt(parts[3+i], 10, 32)
		if err != nil || v < -1 || v >= db.WholeBlock || (dst == &pos.Sub && v < 1) {
			return bad()
		}
		*dst = int(v)
	}
	return webhook, hash, pos, removed, nil
}

// keyWebhook is the key's webhook id (any key's with db.AnyKey), or nil.
func keyWebhook(ctx context.Context, store *db.Store, keyID, id int64) (*db.Webhook, error) {
	if keyID == db.AnyKey {
		return store.Webhook(ctx, id)
	}
	return store.KeyWebhook(ctx, keyID, id)
}

// ReplayRange starts the replay of blocks from..to (inclusive) on the key's webhook id
// (any key's with db.AnyKey): their items are delivered again, with the ids they had, then
// deliveries continue where they stood. It returns the webhook after, nil when the key has
// none of that id, and an *InputError for a range it refuses.
func ReplayRange(ctx context.Context, store *db.Store, keyID, id, from, to int64) (*db.Webhook, error) {
	w, err := keyWebhook(ctx, store, keyID, id)
	if err != nil || w == nil {
		return nil, err
	}
	if limit := w.Furthest().Block + 1; from < 0 || from > limit {
		return nil, &InputError{"fromBlock", fmt.Sprintf("must be 0 to the block after the webhook's position (%d)", limit)}
	}
	if to < from {
		return nil, &InputError{"toBlock", fmt.Sprintf("must be at least fromBlock (%d)", from)}
	}
	head, _, ok, err := db.IndexedHead(ctx, store.DB())
	if err != nil {
		return nil, err
	}
	if !ok || to > head {
		return nil, &InputError{"toBlock", fmt.Sprintf("is not indexed yet (the newest block indexed is %d)", head)}
	}
	start := db.Position{Block: from - 1, Tx: db.WholeBlock, Event: db.WholeBlock}
	end := db.Position{Block: to, Tx: db.WholeBlock, Event: db.WholeBlock}
	return store.StartWebhookReplay(ctx, keyID, id, start, db.WebhookReplay{From: from, End: end})
}

// ReplayMessage starts the replay of the message messageID on the key's webhook id (any
// key's with db.AnyKey): that message alone is delivered again, with its id, then
// deliveries continue where they stood. It returns the webhook after, nil when the key has
// none of that id, and an *InputError for a message id it refuses: not one of this
// webhook's, a retraction's, not delivered yet, or of a block no longer on the chain.
func ReplayMessage(ctx context.Context, store *db.Store, keyID, id int64, messageID string) (*db.Webhook, error) {
	webhook, hash, pos, removed, err := ParseMessageID(messageID)
	if err != nil {
		return nil, &InputError{"messageId", err.Error()}
	}
	if webhook != id {
		return nil, &InputError{"messageId", fmt.Sprintf("is a message of webhook %d, not of webhook %d", webhook, id)}
	}
	if removed {
		return nil, &InputError{"messageId", "is a retraction's id: retractions are not replayed (what a reorg undid is not " +
			"kept, and its block is no longer on the chain); replay the item's block to deliver what the chain holds there now"}
	}
	w, err := keyWebhook(ctx, store, keyID, id)
	if err != nil || w == nil {
		return nil, err
	}
	if furthest := w.Furthest(); furthest.Less(pos) {
		return nil, &InputError{"messageId", fmt.Sprintf("has not been delivered yet (the webhook's position is in block %d): "+
			"it comes in its turn", furthest.Block)}
	}
	hashes, err := store.BlockHashesOf(ctx, []int64{pos.Block})
	if err != nil {
		return nil, err
	}
	if h, ok := hashes[pos.Block]; !ok {
		return nil, &InputError{"messageId", fmt.Sprintf("names block %d, which is not indexed: a reorg took it back, "+
			"and the message's item was retracted", pos.Block)}
	} else if !h.Equal(hash) {
		return nil, &InputError{"messageId", fmt.Sprintf("names block %d with hash %s, which is no longer on the chain "+
			"(its block %d is %s now): a reorg replaced it, and what was delivered of it was retracted", pos.Block,
			hash.Hex(), pos.Block, h.Hex())}
	}
	f, err := parseFilter(w.Filter)
	if err != nil {
		return nil, err
	}
	items, _, err := readItems(ctx, store, w.Kind, &f, pos.Block, pos.Block, pos, nil)
	if errors.Is(err, errRaced) {
		return nil, &InputError{"messageId", fmt.Sprintf("block %d changed while it was read (a reorg): try again", pos.Block)}
	}
	if err != nil {
		return nil, err
	}
	found := false
	for _, it := range items {
		found = found || it.pos == pos
	}
	if !found {
		return nil, &InputError{"messageId", fmt.Sprintf("names no item of this webhook in block %d", pos.Block)}
	}
	// Just before the item: no item lies between (indexes are integers, sub indexes at
	// least 0).
	start := pos
	start.Sub--
	return store.StartWebhookReplay(ctx, keyID, id, start, db.WebhookReplay{From: pos.Block, End: pos,
		Message: MessageID(id, hash, pos)})
}
