package sim

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func bigHex(s string) *big.Int {
	v, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
	if !ok {
		panic("bad hex " + s)
	}
	return v
}

// u256 reads a [low, high] call result.
func u256(t *testing.T, raw json.RawMessage) *big.Int {
	t.Helper()
	var fs []string
	if err := json.Unmarshal(raw, &fs); err != nil || len(fs) != 2 {
		t.Fatalf("not a u256: %s", raw)
	}
	return new(big.Int).Add(bigHex(fs[0]), new(big.Int).Lsh(bigHex(fs[1]), 128))
}

var (
	hexTransfer       = selector("Transfer").String()
	hexTransferSingle = selector("TransferSingle").String()
)

// TestCallsAgreeWithEvents replays the Transfer events served over RPC and checks
// that starknet_call answers (balances, supplies, owners) agree, at the head and
// at an older block, and that every event has the layout of its token standard.
func TestCallsAgreeWithEvents(t *testing.T) {
	const blocks, mid = 120, 70
	c := New(Config{Seed: 11, Blocks: blocks, TxPerBlock: 20})
	cl := serveChain(t, c)

	type key struct{ token, holder, id string }
	balances := map[key]*big.Int{}
	var midBalances map[key]string
	owners := map[key]string{} // ERC-721 (collection, id) -> owner
	var midOwners map[key]string
	layouts := map[string]int{}
	add := func(k key, v *big.Int) {
		if balances[k] == nil {
			balances[k] = new(big.Int)
		}
		balances[k].Add(balances[k], v)
	}
	move := func(token, from, to, id string, amount *big.Int) {
		neg := new(big.Int).Neg(amount)
		if from == "0x0" {
			add(key{token, "supply", id}, amount)
		} else {
			add(key{token, from, id}, neg)
		}
		if to == "0x0" {
			add(key{token, "supply", id}, neg)
		} else {
			add(key{token, to, id}, amount)
		}
	}
	fee := map[string]bool{fixedAddr[fixedETH].String(): true, fixedAddr[fixedSTRK].String(): true,
		fixedAddr[fixedUSDC].String(): true, fixedAddr[fixedWBTC].String(): true}
	for n := uint64(0); n < blocks; n++ {
		for _, tx := range cl.block(n).Transactions {
			for _, e := range tx.Receipt.Events {
				switch {
				case len(e.Keys) == 1 && e.Keys[0] == hexTransfer:
					if !fee[e.From] || len(e.Data) != 4 {
						t.Fatalf("legacy Transfer from %s with %d data", e.From, len(e.Data))
					}
					layouts["legacy"]++
					move(e.From, e.Data[0], e.Data[1], "", new(big.Int).Add(bigHex(e.Data[2]), new(big.Int).Lsh(bigHex(e.Data[3]), 128)))
				case len(e.Keys) == 3 && e.Keys[0] == hexTransfer:
					if len(e.Data) != 2 {
						t.Fatalf("OZ Transfer with %d data", len(e.Data))
					}
					layouts["oz"]++
					move(e.From, e.Keys[1], e.Keys[2], "", bigHex(e.Data[0]))
				case len(e.Keys) == 5 && e.Keys[0] == hexTransfer:
					if len(e.Data) != 0 || e.Keys[4] != "0x0" {
						t.Fatalf("ERC-721 Transfer %v %v", e.Keys, e.Data)
					}
					layouts["erc721"]++
					move(e.From, e.Keys[1], e.Keys[2], "", big.NewInt(1))
					owners[key{e.From, "", e.Keys[3]}] = e.Keys[2]
				case e.Keys[0] == hexTransferSingle:
					if len(e.Keys) != 4 || len(e.Data) != 4 {
						t.Fatalf("TransferSingle %v %v", e.Keys, e.Data)
					}
					layouts["erc1155"]++
					move(e.From, e.Keys[2], e.Keys[3], e.Data[0], bigHex(e.Data[2]))
				}
			}
		}
		if n == mid {
			midBalances = map[key]string{}
			for k, v := range balances {
				midBalances[k] = v.String()
			}
			midOwners = map[key]string{}
			for k, v := range owners {
				midOwners[k] = v
			}
		}
	}
	for _, l := range []string{"legacy", "oz", "erc721", "erc1155"} {
		if layouts[l] == 0 {
			t.Errorf("no %s Transfer events in %d blocks", l, blocks)
		}
	}

	callAt := func(block uint64, contract, fn string, args ...string) json.RawMessage {
		if args == nil {
			args = []string{}
		}
		return cl.OK("starknet_call", map[string]any{"contract_address": contract, "entry_point_selector": selector(fn).String(), "calldata": args},
			map[string]uint64{"block_number": block})
	}
	checked := 0
	for k, v := range balances {
		if checked > 400 {
			break
		}
		e, _ := c.w.entityAt(mustFelt(k.token))
		if e.kind == kindOdd {
			continue // their events do not tell their balances (TestStorageAndOddTokens)
		}
		checked++
		var got *big.Int
		switch {
		case k.holder == "supply" && e.kind == kindERC1155:
			continue // ERC-1155 has no total supply entry point here
		case k.holder == "supply":
			got = u256(t, callAt(blocks-1, k.token, "total_supply"))
		case e.kind == kindERC1155:
			got = u256(t, callAt(blocks-1, k.token, "balance_of", k.holder, k.id, "0x0"))
		default:
			got = u256(t, callAt(blocks-1, k.token, "balance_of", k.holder))
		}
		if got.Cmp(v) != 0 {
			t.Fatalf("%s balance of %s (id %s): call %s, events %s", k.token, k.holder, k.id, got, v)
		}
		if v.Sign() < 0 {
			t.Fatalf("negative balance %s of %s", v, k.holder)
		}
		if old, ok := midBalances[k]; ok && k.holder != "supply" && e.kind != kindERC1155 {
			if got := u256(t, callAt(mid, k.token, "balanceOf", k.holder)); got.String() != old {
				t.Fatalf("%s balance of %s at block %d: call %s, events %s", k.token, k.holder, mid, got, old)
			}
		}
	}
	for k, owner := range owners {
		if owner == "0x0" {
			r := cl.Call("starknet_call", map[string]any{"contract_address": k.token, "entry_point_selector": selector("owner_of").String(), "calldata": []string{k.id, "0x0"}}, "latest")
			if r.Error == nil || r.Error.Code != 40 {
				t.Errorf("owner_of a burned token: %+v", r.Error)
			}
			continue
		}
		var got []string
		json.Unmarshal(callAt(blocks-1, k.token, "owner_of", k.id, "0x0"), &got)
		if len(got) != 1 || got[0] != owner {
			t.Fatalf("owner_of %s #%s = %v, events say %s", k.token, k.id, got, owner)
		}
		if o, ok := midOwners[k]; ok && o != "0x0" {
			json.Unmarshal(callAt(mid, k.token, "owner_of", k.id, "0x0"), &got)
			if got[0] != o {
				t.Fatalf("owner_of at block %d", mid)
			}
		}
		var uri []string
		json.Unmarshal(callAt(blocks-1, k.token, "token_uri", k.id, "0x0"), &uri)
		if len(uri) < 3 {
			t.Fatalf("token_uri %v", uri)
		}
	}
	// Metadata: felt short strings for fee tokens, ByteArray for even OZ tokens.
	if got := string(callAt(1, fixedAddr[fixedETH].String(), "symbol")); got != `["0x455448"]` {
		t.Errorf("ETH symbol %s", got)
	}
	if got := string(callAt(1, c.w.addr(entity{kindERC20, 0}).String(), "decimals")); got != `["0x12"]` {
		t.Errorf("decimals %s", got)
	}
	var name []string
	json.Unmarshal(callAt(1, c.w.addr(entity{kindERC20, 0}).String(), "name"), &name)
	if len(name) != 3 || name[0] != "0x0" || name[1] != shortString("Sim Token 0").String() {
		t.Errorf("ByteArray name %v", name)
	}
	cl.WantError(21, "starknet_call", map[string]any{"contract_address": fixedAddr[fixedETH].String(), "entry_point_selector": selector("nope").String(), "calldata": []string{}}, "latest")

	// Holder counts of the OZ tokens fall off like a power law.
	holders := make([]int, numERC20)
	for k, v := range balances {
		e, _ := c.w.entityAt(mustFelt(k.token))
		if e.kind == kindERC20 && k.holder != "supply" && v.Sign() > 0 {
			holders[e.idx]++
		}
	}
	if !(holders[0] > 2*holders[5] && holders[5] >= holders[25] && holders[25] > 0) {
		t.Errorf("holder counts do not fall off: %v", holders)
	}
}

