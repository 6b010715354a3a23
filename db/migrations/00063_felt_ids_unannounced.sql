-- felt_ids no longer announces data changes (issue 56, docs/performance.md "Answer cache"):
-- the indexer assigns the ids a batch needs in a transaction of its own, committed before
-- the batch, and that commit was a data version of its own: two versions for each block with
-- a felt never met before. No answer changes with it: answers reach felt_ids only through
-- the rows that name an id, which the batch commits (and announces) afterwards, and ids are
-- never changed nor removed.

-- +goose Up
DROP TRIGGER announce_data_change ON felt_ids;

-- +goose Down
CREATE TRIGGER announce_data_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON felt_ids
    FOR EACH STATEMENT EXECUTE FUNCTION announce_data_change();
