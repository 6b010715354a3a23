package resolvers_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
)

// NFT fixtures: an ERC-721 collection of `items` items (item i owned by one of three
// accounts, minted in block 1 and transferred in block 2) and an ERC-1155 collection with
// one item held by two accounts.
var (
	apes       = db.MustFelt("0x0a9e5")
	gems       = db.MustFelt("0x0ae35")
	nftClass   = db.MustFelt("0xacc0")
	burnAddr   = db.Felt{}
	nftOwner   = func(i int) db.Felt { return db.FeltFromUint64(uint64(0xb000 + i)) }
	blockTxKey = func(b int) db.Felt { return db.FeltFromUint64(uint64(0x7000 + b)) }
)

func seedNFTs(s *gqlServer, items int) {
	for b := 1; b <= 3; b++ {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, $3, $4, 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(0xb10c00+b)), db.FeltFromUint64(uint64(0xb10c00+b-1)), 1700000000+b*10)
		s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, execution_status, finality_status)
			VALUES ($1, 0, $2, 'INVOKE', 3, $3, felt_id($4), 'SUCCEEDED', 'ACCEPTED_ON_L2')`, b, blockTxKey(b), 1700000000+b*10, nftOwner(0))
	}
	s.exec(`INSERT INTO classes (hash, kind, cairo_version, is_account) VALUES ($1, 'sierra', 1, true)`, nftClass)
	for o := 0; o < 3; o++ {
		s.exec(`INSERT INTO contracts (address, class_hash, type) VALUES ($1, $2, 'account')`, nftOwner(o), nftClass)
	}
	s.exec(`INSERT INTO aliases (address, name) VALUES ($1, 'Alice')`, nftOwner(0))
	s.exec(`INSERT INTO tokens (address, standard, name, symbol) VALUES ($1, 'erc721', 'Apes', 'APE'), ($2, 'erc1155', 'Gems', 'GEM')`, apes, gems)
	for i := 1; i <= items; i++ {
		owner := nftOwner(i % 3)
		s.exec(`INSERT INTO nft_items (contract_address, token_id, contract_type, owner_address, name, attributes, minted_at_block)
			VALUES ($1, $2, 721, $3, $4, '[{"trait":"hat"}]', 1)`, apes, i, owner, fmt.Sprintf("Ape #%d", i))
		s.exec(`INSERT INTO nft_balances (contract_address, token_id, owner_address, balance, last_transfer_time) VALUES ($1, $2, $3, 1, 1700000020)`,
			apes, i, owner)
		// Minted to owner 2 in block 1, then sent to its owner in block 2.
		s.exec(`INSERT INTO nft_events (block_number, tx_index, event_index, contract_address, token_id, from_address, to_address, type, transaction_hash, timestamp)
			VALUES (1, 0, $1::int, $2, $1::int, $3, $4, 'Mint', $5, 1700000010), (2, 0, $1::int, $2, $1::int, $4, $6, 'Transfer', $7, 1700000020)`,
			i, apes, burnAddr, nftOwner(2), blockTxKey(1), owner, blockTxKey(2))
	}
	s.exec(`INSERT INTO nft_items (contract_address, token_id, contract_type, name) VALUES ($1, 7, 1155, 'Ruby')`, gems)
	s.exec(`INSERT INTO nft_balances (contract_address, token_id, owner_address, balance, last_transfer_time)
		VALUES ($1, 7, $2, 5, 1700000030), ($1, 7, $3, 3, 1700000030), ($1, 7, $4, 0, 1700000030)`, gems, nftOwner(0), nftOwner(1), nftOwner(2))
	s.exec(`INSERT INTO nft_events (block_number, tx_index, event_index, sub_index, contract_address, token_id, from_address, to_address, quantity, type, transaction_hash, timestamp)
		VALUES (3, 0, 0, 0, $1, 7, $2, $3, 5, 'Mint', $5, 1700000030), (3, 0, 0, 1, $1, 7, $2, $4, 3, 'Mint', $5, 1700000030)`,
		gems, burnAddr, nftOwner(0), nftOwner(1), blockTxKey(3))
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('nft_items', $1), ('nft_events', $2)`, items+1, 2*items+2)
	dbtest.DeriveAsIndexer(s.t, s.db)
}

