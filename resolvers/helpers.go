package resolvers

import (
	"context"
	"fmt"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// int64Of widens an optional Int argument.
func int64Of(v *int) *int64 {
	if v == nil {
		return nil
	}
	w := int64(*v)
	return &w
}

// nonNil turns a nil list into an empty one, for non-null GraphQL lists.
func nonNil[T any, S ~[]T](s S) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// transactionListName keeps cursors of the two sort orders apart: a cursor walks one order.
func transactionListName(desc bool) string {
	if desc {
		return "transactions:desc"
	}
	return "transactions:asc"
}

// transactionOf loads the transaction a row points to (what names the row in the error):
// the foreign keys make a missing one an inconsistency, not a null.
func transactionOf(ctx context.Context, block int64, index int, what string) (*db.Transaction, error) {
	t, err := loaders.For(ctx).Transaction.Load(ctx, db.TxKey{Block: block, Index: index})()
	return indexedLink(t, err, "transaction %d/%d of %s", block, index, what)
}

// rowTxFields are the fields of Transaction that a row read joined to its transaction
// (events, token transfers: they carry its hash and timestamp) answers without reading it:
// the key, hash and timestamp, and the links read by the key.
var rowTxFields = map[string]bool{"__typename": true, "id": true, "hash": true, "blockNumber": true,
	"index": true, "timestamp": true, "block": true, "blockHash": true}

// txImplementors are the types a Transaction's selection is collected for (as gqlgen does).
var txImplementors = []string{"Transaction", "Node", "SearchResult"}

// joinedTransaction is the transaction of a row read with its transaction's hash and
// timestamp: made of the row when the client asks for nothing else of it (as
// `transaction { hash }` of an event: a statement a page of events need not run), else
// loaded whole, batched for the page.
func joinedTransaction(ctx context.Context, block int64, index int, hash db.Felt, timestamp int64, what string) (*db.Transaction, error) {
	if hash != nil && asksOnly(ctx, txImplementors, rowTxFields) {
		return &db.Transaction{BlockNumber: block, Index: index, Hash: hash, Timestamp: timestamp}, nil
	}
	return transactionOf(ctx, block, index, what)
}

// asksOnly reports whether the GraphQL client selected, under the field being resolved (of
// one of the types satisfies), only fields of known (fragments and @skip/@include as gqlgen
// applies them). Outside a GraphQL operation it is false: the caller wants the whole row.
func asksOnly(ctx context.Context, satisfies []string, known map[string]bool) bool {
	if !inGraphQL(ctx) {
		return false
	}
	fc := graphql.GetFieldContext(ctx)
	if fc.Field.Field == nil {
		return false
	}
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), fc.Field.Selections, satisfies) {
		if !known[f.Name] {
			return false
		}
	}
	return true
}

// indexedLink returns what a row links to, or an error when it is missing: the foreign keys
// or the indexer guarantee the link, so a missing row is a store bug, not a null.
func indexedLink[V any](v *V, err error, format string, args ...any) (*V, error) {
	if err == nil && v == nil {
		return nil, fmt.Errorf(format+" is not indexed", args...)
	}
	return v, err
}

// TransactionAliases are the aliases of a transaction's sender, contract and class, read
// together (one statement for a page, whichever of the three its items show; REST items
// that show the three ask once).
func TransactionAliases(ctx context.Context, tx *db.Transaction) ([3]*string, error) {
	key := txAliasKeys(tx)
	if key == (loaders.AliasKeys{}) {
		return [3]*string{}, nil
	}
	return loaders.For(ctx).TxAliases.Load(ctx, key)()
}

func txAliasKeys(tx *db.Transaction) loaders.AliasKeys {
	return loaders.AliasKeys{string(tx.SenderAddress), string(tx.ContractAddress), string(tx.ClassHash)}
}

