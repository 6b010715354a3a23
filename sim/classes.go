package sim

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"sort"
)

// The class catalogue. Each class carries an ABI from which an indexer can tell
// what its contracts are: accounts (__execute__, __validate__, is_valid_signature),
// ERC-20 (transfer, balance_of, Transfer event), ERC-721 (owner_of, token_uri),
// ERC-1155 (TransferSingle), proxies (get_implementation / upgrade / __default__),
// staking and delegation pools. Sierra classes have `abi` as a JSON string and
// contract_class_version "0.1.0"; Cairo 0 classes an ABI array and a gzipped program.
const (
	clsFeeToken       = iota // Cairo 0 ERC-20 with the legacy Transfer layout (ETH, STRK)
	clsBridge                // Cairo 0 StarkGate-like bridge with an L1 handler
	clsAccountOZ0            // Cairo 0 OpenZeppelin account
	clsArgentProxy           // Cairo 0 proxy in front of clsArgentAccount0
	clsArgentAccount0        // Cairo 0 Argent account implementation
	clsUDC                   // Cairo 0 Universal Deployer Contract
	clsAccountOZ1            // Sierra OpenZeppelin account (SRC-6, SNIP-9 v2)
	clsAccountArgent1        // Sierra Argent-style account (SRC-6, SNIP-9 v2)
	clsERC20OZ               // Sierra OpenZeppelin ERC-20
	clsERC721                // Sierra ERC-721
	clsERC1155               // Sierra ERC-1155
	clsStaking               // Sierra staking contract
	clsPool                  // Sierra delegation pool
	clsMintingCurve          // Sierra staking minting curve
	clsRewardSupplier        // Sierra staking reward supplier
	clsOracle                // Sierra Pragma oracle
	clsAttestation           // Sierra staking attestation
	clsMarketplace           // Sierra NFT marketplace
	clsNaming                // Sierra Starknet ID naming contract
	numClasses
)

// classDapp marks the generated "dapp" classes declared over time (variant v).
const dappMarker = 0xda

var classNames = [numClasses]string{"fee_token_cairo0", "bridge_cairo0", "account_oz_cairo0", "argent_proxy_cairo0",
	"argent_account_cairo0", "udc_cairo0", "account_oz", "account_argent", "erc20_oz", "erc721", "erc1155", "staking", "delegation_pool",
	"minting_curve", "reward_supplier", "pragma_oracle", "attestation", "marketplace", "starknet_id_naming"}

func isCairo0Class(c int) bool { return c <= clsUDC }

// classHash of a catalogue class; the same for every seed, like real class hashes.
func classHash(c int) felt { return snKeccak([]byte("starkgraph-sim class " + classNames[c])) }

func compiledClassHash(h felt) felt { return hash3(h[1], h[2], h[3]^0xcc) }

// dappClassHash is the class declared by the v-th DECLARE; its low 40 bits say so.
func dappClassHash(v uint64) felt {
	f := snKeccak([]byte("starkgraph-sim dapp class"))
	f[3] = f[3]&^(1<<40-1) | dappMarker<<32 | v&0xffffffff
	return f
}

// classOfEntity is the class hash a contract has.
func (w *world) classOfEntity(e entity) felt {
	switch e.kind {
	case kindFixed:
		switch e.idx {
		case fixedETH, fixedSTRK, fixedUSDC, fixedWBTC:
			return classHash(clsFeeToken)
		case fixedMintingCurve:
			return classHash(clsMintingCurve)
		case fixedRewardSupplier:
			return classHash(clsRewardSupplier)
		case fixedOracle:
			return classHash(clsOracle)
		case fixedETHBridge, fixedSTRKBridge:
			return classHash(clsBridge)
		case fixedStaking:
			return classHash(clsStaking)
		case fixedAttestation:
			return classHash(clsAttestation)
		case fixedMarketplace:
			return classHash(clsMarketplace)
		case fixedNaming:
			return classHash(clsNaming)
		case fixedUDC:
			return classHash(clsUDC)
		default:
			return classHash(clsAccountOZ1)
		}
	case kindAccount:
		return classHash([]int{clsAccountOZ0, clsArgentProxy, clsAccountOZ1, clsAccountArgent1}[w.accountClass(int(e.idx))])
	case kindERC20, kindOdd:
		return classHash(clsERC20OZ)
	case kindERC721:
		return classHash(clsERC721)
	case kindERC1155:
		return classHash(clsERC1155)
	case kindDapp:
		return dappClassHash(uint64(e.idx))
	default:
		return classHash(clsPool)
	}
}

