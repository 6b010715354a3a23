-- Search: token names and symbols by prefix in any case (hashes and addresses are found
-- through their existing unique indexes, by value or by a range of values).

-- +goose Up
CREATE INDEX tokens_symbol_prefix ON tokens (lower(symbol) text_pattern_ops);
CREATE INDEX tokens_name_prefix ON tokens (lower(name) text_pattern_ops);

-- +goose Down
DROP INDEX tokens_symbol_prefix, tokens_name_prefix;
