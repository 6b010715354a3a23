-- Which ERC-20 transfer pays its transaction's fee: the transfer from the transaction's
-- sender (for a DEPLOY_ACCOUNT, the account it deploys) to its block's sequencer, which the protocol appends to every fee-paying
-- receipt. Transfer lists filter on it (the explorer API's invocation_type).

-- +goose Up
ALTER TABLE token_transfers ADD COLUMN is_fee boolean NOT NULL DEFAULT false;

UPDATE token_transfers tt SET is_fee = true
FROM transactions t, blocks b
WHERE t.block_number = tt.block_number AND t.tx_index = tt.tx_index AND b.number = tt.block_number
  AND tt.from_address = coalesce(t.sender_address, CASE WHEN t.type = 'DEPLOY_ACCOUNT' THEN t.contract_address END) AND tt.to_address = b.sequencer_address;

-- +goose Down
ALTER TABLE token_transfers DROP COLUMN is_fee;