// TestReorgKeepsCallsConsistent: after a reorg the ledger forgets the old fork.
func TestReorgKeepsCallsConsistent(t *testing.T) {
	c := New(Config{Seed: 12, Blocks: 30})
	cl := serveChain(t, c)
	seq := fixedAddr[fixedSequencer].String()
	eth := fixedAddr[fixedETH].String()
	balanceAt := func(n uint64) *big.Int {
		return u256(t, cl.OK("starknet_call", map[string]any{"contract_address": eth, "entry_point_selector": selector("balanceOf").String(), "calldata": []string{seq}}, map[string]uint64{"block_number": n}))
	}
	feesUpTo := func(last uint64) *big.Int {
		sum := new(big.Int)
		for n := uint64(0); n <= last; n++ {
			for _, tx := range cl.block(n).Transactions {
				if tx.Receipt.Fee.Unit == "WEI" {
					sum.Add(sum, bigHex(tx.Receipt.Fee.Amount))
				}
			}
		}
		return sum
	}
	if got, want := balanceAt(29), feesUpTo(29); got.Cmp(want) != 0 {
		t.Fatalf("sequencer ETH %s, WEI fees %s", got, want)
	}
	c.Reorg(5)
	if got, want := balanceAt(29), feesUpTo(29); got.Cmp(want) != 0 {
		t.Fatalf("after reorg: sequencer ETH %s, WEI fees %s", got, want)
	}
}

