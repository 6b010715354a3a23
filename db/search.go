package db

import (
	"context"
	"strings"
)

// SearchHit is one object a search found: its kind and the key it is loaded by.
type SearchHit struct {
	Kind string `db:"kind"` // Block, Transaction, Contract, Class, Token or Validator
	Key  Felt   `db:"key"`  // the hash or address
}

// searchedKeys are the columns a hex prefix is looked up in, each the head of an index:
// a unique index of the column, or (prefix) transactions_hash, of the hash's first six
// bytes, which keeps the hashes' order (migration 00049).
var searchedKeys = []struct {
	kind, table, column string
	prefix              bool
}{
	{"Block", "blocks", "hash", false}, {"Transaction", "transactions", "hash", true}, {"Contract", "contracts", "address", false},
	{"Class", "classes", "hash", false}, {"Token", "tokens", "address", false}, {"Validator", "validators", "staker_address", false},
}

// SearchKeyRange finds up to limit hashes and addresses of each kind between lo and hi
// (inclusive, column forms of equal length), one index range scan per kind.
func (s *Store) SearchKeyRange(ctx context.Context, lo, hi Felt, limit int) ([]*SearchHit, error) {
	parts := make([]string, len(searchedKeys))
	for i, k := range searchedKeys {
		where, order := k.column+` BETWEEN $1 AND $2`, k.column
		if k.prefix {
			head := hashPrefix(k.column)
			where = head + ` BETWEEN ` + hashPrefix("$1") + ` AND ` + hashPrefix("$2") + ` AND ` + where
			order = head + `, ` + order
		}
		parts[i] = `(SELECT '` + k.kind + `' AS kind, ` + k.column + ` AS key FROM ` + k.table +
			` WHERE ` + where + ` ORDER BY ` + order + ` LIMIT $3)`
	}
	var rows []*SearchHit
	err := s.selectRows(ctx, &rows, strings.Join(parts, " UNION ALL "), lo, hi, limit)
	return rows, err
}

// TokensByText finds tokens whose symbol or name starts with prefix, in any case: exact
// symbols or names first, then by holders.
func (s *Store) TokensByText(ctx context.Context, prefix string, limit int) ([]*Token, error) {
	lower := strings.ToLower(prefix)
	pattern := likePrefix(lower)
	var rows []*Token
	err := s.selectRows(ctx, &rows, `SELECT `+tokenCols+` FROM (
			(SELECT * FROM tokens WHERE lower(symbol) LIKE $1 ORDER BY lower(symbol) LIMIT 500)
			UNION (SELECT * FROM tokens WHERE lower(name) LIKE $1 ORDER BY lower(name) LIMIT 500)) tokens
		ORDER BY (lower(symbol) = $2 OR lower(name) = $2) DESC, holder_count DESC, address LIMIT $3`, pattern, lower, limit)
	return rows, err
}

// NamesByText finds the addresses and classes whose curated label or .stark domain starts
// with text, in any case (db.Alias: the name matched and its source); exact names first.
// Expired domains are not found. Both are index range scans (migration 00032).
func (s *Store) NamesByText(ctx context.Context, text string, limit int) ([]*Alias, error) {
	lower := strings.ToLower(text)
	pattern := likePrefix(lower)
	var rows []*Alias
	err := s.selectRows(ctx, &rows, `SELECT address, name, source FROM (
			(SELECT address, name, '`+NameSourceCurated+`' AS source FROM aliases WHERE lower(name) LIKE $1 ORDER BY lower(name) LIMIT $3)
			UNION ALL (SELECT n.address, n.domain, '`+NameSourceStarknetID+`' `+liveDomains+` AND n.domain LIKE $1
				ORDER BY n.domain LIMIT $3)) x
		ORDER BY lower(name) = $2 DESC, lower(name) = $2 || '.stark' DESC, length(name), name LIMIT $3`, pattern, lower, limit)
	return rows, err
}

// likeEscapes makes text literal in a LIKE pattern (backslash is LIKE's default escape).
var likeEscapes = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likePrefix is the LIKE pattern of the values that start with prefix.
func likePrefix(prefix string) string { return likeEscapes.Replace(prefix) + "%" }
