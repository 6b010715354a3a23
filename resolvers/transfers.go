package resolvers

import (
	"context"
	"fmt"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
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

// transferLinksAsked is which of a transfer's links (token, usdValue) a document selects.
type transferLinksAsked struct{ token, usd bool }

func (a transferLinksAsked) any() bool { return a.token || a.usd }

// askedTransferLinks reads which links the current field's transfers are asked for, under
// the fields of path (none when the field's value is the transfers; "edges", "node" for a
// connection), in one walk of the document's selections. Outside GraphQL (REST) none are.
func askedTransferLinks(ctx context.Context, path ...string) transferLinksAsked {
	if !inGraphQL(ctx) {
		return transferLinksAsked{}
	}
	oc := graphql.GetOperationContext(ctx)
	sel := graphql.GetFieldContext(ctx).Field.Selections
	for _, name := range path {
		var under ast.SelectionSet
		for _, f := range graphql.CollectFields(oc, sel, nil) {
			if f.Name == name {
				under = append(under, f.Selections...)
			}
		}
		sel = under
	}
	var asked transferLinksAsked
	for _, f := range graphql.CollectFields(oc, sel, nil) {
		asked.token = asked.token || f.Name == "token"
		asked.usd = asked.usd || f.Name == "usdValue"
	}
	return asked
}

// priceKeyOf is the key of a transfer's token's price at its block.
func priceKeyOf(t *db.TokenTransfer) db.PriceKey {
	return db.PriceKey{Token: string(db.Normalize(t.TokenAddress)), Block: t.BlockNumber}
}

// linkTransfers returns copies of transfers with the links asked for read, through the
// request's Token and PriceAt loaders (a page primes them in one statement:
// primeTransferTokens). They are copies because a list may come from a loader's cache,
// which other fields of the request read at the same time.
func linkTransfers(ctx context.Context, transfers []*db.TokenTransfer, asked transferLinksAsked) ([]*db.TokenTransfer, error) {
	if !asked.any() || len(transfers) == 0 {
		return transfers, nil
	}
	l := loaders.For(ctx)
	tokens := make([]func() (*db.Token, error), len(transfers))
	prices := make([]func() (*db.PriceAt, error), len(transfers))
	for i, t := range transfers {
		tokens[i] = l.Token.Load(ctx, string(t.TokenAddress))
		if asked.usd {
			prices[i] = l.PriceAt.Load(ctx, priceKeyOf(t))
		}
	}
	linked := make([]db.TokenTransfer, len(transfers))
	out := make([]*db.TokenTransfer, len(transfers))
	for i, t := range transfers {
		linked[i], out[i] = *t, &linked[i]
		token, err := tokens[i]()
		if err != nil {
			return nil, err
		}
		links := db.TransferLinks{Read: true, Token: token}
		if asked.usd {
			price, err := prices[i]()
			if err != nil {
				return nil, err
			}
			if links.UsdValue, err = transferUsdValue(t, token, price); err != nil {
				return nil, err
			}
		}
		linked[i].Links = links
	}
	return out, nil
}

// primeTransferTokens reads the tokens of a page's transfers, and their prices at the
// transfers' blocks when usdValue is asked, into the request's loaders: one statement
// for the page, where linkTransfers would load tokens and prices in a statement each.
func primeTransferTokens(ctx context.Context, store *db.Store, transfers []*db.TokenTransfer, asked transferLinksAsked) error {
	if !asked.usd {
		return LoadTransferTokens(ctx, transfers)
	}
	var keys []db.PriceKey
	seen := map[db.PriceKey]bool{}
	for _, t := range transfers {
		k := priceKeyOf(t)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	tokens, at, err := store.TokensWithPricesAt(ctx, keys)
	if err != nil {
		return err
	}
	l := loaders.For(ctx)
	for i, k := range keys {
		l.Token.Prime(ctx, k.Token, tokens[i])
		l.PriceAt.Prime(ctx, k, at[i])
	}
	return nil
}

// linkLiveTransfer is the hub's prepare for a subscription asked for links: the
// subscriber's copy of a transfer, whose links are read when its message is answered
// (a message's loaders are made only then, so this reads the store directly).
func linkLiveTransfer(ctx context.Context, store *db.Store, asked transferLinksAsked) func(*db.TokenTransfer) *db.TokenTransfer {
	if !asked.any() {
		return nil
	}
	return func(t *db.TokenTransfer) *db.TokenTransfer {
		linked := *t
		linked.Links.Later = sync.OnceValue(func() db.TransferLinks { return readTransferLinks(ctx, store, t) })
		return &linked
	}
}

// readTransferLinks reads one transfer's token and its USD value in one statement.
func readTransferLinks(ctx context.Context, store *db.Store, t *db.TokenTransfer) db.TransferLinks {
	tokens, prices, err := store.TokensWithPricesAt(ctx, []db.PriceKey{priceKeyOf(t)})
	if err != nil {
		return db.TransferLinks{Read: true, Err: err}
	}
	links := db.TransferLinks{Read: true, Token: tokens[0]}
	links.UsdValue, links.Err = transferUsdValue(t, tokens[0], prices[0])
	return links
}
