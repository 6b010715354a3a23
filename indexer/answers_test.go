package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/class"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// A block with one transaction of every type and version the indexer must read, in the
// RPC 0.8 shape (INVOKE v0, DECLARE v0/v1 and DEPLOY are from old blocks served as nodes
// serve them today).
const allTypesBlock = `{"status":"ACCEPTED_ON_L2","block_hash":"0xb1","parent_hash":"0xb0","block_number":7,
"new_root":"0x1","timestamp":1700000000,"sequencer_address":"0x5",
"l1_gas_price":{"price_in_wei":"0x10","price_in_fri":"0x20"},"l1_data_gas_price":{"price_in_wei":"0x1","price_in_fri":"0x2"},
"l2_gas_price":{"price_in_wei":"0x3","price_in_fri":"0x4"},"l1_da_mode":"BLOB","starknet_version":"0.13.5",
"transactions":[
 {"transaction":{"type":"INVOKE","version":"0x0","contract_address":"0xc1","entry_point_selector":"0xe1","calldata":["0x1"],"signature":[],"max_fee":"0x9"},
  "receipt":{"type":"INVOKE","transaction_hash":"0x100","actual_fee":{"amount":"0x1","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[],"execution_resources":{"l1_gas":1,"l1_data_gas":2,"l2_gas":3}}},
 {"transaction":{"type":"DECLARE","version":"0x0","class_hash":"0xc0de","sender_address":"0x1","max_fee":"0x1","signature":[]},
  "receipt":{"type":"DECLARE","transaction_hash":"0x101","actual_fee":{"amount":"0x1","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[],"execution_resources":{"l1_gas":0,"l1_data_gas":0,"l2_gas":0}}},
 {"transaction":{"type":"DECLARE","version":"0x1","class_hash":"0xc0df","sender_address":"0xa","nonce":"0x2","max_fee":"0x1","signature":["0x1"]},
  "receipt":{"type":"DECLARE","transaction_hash":"0x102","actual_fee":{"amount":"0x1","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[],"execution_resources":{"l1_gas":0,"l1_data_gas":0,"l2_gas":0}}},
 {"transaction":{"type":"DECLARE","version":"0x3","class_hash":"0xc0e0","compiled_class_hash":"0xcc","sender_address":"0xa","nonce":"0x3","signature":[],
   "resource_bounds":{"l1_gas":{"max_amount":"0x1","max_price_per_unit":"0x2"},"l2_gas":{"max_amount":"0x0","max_price_per_unit":"0x0"},"l1_data_gas":{"max_amount":"0x0","max_price_per_unit":"0x0"}},
   "tip":"0x0","paymaster_data":[],"account_deployment_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L2"},
  "receipt":{"type":"DECLARE","transaction_hash":"0x103","actual_fee":{"amount":"0x5","unit":"FRI"},"execution_status":"REVERTED","revert_reason":"out of gas","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[],"execution_resources":{"l1_gas":0,"l1_data_gas":0,"l2_gas":0}}},
 {"transaction":{"type":"DEPLOY","version":"0x0","class_hash":"0xc0de","contract_address_salt":"0x7","constructor_calldata":["0x1","0x2"]},
  "receipt":{"type":"DEPLOY","transaction_hash":"0x104","actual_fee":{"amount":"0x0","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[],"contract_address":"0xd1","execution_resources":{"l1_gas":0,"l1_data_gas":0,"l2_gas":0}}},
 {"transaction":{"type":"DEPLOY_ACCOUNT","version":"0x100000000000000000000000000000003","class_hash":"0xc0e0","contract_address_salt":"0x8","constructor_calldata":[],"nonce":"0x0","signature":[],
   "resource_bounds":{"l1_gas":{"max_amount":"0x1","max_price_per_unit":"0x2"},"l2_gas":{"max_amount":"0x0","max_price_per_unit":"0x0"},"l1_data_gas":{"max_amount":"0x0","max_price_per_unit":"0x0"}},
   "tip":"0x0","paymaster_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"},
  "receipt":{"type":"DEPLOY_ACCOUNT","transaction_hash":"0x105","actual_fee":{"amount":"0x1","unit":"FRI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[],"contract_address":"0xd2","execution_resources":{"l1_gas":0,"l1_data_gas":0,"l2_gas":0}}},
 {"transaction":{"type":"L1_HANDLER","version":"0x0","nonce":"0x1","contract_address":"0xc2","entry_point_selector":"0xe2","calldata":["0xfeed"]},
  "receipt":{"type":"L1_HANDLER","transaction_hash":"0x106","actual_fee":{"amount":"0x0","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","events":[],"messages_sent":[{"from_address":"0xc2","to_address":"0x0000000000000000000000000000000000000001","payload":[]}],
   "message_hash":"0x0c5a3b4c1a6a5bb9c0f2a3b4a4ffb2d3e53c1d6f0c1a2b3c4d5e6f708192a3b4","execution_resources":{"l1_gas":0,"l1_data_gas":0,"l2_gas":0}}}
]}`

