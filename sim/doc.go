// Package sim is a deterministic simulated Starknet node speaking JSON-RPC 0.8.1:
// the default data source of `starkgraph dev`, and the load and fault generator of
// the indexer's tests and benchmarks.
//
// # Using it
//
//	chain := sim.New(sim.Config{Seed: 1, Blocks: 500})
//	srv := httptest.NewServer(chain.Handler()) // any path, e.g. /rpc/v0_8
//	chain.AddBlocks(3); chain.Reorg(2)           // grow, replace the newest 2 blocks
//	chain.InjectFault(sim.Fault{Kind: sim.HTTP500, Block: 7, Times: 2})
//
// or sim.Serve(ctx, cfg, ":9545", logger), which also grows the chain every
// cfg.BlockTime and reorgs every cfg.ReorgEvery blocks (see Chain.Run).
//
// Methods: starknet_specVersion, chainId, syncing, blockNumber, blockHashAndNumber,
// getBlockWithReceipts, getBlockWithTxs, getBlockWithTxHashes,
// getBlockTransactionCount, getStateUpdate, getClass, getClassHashAt, call,
// getEvents, getTransactionByHash, getTransactionReceipt, getTransactionStatus,
// getTransactionByBlockIdAndIndex. "pending" is the head (there is no pending block).
//
// # Determinism and laziness
//
// Block n is a pure function of (seed, n, fork id of n, fork id of n-1): nothing is
// stored, so millions of transactions cost no memory, and the same seed gives the
// same bytes. Block, transaction and contract hashes are pseudo-random valid felts
// (not real Starknet hashes); their low bits carry the block number, transaction
// position or contract index, so lookups by hash need no index. A reorg gives the
// newest blocks a new fork id: their hashes and ordinary traffic change, the
// blocks below do not. Finality: blocks at least Config.L1Lag below the head are
// ACCEPTED_ON_L1, newer ones ACCEPTED_ON_L2. Nonces grow with (block << 16 | index)
// rather than by one per transaction.
//
// starknet_call is answered from a ledger that replays the token effects of the
// served blocks in order (built on demand, kept per block, truncated by reorgs), so
// balances, supplies and owners agree with the events at every block (the misbehaving
// tokens below aside, by design).
//
// # Storage
//
// starknet_getStateUpdate writes, in storage_diffs, the ERC-20 slots each block changes,
// with their values after it (from the same ledger): a holder's balance at
// pedersen(sn_keccak("ERC20_balances"), holder) mod 2^251-256 (starknet/slots; the high
// half of the u256 stays 0 and is never written) and the supply at
// sn_keccak("ERC20_total_supply"). starknet_getStorageAt reads the same slots at any block
// (storage.go).
//
// # Misbehaving tokens
//
// Four ERC-20s on every seed (odd.go, Chain.OddTokens) are wrong the ways real tokens are
// wrong for an indexer that believes Transfer events: an interest-bearing one (balance_of is
// the stored raw amount times an index that grows every block with no event), a
// fee-on-transfer one (1% of each transfer is burned; the event says the whole amount), one
// whose airdrop claims mint with no event (the storage diff alone shows it), and one whose
// balances live at pedersen(sn_keccak("balances"), holder). Every account is minted each of
// them when deployed; their transactions come after a block's ordinary traffic and draw
// from a generator of their own.
//
// # What the chain holds
//
//   - Genesis (block 0): every catalogue class declared, the fixed contracts (ETH
//     and STRK fee tokens, their StarkGate-style bridges, the staking contract, the
//     sequencer, the UDC; mainnet addresses), 30 OpenZeppelin ERC-20s, 8 ERC-721 and
//     3 ERC-1155 collections and Config.GenesisAccounts accounts deployed; each
//     account funded by two L1_HANDLER deposits and minted the OZ tokens it holds.
//   - Accounts: Cairo 0 OpenZeppelin and Cairo 0 Argent proxy accounts (INVOKE v1,
//     fees in WEI, __execute__ calldata call_array_len, (to, selector, offset, len)*,
//     calldata_len, data), Cairo 1 OpenZeppelin and Argent accounts (mostly INVOKE
//     v3 paying FRI, calldata calls_len, (to, selector, len, data...)*). A new account
//     every Config.DeployEvery blocks: two deposits, DEPLOY_ACCOUNT (v1 or v3), mints.
//   - Ordinary traffic (about Config.TxPerBlock a block): fee-token transfers,
//     OZ token transfers between holders (holder counts fall off as rank^-1.3),
//     multicalls (approve + two transfers), SNIP-9 v2 meta-transactions (a relayer
//     calls execute_from_outside_v2 on a Cairo 1 account), reverted transfers
//     (revert_reason, only the fee Transfer), calls to deployed dapp contracts.
//   - NFTs: each ERC-721 / ERC-1155 token is minted by its first owner, moved up
//     to three times within 80 blocks by its owner, and burned one time in ten. Half
//     the ERC-721 moves are sales: the buyer calls the marketplace's fulfill_order and
//     pays the seller in ETH, less the marketplace's 2.5% (two fee-token Transfers).
//   - DECLARE (v2 or v3) of a new Sierra class every 30 blocks from block 15, then
//     its deployment through the UDC (ContractDeployed event).
//   - Staking: a staker joins every 7 blocks from block 2 (20 in all) with a
//     delegation pool; pools take delegations every few blocks (new members, then
//     top-ups); stakers raise their own stake every 40 blocks, attest once per epoch of
//     30 blocks (missing one in eight) through the attestation contract, and each
//     pool's first member claims rewards every 50 blocks.
//
// # Event layouts
//
//	fee tokens Transfer         keys=[Transfer]                     data=[from, to, low, high]
//	fee tokens Approval         keys=[Approval]                     data=[owner, spender, low, high]
//	OZ ERC-20 Transfer          keys=[Transfer, from, to]           data=[low, high]
//	ERC-721 Transfer            keys=[Transfer, from, to, id_low, id_high] data=[]
//	ERC-1155 TransferSingle     keys=[TransferSingle, operator, from, to]  data=[id_low, id_high, value_low, value_high]
//	bridge deposit_handled      keys=[deposit_handled]              data=[account, low, high]
//	UDC ContractDeployed        keys=[ContractDeployed]             data=[address, deployer, unique, class_hash, calldata_len, calldata..., salt]
//	account OwnerAdded          keys=[OwnerAdded, guid]             data=[]
//	dapp Increased              keys=[Increased]                    data=[by]
//	bridge withdraw_initiated   keys=[withdraw_initiated]           data=[l1_recipient, low, high, caller]
//
// Withdrawals burn fee tokens (Transfer to 0x0) and send an L2->L1 message from
// the bridge to its L1 bridge: payload [0, l1_recipient, low, high].
//
// and the staking events documented at (*gen).staking, modelled on
// starkware-libs/starknet-staking v1: NewStaker, StakeBalanceChanged,
// NewDelegationPool (staking contract), NewPoolMember, PoolMemberBalanceChanged
// (pool). Stakers with a WBTC pool run on v2, which reports the two kinds of stake apart:
// StakeOwnBalanceChanged keys=[sel, staker] data=[old_self, new_self] on increase_stake,
// StakeDelegatedBalanceChanged keys=[sel, staker, token] data=[old, new] on delegation.
// Keys[0] is always sn_keccak of the event name. The fee Transfer is the
// last event of each receipt, as on chain.
//
// # Calls
//
// Fee tokens: name, symbol (short strings), decimals, totalSupply/total_supply,
// balanceOf/balance_of. OZ ERC-20: the same, name and symbol as ByteArray for even
// token indexes and as short strings for odd ones. ERC-721: name, symbol,
// total_supply, balance_of, owner_of, token_uri (ByteArray: a data: URI holding the
// metadata document for even collections, a web address for odd ones), supports_interface.
// ERC-1155: balance_of(account, id), uri. Accounts: supports_interface,
// get_public_key, get_implementation (proxies). Anything else: ENTRYPOINT_NOT_FOUND.
package sim
