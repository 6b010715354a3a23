package resolvers_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

const searchDoc = `query($q: String!, $n: Int) { search(query: $q, first: $n) {
	__typename ... on Block { number hash } ... on Transaction { hash } ... on Contract { address }
	... on Class { classHash: hash } ... on Token { address symbol name } ... on Validator { address } } }`

// search on an indexed simulated chain, for each kind of input.
func TestSearch(t *testing.T) {
	s := indexedSim(t, 6, 30, 10)

	search := func(q string) []map[string]any {
		t.Helper()
		var out struct{ Search []map[string]any }
		s.mustQuery(searchDoc, map[string]any{"q": q}, &out)
		return out.Search
	}
	has := func(results []map[string]any, kind, field, value string) bool {
		for _, r := range results {
			if r["__typename"] == kind && r[field] == value {
				return true
			}
		}
		return false
	}
	var row struct {
		BlockHash, TxHash, Contract, Class, Token, Validator db.Felt
		Symbol, Name                                         string
	}
	if err := s.db.Get(&row, `SELECT (SELECT hash FROM blocks WHERE number = 7) AS blockhash,
		(SELECT hash FROM transactions ORDER BY block_number DESC, tx_index LIMIT 1) AS txhash,
		(SELECT address FROM contracts WHERE type = 'account' ORDER BY address LIMIT 1) AS contract,
		(SELECT hash FROM classes ORDER BY hash LIMIT 1) AS class,
		(SELECT address FROM tokens WHERE symbol IS NOT NULL ORDER BY holder_count DESC, address LIMIT 1) AS token,
		(SELECT staker_address FROM validators ORDER BY staker_address LIMIT 1) AS validator,
		(SELECT symbol FROM tokens WHERE symbol IS NOT NULL ORDER BY holder_count DESC, address LIMIT 1) AS symbol,
		(SELECT name FROM tokens WHERE symbol IS NOT NULL ORDER BY holder_count DESC, address LIMIT 1) AS name`); err != nil {
		t.Fatal(err)
	}

	// A block number; a full hash or address of each kind, in any case and padding.
	if r := search("7"); len(r) != 1 || r[0]["__typename"] != "Block" || r[0]["number"] != 7.0 {
		t.Errorf("block 7: %v", r)
	}
	for _, c := range []struct{ q, kind, field, value string }{
		{row.BlockHash.Hex(), "Block", "hash", row.BlockHash.Hex()},
		{strings.ToUpper(row.TxHash.Padded()[2:]), "Transaction", "hash", row.TxHash.Hex()},
		{row.Contract.Padded(), "Contract", "address", row.Contract.Padded()},
		{row.Class.Hex(), "Class", "classHash", row.Class.Padded()},
		{row.Token.Padded(), "Token", "address", row.Token.Padded()},
		{row.Validator.Hex(), "Validator", "address", row.Validator.Padded()},
	} {
		q := c.q
		if !strings.HasPrefix(q, "0x") {
			q = "0x" + q
		}
		if r := search(q); !has(r, c.kind, c.field, c.value) || r[0][c.field] != c.value {
			t.Errorf("the full %s %s: %v, want it first", c.kind, q, r)
		}
	}

	// Hex prefixes of 6 and more digits, of the padded form and of the form without its
	// leading zero: the exact object is among them.
	for _, c := range []struct{ q, kind, field, value string }{
		{row.TxHash.Padded()[:10], "Transaction", "hash", row.TxHash.Hex()},
		{"0x" + strings.TrimPrefix(row.TxHash.Padded()[2:], "0")[:8], "Transaction", "hash", row.TxHash.Hex()},
		{row.Contract.Padded()[:12], "Contract", "address", row.Contract.Padded()},
		{row.Class.Padded()[:9], "Class", "classHash", row.Class.Padded()},
	} {
		if r := search(c.q); !has(r, c.kind, c.field, c.value) {
			t.Errorf("prefix %s: %v, want the %s %s", c.q, r, c.kind, c.value)
		}
	}

	// A token by the start of its symbol or name, in any case; the exact symbol first.
	if r := search(strings.ToLower(row.Symbol)); len(r) == 0 || r[0]["address"] != row.Token.Padded() {
		t.Errorf("the symbol %s: %v, want its token first", row.Symbol, r)
	}
	if r := search(strings.ToUpper(row.Name[:4])); !has(r, "Token", "address", row.Token.Padded()) {
		t.Errorf("the start of %q: %v", row.Name, r)
	}

	// Nothing found is an empty list; bad input is refused.
	for _, q := range []string{"99999999", "0x1234567890abc", "0x12345", "no such token zz", "100%_"} {
		if r := search(q); len(r) != 0 {
			t.Errorf("%q found %v", q, r)
		}
	}
	for _, c := range []struct {
		q string
		n any
	}{{"0xzz1234", nil}, {"", nil}, {"   ", nil}, {strings.Repeat("a", 201), nil}, {"eth", 0}, {"eth", 101}} {
		resp, _ := s.query(searchDoc, map[string]any{"q": c.q, "n": c.n})
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Errorf("search(%q, %v): %+v, want BAD_USER_INPUT", c.q, c.n, resp.Errors)
		}
	}
}

