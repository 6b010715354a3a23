// Package loaders holds the per-request dataloaders: each parent -> child link of the
// GraphQL schema batches the keys asked for during one request into one SQL statement.
// Loaders are created per operation (and per subscription message), so nothing is cached
// across them.
package loaders

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/starkgraph/starkgraph/db"
)

// BatchWait is how long a loader collects keys before it runs its statement: long enough
// for sibling resolvers to ask, short enough not to be felt. Tests that count statements
// on a busy machine lengthen it before serving, so that batching does not depend on how
// fast goroutines are scheduled.
var BatchWait = 2 * time.Millisecond

// Loaders are the dataloaders of one request.
type Loaders struct {
	Block           *Lazy[int64, *db.Block]
	BlockHash       *Lazy[int64, *db.BlockHash] // a block's hash alone, for rows that name it
	Transaction     *Lazy[db.TxKey, *db.Transaction]
	TransactionBy   *Lazy[string, *db.Transaction] // by hash
	Calls           *Lazy[db.TxKey, []*db.Call]
	Contract        *Lazy[string, *db.Contract]
	Class           *Lazy[string, *db.Class]
	VerifiedClass   *Lazy[string, *db.VerifiedClass]
	VerifiedSources *Lazy[string, *db.VerifiedSources]
	Token           *Lazy[string, *db.Token]
	Alias           *Lazy[string, *string]
	// Name is Alias with its source (db.Alias), for GraphQL's name fields.
	Name *Lazy[string, *db.Alias]
	// TxAliases holds the aliases a transaction shows together (sender, contract, class),
	// read in one statement for all the transactions that ask.
	TxAliases      *Lazy[AliasKeys, [3]*string]
	TokensHeld     *Lazy[string, []*db.TokenBalance]
	Holders        *Lazy[PageKey[string], []*db.TokenBalance]
	ClassContracts *Lazy[PageKey[string], []*db.Contract]
	BlockTxs       *Lazy[PageKey[int64], []*db.Transaction]
	TxEvents       *Lazy[PageKey[db.TxKey], []*db.Event]

	NftItem           *Lazy[db.NftKey, *db.NftItem]
	NftItemBalance    *Lazy[db.NftKey, *db.NftBalance]          // owner, or largest holder
	NftItemEvents     *Lazy[PageKey[db.NftKey], []*db.NftEvent] // newest first
	NftItemEventCount *Lazy[db.NftKey, int64]                   // capped
	OwnedNfts         *Lazy[PageKey[db.OwnedNftKey], []*db.NftBalance]
	OwnedNftCount     *Lazy[db.OwnedNftKey, int64] // capped
	TxMetaTransaction *Lazy[db.TxKey, *db.MetaTransaction]
	Validator         *Lazy[string, *db.Validator] // by staker address
	Pool              *Lazy[string, *db.Pool]      // by pool contract
	// StakingOverview is the one staking overview row (key: struct{}{}), read once per
	// request however many pools and rows ask for it.
	StakingOverview *Lazy[struct{}, *db.StakingOverview]
	// ValidatorEconomics holds rank and APRs, by staker.
	ValidatorEconomics *Lazy[string, *db.ValidatorEconomics]
	ValidatorPools     *Lazy[string, []*db.Pool] // by staker address
	PoolDelegations    *Lazy[PageKey[string], []*db.Delegation]
	Positions          *Lazy[string, []*db.StakedPosition] // by delegator
	StakeHistory       *Lazy[StakeHistoryKey, []*db.StakePoint]
	TokenHoldersReport *Lazy[string, *db.HoldersOverview] // newest snapshot
	TxTransfers        *Lazy[db.TxKey, []*db.TokenTransfer]
	PriceAt            *Lazy[db.PriceKey, *db.PriceAt]     // nil: no reading yet
	BalanceAt          *Lazy[db.BalanceKey, *db.BalanceAt] // nil: 0
	DailyBalances      *Lazy[db.DailyKey, []*db.DailyBalance]
	Event              *Lazy[db.EventKey, *db.Event]
	BlockBy            *Lazy[string, *db.Block] // by hash
	Message            *Lazy[db.MessageKey, *db.Message]
}

