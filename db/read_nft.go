package db

import (
	"context"
	"fmt"

	"github.com/lib/pq"
)

// Reads of NFT items, balances and transfers (ERC-721 and ERC-1155).

// NftKey names one NFT item: the collection's address in storage form (string(Felt)) and
// the token id in decimal. It is comparable, so loaders use it as a key.
type NftKey struct {
	Contract string
	TokenID  string
}

// nftKeyArrays splits keys into the parallel arrays that unnest() takes.
func nftKeyArrays(keys []NftKey) (pq.ByteaArray, pq.StringArray) {
	contracts := make(pq.ByteaArray, len(keys))
	ids := make(pq.StringArray, len(keys))
	for i, k := range keys {
		contracts[i] = []byte(Normalize([]byte(k.Contract)))
		ids[i] = k.TokenID
	}
	return contracts, ids
}

var nftItemCols = rowShapeOf[NftItem]().selectList("i")

// NftItemsByKey returns the items that exist among keys.
func (s *Store) NftItemsByKey(ctx context.Context, keys []NftKey) ([]*NftItem, error) {
	contracts, ids := nftKeyArrays(keys)
	var rows []*NftItem
	err := s.selectRows(ctx, &rows, `SELECT `+nftItemCols+` FROM nft_items i
		JOIN unnest($1::bytea[], $2::numeric[]) AS k(c, t) ON i.contract_address = k.c AND i.token_id = k.t`,
		contracts, ids)
	return rows, err
}

// NftItemFilter narrows an item list: the items of a collection, of an owner, or both.
type NftItemFilter struct {
	Contract Felt
	Owner    Felt
}

func (f NftItemFilter) where(args *[]any) []string {
	var conds []string
	if f.Contract != nil {
		conds = append(conds, "i.contract_address = "+arg(args, f.Contract))
	}
	if f.Owner != nil {
		// ERC-721 items carry their owner; ERC-1155 items are owned through balances. Both
		// sets come from the owner indexes and are small, so the planner joins them to the
		// items instead of scanning the items for the owner.
		owner := arg(args, f.Owner)
		conds = append(conds, `(i.contract_address, i.token_id) IN (
			SELECT contract_address, token_id FROM nft_items WHERE owner_address = `+owner+`
			UNION SELECT contract_address, token_id FROM nft_balances WHERE owner_address = `+owner+` AND balance > 0)`)
	}
	return conds
}

// NftItems lists items by collection then token id; keyset: (contract_address, token_id).
func (s *Store) NftItems(ctx context.Context, f NftItemFilter, w Window) ([]*NftItem, error) {
	var args []any
	conds := f.where(&args)
	// Unfiltered or by collection, the primary key's index holds the conditions and the
	// order: a page's first key is found in it alone, skipping the offset without fetching
	// the rows above it (keysFrom).
	keysFrom := ""
	if f.Owner == nil {
		keysFrom = "nft_items i"
	}
	return keysetList(ctx, s, keysetQuery{name: "nft_items", from: `SELECT ` + nftItemCols + ` FROM nft_items i`,
		conds: conds, args: args, keyCols: []string{"i.contract_address", "i.token_id"}, keysFrom: keysFrom},
		w, func(i *NftItem) []any { return []any{i.ContractAddress, i.TokenID} })
}

// CountNftItems is the maintained total for all items ('nft_items'), capped for filters.
func (s *Store) CountNftItems(ctx context.Context, f NftItemFilter) (int64, error) {
	var args []any
	conds := f.where(&args)
	return s.countFiltered(ctx, "nft_items", "nft_items i", conds, args)
}

var nftBalanceCols = rowShapeOf[NftBalance]().selectList("b")

// NftBalancesOfItems returns, for each item, the balance record of its owner: the ERC-721
// owner, or the largest ERC-1155 holder (ties by address).
func (s *Store) NftBalancesOfItems(ctx context.Context, keys []NftKey) ([]*NftBalance, error) {
	contracts, ids := nftKeyArrays(keys)
	var rows []*NftBalance
	err := s.selectRows(ctx, &rows, `SELECT x.* FROM unnest($1::bytea[], $2::numeric[]) AS k(c, t)
		CROSS JOIN LATERAL (SELECT `+nftBalanceCols+` FROM nft_balances b
			WHERE b.contract_address = k.c AND b.token_id = k.t AND b.balance > 0
			ORDER BY b.balance DESC, b.owner_address DESC LIMIT 1) x`, contracts, ids)
	return rows, err
}

