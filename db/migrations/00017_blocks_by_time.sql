-- Blocks by time, ties by number: a time bound of a list (transfers from or to a timestamp)
-- becomes a block bound with one index probe. It replaces the index on timestamp alone.

-- +goose Up
CREATE INDEX blocks_time_number ON blocks (timestamp, number);
DROP INDEX blocks_timestamp;

-- +goose Down
CREATE INDEX blocks_timestamp ON blocks (timestamp);
DROP INDEX blocks_time_number;
