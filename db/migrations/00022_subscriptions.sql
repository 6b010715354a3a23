-- Live GraphQL: how many subscriptions one key may hold open at once (per API replica).

-- +goose Up
ALTER TABLE plans ADD COLUMN max_subscriptions integer NOT NULL DEFAULT 100 CHECK (max_subscriptions >= 0);
UPDATE plans SET max_subscriptions = 100000 WHERE name = 'dev';

-- +goose Down
ALTER TABLE plans DROP COLUMN max_subscriptions;