// ---- ABI building ----

type abiParam struct {
	Name string `json:"name,omitempty"`
	Type string `json:"type"`
	Kind string `json:"kind,omitempty"`
}

type abiEntry struct {
	Type            string     `json:"type"`
	Name            string     `json:"name"`
	Inputs          []abiParam `json:"inputs,omitempty"`
	Outputs         []abiParam `json:"outputs,omitempty"`
	StateMutability string     `json:"state_mutability,omitempty"`
	Members         []abiParam `json:"members,omitempty"`
}

const (
	tAddr  = "core::starknet::contract_address::ContractAddress"
	tU256  = "core::integer::u256"
	tU128  = "core::integer::u128"
	tU16   = "core::integer::u16"
	tU8    = "core::integer::u8"
	tFelt  = "core::felt252"
	tBool  = "core::bool"
	tBytes = "core::byte_array::ByteArray"
	tSpan  = "core::array::Span::<core::felt252>"
	tCalls = "core::array::Array::<core::starknet::account::Call>"
)

// sierraFn is a function item: ins are name:type pairs, view marks read-only ones.
func sierraFn(name string, view bool, out string, ins ...string) abiEntry {
	e := abiEntry{Type: "function", Name: name, StateMutability: "external", Inputs: []abiParam{}, Outputs: []abiParam{}}
	if view {
		e.StateMutability = "view"
	}
	for i := 0; i+1 < len(ins); i += 2 {
		e.Inputs = append(e.Inputs, abiParam{Name: ins[i], Type: ins[i+1]})
	}
	if out != "" {
		e.Outputs = append(e.Outputs, abiParam{Type: out})
	}
	return e
}

// sierraEvent is a struct event; members are name:type:kind triples.
func sierraEvent(path string, members ...string) abiEntry {
	e := abiEntry{Type: "event", Name: path}
	for i := 0; i+2 < len(members); i += 3 {
		e.Members = append(e.Members, abiParam{Name: members[i], Type: members[i+1], Kind: members[i+2]})
	}
	return e
}

type sierraEventJSON struct {
	Type     string     `json:"type"`
	Name     string     `json:"name"`
	Kind     string     `json:"kind"`
	Members  []abiParam `json:"members,omitempty"`
	Variants []abiParam `json:"variants,omitempty"`
}

// sierraABI renders an interface, its impl, and events (with the enclosing Event enum).
func sierraABI(implName, iface string, fns []abiEntry, extra []abiEntry, events []abiEntry, eventEnum string) string {
	var out []any
	out = append(out, map[string]string{"type": "impl", "name": implName, "interface_name": iface})
	out = append(out, map[string]any{"type": "struct", "name": tU256, "members": []abiParam{{Name: "low", Type: tU128}, {Name: "high", Type: tU128}}})
	out = append(out, map[string]any{"type": "interface", "name": iface, "items": fns})
	for _, e := range extra {
		out = append(out, e)
	}
	var variants []abiParam
	for _, ev := range events {
		out = append(out, sierraEventJSON{Type: "event", Name: ev.Name, Kind: "struct", Members: ev.Members})
		short := ev.Name[lastColon(ev.Name)+1:]
		variants = append(variants, abiParam{Name: short, Type: ev.Name, Kind: "nested"})
	}
	out = append(out, sierraEventJSON{Type: "event", Name: eventEnum, Kind: "enum", Variants: variants})
	b, _ := json.Marshal(out)
	return string(b)
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}

func ctor(ins ...string) abiEntry {
	e := sierraFn("constructor", false, "", ins...)
	e.Type, e.StateMutability, e.Outputs = "constructor", "", nil
	return e
}

