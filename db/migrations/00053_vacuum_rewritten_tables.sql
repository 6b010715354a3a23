-- +goose NO TRANSACTION
-- Migrations 00050-00052 rewrite events and transactions (ALTER COLUMN TYPE ... USING). A
-- rewritten table has an empty visibility map, and no autovacuum comes to fill it, since
-- the rewrite counts as no inserted rows: until a VACUUM, every index-only scan of those
-- tables (the keys of a list's page, db/page_ends.go) reads the rows' pages too. On the 1M
-- bench database that took GraphQL's 25 transactions with their block from 1,580 to 1,268
-- requests a second (docs/performance.md, Storage). VACUUM cannot run in a transaction,
-- hence a migration of its own; on an empty database it takes no time. Apply it with the
-- others, in the same maintenance window.

-- +goose Up
VACUUM (ANALYZE) events, transactions;

-- +goose Down
SELECT 1;