// TestStateAndClasses: deployments and declarations in the state updates agree
// with the transactions, getClassHashAt and getClass; ABIs tell what contracts are.
func TestStateAndClasses(t *testing.T) {
	const blocks = 80
	c := New(Config{Seed: 13, Blocks: blocks})
	cl := serveChain(t, c)
	seenDeployAccount, seenDeclare, seenPool, seenMeta, seenMulti0, seenMulti1, seenUDC := 0, 0, 0, 0, 0, 0, 0
	seenV2Own, seenV2Deleg := 0, 0
	staking := map[string][2]string{} // staker -> last (self, delegated)
	stakingEvents := map[string]int{}
	for n := uint64(0); n < blocks; n++ {
		b := cl.block(n)
		var su struct {
			StateDiff struct {
				Deployed []struct {
					Address   string `json:"address"`
					ClassHash string `json:"class_hash"`
				} `json:"deployed_contracts"`
				Declared []struct {
					ClassHash string `json:"class_hash"`
				} `json:"declared_classes"`
				Deprecated []string `json:"deprecated_declared_classes"`
			} `json:"state_diff"`
		}
		json.Unmarshal(cl.OK("starknet_getStateUpdate", map[string]uint64{"block_number": n}), &su)
		deployed := map[string]string{}
		for _, d := range su.StateDiff.Deployed {
			deployed[d.Address] = d.ClassHash
			if got := string(cl.OK("starknet_getClassHashAt", map[string]uint64{"block_number": n}, d.Address)); got != `"`+d.ClassHash+`"` {
				t.Fatalf("getClassHashAt %s = %s, state diff says %s", d.Address, got, d.ClassHash)
			}
			if n > 0 {
				cl.WantError(20, "starknet_getClassHashAt", map[string]uint64{"block_number": n - 1}, d.Address)
			}
			if c.w.classOfEntity(mustEntity(c, d.Address)) == classHash(clsPool) {
				seenPool++
			}
		}
		declared := map[string]bool{}
		for _, d := range su.StateDiff.Declared {
			declared[d.ClassHash] = true
			cl.OK("starknet_getClass", map[string]uint64{"block_number": n}, d.ClassHash)
			if n > 0 {
				cl.WantError(28, "starknet_getClass", map[string]uint64{"block_number": n - 1}, d.ClassHash)
			}
		}
		for _, h := range su.StateDiff.Deprecated {
			cl.OK("starknet_getClass", "latest", h)
			declared[h] = true // by a DECLARE v1
		}
		for _, tx := range b.Transactions {
			switch tx.Transaction.Type {
			case "DEPLOY_ACCOUNT":
				seenDeployAccount++
				if deployed[tx.Receipt.ContractAddress] != tx.Transaction.ClassHash {
					t.Errorf("block %d: deployed account %s not in the state diff", n, tx.Receipt.ContractAddress)
				}
			case "DECLARE":
				seenDeclare++
				if !declared[tx.Transaction.ClassHash] {
					t.Errorf("block %d: declared class %s not in the state diff", n, tx.Transaction.ClassHash)
				}
			case "INVOKE":
				cd := tx.Transaction.Calldata
				if len(cd) > 2 && cd[2] == selector("execute_from_outside_v2").String() {
					seenMeta++
				}
				// Cairo 0 layout: call_array_len, 4 felts per call, calldata_len, data.
				e := mustEntity(c, tx.Transaction.Sender)
				calls := int(bigHex(cd[0]).Int64())
				if calls > 1 && c.w.isCairo1Account(int(e.idx)) {
					seenMulti1++
				} else if calls > 1 {
					seenMulti0++
					if int(bigHex(cd[1+4*calls]).Int64()) != len(cd)-2-4*calls {
						t.Errorf("Cairo 0 calldata length mismatch: %v", cd)
					}
				}
			}
			for _, e := range tx.Receipt.Events {
				if e.Keys[0] == selector("ContractDeployed").String() {
					seenUDC++
					if deployed[e.Data[0]] != e.Data[3] || e.From != fixedAddr[fixedUDC].String() {
						t.Errorf("block %d: UDC deployed %s of class %s, state diff says %q", n, e.Data[0], e.Data[3], deployed[e.Data[0]])
					}
				}
				switch e.Keys[0] {
				case selector("NewStaker").String(), selector("NewDelegationPool").String(), selector("NewPoolMember").String(), selector("PoolMemberBalanceChanged").String():
					stakingEvents[e.Keys[0]]++
				case selector("StakeBalanceChanged").String():
					stakingEvents[e.Keys[0]]++
					prev, ok := staking[e.Keys[1]]
					if ok && (prev[0] != e.Data[0] || prev[1] != e.Data[1]) {
						t.Errorf("StakeBalanceChanged for %s starts at %v, last ended at %v", e.Keys[1], e.Data[:2], prev)
					}
					staking[e.Keys[1]] = [2]string{e.Data[2], e.Data[3]}
				case selector("StakeOwnBalanceChanged").String():
					seenV2Own++
					prev := staking[e.Keys[1]]
					if prev[0] != e.Data[0] {
						t.Errorf("StakeOwnBalanceChanged for %s starts at %s, own stake was %s", e.Keys[1], e.Data[0], prev[0])
					}
					staking[e.Keys[1]] = [2]string{e.Data[1], prev[1]}
				case selector("StakeDelegatedBalanceChanged").String():
					if e.Keys[2] != fixedAddr[fixedSTRK].String() {
						continue
					}
					seenV2Deleg++
					prev := staking[e.Keys[1]]
					if prev[1] != e.Data[0] {
						t.Errorf("StakeDelegatedBalanceChanged for %s starts at %s, STRK delegation was %s", e.Keys[1], e.Data[0], prev[1])
					}
					staking[e.Keys[1]] = [2]string{prev[0], e.Data[1]}
				}
			}
		}
	}
	if seenUDC == 0 {
		t.Error("no UDC deployments")
	}
	if seenV2Own == 0 || seenV2Deleg == 0 {
		t.Errorf("staking v2: %d StakeOwnBalanceChanged, %d STRK StakeDelegatedBalanceChanged", seenV2Own, seenV2Deleg)
	}
	if seenDeployAccount == 0 || seenDeclare == 0 || seenPool == 0 || seenMeta == 0 || seenMulti0 == 0 || seenMulti1 == 0 || len(stakingEvents) != 5 {
		t.Errorf("missing kinds: deploy_account %d declare %d pools %d meta %d multicall c0 %d c1 %d staking events %v",
			seenDeployAccount, seenDeclare, seenPool, seenMeta, seenMulti0, seenMulti1, stakingEvents)
	}
	// ABIs mark what classes are.
	for cls, want := range map[int]string{clsAccountOZ1: `__execute__`, clsERC20OZ: `balance_of`, clsERC721: `owner_of`, clsERC1155: `TransferSingle`,
		clsStaking: `NewDelegationPool`, clsPool: `NewPoolMember`, clsArgentProxy: `get_implementation`, clsAccountOZ0: `__execute__`, clsFeeToken: `balanceOf`} {
		var cl0 struct {
			ABI     json.RawMessage `json:"abi"`
			Version string          `json:"contract_class_version"`
		}
		json.Unmarshal(cl.OK("starknet_getClass", "latest", classHash(cls).String()), &cl0)
		if !strings.Contains(string(cl0.ABI), want) {
			t.Errorf("class %s ABI lacks %s", classNames[cls], want)
		}
		sierra := !isCairo0Class(cls)
		if sierra != (cl0.ABI[0] == '"') || sierra != (cl0.Version == "0.1.0") {
			t.Errorf("class %s: Sierra ABIs are strings with version 0.1.0, Cairo 0 ABIs arrays", classNames[cls])
		}
	}
}

func mustEntity(c *Chain, addr string) entity {
	e, ok := c.w.entityAt(mustFelt(addr))
	if !ok {
		panic("unknown address " + addr)
	}
	return e
}
