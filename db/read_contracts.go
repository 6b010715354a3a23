package db

import "context"

// Reads of contracts, classes, tokens, balances and aliases.

var contractCols = rowShapeOf[Contract]().selectList("")

// ContractsByAddress returns the contracts that exist among addresses.
func (s *Store) ContractsByAddress(ctx context.Context, addrs []Felt) ([]*Contract, error) {
	var rows []*Contract
	err := s.selectRows(ctx, &rows, `SELECT `+contractCols+` FROM contracts WHERE address = ANY($1)`, feltList(addrs))
	return rows, err
}

// ContractsWithClasses returns the contracts that exist among addrs, each with its class
// (nil when the class is not indexed), in one statement: what a page of holders asked
// for their owners' classes read in two. The classes are read without their ABIs unless
// withABI.
func (s *Store) ContractsWithClasses(ctx context.Context, addrs []Felt, withABI bool) ([]*Contract, []*Class, error) {
	cols := contractClassCols
	if withABI {
		cols = contractClassABICols
	}
	var rows []struct {
		Contract
		Class Class `db:"k"`
	}
	if err := s.selectRows(ctx, &rows, `SELECT `+cols+` FROM contracts c
		LEFT JOIN classes k ON k.hash = c.class_hash
		WHERE c.address = ANY($1)`, feltList(addrs)); err != nil {
		return nil, nil, err
	}
	contracts, classes := make([]*Contract, len(rows)), make([]*Class, len(rows))
	for i := range rows {
		contracts[i] = &rows[i].Contract
		if rows[i].Class.Hash != nil {
			classes[i] = &rows[i].Class
		}
	}
	return contracts, classes, nil
}

var (
	// classHeaderCols read a class aliased k beside another row, without its ABI: what
	// every route but a class's own details shows of it.
	classHeaderCols      = rowShapeOf[Class]().optionalSelectList("k", "k", "abi")
	contractClassCols    = rowShapeOf[Contract]().selectList("c") + ", " + classHeaderCols
	contractClassABICols = rowShapeOf[Contract]().selectList("c") + ", " + rowShapeOf[Class]().optionalSelectList("k", "k")
)

// ContractLinks are a contract with the rows its details show beside it: its class
// (without its ABI), the class's verification, the hash of the block it was deployed in and
// the token it is. A missing row is nil.
type ContractLinks struct {
	Contract *Contract
	Class    *Class
	Verified *VerifiedClass
	Block    *BlockHash
	Token    *Token
}

// ContractWithLinks reads a contract and its ContractLinks in one statement (five by their
// loaders); nil when no contract is at address.
func (s *Store) ContractWithLinks(ctx context.Context, address Felt) (*ContractLinks, error) {
	var row struct {
		Contract
		Class    Class         `db:"k"`
		Verified VerifiedClass `db:"v"`
		Block    BlockHash     `db:"b"`
		Token    Token         `db:"tk"`
	}
	ok, err := s.getRow(ctx, &row, `SELECT `+contractLinksCols+` FROM contracts c
		LEFT JOIN classes k ON k.hash = c.class_hash
		LEFT JOIN verified_classes v ON v.class_hash = c.class_hash
		LEFT JOIN blocks b ON b.number = c.deployed_block
		LEFT JOIN tokens tk ON tk.address = c.address
		WHERE c.address = $1`, address)
	if !ok {
		return nil, err
	}
	out := &ContractLinks{Contract: &row.Contract}
	if row.Class.Hash != nil {
		out.Class = &row.Class
	}
	if row.Verified.ClassHash != nil {
		out.Verified = &row.Verified
	}
	if row.Block.Hash != nil {
		out.Block = &row.Block
	}
	if row.Token.Address != nil {
		out.Token = &row.Token
	}
	return out, nil
}

