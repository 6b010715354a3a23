package db

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// L1Message is one L1 -> L2 message read from Ethereum: the hash that the L1_HANDLER
// transaction carrying it reports, and the L1 transaction that sent it.
type L1Message struct {
	MessageHash Felt
	L1TxHash    Felt
	L1Block     int64
	L1LogIndex  int
}

// RecordL1Messages stores messages read from L1 and gives the L1_HANDLER transactions
// already indexed for them their L1 transaction hash, and moves the follower's position
// to next, in one transaction.
func RecordL1Messages(ctx context.Context, conn *sqlx.DB, msgs []L1Message, next int64) error {
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if len(msgs) > 0 {
		hashes, l1s := make([]Felt, len(msgs)), make([]Felt, len(msgs))
		blocks, idx := make([]int64, len(msgs)), make([]int64, len(msgs))
		for i, m := range msgs {
			hashes[i], l1s[i], blocks[i], idx[i] = Normalize(m.MessageHash), Normalize(m.L1TxHash), m.L1Block, int64(m.L1LogIndex)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO l1_messages (message_hash, l1_tx_hash, l1_block, l1_log_index)
			SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bigint[], $4::int[])
			ON CONFLICT (message_hash) DO NOTHING`, feltList(hashes), feltList(l1s), pq.Array(blocks), pq.Array(idx)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE transactions t SET l1_transaction_hash = m.l1_tx_hash
			FROM l1_messages m WHERE m.message_hash = ANY($1) AND t.message_hash = m.message_hash
			AND t.l1_transaction_hash IS DISTINCT FROM m.l1_tx_hash`, feltList(hashes)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO l1_state (id, next_block) VALUES (1, $1)
		ON CONFLICT (id) DO UPDATE SET next_block = excluded.next_block`, next); err != nil {
		return err
	}
	return tx.Commit()
}

// L1NextBlock is the first L1 block the follower has not read; ok is false before its
// first pass.
func L1NextBlock(ctx context.Context, q sqlx.QueryerContext) (next int64, ok bool, err error) {
	err = sqlx.GetContext(ctx, q, &next, `SELECT next_block FROM l1_state WHERE id = 1`)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return next, err == nil, err
}

// MatchL1Messages gives the L1_HANDLER transactions of blocks from..to the L1 transaction
// hash of their message, when the L1 follower has read it: the indexer runs it for every
// batch, so messages read before their L2 block (and blocks written again after a reorg)
// are matched too.
func MatchL1Messages(ctx context.Context, tx *sqlx.Tx, from, to int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE transactions t SET l1_transaction_hash = m.l1_tx_hash
		FROM l1_messages m WHERE t.block_number BETWEEN $1 AND $2 AND t.message_hash IS NOT NULL
		AND m.message_hash = t.message_hash AND t.l1_transaction_hash IS NULL`, from, to)
	return err
}