// Every statement search runs, EXPLAINed over 100,000 transactions, 20,000 contracts and
// classes and 5,000 tokens: none scans a big table sequentially.
func TestSearchUsesIndexes(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status)
		SELECT n, sha256(int8send(n)), sha256(int8send(n - 1)), n * 2, 'ACCEPTED_ON_L2' FROM generate_series(0, 999) n`)
	s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, execution_status, finality_status)
		SELECT n / 100, n % 100, sha256(int8send(n) || '\x01'), 'INVOKE', 3, n / 50, 'SUCCEEDED', 'ACCEPTED_ON_L2'
		FROM generate_series(0, 99999) n`)
	s.exec(`INSERT INTO classes (hash, kind, cairo_version, version) SELECT sha256(int8send(n) || '\x02'), 'sierra', 1, '2' FROM generate_series(0, 19999) n`)
	s.exec(`INSERT INTO contracts (address, class_hash, type, nonce) SELECT sha256(int8send(n) || '\x03'), '\x01', 'account', 0 FROM generate_series(0, 19999) n`)
	s.exec(`INSERT INTO tokens (address, standard, name, symbol, transfer_count, holder_count)
		SELECT sha256(int8send(n) || '\x04'), 'erc20', 'Token ' || n, 'T' || n, n, n FROM generate_series(0, 4999) n`)
	s.exec(`INSERT INTO validators (staker_address, self_stake, delegated_stake_strk, revenue_share_bps, state, total_delegators)
		SELECT sha256(int8send(n) || '\x05'), 1, 0, 100, 'active', 0 FROM generate_series(0, 999) n`)
	s.exec(`ANALYZE`)

	// Statements run from several goroutines (search's kinds are looked up at once).
	var mu sync.Mutex
	var statements []string
	var args [][]any
	s.store.OnQuery = func(q string, a []any) {
		mu.Lock()
		defer mu.Unlock()
		statements, args = append(statements, q), append(args, a)
	}
	var tx db.Felt
	if err := s.db.Get(&tx, `SELECT hash FROM transactions WHERE block_number = 500 AND tx_index = 7`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"500", tx.Padded(), tx.Padded()[:12], "0x" + strings.TrimLeft(tx.Padded()[2:], "0")[:9], "t12", "token 4"} {
		s.mustQuery(searchDoc, map[string]any{"q": q}, new(any))
	}
	s.store.OnQuery = nil
	if len(statements) < 6 {
		t.Fatalf("only %d statements seen", len(statements))
	}
	big := []string{"blocks", "transactions", "contracts", "classes", "tokens", "validators"}
	for i, q := range statements {
		var plan []string
		if err := s.db.Select(&plan, "EXPLAIN "+q, args[i]...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		text := strings.Join(plan, "\n")
		for _, table := range big {
			if strings.Contains(text, "Seq Scan on "+table+" ") || strings.HasSuffix(text, "Seq Scan on "+table) {
				t.Errorf("a sequential scan of %s:\n%s\n%s", table, q, text)
			}
		}
	}
	t.Logf("%d statements explained", len(statements))
}