type nftItemNode struct {
	TokenID      string
	Name         *string
	ContractType int
	OwnerAddress *string
	Attributes   []map[string]any
	Collection   *struct{ Symbol string }
	Owner        *struct {
		Address string
		Class   *struct{ Hash string }
	}
	Balance *struct {
		Balance, OwnerAddress string
		OwnerAddressAlias     *string
		Item                  *struct{ Name string }
	}
	Events struct {
		TotalCount int
		Edges      []struct {
			Node struct {
				Type, FromAddress, ToAddress string
				BlockNumber                  int
				FromAlias, ToAlias           *string
				Transaction                  struct {
					Hash  string
					Block struct{ Number int }
				}
			}
		}
	}
}

type nftItemsAnswer struct {
	NftItems struct {
		TotalCount int
		PageInfo   struct {
			HasNextPage bool
			EndCursor   *string
		}
		Edges []struct{ Node nftItemNode }
	}
}

const nftItemsDoc = `query($contract: Address, $owner: Address, $first: Int, $after: String, $events: Int) {
  nftItems(contractAddress: $contract, ownerAddress: $owner, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { node {
      tokenId name contractType ownerAddress attributes
      collection { symbol }
      owner { address class { hash } }
      balance { balance ownerAddress ownerAddressAlias item { name } }
      events(first: $events) {
        totalCount
        edges { node { type blockNumber fromAddress toAddress fromAlias toAlias transaction { hash block { number } } } }
      }
    } }
  }
}`

func TestNftItemsLinkCollectionOwnerBalanceAndEvents(t *testing.T) {
	s := newGQLServer(t)
	seedNFTs(s, 5)

	var out nftItemsAnswer
	s.mustQuery(nftItemsDoc, map[string]any{"contract": apes.Hex(), "first": 2, "events": 5}, &out)
	items := out.NftItems
	if items.TotalCount != 5 || len(items.Edges) != 2 || !items.PageInfo.HasNextPage {
		t.Fatalf("want 2 of 5 items with a next page, got %d of %d (next %v)", len(items.Edges), items.TotalCount, items.PageInfo.HasNextPage)
	}
	first := items.Edges[0].Node
	if first.TokenID != "1" || first.Name == nil || *first.Name != "Ape #1" || first.ContractType != 721 {
		t.Errorf("first item: got %+v", first)
	}
	if len(first.Attributes) != 1 || first.Attributes[0]["trait"] != "hat" {
		t.Errorf("attributes pass through as JSON, got %v", first.Attributes)
	}
	if first.Collection == nil || first.Collection.Symbol != "APE" {
		t.Errorf("collection: got %+v", first.Collection)
	}
	if first.Owner == nil || first.Owner.Address != nftOwner(1).Padded() || first.Owner.Class == nil || first.Owner.Class.Hash != nftClass.Padded() {
		t.Errorf("item 1 belongs to owner 1 (class 0xacc0), got %+v", first.Owner)
	}
	if b := first.Balance; b == nil || b.Balance != "1" || b.OwnerAddress != nftOwner(1).Padded() || b.Item == nil || b.Item.Name != "Ape #1" {
		t.Errorf("balance of item 1: got %+v", first.Balance)
	}
	ev := first.Events
	if ev.TotalCount != 2 || len(ev.Edges) != 2 {
		t.Fatalf("item 1 has 2 events, got %d of %d", len(ev.Edges), ev.TotalCount)
	}
	if e := ev.Edges[0].Node; e.Type != "Transfer" || e.BlockNumber != 2 || e.Transaction.Hash != blockTxKey(2).Hex() || e.Transaction.Block.Number != 2 {
		t.Errorf("newest event first (the transfer in block 2), got %+v", e)
	}
	if e := ev.Edges[1].Node; e.Type != "Mint" || e.FromAddress != burnAddr.Padded() || e.ToAlias != nil {
		t.Errorf("mint from zero to owner 2, got %+v", e)
	}
	// Item 3 belongs to owner 0, who has an alias.
	s.mustQuery(nftItemsDoc, map[string]any{"contract": apes.Hex(), "first": 1, "after": *items.PageInfo.EndCursor, "events": 1}, &out)
	third := out.NftItems.Edges[0].Node
	if third.TokenID != "3" {
		t.Fatalf("after the cursor of item 2 comes item 3, got %s", third.TokenID)
	}
	if third.Balance == nil || third.Balance.OwnerAddressAlias == nil || *third.Balance.OwnerAddressAlias != "Alice" {
		t.Errorf("owner alias: got %+v", third.Balance)
	}
	if e := third.Events.Edges[0].Node; e.ToAlias == nil || *e.ToAlias != "Alice" {
		t.Errorf("event toAlias: got %+v", e)
	}
}

