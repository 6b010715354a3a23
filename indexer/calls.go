package indexer

import (
	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
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
		calls = append(calls, decodedCall{To: rest[pos], Selector: rest[pos+1], Calldata: rest[pos+3 : pos+3+l]})
		pos += 3 + l
	}
	return &outsideExecution{Version: version, Caller: data[0], Calls: calls}, true
}

// decodeInputs names a call's arguments with the callee's ABI, as the explorer shows them:
// an object keyed by argument name, u256 values as {low, high} decimal strings, structs as
// objects. It returns nil when the ABI does not explain the calldata completely. (The
// indexer encodes JSON with goccy/go-json: twice as fast as encoding/json on these values,
// on the writer's critical path.)
func decodeInputs(abi *class.ABI, selector starknet.Felt, calldata []starknet.Felt) db.JSON {
	d := decode.DecodeCall(abi, selector, calldata)
	if d.Function == "" || d.Partial {
		return nil
	}
	b, err := json.Marshal(namedValues(d.Inputs))
	if err != nil {
		return nil
	}
	return db.JSON(b)
}

func namedValues(vals []decode.Value) map[string]any {
	out := make(map[string]any, len(vals))
	for _, v := range vals {
		out[v.Name] = explorerValue(v.Value)
	}
	return out
}

func explorerValue(v any) any {
	switch x := v.(type) {
	case decode.U256:
		return map[string]string{"low": hexToDecimal(x.Low), "high": hexToDecimal(x.High)}
	case []decode.Value:
		return namedValues(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = explorerValue(e)
		}
		return out
	case decode.Variant:
		return map[string]any{x.Name: explorerValue(x.Value)}
	}
	return v
}

// hexToDecimal writes a u256 half, a felt's hex, in decimal as the explorer does.
func hexToDecimal(s string) string {
	f, err := starknet.ParseFelt(s)
	if err != nil {
		return s
	}
	return f.Decimal()
}
