package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lib/pq"
)

// TokenTransfer is one ERC-20 transfer, a row of token_transfers: the indexer writes it
// and the APIs read it. Its transaction's hash and its block's time are not stored with it
// (migration 00042): readers join its transaction (t), by transactions_pkey, for both. Its
// token and its two sides are stored as felt ids (00046, felt_ids.go): the indexer gives
// the addresses and the writer fills in the ids; a reader gets the ids from the row and
// the addresses from the Store's cache of felt_ids (nameTransfers).
type TokenTransfer struct {
	BlockNumber     int64  `db:"block_number"`
	TxIndex         int    `db:"tx_index"`
	EventIndex      int    `db:"event_index"`
	TokenAddress    Felt   `db:"-"`
	FromAddress     Felt   `db:"-"`
	ToAddress       Felt   `db:"-"`
	TokenID         int32  `db:"token_id"`
	FromID          int32  `db:"from_id"`
	ToID            int32  `db:"to_id"`
	Amount          string `db:"amount,numeric"`
	TransactionHash Felt   `db:"transaction_hash,from=t.hash"`
	Timestamp       int64  `db:"timestamp,from=t.timestamp"`
	// IsFee marks the transfer that pays the transaction's fee: from its sender to its
	// block's sequencer.
	IsFee bool `db:"is_fee"`
	// Links are the transfer's token and USD value, filled in by the GraphQL list the
	// transfer is in when its document asks for them (resolvers.linkTransfers). GraphQL
	// reads them from here: as resolvers of their own, gqlgen would resolve each
	// transfer's two fields in a goroutine and a deferred group of their own.
	Links TransferLinks `db:"-"`
}

// TransferLinks is what a transfer's list read with it.
type TransferLinks struct {
	Read     bool // whether the list read them; GraphQL refuses to answer unread links
	Token    *Token
	UsdValue *float64
	Err      error // why they could not be read
	// Later, when set, reads them when first asked instead: a live message's are read
	// when it is answered, not by the hub that delivers it. It must be safe to call
	// more than once (sync.OnceValue).
	Later func() TransferLinks
}

func (t *TokenTransfer) links() TransferLinks {
	if t.Links.Later != nil {
		return t.Links.Later()
	}
	return t.Links
}

// errLinksUnread is a transfer's token or USD value asked of a list that did not read
// them: a list of transfers that does not call resolvers.linkTransfers.
var errLinksUnread = errors.New("the transfer's token and USD value were not read with its list")

// LinkedToken is the transfer's token, as its list read it (nil: not a known token).
func (t *TokenTransfer) LinkedToken() (*Token, error) {
	l := t.links()
	if !l.Read {
		return nil, errLinksUnread
	}
	return l.Token, l.Err
}

// LinkedUsdValue is the transfer's USD value, as its list read it (nil: no price).
func (t *TokenTransfer) LinkedUsdValue() (*float64, error) {
	l := t.links()
	if !l.Read {
		return nil, errLinksUnread
	}
	return l.UsdValue, l.Err
}

// tokenTransferCols reads a transfer (e) with its transaction (t): tokenTransferJoin.
var tokenTransferCols = rowShapeOf[TokenTransfer]().selectList("e")

// tokenTransferJoin joins a transfer (e) to its transaction (t), one probe of
// transactions_pkey, for the columns token_transfers does not store.
const tokenTransferJoin = ` JOIN transactions t ON t.block_number = e.block_number AND t.tx_index = e.tx_index`

// tokenTransferKeyColumns is the sort key of transfer lists, newest first.
var tokenTransferKeyColumns = []string{"e.block_number", "e.tx_index", "e.event_index"}

// TokenTransferFilter narrows a transfer list. Wallet is either side (the union of its two
// index ranges); From and To are one side each. Time bounds become block bounds (block
// timestamps only grow), so every bound narrows an index range.
type TokenTransferFilter struct {
	Token, Wallet, From, To Felt
	Tokens                  []Felt // any of them, when not nil (an empty list selects nothing)
	FromBlock, ToBlock      *int64
	FromTime, ToTime        *int64 // Unix seconds, inclusive
	Fee                     *bool  // true: fee transfers only; false: all but them
	Ascending               bool   // oldest first
}

