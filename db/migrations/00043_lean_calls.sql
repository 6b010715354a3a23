-- A call no longer stores what its transaction and its class already hold (docs/performance.md,
-- "Storage"):
--
-- * Its calldata is a contiguous slice of its transaction's calldata (the multicall of an
--   account's __execute__, or the whole calldata of an INVOKE v0 or an L1_HANDLER): the
--   indexer writes its position there, calldata_offset and calldata_length, and leaves
--   calldata NULL. Readers take the slice from transactions.calldata in the same statement
--   (db.CallsByTx). A call whose calldata is not such a slice keeps it in calldata, with no
--   position; within one transaction the calls are all of one form or all of the other.
-- * Its inputs (arguments named with the callee's ABI) are decoded when read, from the
--   class's ABI (calls.class_hash, classes.abi), the selector and the calldata; the
--   indexer writes inputs NULL.
--
-- Rows written before keep their calldata and inputs, which readers serve as they are:
-- converting them needs array operations on calldata, whose type migration 00040 changes.
-- Idempotent, so that it can be applied twice.

-- +goose Up
ALTER TABLE calls ADD COLUMN IF NOT EXISTS calldata_offset smallint,
    ADD COLUMN IF NOT EXISTS calldata_length smallint;
ALTER TABLE calls ALTER COLUMN calldata DROP NOT NULL;

-- +goose Down
-- Rows written since have no calldata of their own: they take it back from their
-- transactions before the columns go (their inputs stay NULL). The slice is taken with
-- array operations, so only while calldata is bytea[] (migration 00040 packs it into one
-- bytea; under that form, go down past 00040's up first, or re-index those blocks).
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM calls WHERE calldata IS NULL AND calldata_offset IS NOT NULL) THEN
        IF (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = 'calls'::regclass AND attname = 'calldata') <> 'bytea[]' THEN
            RAISE EXCEPTION 'calls written since migration 00043 hold their calldata as a slice of their transaction''s, which only a bytea[] calldata can be cut into: re-index their blocks';
        END IF;
        EXECUTE 'UPDATE calls c SET calldata = t.calldata[c.calldata_offset + 1 : c.calldata_offset + c.calldata_length]
            FROM transactions t
            WHERE c.calldata IS NULL AND c.calldata_offset IS NOT NULL
              AND t.block_number = c.block_number AND t.tx_index = c.tx_index';
    END IF;
END $$;
-- +goose StatementEnd
UPDATE calls SET calldata = DEFAULT WHERE calldata IS NULL;
ALTER TABLE calls ALTER COLUMN calldata SET NOT NULL;
ALTER TABLE calls DROP COLUMN IF EXISTS calldata_offset, DROP COLUMN IF EXISTS calldata_length;