// NftHolders lists the owners of a collection's items, or of one item when tokenID is set,
// by balance, largest first; keyset: (balance, owner). Over a collection an owner's
// balances are summed, and the row's token id is the smallest one the owner holds.
func (s *Store) NftHolders(ctx context.Context, contract Felt, tokenID *string, w Window) ([]*NftBalance, error) {
	keyOf := func(b *NftBalance) []any { return []any{b.Balance, b.OwnerAddress} }
	if tokenID != nil {
		return keysetList(ctx, s, keysetQuery{name: "nft item holders", from: `SELECT ` + nftBalanceCols + ` FROM nft_balances b`,
			conds: []string{"b.contract_address = $1", "b.token_id = $2::numeric", "b.balance > 0"}, args: []any{contract, *tokenID},
			keyCols: []string{"b.balance", "b.owner_address"}, desc: true}, w, keyOf)
	}
	// A collection's holders, from the totals the indexer keeps per owner (nft_holders). A
	// page skips from its span's start by nft_holders_order's entries alone (keysFrom):
	// an owner is one row of a collection.
	return keysetList(ctx, s, keysetQuery{name: "nft holders", from: `SELECT h.contract_address, h.token_id::text AS token_id,
			h.owner_address, h.held::text AS balance, h.last_transfer_time FROM nft_holders h`,
		conds: []string{"h.contract_address = $1"}, args: []any{contract},
		keyCols: []string{"h.held", "h.owner_address"}, desc: true, keysFrom: "nft_holders h",
		ranked: rankedKey{nftHoldersByCollection, Normalize(contract)}}, w, keyOf)
}

// CountNftHolders counts a collection's holders exactly (its spans' counts), an item's
// holders capped.
func (s *Store) CountNftHolders(ctx context.Context, contract Felt, tokenID *string) (int64, error) {
	if tokenID != nil {
		return s.cappedCount(ctx, "nft_balances WHERE contract_address = $1 AND token_id = $2::numeric AND balance > 0", contract, *tokenID)
	}
	return s.rankedCount(ctx, rankedKey{nftHoldersByCollection, Normalize(contract)})
}

// NftBalances lists a collection's balance records (or one item's) with a positive
// balance, by token id, then largest balance, then owner (nft_balances_item_order); keyset:
// (token id, balance, owner), the token id ascending and the rest descending.
func (s *Store) NftBalances(ctx context.Context, contract Felt, tokenID *string, w Window) ([]*NftBalance, error) {
	conds, args := []string{"b.contract_address = $1", "b.balance > 0"}, []any{contract}
	if tokenID != nil {
		conds, args = append(conds, "b.token_id = $2::numeric"), append(args, *tokenID)
	}
	// A deep page finds its keys in nft_balances_item_order alone (keysFrom) and reads only
	// its own rows, by their key: through the table, 5,000 rows deep of the largest
	// collection took 59 ms at p99 at 10M transactions (issue 59).
	return keysetList(ctx, s, keysetQuery{name: "nft balances", from: `SELECT ` + nftBalanceCols + ` FROM nft_balances b`,
		conds: conds, args: args, keyCols: []string{"b.token_id", "b.balance", "b.owner_address"}, desc: true, flipLead: true,
		keysFrom: "nft_balances b", keysJoin: []string{"b.contract_address"}},
		w, func(b *NftBalance) []any { return []any{b.TokenID, b.Balance, b.OwnerAddress} })
}

// CountNftBalances counts them (capped).
func (s *Store) CountNftBalances(ctx context.Context, contract Felt, tokenID *string) (int64, error) {
	if tokenID != nil {
		return s.cappedCount(ctx, "nft_balances WHERE contract_address = $1 AND token_id = $2::numeric AND balance > 0", contract, *tokenID)
	}
	return s.cappedCount(ctx, "nft_balances WHERE contract_address = $1 AND balance > 0", contract)
}