func TestNftItemsOfOwnerIncludeERC1155Balances(t *testing.T) {
	s := newGQLServer(t)
	seedNFTs(s, 5)
	var out nftItemsAnswer
	s.mustQuery(nftItemsDoc, map[string]any{"owner": nftOwner(0).Hex(), "first": 10, "events": 1}, &out)
	var got []string
	for _, e := range out.NftItems.Edges {
		got = append(got, e.Node.TokenID)
	}
	// Owner 0 holds apes 3 (ERC-721) and the gem (ERC-1155, through its balance). The
	// apes sort first by collection address.
	if fmt.Sprint(got) != "[3 7]" || out.NftItems.TotalCount != 2 {
		t.Fatalf("owner 0's items: got %v (total %d), want [3 7]", got, out.NftItems.TotalCount)
	}
	gem := out.NftItems.Edges[1].Node
	if gem.OwnerAddress != nil || gem.Owner != nil {
		t.Errorf("ERC-1155 items have no single owner, got %v", gem.OwnerAddress)
	}
	if gem.Balance == nil || gem.Balance.Balance != "5" || gem.Balance.OwnerAddress != nftOwner(0).Padded() {
		t.Errorf("an ERC-1155 item's balance is its largest holder's, got %+v", gem.Balance)
	}
	// Owner 2 holds a zero balance of the gem: not an item of theirs.
	s.mustQuery(nftItemsDoc, map[string]any{"owner": nftOwner(2).Hex(), "contract": gems.Hex(), "events": 1}, &out)
	if len(out.NftItems.Edges) != 0 || out.NftItems.TotalCount != 0 {
		t.Errorf("a zero balance is not ownership, got %d items", len(out.NftItems.Edges))
	}
}

// Every parent -> child link of a page of items is one statement, whatever the sizes.
func TestNftItemsNestedCostIsConstant(t *testing.T) {
	s := newGQLServer(t)
	seedNFTs(s, 30)
	// The felts of rows read by id (the transactions') are read once and then kept
	// (db.Store.feltsOf): they are not counted.
	var felts int64
	s.store.OnQuery = func(q string, _ []any) {
		if strings.Contains(q, "FROM felt_ids WHERE id = ANY") {
			felts++
		}
	}
	t.Cleanup(func() { s.store.OnQuery = nil })
	cost := func(first, events int) int64 {
		before := s.store.Statements()
		felts = 0
		var out nftItemsAnswer
		s.mustQuery(nftItemsDoc, map[string]any{"contract": apes.Hex(), "first": first, "events": events}, &out)
		if len(out.NftItems.Edges) != first {
			t.Fatalf("want %d items, got %d", first, len(out.NftItems.Edges))
		}
		for _, e := range out.NftItems.Edges {
			n := e.Node
			if n.Owner == nil || n.Owner.Class == nil || n.Balance == nil || n.Balance.Item == nil || len(n.Events.Edges) != events {
				t.Fatalf("item %s lacks linked data: %+v", n.TokenID, n)
			}
		}
		return s.store.Statements() - before - felts
	}
	// items, total, tokens, contracts, classes, balances, aliases, item, events, event
	// totals, transactions, blocks; aliases are asked at two depths, which the loader
	// batches into one statement or two depending on timing.
	for _, c := range []struct{ first, events int }{{1, 1}, {25, 2}} {
		if n := cost(c.first, c.events); n > 13 {
			t.Errorf("%d items with %d events each took %d statements, want at most 13", c.first, c.events, n)
		}
	}
}

