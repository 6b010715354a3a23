package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Sender activity (migration 00012): each sender's newest block, and per block the number
// of senders whose newest block it is, so that counting the distinct senders of a window of
// blocks reads one row per block.

// SenderLastBlock is a sender's newest block and that block's current count of senders.
type SenderLastBlock struct {
	Sender      Felt  `db:"sender_address"`
	BlockNumber int64 `db:"block_number"`
	Senders     int64 `db:"senders"`
}

// LoadSenderLastBlocks reads the newest block of each of the given senders that has one.
func LoadSenderLastBlocks(ctx context.Context, q sqlx.QueryerContext, senders []Felt) ([]SenderLastBlock, error) {
	var rows []SenderLastBlock
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT s.sender_address, s.block_number, coalesce(a.senders, 0) AS senders
		FROM sender_last_blocks s LEFT JOIN active_sender_blocks a USING (block_number)
		WHERE s.sender_address = ANY($1)`, ByteaKeys(senders))
	if err != nil {
		return nil, fmt.Errorf("sender activity: %w", err)
	}
	return rows, nil
}

// WriteSenderActivity sets the newest block of each sender (senders[i] at blocks[i]) and
// the per-block counts: a count of zero removes the block's row.
func WriteSenderActivity(ctx context.Context, tx *sqlx.Tx, senders []Felt, blocks []int64, counts map[int64]int64) error {
	var keep, keepCounts, drop pq.Int64Array
	for b, n := range counts {
		if n > 0 {
			keep, keepCounts = append(keep, b), append(keepCounts, n)
		} else {
			drop = append(drop, b)
		}
	}
	_, err := tx.ExecContext(ctx, `WITH s AS (INSERT INTO sender_last_blocks (sender_address, block_number)
			SELECT * FROM unnest($1::bytea[], $2::bigint[])
			ON CONFLICT (sender_address) DO UPDATE SET block_number = EXCLUDED.block_number),
		d AS (DELETE FROM active_sender_blocks WHERE block_number = ANY($5::bigint[]))
		INSERT INTO active_sender_blocks (block_number, senders) SELECT * FROM unnest($3::bigint[], $4::int[])
		ON CONFLICT (block_number) DO UPDATE SET senders = EXCLUDED.senders`,
		ByteaKeys(senders), pq.Int64Array(blocks), keep, keepCounts, drop)
	if err != nil {
		return fmt.Errorf("sender activity: %w", err)
	}
	return nil
}