// loadTxLinksAsked reads, with a page of transactions, the links its items were asked for
// (their blocks; their token transfers with the transfers' tokens and prices), one call per
// link: the items' fields then read the request's cache, instead of each joining a batch
// that waits BatchWait for the others. Only for a page reached through no list, so that it
// can never be a statement per item of an outer one.
func loadTxLinksAsked(ctx context.Context, store *db.Store, edges []*model.TransactionEdge) error {
	if len(edges) < 2 || !inGraphQL(ctx) || !outsideLists(ctx) {
		return nil
	}
	txs := make([]*db.Transaction, len(edges))
	keys := make([]db.TxKey, len(edges))
	for i, e := range edges {
		txs[i], keys[i] = e.Node, db.TxKey{Block: e.Node.BlockNumber, Index: e.Node.Index}
	}
	if graphql.FieldRequested(ctx, "edges.node.block") {
		if err := loadBlocksOf(ctx, txs); err != nil {
			return err
		}
	}
	if !graphql.FieldRequested(ctx, "edges.node.tokenTransfers") {
		return nil
	}
	l := loaders.For(ctx)
	lists, err := l.TxTransfers.LoadAll(ctx, keys)
	if err != nil {
		return err
	}
	asked := askedTransferLinks(ctx, "edges", "node", "tokenTransfers")
	if !asked.any() {
		return nil
	}
	var transfers []*db.TokenTransfer
	for _, list := range lists {
		transfers = append(transfers, list...)
	}
	return primeTransferTokens(ctx, store, transfers, asked)
}

// loadHolderLinksAsked reads, with a page of holders, their owners' contracts, and those
// contracts' classes with them in the same statement, when the items were asked for them
// (as loadTxLinksAsked): each item's owner and class then come from the request's cache,
// instead of 25 loads meeting in a batch that waits BatchWait, twice.
func loadHolderLinksAsked(ctx context.Context, store *db.Store, edges []*model.TokenHolderEdge) error {
	if len(edges) < 2 || !inGraphQL(ctx) || !outsideLists(ctx) || !graphql.FieldRequested(ctx, "edges.node.owner") {
		return nil
	}
	l := loaders.For(ctx)
	owners, keys := make([]db.Felt, len(edges)), make([]string, len(edges))
	for i, e := range edges {
		owners[i], keys[i] = e.Node.OwnerAddress, string(e.Node.OwnerAddress)
	}
	if !graphql.FieldRequested(ctx, "edges.node.owner.class") {
		_, err := l.Contract.LoadAll(ctx, keys)
		return err
	}
	// The owners' contracts with their classes, in one statement; the classes' ABIs only
	// when the document asks for them, as the Class loader would then answer them.
	contracts, classes, err := store.ContractsWithClasses(ctx, owners, graphql.FieldRequested(ctx, "edges.node.owner.class.abi"))
	if err != nil {
		return err
	}
	for i, c := range contracts {
		l.Contract.Prime(ctx, string(c.Address), c)
		if classes[i] != nil {
			l.Class.Prime(ctx, string(c.ClassHash), classes[i])
		}
	}
	// An address without a contract answers null without another read (Prime keeps the
	// contracts primed above).
	for _, k := range keys {
		l.Contract.Prime(ctx, k, nil)
	}
	return nil
}

// outsideLists reports whether the field being resolved is reached through no list.
func outsideLists(ctx context.Context) bool {
	for _, p := range graphql.GetFieldContext(ctx).Path() {
		if _, ok := p.(ast.PathIndex); ok {
			return false
		}
	}
	return true
}

// WholeTransaction returns a transaction with all its columns: the row itself when it was
// read whole, else the whole row through the request's Transaction loader (lists read only
// what their items show), batched for the page. REST handlers that show such columns of a
// listed transaction call it too.
func WholeTransaction(ctx context.Context, tx *db.Transaction) (*db.Transaction, error) {
	return wholeRow(ctx, tx, tx.DetailsLoaded, loaders.For(ctx).Transaction, db.TxKey{Block: tx.BlockNumber, Index: tx.Index})
}

// blockDetails returns a block with its details: the row itself when it was read whole,
// else the whole row through the request's Block loader (lists read blocks without their
// details), batched for the page.
func blockDetails(ctx context.Context, b *db.Block) (*db.Block, error) {
	return wholeRow(ctx, b, b.DetailsLoaded, loaders.For(ctx).Block, b.Number)
}