var accountFns = []abiEntry{
	sierraFn("__execute__", false, "core::array::Array::<core::array::Span::<core::felt252>>", "calls", tCalls),
	sierraFn("__validate__", false, tFelt, "calls", tCalls),
	sierraFn("is_valid_signature", true, tFelt, "hash", tFelt, "signature", "core::array::Array::<core::felt252>"),
	sierraFn("supports_interface", true, tBool, "interface_id", tFelt),
	sierraFn("execute_from_outside_v2", false, "core::array::Array::<core::array::Span::<core::felt252>>",
		"outside_execution", "openzeppelin::account::extensions::src9::interface::OutsideExecution", "signature", tSpan),
	sierraFn("is_valid_outside_execution_nonce", true, tBool, "nonce", tFelt),
	sierraFn("get_public_key", true, tFelt),
	sierraFn("__validate_deploy__", false, tFelt, "class_hash", tFelt, "contract_address_salt", tFelt, "public_key", tFelt),
}

var erc20Events = []abiEntry{
	sierraEvent("openzeppelin::token::erc20::erc20::ERC20Component::Transfer", "from", tAddr, "key", "to", tAddr, "key", "value", tU256, "data"),
	sierraEvent("openzeppelin::token::erc20::erc20::ERC20Component::Approval", "owner", tAddr, "key", "spender", tAddr, "key", "value", tU256, "data"),
}