var contractLinksCols = rowShapeOf[Contract]().selectList("c") + ", " +
	classHeaderCols + ", " +
	rowShapeOf[VerifiedClass]().optionalSelectList("v", "v") + ", " +
	rowShapeOf[BlockHash]().optionalSelectList("b", "b") + ", " +
	optionalTokenCols

// ClassWithVerification reads a class without its ABI and its verification record (nil
// when not verified) in one statement, for the routes that show a class's header but not
// its ABI (two statements by their loaders, one of them the ABI's kilobytes); nil when no
// class has hash.
func (s *Store) ClassWithVerification(ctx context.Context, hash Felt) (*Class, *VerifiedClass, error) {
	var row struct {
		Class    Class         `db:"k"`
		Verified VerifiedClass `db:"v"`
	}
	ok, err := s.getRow(ctx, &row, `SELECT `+classWithVerificationCols+` FROM classes k
		LEFT JOIN verified_classes v ON v.class_hash = k.hash
		WHERE k.hash = $1`, hash)
	if !ok {
		return nil, nil, err
	}
	if row.Verified.ClassHash == nil {
		return &row.Class, nil, nil
	}
	return &row.Class, &row.Verified, nil
}

var classWithVerificationCols = classHeaderCols + ", " + rowShapeOf[VerifiedClass]().optionalSelectList("v", "v")

// Contracts lists contracts, most recently deployed first, optionally of one type or class;
// keyset: (deployed_block, address).
func (s *Store) Contracts(ctx context.Context, typ string, class Felt, w Window) ([]*Contract, error) {
	var args []any
	var conds []string
	if typ != "" {
		conds = append(conds, "type = "+arg(&args, typ))
	}
	q := keysetQuery{name: "contracts", from: `SELECT ` + contractCols + ` FROM contracts`,
		keyCols: []string{"coalesce(deployed_block, -1)", "address"}, desc: true}
	if class != nil {
		conds = append(conds, "class_hash = "+arg(&args, class))
		if typ == "" { // contracts_class_order has the keys, deployed_block included
			q.keysFrom, q.ranked = "contracts", rankedKey{contractsByClass, Normalize(class)}
		}
	} else if typ == "" {
		// All contracts: contracts_deployed_order has the keys, deployed_block included
		// (migration 00064), so a deep page's first key is found in it alone, skipping the
		// offset without fetching the rows above it (keysFrom). Read in one step, 5,000 rows
		// deep cost 81 ms at p99 at 10M transactions.
		q.keysFrom = "contracts"
	}
	q.conds, q.args = conds, args
	return keysetList(ctx, s, q, w, ContractSortKey)
}

// ContractSortKey is a contract's keyset value in the contract lists: its deployment block
// (those deployed before the first block indexed sort last, as -1) and its address.
func ContractSortKey(c *Contract) []any { return []any{blockSortKey(c.DeployedBlock), c.Address} }

// ClassSortKey is a class's keyset value in the class list, as ContractSortKey.
func ClassSortKey(c *Class) []any { return []any{blockSortKey(c.DeclaredBlock), c.Hash} }

// blockSortKey is a nullable block number as the lists sort it: coalesce(block, -1).
func blockSortKey(block *int64) int64 {
	if block == nil {
		return -1
	}
	return *block
}

// CountContracts is exact for all contracts, per type and per class (its spans' counts),
// capped per class and type.
func (s *Store) CountContracts(ctx context.Context, typ string, class Felt) (int64, error) {
	if class != nil && typ == "" {
		return s.rankedCount(ctx, rankedKey{contractsByClass, Normalize(class)})
	}
	if class != nil {
		return s.cappedCount(ctx, "contracts WHERE class_hash = $1 AND type = $2", class, typ)
	}
	if typ != "" {
		return s.ListCount(ctx, "contracts:"+typ)
	}
	return s.ListCount(ctx, "contracts")
}

