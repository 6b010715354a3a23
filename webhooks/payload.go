package webhooks

import (
	"encoding/json"
	"fmt"

	"github.com/starkgraph/starkgraph/db"
)

// The kinds of webhook, each the items of one of the GraphQL subscriptions.
const (
	KindBlocks       = "blocks"       // each block written (newBlocks' NEW)
	KindTransactions = "transactions" // transactions by sender, contract, type
	KindTransfers    = "transfers"    // ERC-20 transfers of a token, to or from a wallet
	KindEvents       = "events"       // events by emitter and leading keys
	// KindNftTransfers are ERC-721 and ERC-1155 transfers (mints and burns too) of a
	// collection, to or from a wallet: the rows of nft_events, an ERC-1155 batch event's
	// told one by one (Position.Sub, the row's sub index).
	KindNftTransfers = "nft_transfers"
)

// Kinds are the kinds a webhook may have.
var Kinds = []string{KindBlocks, KindTransactions, KindTransfers, KindEvents, KindNftTransfers}

// Payload is the body of a message: one item, where it is in the chain, and whether a reorg
// took it back. Data has the item in the shape the GraphQL schema gives it (its scalar
// fields).
type Payload struct {
	// Type is "block", "transaction", "transfer", "event" or "nft_transfer".
	Type string `json:"type"`
	// Webhook is the id of the webhook the message belongs to.
	Webhook string `json:"webhook"`
	// Removed: a reorg undid the item of message ItemID, delivered before.
	Removed bool   `json:"removed"`
	ItemID  string `json:"itemId,omitempty"`
	Block   struct {
		Number int64  `json:"number"`
		Hash   string `json:"hash"`
		// Status is the block's as the API shows it ("Accepted on L2", "Accepted on L1");
		// FinalityStatus the node's (ACCEPTED_ON_L2, ACCEPTED_ON_L1), when it was sent.
		Status         string `json:"status"`
		FinalityStatus string `json:"finalityStatus"`
		Timestamp      int64  `json:"timestamp"`
	} `json:"block"`
	// Position is the item's place: its transaction's index in the block and its event's
	// in the transaction's receipt (absent for a block, and for a transaction's event), and
	// for an NFT transfer its row among those of its event (subIndex: an ERC-1155 batch
	// event's ids in order; 0 for any other).
	Position struct {
		BlockNumber      int64 `json:"blockNumber"`
		TransactionIndex *int  `json:"transactionIndex,omitempty"`
		EventIndex       *int  `json:"eventIndex,omitempty"`
		SubIndex         *int  `json:"subIndex,omitempty"`
	} `json:"position"`
	Data json.RawMessage `json:"data"`
}

// item is one thing a webhook is told of, with its payload's data (marshalled once, for
// every webhook it goes to, as a json.RawMessage).
type item struct {
	pos  db.Position
	typ  string
	data any
}

// MessageID is the id of the message telling webhook of the item at pos of the block hash:
// the same on every attempt and after a restart, different on another branch of a reorg.
// Its retraction's is RetractionID of it. An item with a sub index (a row of an ERC-1155
// batch event after the first) has it as a sixth part; the ids of every other item have
// five, as they had before sub indexes.
func MessageID(webhook int64, hash db.Felt, pos db.Position) string {
	if pos.Sub != 0 {
		return fmt.Sprintf("wh%d_%d_%s_%d_%d_%d", webhook, pos.Block, hash.Hex(), pos.Tx, pos.Event, pos.Sub)
	}
	return fmt.Sprintf("wh%d_%d_%s_%d_%d", webhook, pos.Block, hash.Hex(), pos.Tx, pos.Event)
}

// RetractionID is the id of the message retracting message id: receivers deduplicate on
// webhook-id, so a retraction under its item's id would be dropped as a duplicate.
func RetractionID(id string) string { return id + ":removed" }

func optInt(v int) *int {
	if v < 0 {
		return nil
	}
	return &v
}

// payload builds the message of it in block b for webhook.
func payload(webhook int64, b *db.Block, it item) (id string, body []byte, err error) {
	data, ok := it.data.(json.RawMessage)
	if !ok {
		if data, err = json.Marshal(it.data); err != nil {
			return "", nil, err
		}
	}
	var p Payload
	p.Type, p.Webhook, p.Data = it.typ, fmt.Sprint(webhook), data
	p.Block.Number, p.Block.Hash, p.Block.Status, p.Block.FinalityStatus, p.Block.Timestamp =
		b.Number, b.Hash.Hex(), b.Status(), b.RawStatus, b.Timestamp
	p.Position.BlockNumber = it.pos.Block
	p.Position.TransactionIndex, p.Position.EventIndex = optInt(it.pos.Tx), optInt(it.pos.Event)
	if it.typ == "nft_transfer" {
		p.Position.SubIndex = optInt(it.pos.Sub)
	}
	body, err = json.Marshal(p)
	return MessageID(webhook, b.Hash, it.pos), body, err
}

