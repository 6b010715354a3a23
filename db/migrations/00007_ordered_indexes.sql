-- Indexes in the exact order the lists read, so that a page is read off an index, not
-- sorted out of a whole table (found by rest/explain_test.go). The lists order by
-- coalesce(block, -1) so that rows of unknown block sort last and keyset cursors stay
-- comparable; these expression indexes match that, and replace the plain ones.

-- +goose Up
CREATE INDEX classes_declared_order ON classes ((coalesce(declared_block, -1)) DESC, hash DESC);
DROP INDEX classes_declared;
CREATE INDEX contracts_deployed_order ON contracts ((coalesce(deployed_block, -1)) DESC, address DESC);
CREATE INDEX contracts_type_order ON contracts (type, (coalesce(deployed_block, -1)) DESC, address DESC);
CREATE INDEX contracts_class_order ON contracts (class_hash, (coalesce(deployed_block, -1)) DESC, address DESC);
DROP INDEX contracts_deployed, contracts_type, contracts_class;
-- Holders: balance, then owner, both descending, as HoldersOf reads them.
CREATE INDEX erc20_balances_holders_order ON erc20_balances (token_address, balance DESC, owner_address DESC) WHERE balance > 0;
DROP INDEX erc20_balances_holders;
-- What an owner holds, newest transfer first.
CREATE INDEX erc20_balances_owner_order ON erc20_balances (owner_address, last_transfer_time DESC, token_address) WHERE balance > 0;
-- An NFT item's holders, largest first.
CREATE INDEX nft_balances_item_order ON nft_balances (contract_address, token_id, balance DESC, owner_address DESC) WHERE balance > 0;

-- +goose Down
DROP INDEX nft_balances_item_order, erc20_balances_owner_order;
CREATE INDEX erc20_balances_holders ON erc20_balances (token_address, balance DESC, owner_address) WHERE balance > 0;
DROP INDEX erc20_balances_holders_order;
CREATE INDEX contracts_class ON contracts (class_hash, deployed_block DESC, address);
CREATE INDEX contracts_type ON contracts (type, deployed_block DESC, address);
CREATE INDEX contracts_deployed ON contracts (deployed_block DESC, address);
DROP INDEX contracts_deployed_order, contracts_type_order, contracts_class_order;
CREATE INDEX classes_declared ON classes (declared_block DESC, hash);
DROP INDEX classes_declared_order;