// wholeRow is row when it was read whole, else the row of key through the loader l, which
// reads whole rows. A row gone since the list was read (a reorg) is an error.
func wholeRow[K comparable, T any](ctx context.Context, row *T, whole bool, l *loaders.Lazy[K, *T], key K) (*T, error) {
	if whole {
		return row, nil
	}
	got, err := l.Load(ctx, key)()
	if err != nil {
		return row, err
	}
	if got == nil {
		return row, fmt.Errorf("%T %v went with a reorg since the list was read", row, key)
	}
	return got, nil
}

// latestBlock stands for "the newest block" in lookups by block: above every block.
const latestBlock = int64(1) << 62

// blockOf is the number of the block a BlockRef names; latestBlock for none. A hash must
// name an indexed block, and a number and a hash given together must agree.
func (r *Resolver) blockOf(ctx context.Context, at *model.BlockRef) (int64, error) {
	if at == nil || (at.Number == nil && at.Hash == nil) {
		return latestBlock, nil
	}
	if at.Number != nil && *at.Number < 0 {
		return 0, badInput("at.number", "must not be negative")
	}
	if at.Hash == nil {
		return int64(*at.Number), nil
	}
	b, err := r.Store.BlockByHash(ctx, at.Hash)
	if err != nil {
		return 0, err
	}
	switch {
	case b == nil:
		return 0, badInput("at.hash", "is not the hash of an indexed block")
	case at.Number != nil && int64(*at.Number) != b.Number:
		return 0, badInput("at", fmt.Sprintf("number %d and hash %s name different blocks", *at.Number, at.Hash.Hex()))
	}
	return b.Number, nil
}

// rangeDays is how many days (the last one included) each TimeRange but MAX covers.
var rangeDays = map[model.TimeRange]int{
	model.TimeRangeOneWeek: 7, model.TimeRangeOneMonth: 30, model.TimeRangeThreeMonths: 90,
	model.TimeRangeSixMonths: 180, model.TimeRangeOneYear: 365,
}

// maxRangeDays bounds MAX: ten years of days.
const maxRangeDays = db.MaxRangeDays

// dailyKeys are the DailyBalances keys of owner's series in each of tokens: windows of
// UTC days (YYYY-MM-DD) ending on the day of the newest indexed block. A token's key is
// nil when there is nothing to show (no block yet, or MAX for a wallet that never held the
// token).
func (r *Resolver) dailyKeys(ctx context.Context, owner db.Felt, tokens []db.Felt, rng *model.TimeRange) ([]*db.DailyKey, error) {
	keys := make([]*db.DailyKey, len(tokens))
	head, err := r.Store.LatestBlock(ctx)
	if err != nil || head == nil {
		return keys, err
	}
	end := time.Unix(head.Timestamp, 0).UTC()
	days := rangeDays[model.TimeRangeOneMonth]
	if rng != nil {
		days = rangeDays[*rng]
	}
	for i, token := range tokens {
		if rng != nil && *rng == model.TimeRangeMax {
			first, ok, err := r.Store.FirstBalanceChange(ctx, token, owner)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			days = int(end.Sub(time.Unix(first, 0).UTC().Truncate(24*time.Hour)).Hours()/24) + 1
			days = min(max(days, 1), maxRangeDays)
		}
		keys[i] = &db.DailyKey{Token: string(db.Normalize(token)), Owner: string(db.Normalize(owner)),
			From: end.AddDate(0, 0, 1-days).Format(time.DateOnly), To: end.Format(time.DateOnly)}
	}
	return keys, nil
}

// MetadataRefreshEvery is how often an NFT item's metadata may be refreshed on request.
const MetadataRefreshEvery = 5 * time.Minute

// NameOf is the name of an address or class with its source (db.Store.AliasesOf, the one
// lookup of names), loaded with its siblings; nil when nothing names it.
func NameOf(ctx context.Context, key db.Felt) (*db.Alias, error) {
	return loaders.For(ctx).Name.Load(ctx, string(db.Normalize(key)))()
}
