-- Names (docs/names.md). aliases becomes the operator's curated labels: a kind, a logo, a
-- verified flag, the source of the name and where the row came from (the embedded default
-- list, the operator's label file, or `starkgraph labels import`). The verified tokens are
-- the list's, no longer verified_token_list's.
--
-- starknet_id_names and starknet_id_domains are derived from Starknet ID's naming contract
-- events by the indexer (journaled: a reorg puts them back): an address's main domain,
-- and the expiry of each root domain.
--
-- Tokens and validators take their logo, image, name and verified flag from the labels
-- when their row is made (triggers below); a label load sets them on existing rows.

-- Idempotent, so that it can be applied twice.

-- +goose Up
ALTER TABLE aliases
    ADD COLUMN IF NOT EXISTS kind     text    NOT NULL DEFAULT 'contract'
        CHECK (kind IN ('token', 'contract', 'class', 'validator', 'account')),
    ADD COLUMN IF NOT EXISTS logo_url text,
    ADD COLUMN IF NOT EXISTS verified boolean NOT NULL DEFAULT false,
    ADD COLUMN IF NOT EXISTS source   text    NOT NULL DEFAULT '',
    ADD COLUMN IF NOT EXISTS origin   text    NOT NULL DEFAULT 'cli' CHECK (origin IN ('default', 'file', 'cli'));
CREATE INDEX IF NOT EXISTS aliases_name_prefix ON aliases (lower(name) text_pattern_ops);

CREATE TABLE IF NOT EXISTS starknet_id_names (
    address      bytea  PRIMARY KEY,
    domain       text   NOT NULL, -- alice.stark, bob.alice.stark
    root         text   NOT NULL, -- the registered domain whose expiry applies: alice.stark
    block_number bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS starknet_id_names_domain ON starknet_id_names (domain text_pattern_ops);

CREATE TABLE IF NOT EXISTS starknet_id_domains (
    domain text   PRIMARY KEY, -- alice.stark
    expiry bigint NOT NULL     -- unix seconds, chain time
);


-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tokens_take_labels() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.address AND kind = 'token';
    IF FOUND THEN
        NEW.verified := a.verified;
        NEW.logo_url := coalesce(a.logo_url, NEW.logo_url);
    END IF;
    RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION validators_take_labels() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.staker_address AND kind = 'validator';
    IF FOUND THEN
        NEW.name := a.name;
        NEW.image_url := coalesce(a.logo_url, NEW.image_url);
        NEW.is_verified := a.verified;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
DROP TRIGGER IF EXISTS tokens_take_labels ON tokens;
DROP TRIGGER IF EXISTS validators_take_labels ON validators;
CREATE TRIGGER tokens_take_labels BEFORE INSERT ON tokens FOR EACH ROW EXECUTE FUNCTION tokens_take_labels();
CREATE TRIGGER validators_take_labels BEFORE INSERT ON validators FOR EACH ROW EXECUTE FUNCTION validators_take_labels();

DROP TABLE IF EXISTS verified_token_list;

-- +goose Down
DROP TRIGGER tokens_take_labels ON tokens;
DROP TRIGGER validators_take_labels ON validators;
DROP FUNCTION tokens_take_labels(), validators_take_labels();
DROP TABLE starknet_id_names, starknet_id_domains;
DROP INDEX aliases_name_prefix;
ALTER TABLE aliases DROP COLUMN kind, DROP COLUMN logo_url, DROP COLUMN verified, DROP COLUMN source, DROP COLUMN origin;
CREATE TABLE verified_token_list (address bytea PRIMARY KEY, symbol text NOT NULL);
