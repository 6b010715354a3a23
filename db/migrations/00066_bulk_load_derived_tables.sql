-- Issue 58: a bulk load no longer keeps the tables it can derive from the rows it appends up
-- to date batch by batch. erc20_balances, key_counts and key_marks, sender_last_blocks and
-- active_sender_blocks are rewritten by every batch (each batch names thousands of the
-- same owners and keys again), and those upserts and the reads before them were the part of
-- a batch that grew with the database. While a load runs they stand at
-- indexer_state.derived_through; the load keeps what the batches need (balances) in
-- memory, and derives the tables above that block from erc20_balance_changes,
-- transactions, events and token_transfers when it ends, or when it resumes after a stop
-- (db/bulk_derived.go).

-- +goose Up
ALTER TABLE indexer_state ADD COLUMN derived_through bigint;
COMMENT ON COLUMN indexer_state.derived_through IS 'while a bulk load defers them: the block through which erc20_balances, key_counts, key_marks, sender_last_blocks and active_sender_blocks are written (the rows above it derive the rest); NULL: they follow the head';

-- extend_key_positions adds to key_counts and key_marks the rows of the blocks above `above`,
-- as the indexer's recordKeyPositions would have batch by batch: a row's ordinal is its
-- key's count before the range plus its place in the range, and a row whose ordinal is a
-- multiple of `every` is marked. Only the keys whose count crosses a multiple are ordered
-- row by row.
-- +goose StatementBegin
CREATE FUNCTION extend_key_positions(above bigint, every bigint DEFAULT 1000) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    lists text[] := ARRAY[
        'SELECT from_address AS key, block_number, tx_index, event_index FROM events_named WHERE block_number > %1$s',
        'SELECT key0 AS key, block_number, tx_index, event_index FROM events_named WHERE block_number > %1$s',
        'SELECT sender_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named WHERE block_number > %1$s',
        'SELECT contract_address AS key, block_number, tx_index, 0 AS event_index FROM transactions_named WHERE block_number > %1$s',
        'SELECT convert_to(type::text, ''UTF8'') AS key, block_number, tx_index, 0 AS event_index FROM transactions WHERE block_number > %1$s',
        'SELECT token_address AS key, block_number, tx_index, event_index FROM token_transfers_named WHERE block_number > %1$s',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named WHERE block_number > %1$s',
        'SELECT to_address AS key, block_number, tx_index, event_index FROM token_transfers_named WHERE block_number > %1$s',
        'SELECT from_address AS key, block_number, tx_index, event_index FROM token_transfers_named WHERE block_number > %1$s
            UNION ALL SELECT to_address, block_number, tx_index, event_index FROM token_transfers_named
            WHERE block_number > %1$s AND to_address <> from_address'];
    rows text;
BEGIN
    FOR i IN 1 .. array_length(lists, 1) LOOP
        rows := format(lists[i], above);
        -- Per key: the range's rows (n) and the count before them.
        EXECUTE format('CREATE TEMP TABLE extend_counts ON COMMIT DROP AS
            SELECT r.key, count(*) AS n, coalesce(min(c.n), 0) AS before
            FROM (%s) r LEFT JOIN key_counts c ON c.list = %s AND c.key = r.key
            WHERE r.key IS NOT NULL GROUP BY r.key', rows, i);
        EXECUTE format('INSERT INTO key_marks (list, key, ordinal, block_number, tx_index, event_index)
            SELECT %2$s, key, o, block_number, tx_index, event_index FROM (
                SELECT r.key, r.block_number, r.tx_index, r.event_index,
                    e.before + row_number() OVER (PARTITION BY r.key ORDER BY r.block_number, r.tx_index, r.event_index) - 1 AS o
                FROM (%1$s) r JOIN extend_counts e ON e.key = r.key
                WHERE (e.before + e.n - 1) / %3$s >= greatest((e.before + %3$s - 1) / %3$s, 1)) x
            WHERE o > 0 AND o %% %3$s = 0
            ON CONFLICT DO NOTHING', rows, i, every);
        EXECUTE format('INSERT INTO key_counts AS c (list, key, n) SELECT %s, key, n FROM extend_counts
            ON CONFLICT (list, key) DO UPDATE SET n = c.n + excluded.n', i);
        DROP TABLE extend_counts;
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION extend_key_positions;
ALTER TABLE indexer_state DROP COLUMN derived_through;
