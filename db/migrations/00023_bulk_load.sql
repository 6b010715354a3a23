-- Bulk loading: while the indexer catches up from far behind, the secondary indexes and the
-- foreign keys of the per-block tables are dropped and rebuilt once at the end (db/bulk.go).
-- Their definitions wait here, written in the transaction that drops them, so that a
-- crash in between loses nothing: whoever finds rows here can put them back.

-- +goose Up
CREATE TABLE IF NOT EXISTS deferred_constraints (
    name        text PRIMARY KEY,
    table_name  text NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('index', 'foreign key')),
    definition  text NOT NULL   -- pg_get_indexdef, or pg_get_constraintdef for a foreign key
);

-- +goose Down
DROP TABLE deferred_constraints;
