package resolvers

import (
	"context"
	"slices"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/loaders"
)

// The Load* functions here read, for a whole page of rows, what REST's items show beside
// the rows (blocks, aliases, tokens, pools...), one statement per link, into the request's
// cache. REST lists, which have the whole page at hand, call one and then build their items
// in turn off the cache, instead of each item loading its own links (a statement per item,
// or a goroutine per item meeting the others in a batch).

// loadLinks loads through l, in one statement, the key that link gives for each row that
// has one (ok).
func loadLinks[R any, K comparable, V any](ctx context.Context, l *loaders.Lazy[K, V], rows []R, link func(R) (key K, ok bool)) ([]V, error) {
	keys := make([]K, 0, len(rows))
	for _, r := range rows {
		if k, ok := link(r); ok {
			keys = append(keys, k)
		}
	}
	return l.LoadAll(ctx, keys)
}

// loadAliases loads the aliases of every address that addresses gives for the rows, in one
// statement.
func loadAliases[R any](ctx context.Context, rows []R, addresses func(R) []db.Felt) error {
	var keys []string
	for _, r := range rows {
		for _, a := range addresses(r) {
			keys = append(keys, string(a))
		}
	}
	_, err := loaders.For(ctx).Alias.LoadAll(ctx, keys)
	return err
}

// nonNilRows drops the rows a loader found missing.
func nonNilRows[T any](rows []*T) []*T {
	return slices.DeleteFunc(rows, func(r *T) bool { return r == nil })
}

// loadBlocksOf loads the blocks of txs.
func loadBlocksOf(ctx context.Context, txs []*db.Transaction) error {
	_, err := loadLinks(ctx, loaders.For(ctx).Block, txs, func(tx *db.Transaction) (int64, bool) { return tx.BlockNumber, true })
	return err
}

// OwnerAliases are the aliases of the balances' owners, in order, read in one statement.
func OwnerAliases(ctx context.Context, balances []*db.TokenBalance) ([]*string, error) {
	return loadLinks(ctx, loaders.For(ctx).Alias, balances, func(b *db.TokenBalance) (string, bool) { return string(b.OwnerAddress), true })
}

// LoadTransactionHeaders loads the blocks and the aliases (sender, contract, class) of a
// page of transactions.
func LoadTransactionHeaders(ctx context.Context, txs []*db.Transaction) error {
	if err := loadBlocksOf(ctx, txs); err != nil {
		return err
	}
	_, err := loadLinks(ctx, loaders.For(ctx).TxAliases, txs, func(tx *db.Transaction) (loaders.AliasKeys, bool) {
		k := txAliasKeys(tx)
		return k, k != (loaders.AliasKeys{})
	})
	return err
}

// LoadTransactionActivity loads what REST's tx-activity items show of a page of listed
// transactions: the whole rows of those read without their details (a list reads only what
// its items show), their blocks and aliases (LoadTransactionHeaders) and their calls.
func (r *Resolver) LoadTransactionActivity(ctx context.Context, txs []*db.Transaction) error {
	l := loaders.For(ctx)
	key := func(tx *db.Transaction) db.TxKey { return db.TxKey{Block: tx.BlockNumber, Index: tx.Index} }
	if _, err := loadLinks(ctx, l.Transaction, txs, func(tx *db.Transaction) (db.TxKey, bool) {
		return key(tx), !tx.DetailsLoaded
	}); err != nil {
		return err
	}
	if err := LoadTransactionHeaders(ctx, txs); err != nil {
		return err
	}
	// Their calls, cut from the calldata of the whole rows in hand rather than from the
	// transactions read again with them (db.Store.CallsOfTransactions).
	whole := make([]*db.Transaction, len(txs))
	for i, tx := range txs {
		w, err := WholeTransaction(ctx, tx)
		if err != nil {
			return err
		}
		whole[i] = w
	}
	if len(whole) == 0 {
		return nil
	}
	calls, err := r.Store.CallsOfTransactions(ctx, whole)
	if err != nil {
		return err
	}
	primeCalls(ctx, l, whole, calls)
	return nil
}