func TestNftEventsNewestFirstWithKeysetCursor(t *testing.T) {
	s := newGQLServer(t)
	seedNFTs(s, 3)
	const doc = `query($contract: Address, $token: BigInt, $after: String) {
	  nftEvents(contractAddress: $contract, tokenId: $token, first: 2, after: $after) {
	    totalCount pageInfo { hasNextPage endCursor }
	    edges { node { blockNumber tokenId type quantity collection { symbol } item { name } } }
	  }
	}`
	type answer struct {
		NftEvents connection[struct {
			BlockNumber      int
			TokenID, Type    string
			Quantity         string
			Collection, Item map[string]any
		}]
	}
	var all []string
	after := ""
	for page := 0; page < 10; page++ {
		vars := map[string]any{}
		if after != "" {
			vars["after"] = after
		}
		var out answer
		s.mustQuery(doc, vars, &out)
		if out.NftEvents.TotalCount != 8 {
			t.Fatalf("total from list_counts: want 8, got %d", out.NftEvents.TotalCount)
		}
		for _, e := range out.NftEvents.Edges {
			all = append(all, fmt.Sprintf("%d:%s:%s", e.Node.BlockNumber, e.Node.TokenID, e.Node.Quantity))
		}
		if !out.NftEvents.PageInfo.HasNextPage {
			break
		}
		after = out.NftEvents.PageInfo.EndCursor
	}
	// Block 3: the gem batch (sub index 1 first), then blocks 2 and 1 by event index, desc.
	want := "[3:7:3 3:7:5 2:3:1 2:2:1 2:1:1 1:3:1 1:2:1 1:1:1]"
	if fmt.Sprint(all) != want {
		t.Fatalf("walked events: got %v, want %s", all, want)
	}

	var one answer
	s.mustQuery(doc, map[string]any{"contract": apes.Hex(), "token": "2"}, &one)
	if one.NftEvents.TotalCount != 2 || len(one.NftEvents.Edges) != 2 || one.NftEvents.Edges[0].Node.Type != "Transfer" {
		t.Fatalf("events of ape 2: got %+v", one.NftEvents)
	}
	if one.NftEvents.Edges[0].Node.Item["name"] != "Ape #2" || one.NftEvents.Edges[0].Node.Collection["symbol"] != "APE" {
		t.Errorf("event links: got %+v", one.NftEvents.Edges[0].Node)
	}

	resp, _ := s.query(doc, map[string]any{"token": "2"})
	if len(resp.Errors) == 0 || resp.Errors[0].Extensions["argument"] != "tokenId" {
		t.Errorf("tokenId without contractAddress: want a tokenId error, got %+v", resp.Errors)
	}
}