// OwnedNftKey asks for the NFTs of an owner (storage-form felts as strings), of every
// collection or, when ByContract, of Contract only.
type OwnedNftKey struct {
	Owner      string
	Contract   string
	ByContract bool
}

// OwnedNft is a balance row with the 1-based position of the key it answers.
type OwnedNft struct {
	Parent int `db:"parent"`
	NftBalance
}

func ownedKeyArrays(keys []OwnedNftKey) (owners, contracts pq.ByteaArray, filtered pq.BoolArray) {
	owners = make(pq.ByteaArray, len(keys))
	contracts = make(pq.ByteaArray, len(keys))
	filtered = make(pq.BoolArray, len(keys))
	for i, k := range keys {
		owners[i] = []byte(Normalize([]byte(k.Owner)))
		contracts[i] = []byte(Normalize([]byte(k.Contract)))
		filtered[i] = k.ByContract
	}
	return owners, contracts, filtered
}

// NftsOwnedBy lists, for each key, limit of the owner's positive NFT balances after offset,
// by collection then token id: the batched form of Contract.nfts and Wallet.nfts.
func (s *Store) NftsOwnedBy(ctx context.Context, keys []OwnedNftKey, limit, offset int) ([]*OwnedNft, error) {
	owners, contracts, filtered := ownedKeyArrays(keys)
	var rows []*OwnedNft
	err := s.selectRows(ctx, &rows, `SELECT k.parent, x.* FROM unnest($1::bytea[], $2::bytea[], $3::bool[])
			WITH ORDINALITY AS k(owner, contract, filtered, parent)
		CROSS JOIN LATERAL (SELECT `+nftBalanceCols+` FROM nft_balances b
			WHERE b.owner_address = k.owner AND b.balance > 0 AND (NOT k.filtered OR b.contract_address = k.contract)
			ORDER BY b.contract_address, b.token_id LIMIT $4 OFFSET $5) x`,
		owners, contracts, filtered, limit, offset)
	return rows, err
}

// CountNftsOwnedBy counts each key's positive balances (capped), in key order.
func (s *Store) CountNftsOwnedBy(ctx context.Context, keys []OwnedNftKey) ([]int64, error) {
	owners, contracts, filtered := ownedKeyArrays(keys)
	return s.countsByParent(ctx, len(keys), `SELECT k.parent, (SELECT count(*) FROM (SELECT 1 FROM nft_balances b
			WHERE b.owner_address = k.owner AND b.balance > 0 AND (NOT k.filtered OR b.contract_address = k.contract)
			LIMIT `+fmt.Sprint(CountCap)+`) c) AS n
		FROM unnest($1::bytea[], $2::bytea[], $3::bool[]) WITH ORDINALITY AS k(owner, contract, filtered, parent)`,
		owners, contracts, filtered)
}

// countsByParent runs a statement that returns (parent, n) rows, parent being the 1-based
// position of a key, and returns the counts in key order.
func (s *Store) countsByParent(ctx context.Context, nKeys int, query string, args ...any) ([]int64, error) {
	var rows []struct {
		Parent int   `db:"parent"`
		N      int64 `db:"n"`
	}
	if err := s.selectRows(ctx, &rows, query, args...); err != nil {
		return nil, err
	}
	out := make([]int64, nKeys)
	for _, r := range rows {
		if r.Parent >= 1 && r.Parent <= nKeys {
			out[r.Parent-1] = r.N
		}
	}
	return out, nil
}

var nftEventCols = rowShapeOf[NftEvent]().selectList("e")

// NftEventKeyColumns is the sort key of NFT event lists, newest first.
var nftEventKeyColumns = []string{"e.block_number", "e.tx_index", "e.event_index", "e.sub_index"}

// NftEventFilter narrows an NFT event list.
type NftEventFilter struct {
	Contract Felt
	TokenID  *string
}

func (f NftEventFilter) where(args *[]any) []string {
	var conds []string
	if f.Contract != nil {
		conds = append(conds, "e.contract_address = "+arg(args, f.Contract))
	}
	if f.TokenID != nil {
		conds = append(conds, "e.token_id = "+arg(args, *f.TokenID)+"::numeric")
	}
	return conds
}

