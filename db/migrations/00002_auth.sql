-- API keys, the plans they belong to, and their daily usage (package auth).

-- +goose Up
CREATE TABLE plans (
    name               text PRIMARY KEY CHECK (name <> ''),
    -- token bucket: rate_per_second units flow in, at most burst are held
    rate_per_second    double precision NOT NULL CHECK (rate_per_second > 0),
    burst              integer NOT NULL CHECK (burst >= 1),
    -- requests per UTC day / calendar month; NULL = unlimited
    daily_quota        bigint CHECK (daily_quota IS NULL OR daily_quota > 0),
    monthly_quota      bigint CHECK (monthly_quota IS NULL OR monthly_quota > 0),
    -- operations the plan may call ("GET /beta/tokens", "graphql", "GET /beta/*"); NULL = all
    allowed_operations text[],
    created_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- SHA-256 of the key; the key itself is never stored
    key_hash   bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    -- the first characters of the key, to recognise it in listings
    key_prefix text NOT NULL,
    label      text NOT NULL DEFAULT '',
    plan       text NOT NULL REFERENCES plans (name) ON UPDATE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_keys_key_prefix_idx ON api_keys (key_prefix);

CREATE TABLE api_key_usage (
    key_id        bigint NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    day           date NOT NULL,            -- UTC
    requests      bigint NOT NULL DEFAULT 0, -- every request made with the key
    client_errors bigint NOT NULL DEFAULT 0, -- answered 4xx other than 429
    rate_limited  bigint NOT NULL DEFAULT 0, -- answered 429
    PRIMARY KEY (key_id, day)
);

INSERT INTO plans (name, rate_per_second, burst, daily_quota, monthly_quota, allowed_operations) VALUES
    ('free', 5,      20,     10000,   200000,   NULL),
    ('pro',  50,     200,    1000000, 25000000, NULL),
    -- the key `dev` mode prints: effectively unlimited, for local work and benchmarks
    ('dev',  100000, 100000, NULL,    NULL,     NULL);

-- +goose Down
DROP TABLE api_key_usage;
DROP TABLE api_keys;
DROP TABLE plans;
