-- Lean storage, indexes (issue 38; docs/performance.md "Storage").
--
-- 1. The two indexes that serve only the cascade from blocks on a reorg (and the removal
--    of a bulk load's rows above the head, beside.go) find rows by block_number alone, in
--    tables written in block order: a BRIN index of block ranges serves "block_number = $1"
--    and "block_number >= $1" as well, in a few pages instead of 18 and 7 bytes per
--    transaction. autosummarize: each range is summarized when it fills; the newest,
--    unsummarized pages are always read, which is where a reorg's rows are.
--
-- 2. Indexes whose rows land in the middle of a key's range are left half full by the
--    page splits of incremental writes. Bytes per transaction at 260,000 transactions,
--    bulk loaded, against the same index rebuilt: events_from 326/182, events_key0
--    290/162, token_transfers_token 285/159, transactions_type 73/41,
--    erc20_balance_changes_pkey 335/207, transaction_hashes_pkey 74/58,
--    contract_changes_pkey 61/46 (that table goes in 00035). A bulk load now builds them at
--    its end (db/bulk.go); this rebuilds them once on a database indexed before, with the
--    three a bulk load already rebuilt (token_transfers_from and _to, transactions_sender),
--    which writes through the indexes leave as large (a database indexed near the head
--    all along: 5,627 -> 4,981 bytes per transaction with 00034). Writes near the head split pages the
--    same way: REINDEX INDEX CONCURRENTLY, from time to time, gives the space back. REINDEX of a partitioned index cannot run in a transaction, so each
--    partition's is rebuilt. It locks each index against reads while it is rebuilt: on a
--    large database, apply this migration in a maintenance window (like 00031), or
--    REINDEX INDEX CONCURRENTLY them beforehand, partition by partition.

-- +goose Up
DROP INDEX IF EXISTS erc20_balance_changes_block;
CREATE INDEX erc20_balance_changes_block ON erc20_balance_changes USING brin (block_number) WITH (autosummarize = on);
DROP INDEX IF EXISTS transaction_hashes_block;
CREATE INDEX transaction_hashes_block ON transaction_hashes USING brin (block_number) WITH (autosummarize = on);

-- +goose StatementBegin
DO $$
DECLARE
    idx regclass;
BEGIN
    FOR idx IN
        SELECT c.oid::regclass FROM pg_class c
        WHERE c.relkind = 'i' AND c.relnamespace = 'public'::regnamespace AND (
              c.oid IN (SELECT i.inhrelid FROM pg_inherits i
                        WHERE i.inhparent IN ('events_from'::regclass, 'events_key0'::regclass,
                                             'token_transfers_token'::regclass, 'transactions_type'::regclass,
                                             'token_transfers_from'::regclass, 'token_transfers_to'::regclass,
                                             'transactions_sender'::regclass))
           OR c.relname IN ('erc20_balance_changes_pkey', 'transaction_hashes_pkey'))
    LOOP
        EXECUTE format('REINDEX INDEX %s', idx);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX IF EXISTS erc20_balance_changes_block;
CREATE INDEX erc20_balance_changes_block ON erc20_balance_changes (block_number);
DROP INDEX IF EXISTS transaction_hashes_block;
CREATE INDEX transaction_hashes_block ON transaction_hashes (block_number);
