-- The labels own the columns they set (docs/names.md): a token's verified and logo_url, a
-- validator's name, image_url and is_verified. The triggers of 00032 kept the logo a row
-- came with when its label had none (coalesce), so a row a reorg put back from the undo
-- journal kept the logo of a label since changed to have none. Now a labelled row takes
-- exactly its label's values when it is inserted. (A row without a label keeps what it is
-- inserted with: the indexer writes none of these columns; db.ApplyLabels, at every label
-- load, clears them on rows whose label is gone.)
--
-- Idempotent, so that it can be applied twice.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION tokens_take_labels() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    a aliases%ROWTYPE;
BEGIN
    SELECT * INTO a FROM aliases WHERE address = NEW.address AND kind = 'token';
    IF FOUND THEN
        NEW.verified := a.verified;
        NEW.logo_url := a.logo_url;
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
        NEW.image_url := a.logo_url;
        NEW.is_verified := a.verified;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd

-- +goose Down
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
