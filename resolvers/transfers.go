package resolvers

import (
	"fmt"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
)

// TokenTransfersList names the transfer list in one order, so that a cursor of one order is
// refused by the other.
func TokenTransfersList(ascending bool) string {
	if ascending {
		return "token_transfers:asc"
	}
	return "token_transfers"
}

// KeysetCursor is the cursor of a keyset list that starts after the row whose sort key is
// key: the REST layer turns the ids of its keyset lists (`id`, `last_id`) into one.
func KeysetCursor(list string, key ...any) string {
	return encodeCursor(list, position{Key: keyStrings(key...)})
}

// transferFilter reads tokenTransfers' arguments into the store's filter; none is true when
// the arguments select nothing (VALIDATE transfers, which are never told apart).
func transferFilter(token, wallet db.Felt, in *model.TransferFilter, order *model.SortDirection) (f db.TokenTransferFilter, none bool, err error) {
	f = db.TokenTransferFilter{Token: token, Wallet: wallet, Ascending: order != nil && *order == model.SortDirectionAsc}
	if in == nil {
		return f, false, nil
	}
	f.From, f.To = in.FromAddress, in.ToAddress
	if in.TokenAddresses != nil {
		if len(in.TokenAddresses) > MaxPageSize {
			return f, false, badInput("filter.tokenAddresses", fmt.Sprintf("has more than %d addresses", MaxPageSize))
		}
		f.Tokens = append([]db.Felt{}, in.TokenAddresses...)
	}
	bounds := []struct {
		name string
		in   *int
		out  **int64
	}{
		{"filter.fromBlock", in.FromBlock, &f.FromBlock}, {"filter.toBlock", in.ToBlock, &f.ToBlock},
		{"filter.fromTimestamp", in.FromTimestamp, &f.FromTime}, {"filter.toTimestamp", in.ToTimestamp, &f.ToTime},
	}
	for _, b := range bounds {
		if b.in == nil {
			continue
		}
		if *b.in < 0 {
			return f, false, badInput(b.name, "must not be negative")
		}
		v := int64(*b.in)
		*b.out = &v
	}
	if f.FromBlock != nil && f.ToBlock != nil && *f.FromBlock > *f.ToBlock {
		return f, false, badInput("filter.fromBlock", "must not be above filter.toBlock")
	}
	if f.FromTime != nil && f.ToTime != nil && *f.FromTime > *f.ToTime {
		return f, false, badInput("filter.fromTimestamp", "must not be above filter.toTimestamp")
	}
	yes, no := true, false
	if in.InvocationType != nil {
		switch *in.InvocationType {
		case model.TransferInvocationTypeFeeTransfer:
			f.Fee = &yes
		case model.TransferInvocationTypeAllExceptFeeTransfer, model.TransferInvocationTypeExecute:
			f.Fee = &no
		case model.TransferInvocationTypeValidate:
			return f, true, nil
		}
	}
	return f, false, nil
}
