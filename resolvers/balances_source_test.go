package resolvers_test

import "testing"

// Token.balancesSource and storageCheckedBlock tell how the indexer knows a token's balances
// (tokens.balances_source, migration 00057); a token row written before says EVENTS.
func TestTokenBalancesSource(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO tokens (address, standard, holder_count) VALUES ('\x0a', 'erc20', 1), ('\x0b', 'erc20', 2), ('\x0c', 'erc20', 3)`)
	s.exec(`UPDATE tokens SET balances_source = 'storage', storage_checked_block = 7 WHERE address = '\x0a'`)
	s.exec(`UPDATE tokens SET balances_source = 'events_match_storage', storage_checked_block = 9 WHERE address = '\x0b'`)
	for addr, want := range map[string]struct {
		source string
		block  *int
	}{"0xa": {"STORAGE", ptr(7)}, "0xb": {"EVENTS_MATCH_STORAGE", ptr(9)}, "0xc": {"EVENTS", nil}} {
		var out struct {
			Token struct {
				BalancesSource      string
				StorageCheckedBlock *int
			}
		}
		s.mustQuery(`query($a: Address!) { token(address: $a) { balancesSource storageCheckedBlock } }`, map[string]any{"a": addr}, &out)
		got := out.Token
		if got.BalancesSource != want.source || (got.StorageCheckedBlock == nil) != (want.block == nil) ||
			got.StorageCheckedBlock != nil && *got.StorageCheckedBlock != *want.block {
			t.Errorf("token %s: %+v, want %s at %v", addr, got, want.source, want.block)
		}
	}
}

// Token.callBalance answers the balance read by a call and its block, null where none was.
func TestTokenCallBalance(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO tokens (address, standard, holder_count, balances_source) VALUES ('\x0a', 'erc20', 1, 'calls')`)
	s.exec(`INSERT INTO call_balances (token_address, owner_address, balance, read_block) VALUES ('\x0a', '\x0b', 1234567890123456789012, 41)`)
	var out struct {
		Token struct {
			BalancesSource string
			Held           *struct {
				Balance   string
				ReadBlock int
			}
			None *struct{ Balance string }
		}
	}
	s.mustQuery(`{ token(address: "0xa") { balancesSource held: callBalance(holder: "0xb") { balance readBlock } none: callBalance(holder: "0xc") { balance } } }`, nil, &out)
	if out.Token.BalancesSource != "CALLS" || out.Token.Held == nil || out.Token.Held.Balance != "1234567890123456789012" ||
		out.Token.Held.ReadBlock != 41 || out.Token.None != nil {
		t.Errorf("%+v", out.Token)
	}
}

func ptr(v int) *int { return &v }
