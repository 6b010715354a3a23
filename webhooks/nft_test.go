package webhooks_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
)

// TestNftTransfers: NFT_TRANSFERS webhooks (a busy wallet's transfers, a collection's)
// follow the real indexer on the simulated node, which mints and moves ERC-721 and ERC-1155
// items, while it grows and reorganizes: each receiver ends holding exactly the chain's
// matching nft_events rows, in order, with retractions for what the reorgs undid. The
// simulated node emits no ERC-1155 batch, so one is written into nft_events as the indexer
// writes it (three rows at one event, sub indexes 0 to 2) in the head block: it is told as
// three messages in order, the second and third with their sub index in the id and the
// payload, in the GraphQL schema's NftEvent names; a reorg of that block retracts the
// three, newest first; and one of them is replayed alone by its id.
func TestNftTransfers(t *testing.T) {
	if testing.Short() {
		t.Skip("follows a live simulated chain")
	}
	h := newHarness(t, sim.Config{Seed: 3, Blocks: 12, TxPerBlock: 8}, 3)
	head, _ := h.heads()
	nfts, err := h.store.NftTransfersInRange(h.ctx, 0, head)
	if err != nil {
		t.Fatal(err)
	}
	if len(nfts) == 0 {
		t.Fatal("the simulated chain has no NFT transfers")
	}
	wallet := busiest(nfts, func(e *db.NftEvent) db.Felt { return e.ToAddress })
	collection := busiest(nfts, func(e *db.NftEvent) db.Felt { return e.ContractAddress })

	// The batch: three rows at one event of a transaction of the head block.
	batchCollection := db.MustFelt("0xba7c4")
	var tx struct {
		Index int     `db:"tx_index"`
		Hash  db.Felt `db:"hash"`
		Time  int64   `db:"timestamp"`
	}
	if err := h.conn.Get(&tx, `SELECT tx_index, hash, timestamp FROM transactions WHERE block_number = $1 ORDER BY tx_index LIMIT 1`, head); err != nil {
		t.Fatal(err)
	}
	const batchEvent = 900 // beyond the receipt's events
	for sub, id := range []string{"7", "8", "9"} {
		if _, err := h.conn.Exec(`INSERT INTO nft_events (block_number, tx_index, event_index, sub_index, contract_address, token_id,
			from_address, to_address, quantity, type, transaction_hash, timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'Mint', $10, $11)`,
			head, tx.Index, batchEvent, sub, batchCollection, id, db.MustFelt("0x0"), wallet, 5+sub, tx.Hash, tx.Time); err != nil {
			t.Fatal(err)
		}
	}

	const from = 2
	hooks := []*db.Webhook{
		h.hook(webhooks.KindNftTransfers, db.WebhookFilter{Wallet: wallet.Hex()}, from),
		h.hook(webhooks.KindNftTransfers, db.WebhookFilter{Collection: collection.Hex()}, from),
		h.hook(webhooks.KindNftTransfers, db.WebhookFilter{Collection: batchCollection.Hex()}, from),
	}
	if _, err := webhooks.CheckFilter(webhooks.KindNftTransfers, db.WebhookFilter{Token: "0x1"}); err == nil {
		t.Error("an NFT_TRANSFERS filter took a token")
	}
	if _, err := webhooks.CheckFilter(webhooks.KindTransfers, db.WebhookFilter{Collection: "0x1"}); err == nil {
		t.Error("a TRANSFERS filter took a collection")
	}
	h.dispatch()
	batch := hooks[2]
	wantBatch := h.chainMessages(batch, from, head)
	if len(wantBatch) != 3 {
		t.Fatalf("the batch's webhook should be told of 3 rows, the chain has %v", wantBatch)
	}
	h.waitHolds(batch, wantBatch)
	h.waitCaughtUp(batch, head) // the last delivery recorded
	for sub, id := range wantBatch {
		_, _, pos, _, err := webhooks.ParseMessageID(id)
		if err != nil || pos.Block != head || pos.Event != batchEvent || pos.Sub != sub {
			t.Errorf("message %d of the batch: %s (%+v, %v)", sub, id, pos, err)
		}
		var p webhooks.Payload
		var data map[string]any
		var body []byte
		if err := h.conn.Get(&body, `SELECT payload FROM webhook_sent WHERE message_id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(body, &p); err != nil || json.Unmarshal(p.Data, &data) != nil {
			t.Fatalf("%s: %s", id, body)
		}
		if p.Type != "nft_transfer" || p.Position.SubIndex == nil || *p.Position.SubIndex != sub ||
			data["tokenId"] != []string{"7", "8", "9"}[sub] || data["contractAddress"] != batchCollection.Padded() ||
			data["toAddress"] != wallet.Padded() || data["type"] != "Mint" || data["quantity"] != []string{"5", "6", "7"}[sub] {
			t.Errorf("the payload of %s: %s", id, body)
		}
	}

	// One row of the batch again, alone.
	before := len(h.recv.State(batch.ID).Acked)
	if _, err := webhooks.ReplayMessage(h.ctx, h.store, h.keyID, batch.ID, wantBatch[1]); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(h.recv.State(batch.ID).Acked) == before && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if got := h.recv.State(batch.ID).Acked[before:]; !slices.Equal(got, wantBatch[1:2]) {
		t.Errorf("the replay of %s delivered %v", wantBatch[1], got)
	}

	// The chain grows and reorganizes; the reorg of the batch's block retracts it.
	for i := range 8 {
		h.chain.AddBlocks(1)
		if i%4 == 0 {
			waitIndexed(t, h.conn, h.chain)
			n, _ := h.heads()
			for _, w := range hooks[:2] {
				h.waitHolds(w, h.chainMessages(w, from, n))
			}
			h.chain.Reorg(2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitIndexed(t, h.conn, h.chain)
	head, _ = h.heads()
	for _, w := range hooks {
		want := h.chainMessages(w, from, head)
		if w != batch && len(want) == 0 {
			t.Errorf("webhook %d: nothing matches; the test shows nothing", w.ID)
		}
		h.waitHolds(w, want)
		st := h.recv.State(w.ID)
		for _, v := range st.Violations {
			t.Errorf("webhook %d: out of order: %s", w.ID, v)
		}
		t.Logf("webhook %d (%+v): %d items, %d retractions", w.ID, w.Filter, len(st.Items), st.Retractions)
	}
	st := h.recv.State(batch.ID)
	if st.Retractions != 3 || len(st.Items) != 0 {
		t.Errorf("the batch: %d retractions, %d items held; want its 3 rows retracted", st.Retractions, len(st.Items))
	}
	// Retracted newest first: the receiver's order check holds each to be the last applied.
	var retracted []string
	for _, id := range st.Acked {
		if _, _, _, removed, err := webhooks.ParseMessageID(id); err == nil && removed {
			retracted = append(retracted, id)
		}
	}
	if want := []string{webhooks.RetractionID(wantBatch[2]), webhooks.RetractionID(wantBatch[1]), webhooks.RetractionID(wantBatch[0])}; !slices.Equal(retracted, want) {
		t.Errorf("the batch's retractions came as %v, want %v", retracted, want)
	}
	if st := h.recv.State(hooks[0].ID); st.Retractions == 0 {
		t.Log("the wallet's webhook had nothing retracted (the reorgs undid none of its transfers)")
	}
}
