-- Tokens known to be what they claim (the explorer's "verified" ERC-20s). Holders analytics
-- are computed for these. Operators add rows to verify more tokens; analytics marks the
-- matching tokens rows verified.

-- +goose Up
CREATE TABLE verified_token_list (
    address bytea PRIMARY KEY,
    symbol  text NOT NULL
);
-- Starknet mainnet addresses (compact felt form: leading zero bytes stripped).
INSERT INTO verified_token_list (address, symbol) VALUES
    ('\x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7', 'ETH'),
    ('\x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d', 'STRK'),
    ('\x053c91253bc9682c04929ca02ed00b3e423f6710d2ee7e0d5ebb06f3ecf368a8', 'USDC'),
    ('\x068f5c6a61780768455de69077e07e89787839bf8166decfbf92b645209c0fb8', 'USDT'),
    ('\x03fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac', 'WBTC'),
    ('\x05574eb6b8789a91466f902c380d978e472db68170ff82a5b650b95a58ddf4ad', 'DAI');

-- +goose Down
DROP TABLE verified_token_list;