func TestNftHoldersAndOwnedNfts(t *testing.T) {
	s := newGQLServer(t)
	seedNFTs(s, 5)
	const holdersDoc = `query($contract: Address!, $token: BigInt) {
	  nftHolders(contractAddress: $contract, tokenId: $token) {
	    totalCount edges { node { ownerAddress balance tokenId ownerAddressAlias owner { address } collection { name } } }
	  }
	}`
	type holders struct {
		NftHolders struct {
			TotalCount int
			Edges      []struct {
				Node struct {
					OwnerAddress, Balance, TokenID string
					OwnerAddressAlias              *string
					Owner                          *struct{ Address string }
					Collection                     *struct{ Name string }
				}
			}
		}
	}
	var out holders
	s.mustQuery(holdersDoc, map[string]any{"contract": apes.Hex()}, &out)
	// Apes 1..5: owner 1 holds 1 and 4, owner 2 holds 2 and 5, owner 0 holds 3.
	var got []string
	for _, e := range out.NftHolders.Edges {
		got = append(got, e.Node.Balance+"@"+e.Node.OwnerAddress[len(e.Node.OwnerAddress)-4:])
	}
	if fmt.Sprint(got) != "[2@b002 2@b001 1@b000]" || out.NftHolders.TotalCount != 3 {
		t.Fatalf("collection holders by balance: got %v (total %d)", got, out.NftHolders.TotalCount)
	}
	if n := out.NftHolders.Edges[2].Node; n.OwnerAddressAlias == nil || *n.OwnerAddressAlias != "Alice" || n.Owner == nil || n.Collection == nil || n.Collection.Name != "Apes" {
		t.Errorf("holder links: got %+v", n)
	}
	s.mustQuery(holdersDoc, map[string]any{"contract": gems.Hex(), "token": "7"}, &out)
	if len(out.NftHolders.Edges) != 2 || out.NftHolders.Edges[0].Node.Balance != "5" || out.NftHolders.TotalCount != 2 {
		t.Fatalf("holders of gem 7 (positive balances only): got %+v", out.NftHolders)
	}

	// Contract.nfts and Wallet.nfts: one statement per link across the list of owners.
	const ownedDoc = `query($first: Int!, $contract: Address) {
	  contracts(first: 10, type: ACCOUNT) { edges { node { address
	    nfts(first: $first, contractAddress: $contract) { totalCount edges { node { tokenId balance item { name } } } }
	  } } }
	  wallet(address: "0xb001") { address nfts(first: 1) { totalCount pageInfo { hasNextPage } edges { node { tokenId } } } }
	}`
	type owned struct {
		Contracts struct {
			Edges []struct {
				Node struct {
					Address string
					Nfts    struct {
						TotalCount int
						Edges      []struct {
							Node struct {
								TokenID, Balance string
								Item             *struct{ Name string }
							}
						}
					}
				}
			}
		}
		Wallet struct {
			Address string
			Nfts    struct {
				TotalCount int
				PageInfo   struct{ HasNextPage bool }
				Edges      []struct{ Node struct{ TokenID string } }
			}
		}
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('contracts:account', 3)`)
	before := s.store.Statements()
	var o owned
	s.mustQuery(ownedDoc, map[string]any{"first": 5}, &o)
	cost := s.store.Statements() - before
	byOwner := map[string]string{}
	for _, e := range o.Contracts.Edges {
		var ids []string
		for _, n := range e.Node.Nfts.Edges {
			ids = append(ids, n.Node.TokenID)
			if n.Node.Item == nil {
				t.Errorf("owned NFT %s lacks its item", n.Node.TokenID)
			}
		}
		byOwner[e.Node.Address[len(e.Node.Address)-4:]] = fmt.Sprintf("%v/%d", ids, e.Node.Nfts.TotalCount)
	}
	if fmt.Sprint(byOwner) != "map[b000:[3 7]/2 b001:[1 4 7]/3 b002:[2 5]/2]" {
		t.Errorf("NFTs per owner: got %v", byOwner)
	}
	if o.Wallet.Address != nftOwner(1).Padded() || o.Wallet.Nfts.TotalCount != 3 || !o.Wallet.Nfts.PageInfo.HasNextPage || o.Wallet.Nfts.Edges[0].Node.TokenID != "1" {
		t.Errorf("wallet nfts: got %+v", o.Wallet)
	}
	// contracts, their total, owned pages (two windows: 5 and 1), owned totals, items.
	if cost > 6 {
		t.Errorf("3 owners' NFTs and a wallet's took %d statements, want at most 6", cost)
	}
	s.mustQuery(ownedDoc, map[string]any{"first": 5, "contract": gems.Hex()}, &o)
	for _, e := range o.Contracts.Edges {
		for _, n := range e.Node.Nfts.Edges {
			if n.Node.TokenID != "7" {
				t.Errorf("filtered to the gem collection, got token %s", n.Node.TokenID)
			}
		}
	}
}

func TestNftArgumentsAreChecked(t *testing.T) {
	s := newGQLServer(t)
	cases := []struct{ doc, arg string }{
		{`{ nftItems(first: 1000) { totalCount } }`, "first"},
		{`{ nftItems(after: "not-a-cursor") { totalCount } }`, "after"},
		{`{ nftEvents(first: -1) { totalCount } }`, "first"},
		{`{ nftHolders(contractAddress: "0x1", first: 101) { totalCount } }`, "first"},
	}
	for _, c := range cases {
		resp, status := s.query(c.doc, nil)
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["argument"] != c.arg || status >= 500 {
			t.Errorf("%s: want an error naming %s, got status %d, %+v", c.doc, c.arg, status, resp.Errors)
		}
	}
	// A cursor of another list is refused, not misread.
	var blocks struct {
		Blocks struct{ PageInfo struct{ EndCursor *string } }
	}
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (1, '\x01', '\x00', 1, 'ACCEPTED_ON_L2'), (2, '\x02', '\x01', 2, 'ACCEPTED_ON_L2')`)
	s.mustQuery(`{ blocks(first: 1) { pageInfo { endCursor } } }`, nil, &blocks)
	resp, _ := s.query(`query($a: String) { nftEvents(after: $a) { totalCount } }`, map[string]any{"a": *blocks.Blocks.PageInfo.EndCursor})
	if len(resp.Errors) == 0 || resp.Errors[0].Extensions["argument"] != "after" {
		t.Errorf("a blocks cursor on nftEvents: got %+v", resp.Errors)
	}
}

// A refresh of an item that is not indexed is refused as NOT_FOUND, naming the argument
// (REST turns it into a 404 about token_id).
func TestMetadataRefreshOfAnUnknownItem(t *testing.T) {
	s := newGQLServer(t)
	seedNFTs(s, 2)
	out, status := s.query(`mutation($c: Address!) { requestNftMetadataUpdate(contractAddress: $c, tokenId: "999") }`,
		map[string]any{"c": apes.Hex()})
	if status != 200 || len(out.Errors) != 1 {
		t.Fatalf("status %d, errors %+v; want one error", status, out.Errors)
	}
	if e := out.Errors[0]; e.Extensions["code"] != resolvers.CodeNotFound || e.Extensions["argument"] != "tokenId" {
		t.Errorf("error %q %v; want NOT_FOUND about tokenId", e.Message, e.Extensions)
	}
}