// ContractsByClasses lists, for each class, its first limit contracts (newest first) in
// one statement: the batched form of Class.contracts. One class's list is Contracts', whose
// pages walked in turn continue from the page before (a popular account class has millions).
func (s *Store) ContractsByClasses(ctx context.Context, classes []Felt, limit, offset int) ([]*Contract, error) {
	if len(classes) == 1 {
		return s.Contracts(ctx, "", Normalize(classes[0]), Window{Limit: limit, Offset: offset})
	}
	var rows []*Contract
	err := s.selectRows(ctx, &rows, `SELECT c.* FROM unnest($1::bytea[]) AS k(class)
		CROSS JOIN LATERAL (SELECT `+contractCols+` FROM contracts WHERE class_hash = k.class
			ORDER BY coalesce(deployed_block, -1) DESC, address DESC LIMIT $2 OFFSET $3) c`,
		feltList(classes), limit, offset)
	return rows, err
}

var classCols = rowShapeOf[Class]().selectList("")

// ClassesByHash returns the classes that exist among hashes.
func (s *Store) ClassesByHash(ctx context.Context, hashes []Felt) ([]*Class, error) {
	var rows []*Class
	err := s.selectRows(ctx, &rows, `SELECT `+classCols+` FROM classes WHERE hash = ANY($1)`, feltList(hashes))
	return rows, err
}

// Classes lists classes, most recently declared first; keyset: (declared_block, hash).
func (s *Store) Classes(ctx context.Context, w Window) ([]*Class, error) {
	return keysetList(ctx, s, keysetQuery{name: "classes", from: `SELECT ` + classCols + ` FROM classes`,
		keyCols: []string{"coalesce(declared_block, -1)", "hash"}, desc: true}, w, ClassSortKey)
}

// VerifiedClassesByHash returns the verification records among class hashes.
func (s *Store) VerifiedClassesByHash(ctx context.Context, hashes []Felt) ([]*VerifiedClass, error) {
	var rows []*VerifiedClass
	err := s.selectRows(ctx, &rows, `SELECT `+verifiedClassCols+`
		FROM verified_classes WHERE class_hash = ANY($1)`, feltList(hashes))
	return rows, err
}

var verifiedClassCols = rowShapeOf[VerifiedClass]().selectList("")

// VerifiedSourcesByHash returns the source files and ABIs of verified classes.
func (s *Store) VerifiedSourcesByHash(ctx context.Context, hashes []Felt) ([]*VerifiedSources, error) {
	var rows []*VerifiedSources
	err := s.selectRows(ctx, &rows, `SELECT class_hash, coalesce(files, '{}') AS files, abi
		FROM verified_classes WHERE class_hash = ANY($1)`, feltList(hashes))
	return rows, err
}

// VerifiedClasses lists verified classes, most recently verified first; keyset:
// (verified_at, class_hash).
func (s *Store) VerifiedClasses(ctx context.Context, w Window) ([]*VerifiedClass, error) {
	where, tail, args := w.keyset([]string{"verified_at", "class_hash"}, true, 1)
	var rows []*VerifiedClass
	err := s.selectRows(ctx, &rows, `SELECT `+verifiedClassCols+`
		FROM verified_classes`+and(where)+tail, args...)
	return rows, err
}

var tokenCols = rowShapeOf[Token]().selectList("")

// TokensByAddress returns the tokens among addresses.
func (s *Store) TokensByAddress(ctx context.Context, addrs []Felt) ([]*Token, error) {
	var rows []*Token
	err := s.selectRows(ctx, &rows, `SELECT `+tokenCols+` FROM tokens WHERE address = ANY($1)`, feltList(addrs))
	return rows, err
}

// TokenOrder columns: the sort of GET /beta/tokens and Query.tokens.
var tokenOrderColumns = map[string]string{
	"holders":    "holder_count",
	"transfers":  "transfer_count",
	"market_cap": "coalesce(market_cap_usd, -1)",
}

