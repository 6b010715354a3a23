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
-- transactions before the columns go (their inputs stay NULL). Going down, this runs
-- before 00040's down, so calldata is still the packed bytea of 00040: the slice is cut
-- from the unpacked list and packed again (00040's felts_unpack and felts_pack).
UPDATE calls c SET calldata = felts_pack((felts_unpack(t.calldata))[c.calldata_offset + 1 : c.calldata_offset + c.calldata_length])
FROM transactions t
WHERE c.calldata IS NULL AND c.calldata_offset IS NOT NULL
  AND t.block_number = c.block_number AND t.tx_index = c.tx_index;
UPDATE calls SET calldata = DEFAULT WHERE calldata IS NULL;
ALTER TABLE calls ALTER COLUMN calldata SET NOT NULL;
ALTER TABLE calls DROP COLUMN IF EXISTS calldata_offset, DROP COLUMN IF EXISTS calldata_length;
