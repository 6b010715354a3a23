package resolvers_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// seedTokens writes nTokens ERC-20 tokens, each held by holders accounts (contracts of
// one of three classes) with distinct balances.
func seedTokens(s *gqlServer, nTokens, holders int) {
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (1, '\x01', '\x00', 1700000000, 'ACCEPTED_ON_L2')`)
	for c := 0; c < 3; c++ {
		s.exec(`INSERT INTO classes (hash, kind, cairo_version, version, is_account, declared_block) VALUES ($1, 'sierra', 1, '0.1.0', $2, 1)`,
			db.FeltFromUint64(uint64(0xc1a550+c)), c == 0)
	}
	for h := 0; h < holders; h++ {
		s.exec(`INSERT INTO contracts (address, class_hash, type, deployed_block, deployed_at) VALUES ($1, $2, 'account', 1, 1700000000)`,
			holderAddr(h), db.FeltFromUint64(uint64(0xc1a550+h%3)))
	}
	for tk := 0; tk < nTokens; tk++ {
		s.exec(`INSERT INTO tokens (address, standard, name, symbol, decimals, holder_count, transfer_count) VALUES ($1, 'erc20', $2, $3, 18, $4, $5)`,
			tokenAddr(tk), fmt.Sprintf("Token %d", tk), fmt.Sprintf("T%d", tk), holders, 1000-tk)
		for h := 0; h < holders; h++ {
			s.exec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time) VALUES ($1, $2, $3, 1, 1700000000)`,
				tokenAddr(tk), holderAddr(h), (h+1)*1000+tk)
		}
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('tokens:erc20', $1)`, nTokens)
}

func tokenAddr(i int) db.Felt  { return db.FeltFromBig(new(big.Int).Lsh(big.NewInt(int64(i+1)), 200)) }
func holderAddr(i int) db.Felt { return db.FeltFromUint64(uint64(0xa000 + i)) }

const tokensHoldersDoc = `query($tokens: Int!, $holders: Int!) {
  tokens(first: $tokens) {
    totalCount
    edges { node {
      address symbol holderCount
      holders(first: $holders) {
        totalCount
        edges { node { balance ownerAddress owner { address class { hash isAccount } } } }
      }
    } }
  }
}`

type tokensHolders struct {
	Tokens struct {
		TotalCount int
		Edges      []struct {
			Node struct {
				Address, Symbol, HolderCount string
				Holders                      struct {
					TotalCount int
					Edges      []struct {
						Node struct {
							Balance, OwnerAddress string
							Owner                 *struct {
								Address string
								Class   *struct {
									Hash      string
									IsAccount bool
								}
							}
						}
					}
				}
			}
		}
	}
}

func TestTokensHoldersContractClassAreLinked(t *testing.T) {
	s := newGQLServer(t)
	seedTokens(s, 3, 4)

	var out tokensHolders
	s.mustQuery(tokensHoldersDoc, map[string]any{"tokens": 10, "holders": 2}, &out)
	if out.Tokens.TotalCount != 3 || len(out.Tokens.Edges) != 3 {
		t.Fatalf("want 3 tokens, got total %d, %d edges", out.Tokens.TotalCount, len(out.Tokens.Edges))
	}
	first := out.Tokens.Edges[0].Node
	// Equal holder counts: the larger address first (T2's address is the largest).
	if first.Symbol != "T2" || first.HolderCount != "4" {
		t.Errorf("first token by holders then address: got %s with %s holders", first.Symbol, first.HolderCount)
	}
	if !strings.HasPrefix(first.Address, "0x") || len(first.Address) != 66 {
		t.Errorf("addresses are 0x + 64 hex digits, got %q", first.Address)
	}
	holders := first.Holders.Edges
	if len(holders) != 2 || first.Holders.TotalCount != 4 {
		t.Fatalf("want 2 of 4 holders, got %d of %d", len(holders), first.Holders.TotalCount)
	}
	// Largest balance first: holder 3 has 4002 of T2, holder 2 has 3002.
	if holders[0].Node.Balance != "4002" || holders[1].Node.Balance != "3002" {
		t.Errorf("holders by balance: got %s, %s", holders[0].Node.Balance, holders[1].Node.Balance)
	}
	h := holders[0].Node
	if h.Owner == nil || h.Owner.Address != holderAddr(3).Padded() || h.OwnerAddress != holderAddr(3).Padded() {
		t.Fatalf("holder's contract: got %+v", h.Owner)
	}
	if h.Owner.Class == nil || h.Owner.Class.Hash != db.FeltFromUint64(0xc1a550).Padded() || !h.Owner.Class.IsAccount {
		t.Errorf("holder 3's class is 0xc1a550 (an account class), got %+v", h.Owner.Class)
	}
}

// The statement count of a nested document does not grow with its page sizes: each
// parent -> child link is one batched statement.
func TestNestedQueryCostsConstantStatements(t *testing.T) {
	s := newGQLServer(t)
	seedTokens(s, 25, 12)

	count := func(tokens, holders int) int64 {
		before := s.store.Statements()
		var out tokensHolders
		s.mustQuery(tokensHoldersDoc, map[string]any{"tokens": tokens, "holders": holders}, &out)
		if len(out.Tokens.Edges) != tokens {
			t.Fatalf("want %d tokens, got %d", tokens, len(out.Tokens.Edges))
		}
		for _, e := range out.Tokens.Edges {
			if len(e.Node.Holders.Edges) != holders {
				t.Fatalf("token %s: want %d holders, got %d", e.Node.Symbol, holders, len(e.Node.Holders.Edges))
			}
			for _, h := range e.Node.Holders.Edges {
				if h.Node.Owner == nil || h.Node.Owner.Class == nil {
					t.Fatalf("holder %s lacks its contract or class", h.Node.OwnerAddress)
				}
			}
		}
		return s.store.Statements() - before
	}
	small := count(2, 1)
	large := count(25, 10)
	// tokens, their total, holders, contracts, classes.
	if large > 5 {
		t.Errorf("25 tokens x 10 holders x contract x class took %d statements, want at most 5", large)
	}
	if large != small {
		t.Errorf("statements grew with page sizes: %d for 2x1, %d for 25x10", small, large)
	}
}