func (f TokenTransferFilter) conds(args *[]any) []string {
	var conds []string
	if f.Token != nil {
		conds = append(conds, "e.token_id = "+feltID(arg(args, f.Token)))
	}
	if f.Tokens != nil {
		conds = append(conds, "e.token_id = ANY(ARRAY(SELECT id FROM felt_ids WHERE felt = ANY("+arg(args, feltList(f.Tokens))+")))")
	}
	if f.From != nil {
		conds = append(conds, "e.from_id = "+feltID(arg(args, f.From)))
	}
	if f.To != nil {
		conds = append(conds, "e.to_id = "+feltID(arg(args, f.To)))
	}
	if f.FromBlock != nil {
		conds = append(conds, "e.block_number >= "+arg(args, *f.FromBlock))
	}
	if f.ToBlock != nil {
		conds = append(conds, "e.block_number <= "+arg(args, *f.ToBlock))
	}
	if f.FromTime != nil {
		conds = append(conds, "e.block_number >= (SELECT number FROM blocks WHERE timestamp >= "+arg(args, *f.FromTime)+" ORDER BY timestamp, number LIMIT 1)")
	}
	if f.ToTime != nil {
		conds = append(conds, "e.block_number <= (SELECT number FROM blocks WHERE timestamp <= "+arg(args, *f.ToTime)+" ORDER BY timestamp DESC, number DESC LIMIT 1)")
	}
	if f.Fee != nil {
		if *f.Fee {
			conds = append(conds, "e.is_fee")
		} else {
			conds = append(conds, "NOT e.is_fee")
		}
	}
	return conds
}

// TokenTransfers lists ERC-20 transfers, newest first unless f.Ascending; keyset: (block,
// tx, event). A wallet's list is the union of its two index ranges (sent, received), each
// cut to the page before they are merged.
func (s *Store) TokenTransfers(ctx context.Context, f TokenTransferFilter, w Window) ([]*TokenTransfer, error) {
	var args []any
	conds := f.conds(&args)
	keyOf := func(t *TokenTransfer) []any { return []any{t.BlockNumber, t.TxIndex, t.EventIndex} }
	if f.Wallet == nil {
		// keysFrom: the page's keys first, then its rows and their transactions, so that
		// the join probes the page's rows only.
		rows, err := keysetList(ctx, s, keysetQuery{name: "token_transfers", from: `SELECT ` + tokenTransferCols + ` FROM token_transfers e` + tokenTransferJoin,
			conds: conds, args: args, keyCols: tokenTransferKeyColumns, desc: !f.Ascending, keysFrom: "token_transfers e", marked: f.marked()}, w, keyOf)
		if err != nil {
			return nil, err
		}
		return rows, s.nameTransfers(ctx, rows)
	}
	read := func(w Window) ([]*TokenTransfer, error) {
		where, tail, kargs := w.keyset(tokenTransferKeyColumns, !f.Ascending, len(args)+1)
		// kargs ends with the window's limit and offset: each side reads up to their sum.
		args := append(slices.Concat(args, kargs), f.Wallet)
		conds := append(slices.Clip(conds), where)
		wallet := feltID(fmt.Sprintf("$%d", len(args)))
		limit, offset := len(args)-2, len(args)-1
		dir := "DESC"
		if f.Ascending {
			dir = "ASC"
		}
		side := func(cond string) string {
			return `(SELECT e.* FROM token_transfers e` + and(append(conds, cond)...) +
				fmt.Sprintf(` ORDER BY e.block_number %[1]s, e.tx_index %[1]s, e.event_index %[1]s LIMIT $%[2]d::bigint + $%[3]d::bigint)`, dir, limit, offset)
		}
		// The page is cut from the two sides (a subquery with a LIMIT) before its rows
		// are joined to their transactions, then put back in order.
		order, _, _ := strings.Cut(tail, " LIMIT ")
		var rows []*TokenTransfer
		err := s.selectRows(ctx, &rows, `SELECT `+tokenTransferCols+` FROM (SELECT e.* FROM (`+side("e.from_id = "+wallet)+` UNION ALL `+
			side("e.to_id = "+wallet+" AND e.from_id <> "+wallet)+`) e`+tail+`) e`+tokenTransferJoin+order, args...)
		if err != nil {
			return nil, err
		}
		return rows, s.nameTransfers(ctx, rows)
	}
	list := listName(fmt.Sprintf("token_transfers of a wallet asc=%v %s", f.Ascending, strings.Join(conds, " AND ")), append(args, f.Wallet))
	return listPage(s, list, w, keyOf, markedRead(ctx, s, f.marked(), !f.Ascending, len(tokenTransferKeyColumns), read))
}