// blockFrom has the indexer's node client read raw, byte for byte, as the answer for
// block 7 in a batch, as fetchRange asks for it.
func blockFrom(t *testing.T, raw string) (*rpc.Block, error) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqs []struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil || len(reqs) != 1 {
			http.Error(w, "want a batch of one", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `[{"jsonrpc":"2.0","id":%s,"result":%s}]`, reqs[0].ID, raw)
	}))
	defer srv.Close()
	var batch rpc.MixedBatch
	call := batch.BlockWithReceipts(7)
	if err := rpc.NewClient(srv.URL).Send(context.Background(), &batch); err != nil {
		return nil, err
	}
	return call.Result()
}

// TestEveryTransactionType: the node client reads every type and version the indexer
// writes, old shapes and a query version included.
func TestEveryTransactionType(t *testing.T) {
	b, err := blockFrom(t, allTypesBlock)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		typ     string
		version uint64
		unit    string
	}{{"INVOKE", 0, "WEI"}, {"DECLARE", 0, "WEI"}, {"DECLARE", 1, "WEI"}, {"DECLARE", 3, "FRI"},
		{"DEPLOY", 0, "WEI"}, {"DEPLOY_ACCOUNT", 3, "FRI"}, {"L1_HANDLER", 0, "WEI"}}
	if len(b.Transactions) != len(want) {
		t.Fatalf("%d transactions", len(b.Transactions))
	}
	for i, w := range want {
		tx := b.Transactions[i]
		if tx.Type != w.typ || tx.Version != w.version || tx.Receipt.ActualFee.Unit != w.unit {
			t.Errorf("tx %d: %s v%d %s, want %s v%d %s", i, tx.Type, tx.Version, tx.Receipt.ActualFee.Unit, w.typ, w.version, w.unit)
		}
		if tx.Hash != starknet.FeltFromUint64(0x100+uint64(i)) {
			t.Errorf("tx %d: hash %s", i, tx.Hash)
		}
	}
	if r := b.Transactions[3].Receipt; r.ExecutionStatus != rpc.ExecutionReverted || r.RevertReason != "out of gas" {
		t.Errorf("reverted receipt read as %s %q", r.ExecutionStatus, r.RevertReason)
	}
	if b.Transactions[4].Receipt.ContractAddress == nil || b.Transactions[6].Receipt.MessageHash == nil {
		t.Error("deployed address or message hash lost")
	}
	if b.L2GasPrice == nil || b.L1GasPrice.PriceInFri != starknet.FeltFromUint64(0x20) {
		t.Error("gas prices lost")
	}
}

// TestGarbageRefused: answers that must not be written are refused, naming the block.
func TestGarbageRefused(t *testing.T) {
	cases := map[string]string{
		"malformed":          allTypesBlock[:len(allTypesBlock)/2],
		"no parent_hash":     strings.Replace(allTypesBlock, `"parent_hash":"0xb0",`, "", 1),
		"wrong number":       strings.Replace(allTypesBlock, `"block_number":7`, `"block_number":8`, 1),
		"no receipt fee":     strings.Replace(allTypesBlock, `"actual_fee":{"amount":"0x1","unit":"WEI"},`, "", 1),
		"unknown type":       strings.Replace(allTypesBlock, `"type":"DEPLOY","version"`, `"type":"MINT","version"`, 1),
		"bad felt":           strings.Replace(allTypesBlock, `"0xc0de"`, `"0xzz"`, 1),
		"pending status":     strings.Replace(allTypesBlock, `"ACCEPTED_ON_L2","block_hash"`, `"PRE_CONFIRMED","block_hash"`, 1),
		"no transactions":    `{"status":"ACCEPTED_ON_L2","block_hash":"0x1","parent_hash":"0x0","block_number":7,"timestamp":1,"l1_gas_price":{"price_in_wei":"0x1","price_in_fri":"0x1"}}`,
		"not an object":      `[1,2,3]`,
		"huge version":       strings.Replace(allTypesBlock, `"version":"0x1","class_hash"`, `"version":"0x9","class_hash"`, 1),
		"invoke v1 sender":   strings.Replace(allTypesBlock, `"type":"INVOKE","version":"0x0","contract_address":"0xc1"`, `"type":"INVOKE","version":"0x1","contract_address":"0xc1"`, 1),
		"receipt type clash": strings.Replace(allTypesBlock, `"receipt":{"type":"INVOKE"`, `"receipt":{"type":"DEPLOY"`, 1),
	}
	for name, raw := range cases {
		if _, err := blockFrom(t, raw); err == nil {
			t.Errorf("%s: accepted", name)
		} else if name != "malformed" && !strings.Contains(err.Error(), "block 7") {
			// (A body that is not JSON at all cannot be blamed on one block; fetchRange
			// names the range.)
			t.Errorf("%s: error %q does not name the block", name, err)
		}
	}
}

