package resolvers

import (
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/starknet"
)

// messageFilter reads messages' filter into the store's. A message hash is a keccak256,
// which may exceed the field prime, so it is read as a 256-bit value, not a felt.
func messageFilter(in *model.MessageListFilter) (db.MessageFilter, error) {
	var f db.MessageFilter
	if in == nil {
		return f, nil
	}
	if in.BlockNumber != nil {
		if *in.BlockNumber < 0 {
			return f, badInput("filter.blockNumber", "must not be negative")
		}
		b := int64(*in.BlockNumber)
		f.Block = &b
	}
	f.Contract = in.Contract
	if in.Direction != nil {
		d := db.MessageToL2
		if *in.Direction == model.MessageDirectionL2ToL1 {
			d = db.MessageToL1
		}
		f.Direction = &d
	}
	if in.Hash != nil {
		h, err := starknet.ParseHash256(*in.Hash)
		if err != nil {
			return f, badInput("filter.hash", "must be 0x followed by 1 to 64 hex digits")
		}
		f.Hash = db.Normalize(h[:])
	}
	return f, nil
}