// CountTokenTransfers is the maintained total without a filter, capped with one.
func (s *Store) CountTokenTransfers(ctx context.Context, f TokenTransferFilter) (int64, error) {
	if n, ok, err := s.keyCount(ctx, f.marked()); ok || err != nil {
		return n, err
	}
	var args []any
	conds := f.conds(&args)
	switch {
	case f.Wallet != nil:
		args = append(args, f.Wallet)
		wallet := feltID(fmt.Sprintf("$%d", len(args)))
		from := fmt.Sprintf(`(SELECT 1 FROM token_transfers e%s UNION ALL SELECT 1 FROM token_transfers e%s) t`,
			and(append(conds, "e.from_id = "+wallet)...),
			and(append(conds, "e.to_id = "+wallet+" AND e.from_id <> "+wallet)...))
		return s.cappedCount(ctx, from, args...)
	case len(conds) == 0:
		return s.ListCount(ctx, "token_transfers")
	}
	return s.cappedCount(ctx, "token_transfers e"+and(conds...), args...)
}

// TransfersOfTxs lists the ERC-20 transfers of each transaction, in receipt order.
func (s *Store) TransfersOfTxs(ctx context.Context, keys []TxKey) ([]*TokenTransfer, error) {
	blocks, idx := txKeyArrays(keys)
	lo, hi := blockSpan(blocks)
	var rows []*TokenTransfer
	err := s.selectRows(ctx, &rows, `SELECT `+tokenTransferCols+` FROM unnest($1::bigint[], $2::int[]) AS k(b, i)
		JOIN token_transfers e ON e.block_number = k.b AND e.tx_index = k.i`+tokenTransferJoin+`
		WHERE e.block_number BETWEEN $3 AND $4 AND t.block_number BETWEEN $3 AND $4 -- prunes partitions (CallsByTx)
		ORDER BY e.block_number, e.tx_index, e.event_index`, blocks, idx, lo, hi)
	if err != nil {
		return nil, err
	}
	return rows, s.nameTransfers(ctx, rows)
}

// PriceKey asks for a token's USD price as of a block.
type PriceKey struct {
	Token string // Felt bytes
	Block int64
}

// PriceAt is a token's newest oracle reading at or before Block.
type PriceAt struct {
	Token    Felt   `db:"token_address"`
	Block    int64  `db:"block_number"` // the block asked about, not the reading's
	Price    string `db:"price"`        // in units of 10^-Decimals USD
	Decimals int    `db:"decimals"`
}

// PricesAt reads each key's price (keys without a reading have no row). Each is one step
// back along the primary key from (token, block): written as "token_address = k.t AND
// block_number <= k.b ORDER BY block_number DESC", the planner walked token_prices_block
// back instead, past every other token's readings, all of them for a token without one.
func (s *Store) PricesAt(ctx context.Context, keys []PriceKey) ([]*PriceAt, error) {
	tokens, blocks := make(pq.ByteaArray, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		tokens[i], blocks[i] = []byte(Normalize(Felt(k.Token))), k.Block
	}
	var rows []*PriceAt
	err := s.selectRows(ctx, &rows, pricesAtSQL, tokens, blocks)
	return rows, err
}

