package indexer

import (
	"math"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/decode"
)

// decodedCall is one call of an account's multicall.
type decodedCall = decode.Call

// maxCalls bounds how many calls an outside execution may claim, so hostile calldata cannot
// make the indexer allocate without limit.
const maxCalls = 4096

// decodeExecute splits the calldata of an account's __execute__ into its calls, in the
// layout of the account's class when it is known (starknet/decode does the reading).
// complete is false when the calldata does not fit the layout exactly; calls then holds
// what could be read.
func decodeExecute(data []starknet.Felt, account *classInfo) (calls []decodedCall, complete bool) {
	var ex decode.Execute
	if account != nil {
		ex = decode.DecodeExecuteAs(data, decode.LayoutFor(int(account.CairoVersion)))
	} else {
		ex = decode.DecodeExecute(data)
	}
	return ex.Calls, !ex.Partial
}

func smallInt(f starknet.Felt, limit uint64) (int, bool) {
	v, ok := f.Uint64()
	if !ok || v > limit {
		return 0, false
	}
	return int(v), true
}

// wellKnownNames are entry points common enough to name without the callee's ABI.
var wellKnownNames = func() map[starknet.Felt]string {
	names := []string{
		"transfer", "transferFrom", "transfer_from", "approve", "increaseAllowance",
		"increase_allowance", "decreaseAllowance", "decrease_allowance", "mint", "burn",
		"safeTransferFrom", "safe_transfer_from", "safeBatchTransferFrom", "safe_batch_transfer_from",
		"setApprovalForAll", "set_approval_for_all", "swap", "multi_route_swap", "swap_exact_tokens_for_tokens",
		"add_liquidity", "remove_liquidity", "deposit", "withdraw", "claim", "stake", "unstake",
		"multicall", "execute_from_outside", "execute_from_outside_v2", "upgrade", "deploy_contract",
		"deployContract", "__execute__", "__validate__", "set_public_key", "setPublicKey",
		"register", "vote", "delegate", "enter_delegation_pool", "add_to_delegation_pool",
		"exit_delegation_pool_intent", "exit_delegation_pool_action", "claim_rewards",
		"stake", "increase_stake", "unstake_intent", "unstake_action", "lock", "unlock",
	}
	m := make(map[starknet.Felt]string, len(names))
	for _, n := range names {
		m[starknet.Selector(n)] = n
	}
	return m
}()

var (
	selExecuteFromOutside   = starknet.Selector("execute_from_outside")
	selExecuteFromOutsideV2 = starknet.Selector("execute_from_outside_v2")
)

// outsideExecution is a decoded SNIP-9 outside execution.
type outsideExecution struct {
	Version int16
	Caller  starknet.Felt
	Calls   []decodedCall
}

// decodeOutsideExecution reads the calldata of execute_from_outside(_v2):
// [caller, nonce, execute_after, execute_before, calls..., signature...] where calls use the
// Cairo 1 layout; Cairo 0 accounts put calls in the Cairo 0 layout.
func decodeOutsideExecution(selector starknet.Felt, data []starknet.Felt) (*outsideExecution, bool) {
	var version int16
	switch selector {
	case selExecuteFromOutside:
		version = 1
	case selExecuteFromOutsideV2:
		version = 2
	default:
		return nil, false
	}
	if len(data) < 5 {
		return nil, false
	}
	rest := data[4:]
	// The calls are followed by the signature array, so read calls greedily in Cairo 1 layout.
	n, ok := smallInt(rest[0], maxCalls)
	if !ok {
		return nil, false
	}
	var calls []decodedCall
	pos := 1
	for i := 0; i < n; i++ {
		if pos+3 > len(rest) {
			return nil, false
		}
		l, ok := smallInt(rest[pos+2], uint64(len(rest)))
		if !ok || pos+3+l > len(rest) {
			return nil, false
		}
		calls = append(calls, decodedCall{To: rest[pos], Selector: rest[pos+1], Calldata: rest[pos+3 : pos+3+l], Offset: 4 + pos + 3})
		pos += 3 + l
	}
	return &outsideExecution{Version: version, Caller: data[0], Calls: calls}, true
}

// slicesOf reports whether every call's calldata is the slice of the transaction's calldata
// at its Offset, in positions a smallint holds: the calls then store their positions
// (db.CallRow), and their felts are read from the transaction's. Otherwise (a calldata
// longer than 32,767 felts, or a call not read from the transaction's calldata) every call
// of the transaction stores its own felts, so that a reader finds the transaction's
// calldata with the first call whenever a call needs it.
func slicesOf(txCalldata []starknet.Felt, calls []decodedCall) bool {
	if len(txCalldata) > math.MaxInt16 {
		return false
	}
	for _, c := range calls {
		if c.Offset < 0 || c.Offset+len(c.Calldata) > len(txCalldata) ||
			(len(c.Calldata) > 0 && &txCalldata[c.Offset] != &c.Calldata[0]) {
			return false
		}
	}
	return true
}
