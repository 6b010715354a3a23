package db

import (
	"encoding/binary"
	"math/big"
	"strconv"
)

// Folded transfer events (migration 00051). An ERC-20 Transfer event repeats what its row of
// token_transfers holds: the sender, the recipient and the amount. Its row of events names
// in transfer_layout how its keys after the first and its data are made from that row, and
// stores neither. The layouts are those the indexer reads (indexer/transfers.go):
const (
	transferLayoutLegacy    int16 = 1 // keys [Transfer], data [from, to, amount.low, amount.high]
	transferLayoutCairo1    int16 = 2 // keys [Transfer, from, to], data [amount.low, amount.high]
	transferLayoutFeltValue int16 = 3 // keys [Transfer], data [from, to, amount]
)

var transferLayouts = []int16{transferLayoutLegacy, transferLayoutCairo1, transferLayoutFeltValue}

// u128 is 2^128, where a u256 splits into its low and high felts.
var u128 = new(big.Int).Lsh(big.NewInt(1), 128)

// transferEventLists makes the keys after the first and the data of a Transfer event of
// layout from its transfer; ok is false for an amount that is not a non-negative integer or
// an unknown layout. Pages of events make these for most of their rows: both lists share
// one allocation, and an amount that fits in 64 bits (most) is split without big.Int.
func transferEventLists(layout int16, from, to Felt, amount string) (keysTail, data FeltArray, ok bool) {
	low, high, whole, ok := u256Halves(amount)
	if !ok {
		return nil, nil, false
	}
	lists := make(FeltArray, 4)
	switch layout {
	case transferLayoutLegacy:
		lists[0], lists[1], lists[2], lists[3] = from, to, low, high
		return lists[:0:0], lists, true
	case transferLayoutCairo1:
		lists[0], lists[1], lists[2], lists[3] = from, to, low, high
		return lists[:2:2], lists[2:], true
	case transferLayoutFeltValue:
		lists[0], lists[1], lists[2] = from, to, whole
		return lists[:0:0], lists[:3], true
	}
	return nil, nil, false
}

// u256Halves splits a decimal amount into its low and high 128 bits, and gives it whole, as
// felts' column forms (big-endian, no leading zero byte).
func u256Halves(amount string) (low, high, whole Felt, ok bool) {
	if n, err := strconv.ParseUint(amount, 10, 64); err == nil {
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], n)
		low = Normalize(Felt(buf[:]))
		return low, Felt{}, low, true
	}
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || v.Sign() < 0 {
		return nil, nil, nil, false
	}
	h, l := new(big.Int).DivMod(v, u128, new(big.Int))
	return Felt(l.Bytes()), Felt(h.Bytes()), Felt(v.Bytes()), true
}

// transferLayoutOf is the layout whose lists are exactly e's, made from t; 0 when none is.
func transferLayoutOf(e *EventRow, t *TokenTransfer) int16 {
	if len(e.Keys) == 0 {
		return 0
	}
	for _, layout := range transferLayouts {
		keysTail, data, ok := transferEventLists(layout, t.FromAddress, t.ToAddress, t.Amount)
		if ok && sameFelts(keysTail, e.Keys[1:]) && sameFelts(data, e.Data) {
			return layout
		}
	}
	return 0
}

func sameFelts(a, b FeltArray) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// foldTransferEvents sets the stored columns of r's events: the keys after the first and
// the data, or, for a Transfer event that its transfer makes exactly, its layout and empty
// lists.
func (r *ChainRows) foldTransferEvents() {
	type position struct {
		block    int64
		tx, item int
	}
	transfers := make(map[position]*TokenTransfer, len(r.TokenTransfers))
	for i := range r.TokenTransfers {
		t := &r.TokenTransfers[i]
		transfers[position{t.BlockNumber, t.TxIndex, t.EventIndex}] = t
	}
	for i := range r.Events {
		e := &r.Events[i]
		e.TransferLayout, e.KeysTail, e.DataStored = nil, nil, e.Data
		if len(e.Keys) > 0 {
			e.KeysTail = e.Keys[1:]
		}
		t := transfers[position{e.BlockNumber, e.TxIndex, e.EventIndex}]
		if t == nil {
			continue
		}
		if layout := transferLayoutOf(e, t); layout != 0 {
			e.TransferLayout, e.KeysTail, e.DataStored = &layout, FeltArray{}, FeltArray{}
		}
	}
}

// eventTransferJoin joins each folded event of events e to its transfer, x, whose sender,
// recipient and amount make its lists (Event's Folded* columns). span, when set, bounds x's
// blocks as the statement bounds e's, so that the plan opens the partitions of those
// blocks alone.
func eventTransferJoin(span string) string {
	join := ` LEFT JOIN token_transfers x ON e.transfer_layout IS NOT NULL AND x.block_number = e.block_number
		AND x.tx_index = e.tx_index AND x.event_index = e.event_index`
	if span != "" {
		join += ` AND x.block_number ` + span
	}
	return join
}