const pricesAtSQL = `SELECT k.t AS token_address, k.b AS block_number, p.price::text AS price, p.decimals
	FROM unnest($1::bytea[], $2::bigint[]) AS k(t, b)
	CROSS JOIN LATERAL (SELECT token_address, price, decimals FROM token_prices
		WHERE (token_address, block_number) <= (k.t, k.b)
		ORDER BY token_address DESC, block_number DESC LIMIT 1) p
	WHERE p.token_address = k.t`

// TokensWithPricesAt reads, for each key, its token (nil when no token is indexed at the
// address) and the token's price at the key's block (nil without a reading), in one
// statement: what a page of transfers with their USD values reads, which was two (the
// tokens, then their prices). Both slices are in the keys' order.
func (s *Store) TokensWithPricesAt(ctx context.Context, keys []PriceKey) ([]*Token, []*PriceAt, error) {
	addrs, blocks := make(pq.ByteaArray, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		addrs[i], blocks[i] = []byte(Normalize(Felt(k.Token))), k.Block
	}
	// One row per key, in the keys' order: tokens by their primary key, a price LIMIT 1.
	var rows []struct {
		Token    Token   `db:"tk"`
		Price    *string `db:"price"`
		Decimals *int    `db:"decimals"`
	}
	err := s.selectRows(ctx, &rows, `SELECT `+optionalTokenCols+`, p.price::text AS price, p.decimals
		FROM unnest($1::bytea[], $2::bigint[]) WITH ORDINALITY AS k(t, b, ord)
		LEFT JOIN tokens tk ON tk.address = k.t
		LEFT JOIN LATERAL (SELECT token_address, price, decimals FROM token_prices
			WHERE (token_address, block_number) <= (k.t, k.b)
			ORDER BY token_address DESC, block_number DESC LIMIT 1) p ON p.token_address = k.t
		ORDER BY k.ord`, addrs, blocks)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) != len(keys) {
		return nil, nil, fmt.Errorf("tokens with prices: %d rows for %d keys", len(rows), len(keys))
	}
	tokens, prices := make([]*Token, len(keys)), make([]*PriceAt, len(keys))
	for i, r := range rows {
		if r.Token.Address != nil {
			tokens[i] = &r.Token
		}
		if r.Price != nil && r.Decimals != nil {
			prices[i] = &PriceAt{Token: Felt(addrs[i]), Block: keys[i].Block, Price: *r.Price, Decimals: *r.Decimals}
		}
	}
	return tokens, prices, nil
}

// optionalTokenCols read a token aliased tk beside another row (a LEFT JOIN's).
var optionalTokenCols = rowShapeOf[Token]().optionalSelectList("tk", "tk")

// BalanceKey asks for a wallet's balance of a token as of a block.
type BalanceKey struct {
	Token, Owner string // Felt bytes
	Block        int64
}

// BalanceAt is the balance a BalanceKey asked for: what the newest change at or before
// the block left (no row when nothing changed it by then: the balance is 0).
type BalanceAt struct {
	Token   Felt   `db:"token_address"`
	Owner   Felt   `db:"owner_address"`
	Block   int64  `db:"block_number"` // the block asked about
	Balance string `db:"balance"`
}

// BalancesAt reads each key's balance with one index probe per key.
func (s *Store) BalancesAt(ctx context.Context, keys []BalanceKey) ([]*BalanceAt, error) {
	tokens, owners, blocks := make(pq.ByteaArray, len(keys)), make(pq.ByteaArray, len(keys)), make(pq.Int64Array, len(keys))
	for i, k := range keys {
		tokens[i], owners[i], blocks[i] = []byte(Normalize(Felt(k.Token))), []byte(Normalize(Felt(k.Owner))), k.Block
	}
	var rows []*BalanceAt
	err := s.selectRows(ctx, &rows, `SELECT k.t AS token_address, k.o AS owner_address, k.b AS block_number, c.balance::text AS balance
		FROM unnest($1::bytea[], $2::bytea[], $3::bigint[]) AS k(t, o, b)
		CROSS JOIN LATERAL (SELECT balance FROM erc20_balance_changes
			WHERE token_id = `+feltID("k.t")+` AND owner_id = `+feltID("k.o")+` AND block_number <= k.b
			ORDER BY block_number DESC LIMIT 1) c`, tokens, owners, blocks)
	return rows, err
}

