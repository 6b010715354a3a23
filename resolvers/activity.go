package resolvers

import (
	"context"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// txFilterOf is the store's filter of a transaction list's arguments.
func txFilterOf(filter *model.TransactionFilter) db.TxFilter {
	f := db.TxFilter{}
	if filter != nil {
		f.Sender, f.Contract = filter.SenderAddress, filter.ContractAddress
		if filter.Type != nil {
			f.Type = *filter.Type
		}
		f.FromBlock, f.ToBlock = int64Of(filter.FromBlock), int64Of(filter.ToBlock)
	}
	return f
}

// TransactionActivities is a page of the transactions filter selects, as REST's
// tx-activity lists them: the list of Query.transactions (the same cursors, counts and
// positions), each row read with what its item shows and its block's hash and gas prices
// (db.TxActivity), in the list's one statement. total is the list's count.
func (r *Resolver) TransactionActivities(ctx context.Context, first int, after *string, filter *model.TransactionFilter, order model.SortDirection) (rows []*db.TxActivity, total int, err error) {
	f := txFilterOf(filter)
	desc := order == model.SortDirectionDesc
	pg, err := fetchPage(ctx, &first, after, listSpec[*db.TxActivity]{
		name: transactionListName(desc), keyWidth: 2,
		keyOf: func(t *db.TxActivity) []any { return []any{t.BlockNumber, t.Index} },
		fetch: func(w db.Window) ([]*db.TxActivity, error) { return r.Store.TransactionActivity(ctx, f, desc, w) },
		count: func() (int64, error) { return r.Store.CountTransactions(ctx, f) },
	}, func(_ string, t *db.TxActivity) *db.TxActivity { return t })
	if err != nil {
		return nil, 0, err
	}
	return pg.edges, pg.total, nil
}

// LoadTxActivityLinks loads what REST's tx-activity items show beside their rows (which
// hold their blocks' fields): the aliases of their senders, contracts and classes, and
// their calls, cut from the calldata of the rows (db.Store.CallsOfActivity), primed into
// the request's Calls loader.
func (r *Resolver) LoadTxActivityLinks(ctx context.Context, acts []*db.TxActivity) error {
	if len(acts) == 0 {
		return nil
	}
	l := loaders.For(ctx)
	if _, err := loadLinks(ctx, l.TxAliases, acts, func(a *db.TxActivity) (loaders.AliasKeys, bool) {
		k := txAliasKeys(&a.Transaction)
		return k, k != (loaders.AliasKeys{})
	}); err != nil {
		return err
	}
	calls, err := r.Store.CallsOfActivity(ctx, acts)
	if err != nil {
		return err
	}
	txs := make([]*db.Transaction, len(acts))
	for i, a := range acts {
		txs[i] = &a.Transaction
	}
	primeCalls(ctx, l, txs, calls)
	return nil
}
