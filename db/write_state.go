package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Rows that blocks update in place (contracts, classes, tokens, balances, NFT items,
// counters). The indexer reads the current rows of the keys a block touches, computes the
// new rows in memory, journals the old ones near the chain head, and writes the new ones
// back with one multi-row upsert per table.

// upsertChunk bounds the rows of one statement (PostgreSQL allows 65535 parameters).
const upsertChunk = 1000

// upsertRows writes rows with INSERT ... VALUES (...), (...) followed by onConflict.
func upsertRows(ctx context.Context, tx *sqlx.Tx, table string, columns []string, onConflict string, rows [][]any) error {
	for start := 0; start < len(rows); start += upsertChunk {
		end := min(start+upsertChunk, len(rows))
		var sb strings.Builder
		sb.WriteString("INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES ")
		args := make([]any, 0, (end-start)*len(columns))
		for i, row := range rows[start:end] {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteByte('(')
			for j, v := range row {
				if j > 0 {
					sb.WriteString(", ")
				}
				args = append(args, v)
				fmt.Fprintf(&sb, "$%d", len(args))
			}
			sb.WriteByte(')')
		}
		sb.WriteString(" " + onConflict)
		if _, err := tx.ExecContext(ctx, sb.String(), cleanArgs(args)...); err != nil {
			return fmt.Errorf("upsert %s: %w", table, err)
		}
	}
	return nil
}

// updateAll is the ON CONFLICT clause that replaces every non-key column.
func updateAll(key []string, columns []string) string {
	isKey := map[string]bool{}
	for _, k := range key {
		isKey[k] = true
	}
	var set []string
	for _, c := range columns {
		if !isKey[c] {
			set = append(set, c+" = EXCLUDED."+c)
		}
	}
	return "ON CONFLICT (" + strings.Join(key, ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// UpsertClasses writes complete class rows.
func UpsertClasses(ctx context.Context, tx *sqlx.Tx, rows []Class) error {
	return upsertAll(ctx, tx, "classes", 1, rows)
}

// LoadClasses reads the classes with the given hashes.
func LoadClasses(ctx context.Context, q sqlx.QueryerContext, hashes []Felt) ([]Class, error) {
	return loadAll[Class](ctx, q, "classes", ByteaKeys(hashes))
}

// UpsertContracts writes complete contract rows.
func UpsertContracts(ctx context.Context, tx *sqlx.Tx, rows []Contract) error {
	return upsertAll(ctx, tx, "contracts", 1, rows)
}

// LoadContracts reads the contracts at the given addresses.
func LoadContracts(ctx context.Context, q sqlx.QueryerContext, addresses []Felt) ([]Contract, error) {
	return loadAll[Contract](ctx, q, "contracts", ByteaKeys(addresses))
}

// TokenRow is the part of a tokens row the indexer maintains.
type TokenRow struct {
	Address       Felt    `db:"address"`
	Standard      string  `db:"standard"`
	Name          *string `db:"name"`
	Symbol        *string `db:"symbol"`
	Decimals      *int16  `db:"decimals"`
	TotalSupply   *string `db:"total_supply,numeric"` // decimal
	TransferCount int64   `db:"transfer_count"`
	HolderCount   int64   `db:"holder_count"`
	FirstBlock    *int64  `db:"first_block"`
	// BalancesSource says how the token's balances are known: BalancesFromEvents,
	// BalancesMatchStorage or BalancesFromStorage ("" is written as BalancesFromEvents).
	BalancesSource string `db:"balances_source"`
	// StorageCheckedBlock is the newest block whose storage diff was compared with the
	// token's events.
	StorageCheckedBlock *int64 `db:"storage_checked_block"`
}

// How a token's balances are known (tokens.balances_source, migration 00057).
const (
	BalancesFromEvents   = "events"               // from Transfer events, nothing checked yet
	BalancesMatchStorage = "events_match_storage" // the events agreed with every storage diff read
	BalancesFromStorage  = "storage"              // the storage corrected the events at least once
	BalancesFromCalls    = "calls"                // balance_of answers what neither tells: call_balances
)

// UpsertTokens writes token rows; columns the indexer does not own (prices, logos,
// verified) are left alone.
func UpsertTokens(ctx context.Context, tx *sqlx.Tx, rows []TokenRow) error {
	for i := range rows {
		if rows[i].BalancesSource == "" {
			rows[i].BalancesSource = BalancesFromEvents
		}
	}
	return upsertAll(ctx, tx, "tokens", 1, rows)
}

// LoadTokens reads the tokens at the given addresses.
func LoadTokens(ctx context.Context, q sqlx.QueryerContext, addresses []Felt) ([]TokenRow, error) {
	return loadAll[TokenRow](ctx, q, "tokens", ByteaKeys(addresses))
}

// UpsertERC20Balances writes balance rows.
func UpsertERC20Balances(ctx context.Context, tx *sqlx.Tx, rows []TokenBalance) error {
	return upsertAll(ctx, tx, "erc20_balances", 2, rows)
}

// LoadERC20Balances reads the balances of (tokens[i], owners[i]) pairs.
func LoadERC20Balances(ctx context.Context, q sqlx.QueryerContext, tokens, owners []Felt) ([]TokenBalance, error) {
	return loadAll[TokenBalance](ctx, q, "erc20_balances", ByteaKeys(tokens), ByteaKeys(owners))
}

// UpsertNFTBalances writes nft_balances rows.
func UpsertNFTBalances(ctx context.Context, tx *sqlx.Tx, rows []NftBalance) error {
	return upsertAll(ctx, tx, "nft_balances", 3, rows)
}

// LoadNFTBalances reads nft_balances of (contracts[i], ids[i], owners[i]).
func LoadNFTBalances(ctx context.Context, q sqlx.QueryerContext, contracts []Felt, ids []string, owners []Felt) ([]NftBalance, error) {
	return loadAll[NftBalance](ctx, q, "nft_balances", ByteaKeys(contracts), pq.StringArray(ids), ByteaKeys(owners))
}

// NFTItemRow is the part of an nft_items row the indexer maintains.
type NFTItemRow struct {
	Contract       Felt   `db:"contract_address"`
	TokenID        string `db:"token_id,numeric"`
	ContractType   int16  `db:"contract_type"`
	Owner          Felt   `db:"owner_address"`
	MintedBy       Felt   `db:"minted_by_address"`
	MintedAtBlock  *int64 `db:"minted_at_block"`
	MintedAtTxHash Felt   `db:"minted_at_tx_hash"`
	MintedAtTime   *int64 `db:"minted_at_timestamp"`
}

// UpsertNFTItems writes item rows; metadata columns are left alone.
func UpsertNFTItems(ctx context.Context, tx *sqlx.Tx, rows []NFTItemRow) error {
	return upsertAll(ctx, tx, "nft_items", 2, rows)
}

// LoadNFTItems reads items of (contracts[i], ids[i]).
func LoadNFTItems(ctx context.Context, q sqlx.QueryerContext, contracts []Felt, ids []string) ([]NFTItemRow, error) {
	return loadAll[NFTItemRow](ctx, q, "nft_items", ByteaKeys(contracts), pq.StringArray(ids))
}

// AddListCounts adds deltas to list_counts.
func AddListCounts(ctx context.Context, tx *sqlx.Tx, deltas map[string]int64) error {
	vals := make([][]any, 0, len(deltas))
	for name, d := range deltas {
		if d != 0 {
			vals = append(vals, []any{name, d})
		}
	}
	return upsertRows(ctx, tx, "list_counts", []string{"name", "count"},
		"ON CONFLICT (name) DO UPDATE SET count = list_counts.count + EXCLUDED.count", vals)
}

// IndexerState is the row of indexer_state.
type IndexerState struct {
	HeadBlock   *int64  `db:"head_block"`
	HeadHash    Felt    `db:"head_hash"`
	NodeHead    *int64  `db:"node_head"`
	ChainID     *string `db:"chain_id"`
	SpecVersion *string `db:"spec_version"`
}

// SetIndexerHead records the newest written block.
func SetIndexerHead(ctx context.Context, tx sqlx.ExecerContext, head int64, hash Felt) error {
	_, err := tx.ExecContext(ctx, `UPDATE indexer_state SET head_block = $1, head_hash = $2, updated_at = now()`, head, hash)
	return err
}

// SetIndexerNode records what the node reports.
func SetIndexerNode(ctx context.Context, ex sqlx.ExecerContext, nodeHead int64, chainID, specVersion string) error {
	_, err := ex.ExecContext(ctx, `UPDATE indexer_state SET node_head = $1, chain_id = $2, spec_version = $3, updated_at = now()`,
		nodeHead, chainID, specVersion)
	return err
}

// IndexedHead returns the newest block in the database and its hash; ok is false when empty.
func IndexedHead(ctx context.Context, q sqlx.QueryerContext) (number int64, hash Felt, ok bool, err error) {
	err = q.QueryRowxContext(ctx, `SELECT number, hash FROM blocks ORDER BY number DESC LIMIT 1`).Scan(&number, &hash)
	if err == sql.ErrNoRows {
		return 0, nil, false, nil
	}
	return number, hash, err == nil, err
}

// BlockHashes returns the hashes of the blocks numbered from..to that the database holds.
func BlockHashes(ctx context.Context, q sqlx.QueryerContext, from, to int64) (map[int64]Felt, error) {
	rows, err := q.QueryxContext(ctx, `SELECT number, hash FROM blocks WHERE number BETWEEN $1 AND $2`, from, to)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]Felt{}
	for rows.Next() {
		var n int64
		var h Felt
		if err := rows.Scan(&n, &h); err != nil {
			return nil, err
		}
		out[n] = h
	}
	return out, rows.Err()
}

// MarkAcceptedOnL1 moves blocks from..to, and their transactions, to ACCEPTED_ON_L1.
// It returns how many blocks changed.
func MarkAcceptedOnL1(ctx context.Context, tx *sqlx.Tx, from, to int64) (int64, error) {
	res, err := tx.ExecContext(ctx, `UPDATE blocks SET status = 'ACCEPTED_ON_L1'
		WHERE number BETWEEN $1 AND $2 AND status = 'ACCEPTED_ON_L2'`, from, to)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return 0, nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE transactions SET finality_status = 'ACCEPTED_ON_L1'
		WHERE block_number BETWEEN $1 AND $2 AND finality_status = 'ACCEPTED_ON_L2'`, from, to)
	return n, err
}

// OldestL2Block returns the lowest block still ACCEPTED_ON_L2, if any.
func OldestL2Block(ctx context.Context, q sqlx.QueryerContext) (int64, bool, error) {
	var n sql.NullInt64
	err := q.QueryRowxContext(ctx, `SELECT min(number) FROM blocks WHERE status = 'ACCEPTED_ON_L2'`).Scan(&n)
	return n.Int64, n.Valid, err
}

// NFTHoldings returns, for (contracts[i], owners[i]) pairs, how many items (or ERC-1155
// units) the owner holds in the collection; pairs with no balance rows are left out. The
// sum counts negative balances too (left by transfers out of items received before the
// indexer's first block), just as the writer sums them in memory within a batch, so that
// holder counts do not depend on how blocks were batched.
func NFTHoldings(ctx context.Context, q sqlx.QueryerContext, contracts, owners []Felt) (map[[2]string]string, error) {
	rows, err := q.QueryxContext(ctx, `SELECT b.contract_address, b.owner_address, sum(b.balance)::text
		FROM (SELECT DISTINCT c, o FROM unnest($1::bytea[], $2::bytea[]) AS k(c, o)) k
		JOIN nft_balances b ON b.owner_address = k.o AND b.contract_address = k.c
		GROUP BY b.contract_address, b.owner_address`, ByteaKeys(contracts), ByteaKeys(owners))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[[2]string]string{}
	for rows.Next() {
		var c, o Felt
		var sum string
		if err := rows.Scan(&c, &o, &sum); err != nil {
			return nil, err
		}
		out[[2]string{string(c), string(o)}] = sum
	}
	return out, rows.Err()
}

// MaxTPS returns the recorded maximum transactions per second.
func MaxTPS(ctx context.Context, q sqlx.QueryerContext) (float64, error) {
	var v float64
	err := q.QueryRowxContext(ctx, `SELECT max_tps FROM chain_stats WHERE id = 1`).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return v, err
}

// SetMaxTPS records a new maximum and the block that reached it.
func SetMaxTPS(ctx context.Context, tx *sqlx.Tx, tps float64, block Felt) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO chain_stats (id, max_tps, max_tps_block_hash) VALUES (1, $1, $2)
		ON CONFLICT (id) DO UPDATE SET max_tps = EXCLUDED.max_tps, max_tps_block_hash = EXCLUDED.max_tps_block_hash`, tps, block)
	return err
}

// BlockTimestamp returns the timestamp of a block in the database, if it is there.
func BlockTimestamp(ctx context.Context, q sqlx.QueryerContext, number int64) (int64, bool, error) {
	var ts int64
	err := q.QueryRowxContext(ctx, `SELECT timestamp FROM blocks WHERE number = $1`, number).Scan(&ts)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	return ts, err == nil, err
}

// RefreshNFTHolders recomputes the nft_holders rows of the given (collection, owner) pairs
// from nft_balances, after the batch's balances are written: a pair that holds nothing any
// more loses its row.
func RefreshNFTHolders(ctx context.Context, tx *sqlx.Tx, contracts, owners []Felt) error {
	if len(contracts) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `WITH k AS (SELECT * FROM unnest($1::bytea[], $2::bytea[]) AS k(c, o)),
		agg AS (SELECT k.c, k.o, a.token_id, a.held, a.t FROM k CROSS JOIN LATERAL (
			SELECT min(b.token_id) AS token_id, sum(b.balance) AS held, max(b.last_transfer_time) AS t
			FROM nft_balances b WHERE b.owner_address = k.o AND b.contract_address = k.c AND b.balance > 0) a),
		gone AS (DELETE FROM nft_holders h USING agg
			WHERE h.contract_address = agg.c AND h.owner_address = agg.o AND agg.held IS NULL)
		INSERT INTO nft_holders (contract_address, owner_address, token_id, held, last_transfer_time)
		SELECT c, o, token_id, held, t FROM agg WHERE held IS NOT NULL
		ON CONFLICT (contract_address, owner_address) DO UPDATE SET token_id = EXCLUDED.token_id,
			held = EXCLUDED.held, last_transfer_time = EXCLUDED.last_transfer_time`,
		ByteaKeys(contracts), ByteaKeys(owners))
	if err != nil {
		return fmt.Errorf("nft holders: %w", err)
	}
	return nil
}