func sierraClassABI(c int) string {
	switch c {
	case clsAccountOZ1, clsAccountArgent1:
		prefix := "openzeppelin::account::account::AccountComponent"
		if c == clsAccountArgent1 {
			prefix = "argent::account::argent_account::ArgentAccount"
		}
		return sierraABI("AccountMixinImpl", "openzeppelin::account::interface::AccountABI", accountFns,
			[]abiEntry{ctor("public_key", tFelt)},
			[]abiEntry{sierraEvent(prefix+"::OwnerAdded", "new_owner_guid", tFelt, "key"),
				sierraEvent(prefix+"::OwnerRemoved", "removed_owner_guid", tFelt, "key")}, prefix+"::Event")
	case clsERC20OZ:
		return sierraABI("ERC20MixinImpl", "openzeppelin::token::erc20::interface::IERC20Mixin", []abiEntry{
			sierraFn("total_supply", true, tU256), sierraFn("balance_of", true, tU256, "account", tAddr),
			sierraFn("allowance", true, tU256, "owner", tAddr, "spender", tAddr),
			sierraFn("transfer", false, tBool, "recipient", tAddr, "amount", tU256),
			sierraFn("transfer_from", false, tBool, "sender", tAddr, "recipient", tAddr, "amount", tU256),
			sierraFn("approve", false, tBool, "spender", tAddr, "amount", tU256),
			sierraFn("name", true, tBytes), sierraFn("symbol", true, tBytes), sierraFn("decimals", true, tU8),
			sierraFn("mint", false, "", "recipient", tAddr, "amount", tU256),
		}, []abiEntry{ctor("name", tBytes, "symbol", tBytes, "fixed_supply", tU256, "recipient", tAddr)}, erc20Events,
			"openzeppelin::token::erc20::erc20::ERC20Component::Event")
	case clsERC721:
		return sierraABI("ERC721MixinImpl", "openzeppelin::token::erc721::interface::ERC721ABI", []abiEntry{
			sierraFn("balance_of", true, tU256, "account", tAddr), sierraFn("owner_of", true, tAddr, "token_id", tU256),
			sierraFn("safe_transfer_from", false, "", "from", tAddr, "to", tAddr, "token_id", tU256, "data", tSpan),
			sierraFn("transfer_from", false, "", "from", tAddr, "to", tAddr, "token_id", tU256),
			sierraFn("approve", false, "", "to", tAddr, "token_id", tU256),
			sierraFn("set_approval_for_all", false, "", "operator", tAddr, "approved", tBool),
			sierraFn("get_approved", true, tAddr, "token_id", tU256),
			sierraFn("is_approved_for_all", true, tBool, "owner", tAddr, "operator", tAddr),
			sierraFn("name", true, tBytes), sierraFn("symbol", true, tBytes), sierraFn("token_uri", true, tBytes, "token_id", tU256),
			sierraFn("supports_interface", true, tBool, "interface_id", tFelt),
			sierraFn("mint", false, "", "to", tAddr), sierraFn("burn", false, "", "token_id", tU256),
		}, []abiEntry{ctor("name", tBytes, "symbol", tBytes, "base_uri", tBytes)}, []abiEntry{
			sierraEvent("openzeppelin::token::erc721::erc721::ERC721Component::Transfer", "from", tAddr, "key", "to", tAddr, "key", "token_id", tU256, "key"),
			sierraEvent("openzeppelin::token::erc721::erc721::ERC721Component::Approval", "owner", tAddr, "key", "approved", tAddr, "key", "token_id", tU256, "key"),
			sierraEvent("openzeppelin::token::erc721::erc721::ERC721Component::ApprovalForAll", "owner", tAddr, "key", "operator", tAddr, "key", "approved", tBool, "data"),
		}, "openzeppelin::token::erc721::erc721::ERC721Component::Event")
	case clsERC1155:
		return sierraABI("ERC1155MixinImpl", "openzeppelin::token::erc1155::interface::ERC1155ABI", []abiEntry{
			sierraFn("balance_of", true, tU256, "account", tAddr, "token_id", tU256),
			sierraFn("balance_of_batch", true, "core::array::Span::<core::integer::u256>", "accounts", "core::array::Span::<core::starknet::contract_address::ContractAddress>", "token_ids", "core::array::Span::<core::integer::u256>"),
			sierraFn("safe_transfer_from", false, "", "from", tAddr, "to", tAddr, "token_id", tU256, "value", tU256, "data", tSpan),
			sierraFn("set_approval_for_all", false, "", "operator", tAddr, "approved", tBool),
			sierraFn("is_approved_for_all", true, tBool, "owner", tAddr, "operator", tAddr),
			sierraFn("uri", true, tBytes, "token_id", tU256), sierraFn("supports_interface", true, tBool, "interface_id", tFelt),
			sierraFn("mint", false, "", "to", tAddr, "token_id", tU256, "value", tU256), sierraFn("burn", false, "", "from", tAddr, "token_id", tU256, "value", tU256),
		}, []abiEntry{ctor("base_uri", tBytes)}, []abiEntry{
			sierraEvent("openzeppelin::token::erc1155::erc1155::ERC1155Component::TransferSingle", "operator", tAddr, "key", "from", tAddr, "key", "to", tAddr, "key", "id", tU256, "data", "value", tU256, "data"),
			sierraEvent("openzeppelin::token::erc1155::erc1155::ERC1155Component::TransferBatch", "operator", tAddr, "key", "from", tAddr, "key", "to", tAddr, "key", "ids", "core::array::Span::<core::integer::u256>", "data", "values", "core::array::Span::<core::integer::u256>", "data"),
			sierraEvent("openzeppelin::token::erc1155::erc1155::ERC1155Component::ApprovalForAll", "owner", tAddr, "key", "operator", tAddr, "key", "approved", tBool, "data"),
		}, "openzeppelin::token::erc1155::erc1155::ERC1155Component::Event")
	case clsStaking:
		p := "staking::staking::staking::Staking"
		return sierraABI("StakingImpl", "staking::staking::interface::IStaking", []abiEntry{
			sierraFn("stake", false, "", "reward_address", tAddr, "operational_address", tAddr, "amount", tU128, "pool_enabled", tBool, "commission", tU16),
			sierraFn("increase_stake", false, tU128, "staker_address", tAddr, "amount", tU128),
			sierraFn("add_stake_from_pool", false, "", "staker_address", tAddr, "amount", tU128),
			sierraFn("unstake_intent", false, "core::integer::u64"), sierraFn("unstake_action", false, tU128, "staker_address", tAddr),
			sierraFn("claim_rewards", false, tU128, "staker_address", tAddr),
			sierraFn("staker_info", true, "staking::staking::interface::StakerInfo", "staker_address", tAddr),
			sierraFn("get_total_stake", true, tU128),
			sierraFn("set_open_for_delegation", false, tAddr, "token_address", tAddr),
			sierraFn("contract_parameters_v1", true, "staking::staking::interface::StakingContractInfoV1"),
			sierraFn("get_current_epoch", true, "core::integer::u64"),
			sierraFn("get_current_epoch_data", true, "(core::integer::u64, core::integer::u64, core::integer::u32)"),
			sierraFn("get_current_total_staking_power", true, "(core::integer::u128, core::integer::u128)"),
			sierraFn("get_active_tokens", true, "core::array::Span::<core::starknet::contract_address::ContractAddress>"),
			sierraFn("get_total_stake_for_token", true, tU128, "token_address", tAddr),
		}, []abiEntry{ctor("token_address", tAddr, "min_stake", tU128, "pool_contract_class_hash", "core::starknet::class_hash::ClassHash")}, []abiEntry{
			sierraEvent(p+"::NewStaker", "staker_address", tAddr, "key", "reward_address", tAddr, "data", "operational_address", tAddr, "data", "self_stake", tU128, "data"),
			sierraEvent(p+"::StakeBalanceChanged", "staker_address", tAddr, "key", "old_self_stake", tU128, "data", "old_delegated_stake", tU128, "data", "new_self_stake", tU128, "data", "new_delegated_stake", tU128, "data"),
			sierraEvent(p+"::NewDelegationPool", "staker_address", tAddr, "key", "pool_contract", tAddr, "key", "commission", tU16, "data"),
			sierraEvent(p+"::StakeOwnBalanceChanged", "staker_address", tAddr, "key", "old_self_stake", tU128, "data", "new_self_stake", tU128, "data"),
			sierraEvent(p+"::StakeDelegatedBalanceChanged", "staker_address", tAddr, "key", "token_address", tAddr, "key", "old_delegated_stake", tU128, "data", "new_delegated_stake", tU128, "data"),
		}, p+"::Event")
	case clsPool:
		p := "staking::pool::pool::Pool"
		return sierraABI("PoolImpl", "staking::pool::interface::IPool", []abiEntry{
			sierraFn("enter_delegation_pool", false, "", "reward_address", tAddr, "amount", tU128),
			sierraFn("add_to_delegation_pool", false, tU128, "pool_member", tAddr, "amount", tU128),
			sierraFn("exit_delegation_pool_intent", false, "", "amount", tU128),
			sierraFn("exit_delegation_pool_action", false, tU128, "pool_member", tAddr),
			sierraFn("claim_rewards", false, tU128, "pool_member", tAddr),
			sierraFn("pool_member_info", true, "staking::pool::interface::PoolMemberInfo", "pool_member", tAddr),
		}, []abiEntry{ctor("staker_address", tAddr, "staking_contract", tAddr, "token_address", tAddr, "commission", tU16)}, []abiEntry{
			sierraEvent(p+"::NewPoolMember", "pool_member", tAddr, "key", "staker_address", tAddr, "key", "reward_address", tAddr, "data", "amount", tU128, "data"),
			sierraEvent(p+"::PoolMemberBalanceChanged", "pool_member", tAddr, "key", "old_delegated_stake", tU128, "data", "new_delegated_stake", tU128, "data"),
			sierraEvent(p+"::PoolMemberRewardClaimed", "pool_member", tAddr, "key", "reward_address", tAddr, "key", "amount", tU128, "data"),
		}, p+"::Event")
	case clsMintingCurve:
		p := "staking::minting_curve::minting_curve::MintingCurve"
		return sierraABI("MintingCurveImpl", "staking::minting_curve::interface::IMintingCurve", []abiEntry{
			sierraFn("yearly_mint", true, tU128),
			sierraFn("contract_parameters", true, "staking::minting_curve::interface::MintingCurveContractInfo"),
			sierraFn("update_total_supply", false, "", "total_supply", tU128),
		}, []abiEntry{ctor("staking_contract", tAddr, "total_supply", tU128)}, []abiEntry{
			sierraEvent(p+"::TotalSupplyChanged", "old_total_supply", tU128, "data", "new_total_supply", tU128, "data"),
		}, p+"::Event")
	case clsRewardSupplier:
		return sierraABI("RewardSupplierImpl", "staking::reward_supplier::interface::IRewardSupplier", []abiEntry{
			sierraFn("calculate_current_epoch_rewards", true, tU128),
		}, []abiEntry{ctor("minting_curve_contract", tAddr, "staking_contract", tAddr)}, nil,
			"staking::reward_supplier::reward_supplier::RewardSupplier::Event")
	case clsAttestation:
		return sierraABI("AttestationImpl", "staking::attestation::interface::IAttestation", []abiEntry{
			sierraFn("attest", false, "", "block_hash", tFelt),
			sierraFn("get_last_epoch_attestation_done", true, "core::integer::u64", "staker_address", tAddr),
		}, []abiEntry{ctor("staking_contract", tAddr, "attestation_window", tU16)}, []abiEntry{
			sierraEvent("staking::attestation::interface::Events::StakerAttestationSuccessful", "staker_address", tAddr, "key", "epoch", "core::integer::u64", "data"),
		}, "staking::attestation::attestation::Attestation::Event")
	case clsMarketplace:
		return sierraABI("MarketplaceImpl", "marketplace::IMarketplace", []abiEntry{
			sierraFn("fulfill_order", false, "", "collection", tAddr, "token_id", tU256, "price", tU128),
		}, nil, nil, "marketplace::marketplace::Marketplace::Event")
	case clsNaming:
		p := "naming::naming::main::Naming"
		return sierraABI("NamingImpl", "naming::interface::naming::INaming", []abiEntry{
			sierraFn("buy", false, "", "id", tU128, "domain", tFelt, "days", "core::integer::u16", "resolver", tAddr, "sponsor", tAddr, "discount_id", tFelt, "metadata", tFelt),
			sierraFn("set_address_to_domain", false, "", "domain", tSpan, "hint", tSpan),
			sierraFn("address_to_domain", true, tSpan, "address", tAddr, "hint", tSpan),
			sierraFn("domain_to_address", true, tAddr, "domain", tSpan, "hint", tSpan),
		}, nil, []abiEntry{
			sierraEvent(p+"::DomainMint", "domain", tFelt, "key", "owner", tU128, "data", "expiry", "core::integer::u64", "data"),
			sierraEvent(p+"::DomainRenewal", "domain", tFelt, "key", "new_expiry", "core::integer::u64", "data"),
			sierraEvent(p+"::AddressToDomainUpdate", "address", tAddr, "key", "domain", tSpan, "data"),
		}, p+"::Event")
	case clsOracle:
		return sierraABI("PragmaOracle", "pragma_lib::abi::IPragmaABI", []abiEntry{
			sierraFn("get_data_median", true, "pragma_lib::types::PragmaPricesResponse", "data_type", "pragma_lib::types::DataType"),
		}, nil, nil, "pragma::oracle::oracle::Oracle::Event")
	}
	// Generated dapp classes: an ordinary contract, neither token nor account.
	return sierraABI("CounterImpl", "dapp::ICounter", []abiEntry{
		sierraFn("increase", false, "", "amount", tFelt), sierraFn("get", true, tFelt),
	}, nil, []abiEntry{sierraEvent("dapp::counter::Counter::Increased", "by", tFelt, "data")}, "dapp::counter::Counter::Event")
}

