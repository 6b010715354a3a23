// Package starknet holds the small value types of the Starknet chain: field elements
// (Felt), 256-bit hashes (Hash256), u256 amounts, short strings and Cairo ByteArrays, and
// entry-point selectors (sn_keccak).
//
// Its subpackages:
//
//   - starknet/rpc: the JSON-RPC client (single and batch calls, typed errors) and the one
//     normalised set of block, transaction, receipt and state-update types, whatever spec
//     version (0.8, 0.9, 0.10) the node speaks.
//   - starknet/class: starknet_getClass results (Sierra and Cairo 0) parsed into one ABI
//     model, with the kind, Cairo version and account/proxy/ERC-20/721/1155 flags.
//   - starknet/decode: __execute__ multicalls, calldata decoded by ABI into named inputs,
//     and ERC-20/721/1155 transfer events.
//
// Forms of a felt, as DESIGN.md's conventions want them:
//
//   - ParseFelt accepts "0x" + 1 to 64 hex digits in any case (user input and node data).
//   - Hex is the node's form (lowercase, no leading zeros): hashes, calldata, plain felts.
//   - Padded is the address form (0x + 64 digits): contract addresses and class hashes.
//   - Bytes is the bytea form stored in PostgreSQL: big-endian with leading zero bytes
//     stripped (the empty string for zero, as db.Felt). It is the shortest unique form, which matters for
//     calldata and event data where most words are small (a list is one packed bytea of
//     these, each behind a length byte: db.FeltArray). Equality works on it;
//     for numeric order use ORDER BY length(col), col. FeltFromBytes also reads 32-byte
//     padded values.
//
// The chain types are our own rather than starknet.go's (github.com/NethermindEth/starknet.go):
// decoding a 45-transaction fixture block into starknet.go v0.17.1 rpc.BlockWithReceipts
// took 5.1 ms and 17,800 allocations, into ours 1.5 ms and 2,400 (same machine, idle);
// each starknet.go release also speaks only one spec version (v0.13 RPC 0.8, v0.17 RPC 0.9)
// while the indexer must follow either kind of node.
package starknet
