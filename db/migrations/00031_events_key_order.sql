-- A list of one event key's events (GraphQL events(filter: {key})) is in chain order:
-- (block_number, tx_index, event_index). events_key0 ended at block_number, so a page read
-- a whole block's events of the key and sorted them, and a deep page every block's above
-- it: for the Transfer selector, two thirds of all events, 399 rows for a page of 25. The
-- index now holds the whole order. On a partitioned table the index cannot be built
-- CONCURRENTLY: on a large database, apply this migration in a maintenance window.

-- +goose Up
DROP INDEX IF EXISTS events_key0;
CREATE INDEX events_key0 ON events (key0, block_number, tx_index, event_index);

-- +goose Down
DROP INDEX IF EXISTS events_key0;
CREATE INDEX events_key0 ON events (key0, block_number);
