package indexer

import (
	"context"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// Writing a batch's changed rows back, after journaling their old images when the batch
// is near the chain head.

// journal records, in one statement, the old images of every row the batch is about to
// change.
func (w *batchWriter) journal(ctx context.Context, block int64) error {
	var classKeys []db.Felt
	for h := range w.newClass {
		classKeys = append(classKeys, db.FeltOf(h))
	}
	w.journalFelts("classes", classKeys)
	var addrs []db.Felt
	for a := range w.dirtyContracts {
		addrs = append(addrs, db.FeltOf(a))
	}
	w.journalFelts("contracts", addrs)
	var toks []db.Felt
	for a := range w.dirtyTokens {
		toks = append(toks, db.FeltOf(a))
	}
	w.journalFelts("tokens", toks)
	if len(w.dirtyBalances) > 0 {
		var ts, os []db.Felt
		for k := range w.dirtyBalances {
			ts, os = append(ts, db.FeltOf(k[0])), append(os, db.FeltOf(k[1]))
		}
		w.journalAdd("erc20_balances", db.ByteaKeys(ts), db.ByteaKeys(os))
	}
	if len(w.dirtyItems) > 0 {
		var cs []db.Felt
		var ids []string
		for k := range w.dirtyItems {
			cs, ids = append(cs, db.FeltOf(k.contract)), append(ids, k.id)
		}
		w.journalAdd("nft_items", db.ByteaKeys(cs), stringArray(ids))
	}
	if len(w.dirtyNFTBals) > 0 {
		var cs, os []db.Felt
		var ids []string
		for k := range w.dirtyNFTBals {
			cs, ids, os = append(cs, db.FeltOf(k.contract)), append(ids, k.id), append(os, db.FeltOf(k.owner))
		}
		w.journalAdd("nft_balances", db.ByteaKeys(cs), stringArray(ids), db.ByteaKeys(os))
		hc, ho := w.nftHolderPairs()
		w.journalAdd("nft_holders", db.ByteaKeys(hc), db.ByteaKeys(ho))
	}
	w.journalStaking()
	w.journalStarknetID()
	if w.maxTPSBlock != nil {
		w.journalAdd("chain_stats", stringArray([]string{"1"}))
	}
	if _, granularities, starts := w.activityRows(); len(starts) > 0 {
		w.journalAdd("activity_stats", stringArray(granularities), pq.Int64Array(starts))
	}
	var names []string
	for n, d := range w.counts {
		if d != 0 {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		w.journalAdd("list_counts", stringArray(names))
	}
	return db.JournalMany(ctx, w.tx, block, w.journalEntries)
}

// journalAdd queues rows of a table for the journal: one array per key column.
func (w *batchWriter) journalAdd(table string, keys ...any) {
	w.journalEntries = append(w.journalEntries, db.JournalEntry{Table: table, Keys: keys})
}

// journalFelts queues rows of a table keyed by one felt column.
func (w *batchWriter) journalFelts(table string, keys []db.Felt) {
	if len(keys) > 0 {
		w.journalAdd(table, db.ByteaKeys(keys))
	}
}

// flush writes every changed row.
func (w *batchWriter) flush(ctx context.Context) error {
	if rows, _, _ := w.activityRows(); len(rows) > 0 {
		if err := db.AddActivity(ctx, w.tx, rows); err != nil {
			return err
		}
	}
	classes := make([]db.Class, 0, len(w.newClass))
	for _, c := range w.newClass {
		classes = append(classes, *c)
	}
	if err := db.UpsertClasses(ctx, w.tx, classes); err != nil {
		return err
	}
	for _, c := range classes {
		w.classes.markStored(c.Hash.Starknet())
	}
	contracts := make([]db.Contract, 0, len(w.dirtyContracts))
	for a := range w.dirtyContracts {
		contracts = append(contracts, *w.contracts[a])
	}
	if err := db.UpsertContracts(ctx, w.tx, contracts); err != nil {
		return err
	}
	tokens := make([]db.TokenRow, 0, len(w.dirtyTokens))
	for a := range w.dirtyTokens {
		tokens = append(tokens, *w.tokens[a])
	}
	if err := db.UpsertTokens(ctx, w.tx, tokens); err != nil {
		return err
	}
	if w.known == nil { // a bulk load writes them once at its end (bulk.go)
		bals := make([]db.TokenBalance, 0, len(w.dirtyBalances))
		for k := range w.dirtyBalances {
			b := w.balances[k]
			bals = append(bals, db.TokenBalance{TokenAddress: db.FeltOf(k[0]), OwnerAddress: db.FeltOf(k[1]), Balance: b.amount.String(),
				LastTransferBlock: b.lastBlock, LastTransferTime: b.lastTime})
		}
		if err := db.UpsertERC20Balances(ctx, w.tx, bals); err != nil {
			return err
		}
	}
	if err := db.InsertBalanceCorrections(ctx, w.tx, w.corrections); err != nil {
		return err
	}
	items := make([]db.NFTItemRow, 0, len(w.dirtyItems))
	for k := range w.dirtyItems {
		items = append(items, *w.nftItems[k])
	}
	if err := db.UpsertNFTItems(ctx, w.tx, items); err != nil {
		return err
	}
	nbals := make([]db.NftBalance, 0, len(w.dirtyNFTBals))
	for k := range w.dirtyNFTBals {
		b := w.nftBals[k]
		nbals = append(nbals, db.NftBalance{ContractAddress: db.FeltOf(k.contract), TokenID: k.id, OwnerAddress: db.FeltOf(k.owner),
			Balance: b.amount.String(), LastTransferTime: b.lastTime})
	}
	if err := db.UpsertNFTBalances(ctx, w.tx, nbals); err != nil {
		return err
	}
	holderC, holderO := w.nftHolderPairs()
	if err := db.RefreshNFTHolders(ctx, w.tx, holderC, holderO); err != nil {
		return err
	}
	if err := w.flushStaking(ctx); err != nil {
		return err
	}
	if err := w.flushStarknetID(ctx); err != nil {
		return err
	}
	if err := w.writeSenderActivity(ctx); err != nil {
		return err
	}
	if w.maxTPSBlock != nil {
		if err := db.SetMaxTPS(ctx, w.tx, w.maxTPS, w.maxTPSBlock); err != nil {
			return err
		}
	}
	return db.AddListCounts(ctx, w.tx, w.counts)
}

// nftHolderPairs lists the (collection, owner) pairs whose balances the batch changed, once
// each, as two key columns.
func (w *batchWriter) nftHolderPairs() (contracts, owners []db.Felt) {
	seen := map[[2]starknet.Felt]bool{}
	for k := range w.dirtyNFTBals {
		p := [2]starknet.Felt{k.contract, k.owner}
		if !seen[p] {
			seen[p] = true
			contracts, owners = append(contracts, db.FeltOf(k.contract)), append(owners, db.FeltOf(k.owner))
		}
	}
	return contracts, owners
}