// primeCalls gives the request's Calls loader the calls of txs, read together: each
// transaction's, none for one without calls.
func primeCalls(ctx context.Context, l *loaders.Loaders, txs []*db.Transaction, calls []*db.Call) {
	byTx := make(map[db.TxKey][]*db.Call, len(txs))
	for _, c := range calls {
		k := db.TxKey{Block: c.BlockNumber, Index: c.TxIndex}
		byTx[k] = append(byTx[k], c)
	}
	for _, tx := range txs {
		k := db.TxKey{Block: tx.BlockNumber, Index: tx.Index}
		l.Calls.Prime(ctx, k, byTx[k])
	}
}

// LoadContractHeaders loads what REST's items of contracts show beside their rows: their
// classes, the classes' verifications, their deploy blocks' hashes, and the aliases of both
// addresses and classes (one statement for the two).
func LoadContractHeaders(ctx context.Context, contracts []*db.Contract) error {
	l := loaders.For(ctx)
	class := func(c *db.Contract) (string, bool) { return string(c.ClassHash), true }
	if _, err := loadLinks(ctx, l.Class, contracts, class); err != nil {
		return err
	}
	if _, err := loadLinks(ctx, l.VerifiedClass, contracts, class); err != nil {
		return err
	}
	if err := loadAliases(ctx, contracts, func(c *db.Contract) []db.Felt { return []db.Felt{c.Address, c.ClassHash} }); err != nil {
		return err
	}
	_, err := loadLinks(ctx, l.BlockHash, contracts, func(c *db.Contract) (int64, bool) {
		if c.DeployedBlock == nil {
			return 0, false
		}
		return *c.DeployedBlock, true
	})
	return err
}

// LoadValidatorHeaders loads what REST's rows of validators show beside their own rows:
// their pools, and the pools' tokens with the staking tokens (which a BTC pool's APR reads).
func LoadValidatorHeaders(ctx context.Context, validators []*db.Validator) error {
	l := loaders.For(ctx)
	pools, err := loadLinks(ctx, l.ValidatorPools, validators, func(v *db.Validator) (string, bool) { return string(v.StakerAddress), true })
	if err != nil {
		return err
	}
	ov, err := l.StakingOverview.Load(ctx, struct{}{})()
	if err != nil {
		return err
	}
	var tokens []db.Felt
	if ov != nil { // before the indexer has read the staking contract
		tokens = append(tokens, ov.StrkTokenAddress, ov.BtcTokenAddress)
	}
	for _, ps := range pools {
		for _, p := range ps {
			tokens = append(tokens, p.TokenAddress)
		}
	}
	_, err = loadLinks(ctx, l.Token, tokens, func(t db.Felt) (string, bool) { return string(t), t != nil })
	return err
}

// LoadStakingOperationTokens loads the tokens of a page of staking operations.
func LoadStakingOperationTokens(ctx context.Context, ops []*db.StakingOperation) error {
	_, err := loadLinks(ctx, loaders.For(ctx).Token, ops, func(o *db.StakingOperation) (string, bool) {
		return string(o.TokenAddress), o.TokenAddress != nil
	})
	return err
}

// LoadDelegationPools loads the pools of a page of delegations.
func LoadDelegationPools(ctx context.Context, ds []*db.Delegation) error {
	_, err := loadLinks(ctx, loaders.For(ctx).Pool, ds, func(d *db.Delegation) (string, bool) { return string(d.PoolAddress), true })
	return err
}

// LoadMessageTransactions loads the L2 transactions of a page's messages from L1, whose
// items show the L1 transaction that sent them.
func LoadMessageTransactions(ctx context.Context, ms []*db.Message) error {
	_, err := loadLinks(ctx, loaders.For(ctx).Transaction, ms, func(m *db.Message) (db.TxKey, bool) {
		return db.TxKey{Block: m.BlockNumber, Index: m.TxIndex}, m.Direction == db.MessageToL2
	})
	return err
}