// balancePointCols reads a balance change (c) with its block (b).
var balancePointCols = rowShapeOf[BalancePoint]().selectList("c")

// BalanceHistory lists a wallet's balances of a token after each block that changed them,
// newest first; keyset: block_number. The page is cut (a subquery with a LIMIT) before its
// rows are joined to their blocks for the time: one blocks_pkey probe a row.
func (s *Store) BalanceHistory(ctx context.Context, token, owner Felt, w Window) ([]*BalancePoint, error) {
	where, tail, kargs := w.keyset([]string{"c.block_number"}, true, 3)
	order, _, _ := strings.Cut(tail, " LIMIT ")
	var rows []*BalancePoint
	err := s.selectRows(ctx, &rows, `SELECT `+balancePointCols+` FROM (SELECT c.* FROM erc20_balance_changes c`+
		and("c.token_id = "+feltID("$1")+" AND c.owner_id = "+feltID("$2"), where)+tail+`) c JOIN blocks b ON b.number = c.block_number`+order,
		append([]any{token, owner}, kargs...)...)
	return rows, err
}

// CountBalanceHistory counts the changes of a wallet's balance of a token (capped).
func (s *Store) CountBalanceHistory(ctx context.Context, token, owner Felt) (int64, error) {
	return s.cappedCount(ctx, "erc20_balance_changes WHERE token_id = "+feltID("$1")+" AND owner_id = "+feltID("$2"), token, owner)
}

// DailyKey asks for a wallet's balance of a token at the end of each UTC day From..To
// (YYYY-MM-DD, both included).
type DailyKey struct {
	Token, Owner string // Felt bytes
	From, To     string
}

// DailyBalance is a balance at the end of a UTC day: after the last block of the day or
// before it (0 before any change).
type DailyBalance struct {
	Token     Felt   `db:"token_address"`
	Owner     Felt   `db:"owner_address"`
	Date      string `db:"date"`      // YYYY-MM-DD
	Timestamp int64  `db:"timestamp"` // the day's last second
	Balance   string `db:"balance"`
}

// DailyBalances reads, for wallets sharing one window of days, each day's closing balance
// in one statement: per day, the day's last block (by time) and the newest change at or
// before it, two index probes.
func (s *Store) DailyBalances(ctx context.Context, tokens, owners []Felt, from, to string) ([]*DailyBalance, error) {
	var rows []*DailyBalance
	err := s.selectRows(ctx, &rows, `SELECT k.t AS token_address, k.o AS owner_address, to_char(d.day, 'YYYY-MM-DD') AS date,
			d.last AS timestamp,
			coalesce((SELECT c.balance FROM erc20_balance_changes c
				WHERE c.token_id = `+feltID("k.t")+` AND c.owner_id = `+feltID("k.o")+` AND c.block_number <= (
					SELECT b.number FROM blocks b WHERE b.timestamp <= d.last ORDER BY b.timestamp DESC, b.number DESC LIMIT 1)
				ORDER BY c.block_number DESC LIMIT 1), 0)::text AS balance
		FROM unnest($1::bytea[], $2::bytea[]) AS k(t, o)
		CROSS JOIN LATERAL (SELECT day, extract(epoch FROM day + interval '1 day')::bigint - 1 AS last
			FROM generate_series($3::date, $4::date, interval '1 day') AS g(day)) d
		ORDER BY k.t, k.o, d.day`, feltList(tokens), feltList(owners), from, to)
	return rows, err
}

// FirstBalanceChange is the time of a wallet's first balance change of a token; ok is
// false when it has none.
func (s *Store) FirstBalanceChange(ctx context.Context, token, owner Felt) (ts int64, ok bool, err error) {
	ok, err = s.getRow(ctx, &ts, `SELECT timestamp FROM blocks WHERE number = (SELECT block_number FROM erc20_balance_changes
		WHERE token_id = `+feltID("$1")+` AND owner_id = `+feltID("$2")+` ORDER BY block_number LIMIT 1)`, token, owner)
	return ts, ok, err
}