// Tokens lists tokens of one standard by holders, transfers or market cap, descending;
// keyset: (sort column, address). A symbol ("" for any) keeps the tokens that have it, in
// any case (tokens is small: a filter on its ordered scan).
func (s *Store) Tokens(ctx context.Context, standard, orderBy, symbol string, w Window) ([]*Token, error) {
	col, ok := tokenOrderColumns[orderBy]
	if !ok {
		col = tokenOrderColumns["holders"]
	}
	conds, args := []string{"standard = $1"}, []any{standard}
	if symbol != "" {
		args = append(args, symbol)
		conds = append(conds, "lower(symbol) = lower($2)")
	}
	where, tail, kargs := w.keyset([]string{col, "address"}, true, len(args)+1)
	var rows []*Token
	err := s.selectRows(ctx, &rows, `SELECT `+tokenCols+` FROM tokens`+and(append(conds, where)...)+tail, append(args, kargs...)...)
	return rows, err
}

// CountTokensWithSymbol counts a standard's tokens with a symbol, in any case (capped).
func (s *Store) CountTokensWithSymbol(ctx context.Context, standard, symbol string) (int64, error) {
	return s.cappedCount(ctx, "tokens WHERE standard = $1 AND lower(symbol) = lower($2)", standard, symbol)
}

// TokenSortKey is the keyset value of a token in a list ordered by orderBy.
func TokenSortKey(t *Token, orderBy string) any {
	switch orderBy {
	case "transfers":
		return t.TransferCount
	case "market_cap":
		if t.MarketCapUsd == nil {
			return float64(-1)
		}
		return *t.MarketCapUsd
	}
	return t.HolderCount
}

// CountTokens is the maintained total of a standard's tokens.
func (s *Store) CountTokens(ctx context.Context, standard string) (int64, error) {
	return s.ListCount(ctx, "tokens:"+standard)
}

// HoldersOf lists, for each token, its holders with a positive balance, largest first,
// limit rows after offset, in one statement: the batched form of Token.holders. The order
// names the table's numeric column (b.balance): a bare "balance" would bind to the text
// output column and sort "999" above "1000".
//
// A page of one token that starts where a page served lately ended continues from its last
// holder instead of skipping those above (listPage). A deep page reads its keys alone off
// erc20_balances_holders_order, an index-only scan that skips each holder above it for an
// index entry (keysFrom), then its 25 rows by their primary key: read in one step, each
// holder skipped was a row fetched from the table.
func (s *Store) HoldersOf(ctx context.Context, tokens []Felt, limit, offset int) ([]*TokenBalance, error) {
	if len(tokens) != 1 {
		return s.holdersAt(ctx, tokens, limit, offset)
	}
	return keysetList(ctx, s, keysetQuery{name: "holders",
		from:  `SELECT ` + balanceCols + ` FROM erc20_balances b`,
		conds: []string{"b.token_address = $1", "b.balance > 0"}, args: []any{Normalize(tokens[0])},
		keyCols: []string{"b.balance", "b.owner_address"}, desc: true, keysFrom: "erc20_balances b", keysJoin: []string{"b.token_address"},
		ranked: rankedKey{holdersByToken, Normalize(tokens[0])}},
		Window{Limit: limit, Offset: offset}, func(b *TokenBalance) []any { return []any{b.Balance, b.OwnerAddress} })
}

// holdersAt is HoldersOf for several tokens, by position: the holders above offset are
// skipped.
func (s *Store) holdersAt(ctx context.Context, tokens []Felt, limit, offset int) ([]*TokenBalance, error) {
	var rows []*TokenBalance
	err := s.selectRows(ctx, &rows, `SELECT h.* FROM unnest($1::bytea[]) AS k(token)
		CROSS JOIN LATERAL (SELECT `+balanceCols+`
			FROM erc20_balances b WHERE b.token_address = k.token AND b.balance > 0
			ORDER BY b.balance DESC, b.owner_address DESC LIMIT $2 OFFSET $3) h`,
		feltList(tokens), limit, offset)
	return rows, err
}

