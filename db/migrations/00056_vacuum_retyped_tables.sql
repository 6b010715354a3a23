-- +goose NO TRANSACTION
-- Migrations 00054 and 00055 rewrite transactions, events and token_transfers: their
-- visibility maps are empty until a VACUUM, and every index-only scan reads the rows'
-- pages too (as after 00050-00052: 00053).

-- +goose Up
VACUUM (ANALYZE) transactions, events, token_transfers;

-- +goose Down
SELECT 1;
