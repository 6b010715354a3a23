-- A transaction's execution and finality statuses as enums: 4 bytes each, where the text
-- took 10 ('SUCCEEDED') and 15 ('ACCEPTED_ON_L2') with its header, unaligned. PostgreSQL
-- reads and writes an enum by its label, so COPY, the readers' text and the statements
-- that compare with a label ('ACCEPTED_ON_L2') are unchanged. The labels are every status
-- the node may give a receipt (Starknet JSON-RPC 0.9: TXN_EXECUTION_STATUS and
-- TXN_FINALITY_STATUS with the transaction statuses before them); the JSON-RPC client
-- refuses any other (starknet/rpc/wire.go), as it must now.
--
-- Rewrites transactions once (ALTER COLUMN TYPE), under a lock that stops the indexer and
-- the table's readers: a maintenance window on a large database, like 00054. 00056
-- vacuums it.

-- +goose Up
CREATE TYPE tx_execution_status AS ENUM ('SUCCEEDED', 'REVERTED');
CREATE TYPE tx_finality_status AS ENUM ('RECEIVED', 'CANDIDATE', 'PRE_CONFIRMED', 'ACCEPTED_ON_L2', 'ACCEPTED_ON_L1');
-- transactions_named (00052) shows the columns, so it is made again, as it was, around the
-- change: PostgreSQL does not change the type of a column a view reads.
-- +goose StatementBegin
DO $$
DECLARE named text := pg_get_viewdef('transactions_named');
BEGIN
    DROP VIEW transactions_named;
    ALTER TABLE transactions
        ALTER COLUMN execution_status TYPE tx_execution_status USING execution_status::tx_execution_status,
        ALTER COLUMN finality_status TYPE tx_finality_status USING finality_status::tx_finality_status;
    EXECUTE 'CREATE VIEW transactions_named AS ' || named;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE named text := pg_get_viewdef('transactions_named');
BEGIN
    DROP VIEW transactions_named;
    ALTER TABLE transactions
        ALTER COLUMN execution_status TYPE text USING execution_status::text,
        ALTER COLUMN finality_status TYPE text USING finality_status::text;
    EXECUTE 'CREATE VIEW transactions_named AS ' || named;
END $$;
-- +goose StatementEnd
DROP TYPE tx_execution_status, tx_finality_status;