// balanceCols reads an erc20_balances row aliased b.
var balanceCols = rowShapeOf[TokenBalance]().selectList("b")

// BalancesOf returns the positive ERC-20 balances of each owner.
func (s *Store) BalancesOf(ctx context.Context, owners []Felt) ([]*TokenBalance, error) {
	var rows []*TokenBalance
	err := s.selectRows(ctx, &rows, `SELECT `+balanceCols+`
		FROM erc20_balances b WHERE b.owner_address = ANY($1) AND b.balance > 0
		ORDER BY b.owner_address, b.last_transfer_time DESC, b.token_address`, feltList(owners))
	return rows, err
}

// Alias is a human name of an address or class, and where it comes from (NameSource*).
type Alias struct {
	Address Felt   `db:"address"`
	Name    string `db:"name"`
	Source  string `db:"source"`
}

// Where a name comes from, in the order that decides between several (docs/names.md).
const (
	NameSourceCurated    = "curated"     // the operator's labels (aliases)
	NameSourceStarknetID = "starknet_id" // the account's main Starknet ID domain, unexpired
	NameSourceToken      = "token"       // the token contract's own name() (else symbol())
	NameSourceClass      = "class"       // the verified contract name of a verified class
)

// liveDomains is the FROM and WHERE of the Starknet ID names (n) whose domain has not
// expired in chain time (the newest block's timestamp); callers add their own condition.
const liveDomains = `FROM starknet_id_names n LEFT JOIN starknet_id_domains d ON d.domain = n.root
	WHERE (d.expiry IS NULL OR d.expiry > coalesce((SELECT timestamp FROM blocks ORDER BY number DESC LIMIT 1), 0))`

// namesOf is the one statement that names addresses and classes: the first source that
// names a key wins, in the order above. A domain is shown until its root's expiry passes
// in chain time (the newest block's timestamp). AliasesOf runs it (names_cache.go).
const namesOf = `SELECT DISTINCT ON (address) address, name, source FROM (
	SELECT address, name, 1 AS rank, '` + NameSourceCurated + `' AS source FROM aliases WHERE address = ANY($1)
	UNION ALL
	SELECT n.address, n.domain, 2, '` + NameSourceStarknetID + `' ` + liveDomains + ` AND n.address = ANY($1)
	UNION ALL
	SELECT address, coalesce(nullif(name, ''), symbol), 3, '` + NameSourceToken + `' FROM tokens
		WHERE address = ANY($1) AND coalesce(nullif(name, ''), symbol) <> ''
	UNION ALL
	SELECT class_hash, name, 4, '` + NameSourceClass + `' FROM verified_classes WHERE class_hash = ANY($1) AND name <> ''
) x ORDER BY address, rank`

// IndexerStatus reads where the indexer and the node are.
// replicaLag is null on a primary; on a streaming replica, 0 when it has replayed all the
// WAL it received, else the age of the last transaction it replayed (the standard measure:
// an idle primary sends nothing, so an age alone would grow while nothing is missing).
//
// Right after a replica starts, it may have received no WAL yet (it then has replayed all
// it received: 0), or received some and replayed no transaction yet (then the time since
// it started bounds how far behind it is): neither may read as null, which means "primary".
const replicaLag = `CASE WHEN NOT pg_is_in_recovery() THEN NULL
	WHEN coalesce(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) = pg_last_wal_replay_lsn() THEN 0
	ELSE extract(epoch FROM now() - coalesce(pg_last_xact_replay_timestamp(), pg_postmaster_start_time()))::float8 END`

func (s *Store) IndexerStatus(ctx context.Context) (*IndexerStatus, error) {
	var st IndexerStatus
	ok, err := s.getRow(ctx, &st, `SELECT head_block, head_hash, node_head, chain_id, spec_version, updated_at,
		`+replicaLag+` AS replica_lag_seconds FROM indexer_state WHERE id = 1`)
	if !ok {
		return &IndexerStatus{}, err
	}
	return &st, nil
}