func felts(vs ...uint64) []starknet.Felt {
	out := make([]starknet.Felt, len(vs))
	for i, v := range vs {
		out[i] = starknet.FeltFromUint64(v)
	}
	return out
}

func TestDecodeExecute(t *testing.T) {
	// Cairo 1: two calls.
	calls, ok := decodeExecute(felts(2, 0xa, 0x1, 2, 7, 8, 0xb, 0x2, 0), &classInfo{CairoVersion: 1})
	if !ok || len(calls) != 2 || calls[1].To != starknet.FeltFromUint64(0xb) || len(calls[0].Calldata) != 2 {
		t.Fatalf("cairo 1: %v %+v", ok, calls)
	}
	// Cairo 0: call array then the shared calldata.
	calls, ok = decodeExecute(felts(2, 0xa, 0x1, 0, 1, 0xb, 0x2, 1, 2, 3, 7, 8, 9), nil)
	if !ok || len(calls) != 2 || calls[1].Calldata[1] != starknet.FeltFromUint64(9) {
		t.Fatalf("cairo 0: %v %+v", ok, calls)
	}
	// Neither layout fits: partial.
	if _, ok := decodeExecute(felts(3, 0xa, 0x1, 5), nil); ok {
		t.Fatal("truncated calldata read as complete")
	}
	// Hostile counts do not allocate.
	if _, ok := decodeExecute(felts(1<<40, 1, 2), &classInfo{CairoVersion: 0}); ok {
		t.Fatal("absurd call count accepted")
	}
}

func TestReadTransfers(t *testing.T) {
	from, to := starknet.FeltFromUint64(0xf), starknet.FeltFromUint64(0x7)
	low, high := starknet.FeltFromUint64(5), starknet.FeltFromUint64(1)
	big5 := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(5))
	cases := []struct {
		name     string
		keys     []starknet.Felt
		data     []starknet.Felt
		known    string
		standard string
		amount   *big.Int
	}{
		{"legacy erc20", []starknet.Felt{selTransfer}, []starknet.Felt{from, to, low, high}, "", "erc20", big5},
		{"oz erc20", []starknet.Felt{selTransfer, from, to}, []starknet.Felt{low, high}, "", "erc20", big5},
		{"erc721", []starknet.Felt{selTransfer, from, to, low, high}, nil, "", "erc721", big.NewInt(1)},
		{"legacy erc721", []starknet.Felt{selTransfer}, []starknet.Felt{from, to, low, high}, "erc721", "erc721", big.NewInt(1)},
		{"erc1155 single", []starknet.Felt{selTransferSingle, from, from, to}, []starknet.Felt{low, high, low, high}, "", "erc1155", big5},
	}
	for _, c := range cases {
		m := readTransfers(c.keys, c.data, c.known)
		if len(m) != 1 || m[0].Standard != c.standard || m[0].Amount.Cmp(c.amount) != 0 || m[0].From != from || m[0].To != to {
			t.Errorf("%s: %+v", c.name, m)
		}
	}
	batch := readTransfers([]starknet.Felt{selTransferBatch, from, from, to}, felts(2, 1, 0, 2, 0, 2, 10, 0, 20, 0), "")
	if len(batch) != 2 || batch[1].TokenID.Int64() != 2 || batch[1].Amount.Int64() != 20 || batch[1].SubIndex != 1 {
		t.Errorf("erc1155 batch: %+v", batch)
	}
	if m := readTransfers([]starknet.Felt{selTransferBatch, from, from, to}, felts(5, 1), ""); m != nil {
		t.Errorf("truncated batch read: %+v", m)
	}
}

func TestClassFlags(t *testing.T) {
	sierra := `{"sierra_program":["0x1"],"contract_class_version":"0.1.0","entry_points_by_type":{},
	"abi":"[{\"type\":\"interface\",\"name\":\"IAccount\",\"items\":[{\"type\":\"function\",\"name\":\"__execute__\"},{\"type\":\"function\",\"name\":\"__validate__\"}]}]"}`
	c, err := parseClass(sierra)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != "sierra" || !c.IsAccount || c.IsProxy || contractType(c) != "account" || c.Functions[starknet.Selector("__execute__")] != "__execute__" {
		t.Errorf("account class: %+v", c)
	}
	legacy := `{"program":"H4sI","entry_points_by_type":{"EXTERNAL":[{"selector":"0x0","offset":"0x1"}]},
	"abi":[{"type":"function","name":"balanceOf"},{"type":"function","name":"transfer"},{"type":"function","name":"decimals"}]}`
	c, err = parseClass(legacy)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != "legacy" || c.ERCStandard != "erc20" || !c.IsProxy || contractType(c) != "erc20" {
		t.Errorf("legacy token: %+v", c)
	}
	if _, err := parseClass(`{"abi":[]}`); err == nil {
		t.Error("a class with no program accepted")
	}
}

func parseClass(raw string) (*classInfo, error) {
	c, err := class.Parse([]byte(raw))
	if err != nil {
		return nil, err
	}
	return classInfoOf(c), nil
}