// StakeHistoryKey asks for a wallet's stake points over a window (a PostgreSQL interval
// such as "1 month"; "" for all time).
type StakeHistoryKey struct {
	Wallet   string
	Interval string
}

// PageKey asks for one page of a parent's children: the parent's key and the window.
// Keys with the same window are fetched together in one statement.
type PageKey[K comparable] struct {
	Parent K
	Limit  int
	Offset int
}

// New creates the loaders of one GraphQL request over store. gqlgen resolves siblings in
// goroutines of its own, so each loader collects keys for BatchWait.
func New(store *db.Store) *Loaders { return build(store, dispatch{wait: BatchWait}) }

// Sequential creates the loaders of a request whose code loads one key at a time (a REST
// handler): each load runs at once, on the calling goroutine, as waiting could gather no
// sibling. A REST list reads its items' links for the whole page with LoadAll instead.
func Sequential(store *db.Store) *Loaders {
	return build(store, dispatch{wait: BatchWait, sequential: true})
}

// dispatch says when a loader runs its statement: after wait, gathering the keys siblings
// ask meanwhile, or at once for a sequential request's loads.
type dispatch struct {
	wait       time.Duration
	sequential bool
}

// Lazy is a dataloader made on its first load: a request uses a few of the ~45 links,
// and making every loader up front cost a cheap route a tenth of its CPU.
type Lazy[K comparable, V any] struct {
	once   sync.Once
	loader *dataloader.Loader[K, V]
	cache  dataloader.Cache[K, V] // the loader's, which LoadAll reads and fills too
	batch  dataloader.BatchFunc[K, V]
	d      dispatch
}

func (z *Lazy[K, V]) get() *dataloader.Loader[K, V] {
	z.once.Do(func() {
		z.cache = dataloader.NewCache[K, V]()
		z.loader = dataloader.NewBatchedLoader(z.batch, dataloader.WithWait[K, V](z.d.wait), dataloader.WithCache(z.cache))
	})
	return z.loader
}

// Load asks for key's value; the thunk waits for the batch it joined, or has it already
// when no sibling can join (a sequential request's loads, a field alone).
//
// A key the request has read already (a page's links read with LoadAll, or an earlier
// load) is answered from the cache first: dataloader's Load makes a channel, a result and
// a closure before it looks there, about 290 allocations of a block's 25 transactions with
// their transfers, tokens and prices, all read with the page (loadTxLinksAsked).
func (z *Lazy[K, V]) Load(ctx context.Context, key K) dataloader.Thunk[V] {
	l := z.get()
	if thunk, ok := z.cache.Get(ctx, key); ok {
		return thunk
	}
	if z.d.sequential || (HasSpareCores(ctx) && alone(ctx)) { // the cheap tests first
		return z.loadNow(ctx, key)
	}
	return l.Load(ctx, key)
}