// LoadNftBalanceAliases loads the aliases of a page of NFT balances' collections and owners.
func LoadNftBalanceAliases(ctx context.Context, balances []*db.NftBalance) error {
	return loadAliases(ctx, balances, func(b *db.NftBalance) []db.Felt { return []db.Felt{b.ContractAddress, b.OwnerAddress} })
}

// LoadNftBalanceItems loads what REST's items of a wallet's NFTs show beside their balance
// records: the items and their collections.
func LoadNftBalanceItems(ctx context.Context, balances []*db.NftBalance) error {
	l := loaders.For(ctx)
	if _, err := loadLinks(ctx, l.NftItem, balances, func(b *db.NftBalance) (db.NftKey, bool) {
		return itemKey(b.ContractAddress, b.TokenID), true
	}); err != nil {
		return err
	}
	_, err := loadLinks(ctx, l.Token, balances, func(b *db.NftBalance) (string, bool) { return string(b.ContractAddress), true })
	return err
}

// LoadNftEventHeaders loads what REST's items of NFT events show beside their rows: the
// aliases of both sides (one statement) and the items.
func LoadNftEventHeaders(ctx context.Context, events []*db.NftEvent) error {
	if err := loadAliases(ctx, events, func(ev *db.NftEvent) []db.Felt { return []db.Felt{ev.FromAddress, ev.ToAddress} }); err != nil {
		return err
	}
	_, err := loadLinks(ctx, loaders.For(ctx).NftItem, events, func(ev *db.NftEvent) (db.NftKey, bool) {
		return itemKey(ev.ContractAddress, ev.TokenID), true
	})
	return err
}

// LoadNftItemHeaders loads what REST's items of NFTs show beside their rows: their balance
// records (the owner's, or the largest holder's), then those records' collection and owner
// aliases.
func LoadNftItemHeaders(ctx context.Context, items []*db.NftItem) error {
	balances, err := loadLinks(ctx, loaders.For(ctx).NftItemBalance, items, func(it *db.NftItem) (db.NftKey, bool) {
		return itemKey(it.ContractAddress, it.TokenID), true
	})
	if err != nil {
		return err
	}
	return LoadNftBalanceAliases(ctx, nonNilRows(balances))
}

// LoadTransferTokens loads the tokens of a page of transfers.
func LoadTransferTokens(ctx context.Context, transfers []*db.TokenTransfer) error {
	_, err := loadLinks(ctx, loaders.For(ctx).Token, transfers, func(t *db.TokenTransfer) (string, bool) { return string(t.TokenAddress), true })
	return err
}

// LoadBalanceTokens loads the tokens of a list of balances.
func LoadBalanceTokens(ctx context.Context, balances []*db.TokenBalance) error {
	_, err := loadLinks(ctx, loaders.For(ctx).Token, balances, func(b *db.TokenBalance) (string, bool) { return string(b.TokenAddress), true })
	return err
}

// LoadBridgeTransfers loads what REST's bridge transactions show beside their messages:
// the L2 transactions that carried them, those transactions' token transfers, and the
// transfers' tokens.
func LoadBridgeTransfers(ctx context.Context, ms []*db.Message) error {
	l := loaders.For(ctx)
	tx := func(m *db.Message) (db.TxKey, bool) { return db.TxKey{Block: m.BlockNumber, Index: m.TxIndex}, true }
	if _, err := loadLinks(ctx, l.Transaction, ms, tx); err != nil {
		return err
	}
	transfers, err := loadLinks(ctx, l.TxTransfers, ms, tx)
	if err != nil {
		return err
	}
	var bridged []*db.TokenTransfer
	for i, m := range ms {
		if t, _ := BridgeTransfer(m, transfers[i]); t != nil {
			bridged = append(bridged, t)
		}
	}
	return LoadTransferTokens(ctx, bridged)
}

