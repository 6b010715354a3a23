package resolvers_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// seedTokens writes, with the store's own write methods, nTokens ERC-20 tokens, each held
// by holders accounts (contracts of one of three classes) with distinct balances.
func seedTokens(s *gqlServer, nTokens, holders int) {
	s.t.Helper()
	ctx := context.Background()
	write, err := db.BeginWrite(ctx, s.db)
	if err != nil {
		s.t.Fatal(err)
	}
	defer write.Rollback()
	tx := write.Tx
	block, at := int64(1), int64(1700000000)
	check := func(err error) {
		s.t.Helper()
		if err != nil {
			s.t.Fatal(err)
		}
	}
	check(db.InsertChainRows(ctx, write, &db.ChainRows{Blocks: []db.BlockRow{{
		Number: block, Hash: db.FeltFromUint64(1), ParentHash: db.FeltFromUint64(0), Timestamp: at, Status: "ACCEPTED_ON_L2",
	}}}))
	var classes []db.Class
	for c := 0; c < 3; c++ {
		classes = append(classes, db.Class{Hash: classHash(c), Kind: "sierra", CairoVersion: 1, Version: "0.1.0",
			IsAccount: c == 0, DeclaredBlock: &block, DeclaredAt: &at})
	}
	check(db.UpsertClasses(ctx, tx, classes))
	var contracts []db.Contract
	for h := 0; h < holders; h++ {
		contracts = append(contracts, db.Contract{Address: holderAddr(h), ClassHash: classHash(h % 3), Type: "account",
			Nonce: "0", DeployedBlock: &block, DeployedAt: &at})
	}
	check(db.UpsertContracts(ctx, tx, contracts))
	var tokens []db.TokenRow
	var balances []db.TokenBalance
	for tk := 0; tk < nTokens; tk++ {
		name, symbol, decimals := fmt.Sprintf("Token %d", tk), fmt.Sprintf("T%d", tk), int16(18)
		tokens = append(tokens, db.TokenRow{Address: tokenAddr(tk), Standard: "erc20", Name: &name, Symbol: &symbol,
			Decimals: &decimals, HolderCount: int64(holders), TransferCount: int64(1000 - tk), FirstBlock: &block})
		for h := 0; h < holders; h++ {
			balances = append(balances, db.TokenBalance{TokenAddress: tokenAddr(tk), OwnerAddress: holderAddr(h),
				Balance: fmt.Sprint((h+1)*1000 + tk), LastTransferBlock: block, LastTransferTime: at})
		}
	}
	check(db.UpsertTokens(ctx, tx, tokens))
	check(db.UpsertERC20Balances(ctx, tx, balances))
	check(db.AddListCounts(ctx, tx, map[string]int64{"tokens:erc20": int64(nTokens)}))
	check(tx.Commit())
}

func classHash(i int) db.Felt  { return db.FeltFromUint64(uint64(0xc1a550 + i)) }
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
	if h.Owner.Class == nil || h.Owner.Class.Hash != classHash(0).Padded() || !h.Owner.Class.IsAccount {
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

// Holders are ordered by the numeric balance, not its text: balances of different digit
// counts ("999..." and "1000...") must come out largest first.
func TestHoldersOrderedByNumericBalance(t *testing.T) {
	s := newGQLServer(t)
	seedTokens(s, 1, 1)
	ctx := context.Background()
	tx := s.db.MustBeginTx(ctx, nil)
	defer tx.Rollback()
	balances := []string{"999999998000000000000000", "1000290561000000000000000", "99", "1000", "120000000000000000000000000"}
	var rows []db.TokenBalance
	for i, b := range balances {
		rows = append(rows, db.TokenBalance{TokenAddress: tokenAddr(0), OwnerAddress: holderAddr(100 + i), Balance: b, LastTransferBlock: 1, LastTransferTime: 1})
	}
	if err := db.UpsertERC20Balances(ctx, tx, rows); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var out tokensHolders
	s.mustQuery(tokensHoldersDoc, map[string]any{"tokens": 1, "holders": 10}, &out)
	var got []string
	for _, e := range out.Tokens.Edges[0].Node.Holders.Edges {
		got = append(got, e.Node.Balance)
	}
	want := []string{"120000000000000000000000000", "1000290561000000000000000", "999999998000000000000000", "1000", "1000", "99"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("holders by balance:\n got %v\nwant %v", got, want)
	}
}