// cairo0ABI is the ABI array of a Cairo 0 class.
func cairo0ABI(c int) []any {
	fn := func(name string, view bool, ins []string, outs []string) map[string]any {
		m := map[string]any{"type": "function", "name": name, "inputs": c0params(ins), "outputs": c0params(outs)}
		if view {
			m["stateMutability"] = "view"
		}
		return m
	}
	uint256 := map[string]any{"type": "struct", "name": "Uint256", "size": 2, "members": []map[string]any{
		{"name": "low", "offset": 0, "type": "felt"}, {"name": "high", "offset": 1, "type": "felt"}}}
	callArray := map[string]any{"type": "struct", "name": "AccountCallArray", "size": 4, "members": []map[string]any{
		{"name": "to", "offset": 0, "type": "felt"}, {"name": "selector", "offset": 1, "type": "felt"},
		{"name": "data_offset", "offset": 2, "type": "felt"}, {"name": "data_len", "offset": 3, "type": "felt"}}}
	switch c {
	case clsFeeToken:
		return []any{uint256,
			map[string]any{"type": "event", "name": "Transfer", "keys": []any{}, "data": c0params([]string{"from_:felt", "to:felt", "value:Uint256"})},
			map[string]any{"type": "event", "name": "Approval", "keys": []any{}, "data": c0params([]string{"owner:felt", "spender:felt", "value:Uint256"})},
			fn("name", true, nil, []string{"name:felt"}), fn("symbol", true, nil, []string{"symbol:felt"}),
			fn("decimals", true, nil, []string{"decimals:felt"}), fn("totalSupply", true, nil, []string{"totalSupply:Uint256"}),
			fn("balanceOf", true, []string{"account:felt"}, []string{"balance:Uint256"}),
			fn("allowance", true, []string{"owner:felt", "spender:felt"}, []string{"remaining:Uint256"}),
			fn("transfer", false, []string{"recipient:felt", "amount:Uint256"}, []string{"success:felt"}),
			fn("transferFrom", false, []string{"sender:felt", "recipient:felt", "amount:Uint256"}, []string{"success:felt"}),
			fn("approve", false, []string{"spender:felt", "amount:Uint256"}, []string{"success:felt"}),
			fn("permissionedMint", false, []string{"recipient:felt", "amount:Uint256"}, nil),
		}
	case clsBridge:
		return []any{
			map[string]any{"type": "event", "name": "deposit_handled", "keys": []any{}, "data": c0params([]string{"account:felt", "amount:Uint256"})},
			map[string]any{"type": "event", "name": "withdraw_initiated", "keys": []any{}, "data": c0params([]string{"l1_recipient:felt", "amount:Uint256", "caller_address:felt"})},
			fn("get_l1_bridge", true, nil, []string{"res:felt"}), fn("get_l2_token", true, nil, []string{"res:felt"}),
			fn("initiate_withdraw", false, []string{"l1_recipient:felt", "amount:Uint256"}, nil),
			map[string]any{"type": "l1_handler", "name": "handle_deposit", "inputs": c0params([]string{"from_address:felt", "account:felt", "amount_low:felt", "amount_high:felt"}), "outputs": []any{}},
		}
	case clsUDC:
		return []any{
			map[string]any{"type": "event", "name": "ContractDeployed", "keys": []any{}, "data": c0params([]string{"address:felt", "deployer:felt", "unique:felt", "classHash:felt", "calldata_len:felt", "calldata:felt*", "salt:felt"})},
			fn("deployContract", false, []string{"classHash:felt", "salt:felt", "unique:felt", "calldata_len:felt", "calldata:felt*"}, []string{"address:felt"}),
		}
	case clsArgentProxy:
		return []any{
			map[string]any{"type": "constructor", "name": "constructor", "inputs": c0params([]string{"implementation:felt", "selector:felt", "calldata_len:felt", "calldata:felt*"}), "outputs": []any{}},
			map[string]any{"type": "function", "name": "__default__", "inputs": c0params([]string{"selector:felt", "calldata_size:felt", "calldata:felt*"}), "outputs": c0params([]string{"retdata_size:felt", "retdata:felt*"})},
			map[string]any{"type": "l1_handler", "name": "__l1_default__", "inputs": c0params([]string{"selector:felt", "calldata_size:felt", "calldata:felt*"}), "outputs": []any{}},
			fn("get_implementation", true, nil, []string{"implementation:felt"}),
			map[string]any{"type": "event", "name": "Upgraded", "keys": []any{}, "data": c0params([]string{"new_implementation:felt"})},
		}
	default: // Cairo 0 accounts
		return []any{callArray,
			fn("__execute__", false, []string{"call_array_len:felt", "call_array:AccountCallArray*", "calldata_len:felt", "calldata:felt*"}, []string{"response_len:felt", "response:felt*"}),
			fn("__validate__", false, []string{"call_array_len:felt", "call_array:AccountCallArray*", "calldata_len:felt", "calldata:felt*"}, nil),
			fn("__validate_declare__", false, []string{"class_hash:felt"}, nil),
			fn("isValidSignature", true, []string{"hash:felt", "signature_len:felt", "signature:felt*"}, []string{"isValid:felt"}),
			fn("supportsInterface", true, []string{"interfaceId:felt"}, []string{"success:felt"}),
			fn("getPublicKey", true, nil, []string{"publicKey:felt"}),
			map[string]any{"type": "event", "name": "transaction_executed", "keys": []any{}, "data": c0params([]string{"hash:felt", "response_len:felt", "response:felt*"})},
		}
	}
}

