package db

import (
	"context"
	"fmt"
)

// Message is a message between L1 and L2, a row of messages: the indexer writes it and
// the APIs read it.
type Message struct {
	BlockNumber     int64     `db:"block_number"`
	TxIndex         int       `db:"tx_index"`
	Direction       int       `db:"direction"` // MessageToL2 or MessageToL1
	Index           int       `db:"msg_index"` // in the receipt's messages_sent; 0 for an L1 handler
	Hash            Felt      `db:"message_hash"`
	FromAddress     Felt      `db:"from_address"` // the L1 sender, or the L2 contract
	ToAddress       Felt      `db:"to_address"`   // the L2 contract, or the L1 recipient
	L2Address       Felt      `db:"l2_address"`   // the L2 side of the two
	Selector        Felt      `db:"selector"`     // L1 -> L2: the L1 handler's entry point
	Payload         FeltArray `db:"payload,emptyarray"`
	TransactionHash Felt      `db:"transaction_hash"`
	Timestamp       int64     `db:"timestamp"`
}

// The directions of a message.
const (
	MessageToL2 = 0
	MessageToL1 = 1
)

// MessageFilter narrows a message list; a zero filter is every message.
type MessageFilter struct {
	Block     *int64
	Contract  Felt // the L2 side
	Direction *int
	Hash      Felt
}

var messageCols = rowShapeOf[Message]().selectList("m")

var messageKeyColumns = []string{"m.block_number", "m.tx_index", "m.direction", "m.msg_index"}

func (f MessageFilter) conds(args *[]any) []string {
	var conds []string
	add := func(format string, v any) {
		*args = append(*args, v)
		conds = append(conds, fmt.Sprintf(format, len(*args)))
	}
	if f.Block != nil {
		add("m.block_number = $%d", *f.Block)
	}
	if f.Contract != nil {
		add("m.l2_address = $%d", f.Contract)
	}
	if f.Direction != nil {
		add("m.direction = $%d", *f.Direction)
	}
	if f.Hash != nil {
		add("m.message_hash = $%d", f.Hash)
	}
	return conds
}

// Messages lists messages, newest first; keyset: (block, tx, direction, index).
func (s *Store) Messages(ctx context.Context, f MessageFilter, w Window) ([]*Message, error) {
	var args []any
	conds := f.conds(&args)
	where, tail, kargs := w.keyset(messageKeyColumns, true, len(args)+1)
	var rows []*Message
	err := s.selectRows(ctx, &rows, `SELECT `+messageCols+` FROM messages m`+and(append(conds, where)...)+tail, append(args, kargs...)...)
	return rows, err
}

// CountMessages is the maintained total without a filter, capped with one.
func (s *Store) CountMessages(ctx context.Context, f MessageFilter) (int64, error) {
	var args []any
	conds := f.conds(&args)
	if len(conds) == 0 {
		return s.ListCount(ctx, "messages")
	}
	return s.cappedCount(ctx, "messages m"+and(conds...), args...)
}
