-- Secrets the API replicas share, generated at first start: 'cursor' keys the HMAC of the
-- opaque cursors (unless --cursor-secret gives one).

-- +goose Up
CREATE TABLE server_secrets (
    name       text PRIMARY KEY,
    value      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE server_secrets;