// LoadAll returns the values of keys, in order: those the request has loaded come from its
// cache, the others from one run of the batch, on the calling goroutine, which caches them.
// It is for code that has every key of a page at hand (a REST list, a GraphQL page that
// knows what its items are asked for): one call instead of an item each loading its key.
func (z *Lazy[K, V]) LoadAll(ctx context.Context, keys []K) ([]V, error) {
	z.get()
	var missing []K
	asked := map[K]bool{}
	for _, k := range keys {
		if _, ok := z.cache.Get(ctx, k); !ok && !asked[k] {
			asked[k] = true
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		for i, r := range z.batch(ctx, missing) {
			z.cache.Set(ctx, missing[i], func() (V, error) { return r.Data, r.Error })
		}
	}
	out := make([]V, len(keys))
	for i, k := range keys {
		thunk, _ := z.cache.Get(ctx, k)
		v, err := thunk()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// loadNow loads key on the calling goroutine, from the request's cache or in a batch of
// its own, for a load no sibling can join (a sequential request's, or a field alone).
func (z *Lazy[K, V]) loadNow(ctx context.Context, key K) dataloader.Thunk[V] {
	got, err := z.LoadAll(ctx, []K{key})
	return func() (V, error) {
		if err != nil {
			var zero V
			return zero, err
		}
		return got[0], nil
	}
}

// Prime caches value for key, so that a later Load of key runs no statement.
func (z *Lazy[K, V]) Prime(ctx context.Context, key K, value V) {
	z.get().Prime(ctx, key, value)
}

func newLoader[K comparable, V any](d dispatch, batch dataloader.BatchFunc[K, V]) *Lazy[K, V] {
	return &Lazy[K, V]{batch: batch, d: d}
}

// storeTemplate holds the loaders of one store as templates: their batch functions
// depend on the store alone, so a request copies them (one Lazy each) instead of making
// them again (about 90 closures and method values, two thirds of New's 134 allocations).
type storeTemplate struct {
	store *db.Store
	l     *Loaders
}

// lastTemplate is the templates of the last store loaders were made for: a process
// serves one store, so one is enough (tests that make many stores rebuild it).
var lastTemplate atomic.Pointer[storeTemplate]

func build(store *db.Store, d dispatch) *Loaders {
	t := lastTemplate.Load()
	if t == nil || t.store != store {
		t = &storeTemplate{store: store, l: templates(store)}
		lastTemplate.Store(t)
	}
	return t.l.fresh(d)
}

// fresh returns a loader with z's batch function and nothing loaded yet.
func (z *Lazy[K, V]) fresh(d dispatch) *Lazy[K, V] { return &Lazy[K, V]{batch: z.batch, d: d} }

// fresh returns loaders with the templates' batch functions, dispatched by d.
func (t *Loaders) fresh(d dispatch) *Loaders {
	return &Loaders{
		Block:              t.Block.fresh(d),
		BlockHash:          t.BlockHash.fresh(d),
		Transaction:        t.Transaction.fresh(d),
		TransactionBy:      t.TransactionBy.fresh(d),
		Calls:              t.Calls.fresh(d),
		Contract:           t.Contract.fresh(d),
		Class:              t.Class.fresh(d),
		VerifiedClass:      t.VerifiedClass.fresh(d),
		VerifiedSources:    t.VerifiedSources.fresh(d),
		Token:              t.Token.fresh(d),
		Alias:              t.Alias.fresh(d),
		Name:               t.Name.fresh(d),
		TxAliases:          t.TxAliases.fresh(d),
		TokensHeld:         t.TokensHeld.fresh(d),
		Holders:            t.Holders.fresh(d),
		ClassContracts:     t.ClassContracts.fresh(d),
		BlockTxs:           t.BlockTxs.fresh(d),
		TxEvents:           t.TxEvents.fresh(d),
		NftItem:            t.NftItem.fresh(d),
		NftItemBalance:     t.NftItemBalance.fresh(d),
		NftItemEvents:      t.NftItemEvents.fresh(d),
		NftItemEventCount:  t.NftItemEventCount.fresh(d),
		OwnedNfts:          t.OwnedNfts.fresh(d),
		OwnedNftCount:      t.OwnedNftCount.fresh(d),
		TxMetaTransaction:  t.TxMetaTransaction.fresh(d),
		Validator:          t.Validator.fresh(d),
		Pool:               t.Pool.fresh(d),
		StakingOverview:    t.StakingOverview.fresh(d),
		ValidatorEconomics: t.ValidatorEconomics.fresh(d),
		ValidatorPools:     t.ValidatorPools.fresh(d),
		PoolDelegations:    t.PoolDelegations.fresh(d),
		Positions:          t.Positions.fresh(d),
		StakeHistory:       t.StakeHistory.fresh(d),
		TokenHoldersReport: t.TokenHoldersReport.fresh(d),
		TxTransfers:        t.TxTransfers.fresh(d),
		PriceAt:            t.PriceAt.fresh(d),
		BalanceAt:          t.BalanceAt.fresh(d),
		DailyBalances:      t.DailyBalances.fresh(d),
		Event:              t.Event.fresh(d),
		BlockBy:            t.BlockBy.fresh(d),
		Message:            t.Message.fresh(d),
	}
}

// templates makes the loaders of store, to be copied by fresh.
func templates(store *db.Store) *Loaders {
	var d dispatch // each copy has its own
	return &Loaders{
		Block:     one(d, store.BlocksByNumber, func(b *db.Block) int64 { return b.Number }),
		BlockHash: one(d, store.BlockHashesByNumber, func(b *db.BlockHash) int64 { return b.Number }),
		Transaction: one(d, store.TransactionsByKey, func(t *db.Transaction) db.TxKey {
			return db.TxKey{Block: t.BlockNumber, Index: t.Index}
		}),
		TransactionBy: one(d, byFelt(transactionsWithBlocks(store)), func(t *db.Transaction) string { return string(t.Hash) }),
		Calls: many(d, store.CallsByTx, func(c *db.Call) db.TxKey {
			return db.TxKey{Block: c.BlockNumber, Index: c.TxIndex}
		}),
		Contract:        one(d, byFelt(store.ContractsByAddress), func(c *db.Contract) string { return string(c.Address) }),
		Class:           one(d, byFelt(store.ClassesByHash), func(c *db.Class) string { return string(c.Hash) }),
		VerifiedClass:   one(d, byFelt(store.VerifiedClassesByHash), func(v *db.VerifiedClass) string { return string(v.ClassHash) }),
		VerifiedSources: one(d, byFelt(store.VerifiedSourcesByHash), func(v *db.VerifiedSources) string { return string(v.ClassHash) }),
		Token:           one(d, byFelt(store.TokensByAddress), func(t *db.Token) string { return string(t.Address) }),
		Alias:           aliases(d, store),
		Name:            one(d, byFelt(store.AliasesOf), func(a *db.Alias) string { return string(a.Address) }),
		TxAliases:       aliasSets(d, store),
		TokensHeld:      many(d, byFelt(store.BalancesOf), func(b *db.TokenBalance) string { return string(b.OwnerAddress) }),
		Holders:         paged(d, byFeltPaged(store.HoldersOf), func(b *db.TokenBalance) string { return string(b.TokenAddress) }),
		ClassContracts:  paged(d, byFeltPaged(store.ContractsByClasses), func(c *db.Contract) string { return string(c.ClassHash) }),
		BlockTxs:        paged(d, store.TransactionsOfBlocks, func(t *db.Transaction) int64 { return t.BlockNumber }),
		TxEvents: paged(d, store.EventsOfTxs, func(e *db.Event) db.TxKey {
			return db.TxKey{Block: e.BlockNumber, Index: e.TxIndex}
		}),

		NftItem:           one(d, store.NftItemsByKey, func(i *db.NftItem) db.NftKey { return nftKey(i.ContractAddress, i.TokenID) }),
		NftItemBalance:    one(d, store.NftBalancesOfItems, func(b *db.NftBalance) db.NftKey { return nftKey(b.ContractAddress, b.TokenID) }),
		NftItemEvents:     paged(d, store.NftEventsOfItems, func(e *db.NftEvent) db.NftKey { return nftKey(e.ContractAddress, e.TokenID) }),
		NftItemEventCount: counts(d, store.CountNftEventsOfItems),
		OwnedNfts:         ownedNfts(d, store),
		OwnedNftCount:     counts(d, store.CountNftsOwnedBy),
		TxMetaTransaction: one(d, store.MetaTransactionsOfTxs, func(m *db.MetaTransaction) db.TxKey {
			return db.TxKey{Block: m.BlockNumber, Index: m.Index}
		}),
		Validator: one(d, byFelt(store.ValidatorsByAddress), func(v *db.Validator) string { return string(v.StakerAddress) }),
		Pool:      one(d, byFelt(store.PoolsByAddress), func(p *db.Pool) string { return string(p.Address) }),
		StakingOverview: one(d, func(ctx context.Context, _ []struct{}) ([]*db.StakingOverview, error) {
			ov, err := store.StakingOverview(ctx)
			return []*db.StakingOverview{ov}, err
		}, func(*db.StakingOverview) struct{} { return struct{}{} }),
		ValidatorEconomics: one(d, byFelt(store.ValidatorEconomicsOf), func(e *db.ValidatorEconomics) string { return string(e.Staker) }),
		ValidatorPools:     many(d, byFelt(store.PoolsOfValidators), func(p *db.Pool) string { return string(p.StakerAddress) }),
		PoolDelegations:    paged(d, byFeltPaged(store.DelegationsOfPools), func(d *db.Delegation) string { return string(d.PoolAddress) }),
		Positions:          many(d, byFelt(store.PositionsOf), func(p *db.StakedPosition) string { return string(p.DelegatorAddress) }),
		StakeHistory:       stakeHistory(d, store),
		TokenHoldersReport: one(d, byFelt(store.HoldersOverviewsOf), func(h *db.HoldersOverview) string { return string(h.TokenAddress) }),
		TxTransfers: many(d, store.TransfersOfTxs, func(t *db.TokenTransfer) db.TxKey {
			return db.TxKey{Block: t.BlockNumber, Index: t.TxIndex}
		}),
		BalanceAt: one(d, store.BalancesAt, func(b *db.BalanceAt) db.BalanceKey {
			return db.BalanceKey{Token: string(db.Normalize(b.Token)), Owner: string(db.Normalize(b.Owner)), Block: b.Block}
		}),
		DailyBalances: dailyBalances(d, store),
		BlockBy:       one(d, byFelt(store.BlocksByHash), func(b *db.Block) string { return string(b.Hash) }),
		Event: one(d, store.EventsByKey, func(e *db.Event) db.EventKey {
			return db.EventKey{Block: e.BlockNumber, Tx: e.TxIndex, Event: e.Index}
		}),
		Message: one(d, store.MessagesByKey, func(m *db.Message) db.MessageKey {
			return db.MessageKey{Block: m.BlockNumber, Tx: m.TxIndex, Direction: m.Direction, Index: m.Index}
		}),
		PriceAt: one(d, store.PricesAt, func(p *db.PriceAt) db.PriceKey {
			return db.PriceKey{Token: string(db.Normalize(p.Token)), Block: p.Block}
		}),
	}
}

// transactionsWithBlocks reads transactions by hash with their blocks in one statement
// (db.Store.TransactionsByHash) and puts the blocks in the request's Block loader: what
// shows a transaction found by its hash shows its block's hash too.
func transactionsWithBlocks(store *db.Store) func(context.Context, []db.Felt) ([]*db.Transaction, error) {
	return func(ctx context.Context, hashes []db.Felt) ([]*db.Transaction, error) {
		txs, blocks, err := store.TransactionsByHash(ctx, hashes)
		if l, ok := from(ctx); ok {
			for _, b := range blocks {
				l.Block.Prime(ctx, b.Number, b)
			}
		}
		return txs, err
	}
}

type ctxKey struct{}

// With returns ctx carrying l.
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(db.WithKeyCounts(ctx, new(db.KeyCounts)), ctxKey{}, l)
}

// WithNew returns ctx carrying loaders over store (New's) that are made when first asked
// for: a subscription waits for its next message under such a context, and 10,000 idle
// ones must not hold loaders each.
func WithNew(ctx context.Context, store *db.Store) context.Context {
	return withDeferred(ctx, &deferred{store: store, make: New})
}

// WithSequential returns ctx carrying Sequential loaders over store, made when first asked
// for: making them was 6% of the CPU of a REST route that loads nothing (/beta/stats).
func WithSequential(ctx context.Context, store *db.Store) context.Context {
	return withDeferred(ctx, &deferred{store: store, make: Sequential})
}

// withDeferred installs d, and the request's kept key counts (db.KeyCounts: a deep page's
// count, read with its mark, is its list's total too), which live in d.
func withDeferred(ctx context.Context, d *deferred) context.Context {
	return context.WithValue(db.WithKeyCounts(ctx, &d.counts), ctxKey{}, d)
}

type deferred struct {
	once   sync.Once
	store  *db.Store
	make   func(*db.Store) *Loaders
	l      *Loaders
	counts db.KeyCounts
}

func (d *deferred) get() *Loaders {
	d.once.Do(func() { d.l = d.make(d.store) })
	return d.l
}

// For returns the request's loaders. Resolvers are only reached with loaders installed
// (by the GraphQL server per operation, or per subscription message, and by the REST
// handler per request), so a missing value is a wiring bug.
func For(ctx context.Context) *Loaders {
	if l, ok := from(ctx); ok {
		return l
	}
	panic("loaders: no loaders in context; install them with loaders.With")
}

// from returns the request's loaders, if ctx has them.
func from(ctx context.Context) (*Loaders, bool) {
	switch l := ctx.Value(ctxKey{}).(type) {
	case *Loaders:
		return l, true
	case *deferred:
		return l.get(), true
	}
	return nil, false
}

// byFelt adapts a store lookup by felts to string keys (felts are byte slices, which cannot
// be map keys).
func byFelt[V any](fetch func(context.Context, []db.Felt) ([]V, error)) func(context.Context, []string) ([]V, error) {
	return func(ctx context.Context, keys []string) ([]V, error) {
		felts := make([]db.Felt, len(keys))
		for i, k := range keys {
			felts[i] = db.Felt(k)
		}
		return fetch(ctx, felts)
	}
}

// one builds a loader whose keys each have at most one row; rows are matched to keys by
// their key, never by position, and a key without a row gets nil.
func one[K comparable, V any](d dispatch, fetch func(context.Context, []K) ([]V, error), keyOf func(V) K) *Lazy[K, V] {
	batch := func(ctx context.Context, keys []K) []*dataloader.Result[V] {
		rows, err := fetch(ctx, keys)
		results := make([]*dataloader.Result[V], len(keys))
		byKey := make(map[K]V, len(rows))
		for _, r := range rows {
			byKey[keyOf(r)] = r
		}
		for i, k := range keys {
			results[i] = &dataloader.Result[V]{Data: byKey[k], Error: err}
		}
		return results
	}
	return newLoader(d, batch)
}

// many builds a loader whose keys each have a list of rows, kept in the store's order.
func many[K comparable, V any](d dispatch, fetch func(context.Context, []K) ([]V, error), keyOf func(V) K) *Lazy[K, []V] {
	batch := func(ctx context.Context, keys []K) []*dataloader.Result[[]V] {
		rows, err := fetch(ctx, keys)
		byKey := make(map[K][]V, len(keys))
		for _, r := range rows {
			byKey[keyOf(r)] = append(byKey[keyOf(r)], r)
		}
		results := make([]*dataloader.Result[[]V], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[[]V]{Data: byKey[k], Error: err}
		}
		return results
	}
	return newLoader(d, batch)
}

// paged builds a loader of child pages: keys that share a window are fetched in one
// statement (a LATERAL join over the parents), so a list of parents each showing its first
// n children costs one statement whatever the list's length.
func paged[K comparable, V any](d dispatch, fetch func(ctx context.Context, parents []K, limit, offset int) ([]V, error), parentOf func(V) K) *Lazy[PageKey[K], []V] {
	type window struct{ limit, offset int }
	batch := func(ctx context.Context, keys []PageKey[K]) []*dataloader.Result[[]V] {
		groups := map[window][]K{}
		for _, k := range keys {
			w := window{k.Limit, k.Offset}
			groups[w] = append(groups[w], k.Parent)
		}
		found := map[PageKey[K]][]V{}
		errs := map[window]error{}
		for w, parents := range groups {
			rows, err := fetch(ctx, parents, w.limit, w.offset)
			errs[w] = err
			for _, r := range rows {
				k := PageKey[K]{Parent: parentOf(r), Limit: w.limit, Offset: w.offset}
				found[k] = append(found[k], r)
			}
		}
		results := make([]*dataloader.Result[[]V], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[[]V]{Data: found[k], Error: errs[window{k.Limit, k.Offset}]}
		}
		return results
	}
	return newLoader(d, batch)
}

// byFeltPaged adapts a paged store lookup by felts to string parents.
func byFeltPaged[V any](fetch func(context.Context, []db.Felt, int, int) ([]V, error)) func(context.Context, []string, int, int) ([]V, error) {
	return func(ctx context.Context, keys []string, limit, offset int) ([]V, error) {
		felts := make([]db.Felt, len(keys))
		for i, k := range keys {
			felts[i] = db.Felt(k)
		}
		return fetch(ctx, felts, limit, offset)
	}
}

func aliases(d dispatch, store *db.Store) *Lazy[string, *string] {
	batch := func(ctx context.Context, keys []string) []*dataloader.Result[*string] {
		names, err := aliasNames(ctx, store, keys)
		results := make([]*dataloader.Result[*string], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[*string]{Data: names[k], Error: err}
		}
		return results
	}
	return newLoader(d, batch)
}

// AliasKeys names the addresses whose aliases one item shows together, "" for none.
type AliasKeys [3]string

// aliasSets is the loader of AliasKeys: every address of the batch's keys in one statement.
func aliasSets(d dispatch, store *db.Store) *Lazy[AliasKeys, [3]*string] {
	batch := func(ctx context.Context, keys []AliasKeys) []*dataloader.Result[[3]*string] {
		var addrs []string
		for _, k := range keys {
			for _, a := range k {
				if a != "" {
					addrs = append(addrs, a)
				}
			}
		}
		names, err := aliasNames(ctx, store, addrs)
		results := make([]*dataloader.Result[[3]*string], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[[3]*string]{Data: [3]*string{names[k[0]], names[k[1]], names[k[2]]}, Error: err}
		}
		return results
	}
	return newLoader(d, batch)
}

// aliasNames reads the aliases of addrs (felts as strings), by address; an empty list
// runs no statement.
func aliasNames(ctx context.Context, store *db.Store, addrs []string) (map[string]*string, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	rows, err := byFelt(store.AliasesOf)(ctx, addrs)
	names := make(map[string]*string, len(rows))
	for _, a := range rows {
		name := a.Name
		names[string(a.Address)] = &name
	}
	return names, err
}

// nftKey is the loader key of an NFT item.
func nftKey(contract db.Felt, tokenID string) db.NftKey {
	return db.NftKey{Contract: string(db.Normalize(contract)), TokenID: tokenID}
}

// counts builds a loader of per-key totals; fetch returns them in key order.
func counts[K comparable](d dispatch, fetch func(context.Context, []K) ([]int64, error)) *Lazy[K, int64] {
	batch := func(ctx context.Context, keys []K) []*dataloader.Result[int64] {
		n, err := fetch(ctx, keys)
		results := make([]*dataloader.Result[int64], len(keys))
		for i := range keys {
			r := &dataloader.Result[int64]{Error: err}
			if err == nil && i < len(n) {
				r.Data = n[i]
			}
			results[i] = r
		}
		return results
	}
	return newLoader(d, batch)
}

// ownedNfts is the paged loader of an owner's NFT balances. A row cannot tell which key
// asked for it (the collection filter is optional), so the store tags each row with its
// key's position.
func ownedNfts(d dispatch, store *db.Store) *Lazy[PageKey[db.OwnedNftKey], []*db.NftBalance] {
	type window struct{ limit, offset int }
	batch := func(ctx context.Context, keys []PageKey[db.OwnedNftKey]) []*dataloader.Result[[]*db.NftBalance] {
		groups := map[window][]int{} // window -> positions in keys
		for i, k := range keys {
			w := window{k.Limit, k.Offset}
			groups[w] = append(groups[w], i)
		}
		results := make([]*dataloader.Result[[]*db.NftBalance], len(keys))
		for i := range results {
			results[i] = &dataloader.Result[[]*db.NftBalance]{}
		}
		for w, positions := range groups {
			parents := make([]db.OwnedNftKey, len(positions))
			for j, p := range positions {
				parents[j] = keys[p].Parent
			}
			rows, err := store.NftsOwnedBy(ctx, parents, w.limit, w.offset)
			for _, p := range positions {
				results[p].Error = err
			}
			for _, r := range rows {
				if r.Parent >= 1 && r.Parent <= len(positions) {
					res := results[positions[r.Parent-1]]
					res.Data = append(res.Data, &r.NftBalance)
				}
			}
		}
		return results
	}
	return newLoader(d, batch)
}

// stakeHistory loads wallets' stake points; the wallets asked for over one window share a
// statement.
func stakeHistory(d dispatch, store *db.Store) *Lazy[StakeHistoryKey, []*db.StakePoint] {
	batch := func(ctx context.Context, keys []StakeHistoryKey) []*dataloader.Result[[]*db.StakePoint] {
		groups := map[string][]db.Felt{}
		for _, k := range keys {
			groups[k.Interval] = append(groups[k.Interval], db.Felt(k.Wallet))
		}
		found := map[StakeHistoryKey][]*db.StakePoint{}
		errs := map[string]error{}
		for interval, wallets := range groups {
			var iv *string
			if interval != "" {
				iv = &interval
			}
			rows, err := store.StakeChangesOf(ctx, wallets, iv)
			errs[interval] = err
			byWallet := map[string][]*db.StakeChange{}
			for _, r := range rows {
				w := string(db.Normalize(r.Wallet))
				byWallet[w] = append(byWallet[w], r)
			}
			for w, changes := range byWallet {
				found[StakeHistoryKey{Wallet: w, Interval: interval}] = db.StakePointsFrom(changes)
			}
		}
		results := make([]*dataloader.Result[[]*db.StakePoint], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[[]*db.StakePoint]{Data: found[k], Error: errs[k.Interval]}
		}
		return results
	}
	return newLoader(d, batch)
}

// dailyBalances is the loader of closing balances per day: keys with the same window of
// days are read in one statement.
func dailyBalances(d dispatch, store *db.Store) *Lazy[db.DailyKey, []*db.DailyBalance] {
	batch := func(ctx context.Context, keys []db.DailyKey) []*dataloader.Result[[]*db.DailyBalance] {
		type window struct{ from, to string }
		groups := map[window][]db.DailyKey{}
		for _, k := range keys {
			w := window{k.From, k.To}
			groups[w] = append(groups[w], k)
		}
		found := map[db.DailyKey][]*db.DailyBalance{}
		errs := map[window]error{}
		for w, ks := range groups {
			tokens, owners := make([]db.Felt, len(ks)), make([]db.Felt, len(ks))
			for i, k := range ks {
				tokens[i], owners[i] = db.Felt(k.Token), db.Felt(k.Owner)
			}
			rows, err := store.DailyBalances(ctx, tokens, owners, w.from, w.to)
			errs[w] = err
			for _, r := range rows {
				k := db.DailyKey{Token: string(db.Normalize(r.Token)), Owner: string(db.Normalize(r.Owner)), From: w.from, To: w.to}
				found[k] = append(found[k], r)
			}
		}
		results := make([]*dataloader.Result[[]*db.DailyBalance], len(keys))
		for i, k := range keys {
			results[i] = &dataloader.Result[[]*db.DailyBalance]{Data: found[k], Error: errs[window{k.From, k.To}]}
		}
		return results
	}
	return newLoader(d, batch)
}