// BridgeTransfer is the transfer of transfers, those of the transaction that carried m,
// that the bridge made for m: the first mint for a deposit (a message to L2), the first
// burn for a withdrawal; and the L2 account it credited or debited. It is nil when there
// is none.
func BridgeTransfer(m *db.Message, transfers []*db.TokenTransfer) (t *db.TokenTransfer, account db.Felt) {
	for _, t := range transfers {
		minted, burned := len(t.FromAddress) == 0, len(t.ToAddress) == 0
		switch {
		case m.Direction == db.MessageToL2 && minted:
			return t, t.ToAddress
		case m.Direction == db.MessageToL1 && burned:
			return t, t.FromAddress
		}
	}
	return nil, nil
}

// LoadMetaTransactionLinks loads what REST's meta-transactions show beside their rows: the
// transactions that ran them, with what tx-activity items show of those (their blocks,
// aliases and calls: LoadTransactionActivity), and the accounts that ran the outside
// execution, with their aliases.
func (r *Resolver) LoadMetaTransactionLinks(ctx context.Context, ms []*db.MetaTransaction) error {
	l := loaders.For(ctx)
	txs, err := loadLinks(ctx, l.Transaction, ms, func(m *db.MetaTransaction) (db.TxKey, bool) {
		return db.TxKey{Block: m.BlockNumber, Index: m.Index}, true
	})
	if err != nil {
		return err
	}
	if err := r.LoadTransactionActivity(ctx, nonNilRows(txs)); err != nil {
		return err
	}
	if _, err := loadLinks(ctx, l.Contract, ms, func(m *db.MetaTransaction) (string, bool) { return string(m.ContractAddress), true }); err != nil {
		return err
	}
	return loadAliases(ctx, ms, func(m *db.MetaTransaction) []db.Felt { return []db.Felt{m.ContractAddress} })
}

// LoadStakedPositions loads what REST's staked positions show beside their delegations:
// the pools and their tokens, and the pools' validators as validators' rows show them
// (their economics and LoadValidatorHeaders).
func LoadStakedPositions(ctx context.Context, ds []*db.Delegation) error {
	l := loaders.For(ctx)
	pools, err := loadLinks(ctx, l.Pool, ds, func(d *db.Delegation) (string, bool) { return string(d.PoolAddress), true })
	if err != nil {
		return err
	}
	validators, err := loadLinks(ctx, l.Validator, nonNilRows(pools), func(p *db.Pool) (string, bool) { return string(p.StakerAddress), true })
	if err != nil {
		return err
	}
	validators = nonNilRows(validators)
	if _, err := loadLinks(ctx, l.ValidatorEconomics, validators, func(v *db.Validator) (string, bool) { return string(v.StakerAddress), true }); err != nil {
		return err
	}
	return LoadValidatorHeaders(ctx, validators)
}

// LoadTokens loads the tokens at addresses, in order (nil where there is none).
func LoadTokens(ctx context.Context, addresses []db.Felt) ([]*db.Token, error) {
	return loadLinks(ctx, loaders.For(ctx).Token, addresses, func(a db.Felt) (string, bool) { return string(a), true })
}

// DailyBalancesOf is DailyBalances of owner in each of tokens, in order, read in one
// statement.
func (r *Resolver) DailyBalancesOf(ctx context.Context, owner db.Felt, tokens []db.Felt, rng *model.TimeRange) ([][]*db.DailyBalance, error) {
	keys, err := r.dailyKeys(ctx, owner, tokens, rng)
	if err != nil {
		return nil, err
	}
	// The tokens that have a key, and where each stands among tokens.
	var present []db.DailyKey
	var at []int
	for i, k := range keys {
		if k != nil {
			present, at = append(present, *k), append(at, i)
		}
	}
	days, err := loaders.For(ctx).DailyBalances.LoadAll(ctx, present)
	if err != nil {
		return nil, err
	}
	series := make([][]*db.DailyBalance, len(tokens))
	for i := range series {
		series[i] = []*db.DailyBalance{}
	}
	for j, i := range at {
		if days[j] != nil {
			series[i] = days[j]
		}
	}
	return series, nil
}