func c0params(specs []string) []map[string]string {
	out := []map[string]string{}
	for _, s := range specs {
		i := 0
		for s[i] != ':' {
			i++
		}
		out = append(out, map[string]string{"name": s[:i], "type": s[i+1:]})
	}
	return out
}

// entry point selectors from ABI function names.
func abiSelectors(names []string) []felt {
	out := make([]felt, 0, len(names))
	for _, n := range names {
		out = append(out, selector(n))
	}
	sort.Slice(out, func(i, j int) bool {
		for k := 0; k < 4; k++ {
			if out[i][k] != out[j][k] {
				return out[i][k] < out[j][k]
			}
		}
		return false
	})
	return out
}

// encodeClass renders the getClass result of a catalogue class or a dapp variant.
func encodeClass(c int, variant uint64) []byte {
	if c >= 0 && isCairo0Class(c) {
		abi := cairo0ABI(c)
		var ext, l1 []string
		for _, e := range abi {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			switch m["type"] {
			case "function":
				ext = append(ext, m["name"].(string))
			case "l1_handler":
				l1 = append(l1, m["name"].(string))
			}
		}
		eps := func(names []string) []map[string]string {
			out := []map[string]string{}
			for i, s := range abiSelectors(names) {
				out = append(out, map[string]string{"offset": feltU(uint64(100 + 37*i)).String(), "selector": s.String()})
			}
			return out
		}
		cls := map[string]any{
			"program":              cairo0Program(classNames[c]),
			"entry_points_by_type": map[string]any{"CONSTRUCTOR": eps(nil), "EXTERNAL": eps(ext), "L1_HANDLER": eps(l1)},
			"abi":                  abi,
		}
		b, _ := json.Marshal(cls)
		return b
	}
	abi := sierraClassABI(c)
	var parsed []struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Items []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"items"`
	}
	_ = json.Unmarshal([]byte(abi), &parsed)
	var ext []string
	hasCtor := false
	for _, e := range parsed {
		if e.Type == "constructor" {
			hasCtor = true
		}
		for _, it := range e.Items {
			if it.Type == "function" {
				ext = append(ext, it.Name)
			}
		}
	}
	eps := func(names []string) []map[string]any {
		out := []map[string]any{}
		for i, s := range abiSelectors(names) {
			out = append(out, map[string]any{"selector": s.String(), "function_idx": i})
		}
		return out
	}
	ctors := []map[string]any{}
	if hasCtor {
		ctors = append(ctors, map[string]any{"selector": selector("constructor").String(), "function_idx": len(ext)})
	}
	h := classHash(max(c, 0))
	if c < 0 {
		h = dappClassHash(variant)
	}
	program := []string{"0x1", "0x6", "0x0", "0x2", "0x9", "0x0"}
	for i := uint64(0); i < 24; i++ {
		program = append(program, hash3(h[2], h[3], i).String())
	}
	cls := map[string]any{
		"sierra_program":         program,
		"contract_class_version": "0.1.0",
		"entry_points_by_type":   map[string]any{"CONSTRUCTOR": ctors, "EXTERNAL": eps(ext), "L1_HANDLER": []any{}},
		"abi":                    abi,
	}
	b, _ := json.Marshal(cls)
	return b
}

// cairo0Program is base64(gzip(program JSON)), as nodes serve Cairo 0 programs.
func cairo0Program(name string) string {
	prog, _ := json.Marshal(map[string]any{
		"attributes": []any{}, "builtins": []string{"pedersen", "range_check"}, "compiler_version": "0.10.3",
		"data":              []string{"0x40780017fff7fff", "0x1", "0x208b7fff7fff7ffe"},
		"debug_info":        nil,
		"hints":             map[string]any{},
		"identifiers":       map[string]any{"__main__." + name: map[string]any{"type": "namespace"}},
		"main_scope":        "__main__",
		"prime":             "0x800000000000011000000000000000000000000000000000000000000000001",
		"reference_manager": map[string]any{"references": []any{}},
	})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(prog)
	zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