// retraction is the message retracting a sent item: its payload with removed set and the
// item's id.
func retraction(s *db.SentItem) (Message, error) {
	var p Payload
	if err := json.Unmarshal(s.Payload, &p); err != nil {
		return Message{}, err
	}
	p.Removed, p.ItemID = true, s.MessageID
	body, err := json.Marshal(p)
	return Message{ID: RetractionID(s.MessageID), Body: body}, err
}

func addr(f db.Felt) *string {
	if f == nil {
		return nil
	}
	s := f.Padded()
	return &s
}

func hex(f db.Felt) *string {
	if f == nil {
		return nil
	}
	s := f.Hex()
	return &s
}

func hexes(fs []db.Felt) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Hex()
	}
	return out
}

// blockData is a Block's scalar fields as GraphQL names them.
func blockData(b *db.Block) any {
	return map[string]any{
		"number": b.Number, "hash": b.Hash.Hex(), "parentHash": b.ParentHash.Hex(), "timestamp": b.Timestamp,
		"status": b.Status(), "stateRoot": hex(b.StateRoot), "sequencerAddress": addr(b.SequencerAddress),
		"starknetVersion": b.StarknetVersion, "txnCount": b.TxnCount, "eventCount": b.EventCount,
		"messageCount": b.MessageCount,
	}
}

// transactionData is a Transaction's scalar fields as GraphQL names them.
func transactionData(t *db.Transaction, blockHash db.Felt) any {
	return map[string]any{
		"hash": t.Hash.Hex(), "blockNumber": t.BlockNumber, "blockHash": blockHash.Hex(), "index": t.Index,
		"type": string(t.Type), "version": t.Version, "timestamp": t.Timestamp, "status": t.Status(),
		"executionStatus": t.ExecutionStatus(), "finalityStatus": t.FinalityStatus(), "revertError": t.RevertError,
		"senderAddress": addr(t.SenderAddress), "contractAddress": addr(t.ContractAddress), "classHash": addr(t.ClassHash),
		"entryPointSelector": hex(t.EntryPointSelector), "nonce": t.Nonce, "maxFee": t.MaxFee, "tip": t.Tip,
		"actualFee": t.ActualFee, "actualFeeUnit": t.ActualFeeUnit, "calldata": hexes(t.Calldata),
		"signature": hexes(t.Signature), "eventCount": t.EventCount,
	}
}

// transferData is a TokenTransfer's scalar fields as GraphQL names them.
func transferData(t *db.TokenTransfer) any {
	return map[string]any{
		"blockNumber": t.BlockNumber, "transactionHash": t.TransactionHash.Hex(), "eventIndex": t.EventIndex,
		"timestamp": t.Timestamp, "tokenAddress": addr(t.TokenAddress), "fromAddress": addr(t.FromAddress),
		"toAddress": addr(t.ToAddress), "amount": t.Amount, "isFee": t.IsFee,
	}
}

// eventData is an Event's scalar fields as GraphQL names them.
func eventData(e *db.Event) any {
	return map[string]any{
		"blockNumber": e.BlockNumber, "transactionHash": e.TransactionHash.Hex(), "index": e.Index,
		"fromAddress": addr(e.FromAddress), "keys": hexes(e.Keys), "data": hexes(e.Data), "timestamp": e.Timestamp,
	}
}

// nftTransferData is an NftEvent's scalar fields as GraphQL names them.
func nftTransferData(e *db.NftEvent) any {
	return map[string]any{
		"blockNumber": e.BlockNumber, "transactionHash": e.TransactionHash.Hex(), "timestamp": e.Timestamp,
		"contractAddress": addr(e.ContractAddress), "tokenId": e.TokenID, "fromAddress": addr(e.FromAddress),
		"toAddress": addr(e.ToAddress), "quantity": e.Quantity, "type": e.Type,
		"paymentTokenAddress": addr(e.PaymentTokenAddress), "paymentTokenSymbol": e.PaymentTokenSymbol,
		"totalPrice": e.TotalPrice, "marketplaceContractAddress": addr(e.MarketplaceContractAddress),
	}
}
