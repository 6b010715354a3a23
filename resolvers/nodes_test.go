package resolvers_test

import (
	"encoding/json"
	"testing"
)

// node(id) gives back every kind of Node it was given the id of, nodes(ids) all of them in
// order with one statement per kind, and ids that were made up are refused or null.
func TestNodeRoundTrips(t *testing.T) {
	s := indexedSim(t, 4, 40, 10)

	// One object of each kind, with its id and the key it is found by.
	var first struct {
		Blocks struct {
			Edges []struct{ Node map[string]any }
		}
		Transactions struct {
			Edges []struct {
				Node struct {
					ID, Hash string
					Events   struct {
						Edges []struct{ Node map[string]any }
					}
				}
			}
		}
		Contracts struct {
			Edges []struct {
				Node struct {
					ID, Address string
					Class       map[string]any
				}
			}
		}
		Tokens struct {
			Edges []struct{ Node map[string]any }
		}
		Nfts struct {
			Edges []struct{ Node map[string]any }
		}
		Validators struct {
			Edges []struct {
				Node struct {
					ID, Address string
					Pools       []map[string]any
				}
			}
		}
		Messages struct {
			Edges []struct{ Node map[string]any }
		}
	}
	s.mustQuery(`{
	  blocks(first: 1) { edges { node { id number } } }
	  transactions(first: 1, filter: {type: INVOKE}) { edges { node { id hash events(first: 1) { edges { node { id blockNumber index } } } } } }
	  contracts(first: 1) { edges { node { id address class { id classHash: hash } } } }
	  tokens(first: 1) { edges { node { id address } } }
	  nfts: tokens(first: 1, standard: ERC721) { edges { node { address } } }
	  validators(first: 1) { edges { node { id address pools { id address } } } }
	  messages(first: 1) { edges { node { id hash blockNumber } } }
	}`, nil, &first)
	var nft struct {
		NftItems struct {
			Edges []struct{ Node map[string]any }
		}
	}
	s.mustQuery(`query($c: Address) { nftItems(first: 1, contractAddress: $c) { edges { node { id contractAddress tokenId } } } }`,
		map[string]any{"c": first.Nfts.Edges[0].Node["address"]}, &nft)

	tx := first.Transactions.Edges[0].Node
	contract := first.Contracts.Edges[0].Node
	validator := first.Validators.Edges[0].Node
	// kind -> the object as its list showed it (its id, and the fields that identify it).
	want := map[string]map[string]any{
		"Block":       first.Blocks.Edges[0].Node,
		"Transaction": {"id": tx.ID, "hash": tx.Hash},
		"Event":       tx.Events.Edges[0].Node,
		"Contract":    {"id": contract.ID, "address": contract.Address},
		"Class":       contract.Class,
		"Token":       first.Tokens.Edges[0].Node,
		"NftItem":     nft.NftItems.Edges[0].Node,
		"Validator":   {"id": validator.ID, "address": validator.Address},
		"Pool":        validator.Pools[0],
		"Message":     first.Messages.Edges[0].Node,
	}
	const fields = `__typename
	  ... on Block { id number } ... on Transaction { id hash } ... on Event { id blockNumber index }
	  ... on Contract { id address } ... on Class { id classHash: hash } ... on Token { id address }
	  ... on NftItem { id contractAddress tokenId } ... on Validator { id address } ... on Pool { id address }
	  ... on Message { id hash blockNumber }`
	var ids []string
	kinds := []string{}
	for kind, obj := range want {
		id, _ := obj["id"].(string)
		if id == "" {
			t.Fatalf("%s has no id: %v", kind, obj)
		}
		var out struct{ Node map[string]any }
		s.mustQuery(`query($id: ID!) { node(id: $id) { `+fields+` } }`, map[string]any{"id": id}, &out)
		got := out.Node
		if got["__typename"] != kind {
			t.Errorf("node(%s) is a %v, want a %s", id, got["__typename"], kind)
		}
		delete(got, "__typename")
		if a, b := jsonOf(got), jsonOf(obj); a != b {
			t.Errorf("node(id) of a %s: %s, want %s", kind, a, b)
		}
		ids, kinds = append(ids, id), append(kinds, kind)
	}
	if len(want) != 10 {
		t.Fatalf("%d kinds", len(want))
	}

	// All at once, in order, with one statement per kind at most, and one more for the
	// transactions: their positions by hash, then their rows (db.Store.TransactionsByHash).
	before := s.store.Statements()
	var all struct{ Nodes []map[string]any }
	s.mustQuery(`query($ids: [ID!]!) { nodes(ids: $ids) { `+fields+` } }`, map[string]any{"ids": ids}, &all)
	if n := s.store.Statements() - before; n > 11 {
		t.Errorf("nodes of 10 kinds ran %d statements", n)
	}
	for i, got := range all.Nodes {
		if got["__typename"] != kinds[i] || got["id"] != ids[i] {
			t.Errorf("nodes[%d] = %v, want the %s %s", i, got, kinds[i], ids[i])
		}
	}

	// A well-formed id of nothing is null; made-up ids are refused.
	var none struct{ Node map[string]any }
	s.mustQuery(`{ node(id: "QmxvY2s6OTk5OTk") { id } }`, nil, &none) // Block:99999
	if none.Node != nil {
		t.Errorf("a block that is not indexed: %v", none.Node)
	}
	for _, id := range []string{"junk!", "QmxvY2s6LTE", "V2lkZ2V0OjE", "QmxvY2s", "VHJhbnNhY3Rpb246MHh6eg"} { // Block:-1, Widget:1, Block, Transaction:0xzz
		resp, _ := s.query(`query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Errorf("node(%q): %+v, want BAD_USER_INPUT", id, resp.Errors)
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