// NftEvents lists NFT transfers, newest first; keyset: (block, tx, event, sub index).
func (s *Store) NftEvents(ctx context.Context, f NftEventFilter, w Window) ([]*NftEvent, error) {
	var args []any
	conds := f.where(&args)
	// Unfiltered (the primary key), by collection (nft_events_contract) or by item
	// (nft_events_token, its whole order since migration 00064), an index holds the
	// condition and the order: a page's first key is found in it alone, skipping the
	// offset without fetching the rows above it, and the page read from there (keysFrom).
	// Read in one step, 5,000 rows deep in a collection's events cost 105 ms at p99 on
	// the 1M bench, and in an item's 115 ms at 10M transactions. An item's alone without
	// its collection has no index: it is read in one step.
	keysFrom := ""
	if f.TokenID == nil || f.Contract != nil {
		keysFrom = "nft_events e"
	}
	return keysetList(ctx, s, keysetQuery{name: "nft_events", from: `SELECT ` + nftEventCols + ` FROM nft_events e`,
		conds: conds, args: args, keyCols: nftEventKeyColumns, desc: true, keysFrom: keysFrom},
		w, func(e *NftEvent) []any { return []any{e.BlockNumber, e.TxIndex, e.EventIndex, e.SubIndex} })
}

// NftEventsOfTransaction lists the NFT events (transfers, mints, burns) of the transaction
// at block, txIndex, in the order it emitted them, at most limit.
func (s *Store) NftEventsOfTransaction(ctx context.Context, block int64, txIndex, limit int) ([]*NftEvent, error) {
	var rows []*NftEvent
	err := s.selectRows(ctx, &rows, `SELECT `+nftEventCols+` FROM nft_events e
		WHERE e.block_number = $1 AND e.tx_index = $2 ORDER BY e.event_index, e.sub_index LIMIT $3`, block, txIndex, limit)
	return rows, err
}

// CountNftEvents is the maintained total ('nft_events') without a filter, capped with one.
func (s *Store) CountNftEvents(ctx context.Context, f NftEventFilter) (int64, error) {
	var args []any
	conds := f.where(&args)
	return s.countFiltered(ctx, "nft_events", "nft_events e", conds, args)
}

// NftEventsOfItems lists, for each item, limit of its events after offset, newest first:
// the batched form of NftItem.events. The offset is skipped in nft_events_token alone (an
// index-only scan finds the page's first key), and only the page's rows are read: with
// LIMIT and OFFSET on the rows, 5,000 events deep in an item took 110 ms at p99 at 10M
// transactions, fetching every row above the page.
func (s *Store) NftEventsOfItems(ctx context.Context, keys []NftKey, limit, offset int) ([]*NftEvent, error) {
	contracts, ids := nftKeyArrays(keys)
	var rows []*NftEvent
	err := s.selectRows(ctx, &rows, `SELECT x.* FROM unnest($1::bytea[], $2::numeric[]) AS k(c, t)
		CROSS JOIN LATERAL (SELECT `+nftEventCols+` FROM nft_events e
			WHERE e.contract_address = k.c AND e.token_id = k.t
			  AND (e.block_number, e.tx_index, e.event_index, e.sub_index) <= (
			      SELECT f.block_number, f.tx_index, f.event_index, f.sub_index FROM nft_events f
			      WHERE f.contract_address = k.c AND f.token_id = k.t
			      ORDER BY f.block_number DESC, f.tx_index DESC, f.event_index DESC, f.sub_index DESC
			      OFFSET $4 LIMIT 1)
			ORDER BY e.block_number DESC, e.tx_index DESC, e.event_index DESC, e.sub_index DESC
			LIMIT $3) x`, contracts, ids, limit, offset)
	return rows, err
}

// CountNftEventsOfItems counts each item's events (capped), in key order.
func (s *Store) CountNftEventsOfItems(ctx context.Context, keys []NftKey) ([]int64, error) {
	contracts, ids := nftKeyArrays(keys)
	return s.countsByParent(ctx, len(keys), `SELECT k.parent, (SELECT count(*) FROM (SELECT 1 FROM nft_events e
			WHERE e.contract_address = k.c AND e.token_id = k.t LIMIT `+fmt.Sprint(CountCap)+`) c) AS n
		FROM unnest($1::bytea[], $2::numeric[]) WITH ORDINALITY AS k(c, t, parent)`, contracts, ids)
}
