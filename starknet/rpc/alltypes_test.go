package rpc_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// allTypesBlock has one transaction of every type and version the spec allows in a block,
// in RPC 0.9 shape (the transaction objects carry no hash; receipts do).
const allTypesBlock = `{"status":"ACCEPTED_ON_L2","block_hash":"0xb1","parent_hash":"0xb0","block_number":7,"new_root":"0x5",
"timestamp":1700000000,"sequencer_address":"0x1","l1_gas_price":{"price_in_fri":"0x2","price_in_wei":"0x3"},
"l1_data_gas_price":{"price_in_fri":"0x4","price_in_wei":"0x5"},"l2_gas_price":{"price_in_fri":"0x6","price_in_wei":"0x7"},
"l1_da_mode":"CALLDATA","starknet_version":"0.14.0","transactions":[
%s]}`

var txs = []struct{ tx, receipt string }{
	{`{"type":"INVOKE","version":"0x0","max_fee":"0x1","signature":[],"contract_address":"0xc1","entry_point_selector":"0xe1","calldata":["0x1"]}`, `"type":"INVOKE"`},
	{`{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":["0x9"],"nonce":"0x0","sender_address":"0xa1","calldata":[]}`, `"type":"INVOKE"`},
	{`{"type":"INVOKE","version":"0x3","signature":[],"nonce":"0x1","sender_address":"0xa1","calldata":["0x0"],"resource_bounds":{"l1_gas":{"max_amount":"0x1","max_price_per_unit":"0x2"},"l2_gas":{"max_amount":"0x3","max_price_per_unit":"0x4"},"l1_data_gas":{"max_amount":"0x5","max_price_per_unit":"0x6"}},"tip":"0x0","paymaster_data":[],"account_deployment_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L2"}`, `"type":"INVOKE"`},
	{`{"type":"DECLARE","version":"0x0","max_fee":"0x1","signature":[],"class_hash":"0xcc","sender_address":"0x1"}`, `"type":"DECLARE"`},
	{`{"type":"DECLARE","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x2","class_hash":"0xcc","sender_address":"0xa1"}`, `"type":"DECLARE"`},
	{`{"type":"DECLARE","version":"0x2","max_fee":"0x1","signature":[],"nonce":"0x3","class_hash":"0xcc","compiled_class_hash":"0xdd","sender_address":"0xa1"}`, `"type":"DECLARE"`},
	{`{"type":"DECLARE","version":"0x3","signature":[],"nonce":"0x4","class_hash":"0xcc","compiled_class_hash":"0xdd","sender_address":"0xa1","resource_bounds":{"l1_gas":{"max_amount":"0x1","max_price_per_unit":"0x2"},"l2_gas":{"max_amount":"0x3","max_price_per_unit":"0x4"},"l1_data_gas":{"max_amount":"0x5","max_price_per_unit":"0x6"}},"tip":"0x1","paymaster_data":[],"account_deployment_data":["0x7"],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"}`, `"type":"DECLARE"`},
	{`{"type":"DEPLOY","version":"0x0","class_hash":"0xcc","contract_address_salt":"0x0","constructor_calldata":["0x1","0x2"]}`, `"type":"DEPLOY","contract_address":"0xd1"`},
	{`{"type":"DEPLOY_ACCOUNT","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x0","contract_address_salt":"0x5","constructor_calldata":[],"class_hash":"0xcc"}`, `"type":"DEPLOY_ACCOUNT","contract_address":"0xd2"`},
	{`{"type":"DEPLOY_ACCOUNT","version":"0x3","signature":[],"nonce":"0x0","contract_address_salt":"0x5","constructor_calldata":["0x1"],"class_hash":"0xcc","resource_bounds":{"l1_gas":{"max_amount":"0x1","max_price_per_unit":"0x2"},"l2_gas":{"max_amount":"0x3","max_price_per_unit":"0x4"},"l1_data_gas":{"max_amount":"0x5","max_price_per_unit":"0x6"}},"tip":"0x0","paymaster_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"}`, `"type":"DEPLOY_ACCOUNT","contract_address":"0xd3"`},
	{`{"type":"L1_HANDLER","version":"0x0","nonce":"0x9","contract_address":"0xc2","entry_point_selector":"0xe2","calldata":["0xabc"]}`, `"type":"L1_HANDLER","message_hash":"0xd8824a75a588f0726d7d83b3e9560810c763043e979fdb77b11c1a51a991235d"`},
}

func allTypesJSON() string {
	var items []string
	for i, tx := range txs {
		receipt := fmt.Sprintf(`{%s,"transaction_hash":"0x%x","actual_fee":{"amount":"0x10","unit":"WEI"},"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2","messages_sent":[{"from_address":"0x1","to_address":"0x000000000000000000000000000000000000dead","payload":["0x1"]}],"events":[],"execution_resources":{"l1_gas":1,"l1_data_gas":2,"l2_gas":3}}`, tx.receipt, 0x100+i)
		items = append(items, `{"transaction":`+tx.tx+`,"receipt":`+receipt+`}`)
	}
	return fmt.Sprintf(allTypesBlock, strings.Join(items, ","))
}

func TestEveryTransactionType(t *testing.T) {
	srv := fixtures.NewServer(t, "sepolia-56377")
	srv.Override = func(method string, _ json.RawMessage) (string, bool) {
		return `"result":` + allTypesJSON(), method == "starknet_getBlockWithReceipts"
	}
	b, err := rpc.NewClient(srv.URL).BlockWithReceipts(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if b.L2GasPrice == nil || b.L2GasPrice.PriceInWei.Hex() != "0x7" || b.L1DataGasPrice.PriceInFri.Hex() != "0x4" || b.StarknetVersion != "0.14.0" {
		t.Errorf("header %+v", b.Header)
	}
	var got []string
	for i, tx := range b.Transactions {
		got = append(got, fmt.Sprintf("%s v%d", tx.Type, tx.Version))
		if tx.Hash.Hex() != fmt.Sprintf("0x%x", 0x100+i) {
			t.Errorf("tx %d hash %s", i, tx.Hash)
		}
		if tx.Receipt.MessagesSent[0].ToAddress.Hex() != "0xdead" || tx.Receipt.ExecutionResources.L2Gas != 3 {
			t.Errorf("tx %d receipt %+v", i, tx.Receipt)
		}
	}
	want := "INVOKE v0,INVOKE v1,INVOKE v3,DECLARE v0,DECLARE v1,DECLARE v2,DECLARE v3,DEPLOY v0,DEPLOY_ACCOUNT v1,DEPLOY_ACCOUNT v3,L1_HANDLER v0"
	if strings.Join(got, ",") != want {
		t.Errorf("types %s", strings.Join(got, ","))
	}
	tx := b.Transactions
	if tx[0].ContractAddress.Hex() != "0xc1" || tx[0].EntryPointSelector.Hex() != "0xe1" || tx[0].Nonce != nil || tx[0].SenderAddress != nil {
		t.Errorf("invoke v0 %+v", tx[0])
	}
	if tx[1].Calldata == nil || len(tx[1].Calldata) != 0 || tx[1].Signature[0].Hex() != "0x9" {
		t.Errorf("invoke v1 empty calldata must stay an empty, non-nil list: %+v", tx[1])
	}
	if rb := tx[2].ResourceBounds; rb == nil || rb.L1DataGas.MaxPricePerUnit.Hex() != "0x6" || tx[2].FeeDAMode != "L2" || tx[2].Tip == nil {
		t.Errorf("invoke v3 %+v", tx[2])
	}
	if tx[5].CompiledClassHash.Hex() != "0xdd" || tx[3].CompiledClassHash != nil || tx[6].AccountDeploymentData[0].Hex() != "0x7" {
		t.Errorf("declares %+v %+v", tx[3], tx[5])
	}
	if tx[7].Receipt.ContractAddress.Hex() != "0xd1" || len(tx[7].ConstructorCalldata) != 2 || tx[7].ContractAddressSalt.Hex() != "0x0" {
		t.Errorf("deploy %+v", tx[7])
	}
	if tx[10].Receipt.MessageHash == nil || tx[10].Nonce.Hex() != "0x9" || tx[10].Calldata[0].Hex() != "0xabc" {
		t.Errorf("l1 handler %+v", tx[10])
	}

	// Each type without one of its required members is rejected, naming the block.
	for _, drop := range []struct {
		tx     int
		member string
	}{
		{0, `"entry_point_selector":"0xe1",`}, {1, `"sender_address":"0xa1",`}, {2, `"resource_bounds":{"l1_gas":{"max_amount":"0x1","max_price_per_unit":"0x2"},"l2_gas":{"max_amount":"0x3","max_price_per_unit":"0x4"},"l1_data_gas":{"max_amount":"0x5","max_price_per_unit":"0x6"}},`},
		{5, `"compiled_class_hash":"0xdd",`}, {7, `"contract_address_salt":"0x0",`}, {10, `"contract_address":"0xc2",`},
	} {
		orig := txs[drop.tx].tx
		txs[drop.tx].tx = strings.Replace(orig, drop.member, "", 1)
		if txs[drop.tx].tx == orig {
			t.Fatalf("test bug: %s not in tx %d", drop.member, drop.tx)
		}
		_, err := rpc.NewClient(srv.URL).BlockWithReceipts(context.Background(), 7)
		txs[drop.tx].tx = orig
		if err == nil || !strings.Contains(err.Error(), "block 7") || !strings.Contains(err.Error(), fmt.Sprintf("transaction %d", drop.tx)) {
			t.Errorf("dropping %s from tx %d: %v", drop.member, drop.tx, err)
		}
	}
}

// TestQueryVersionAndStatus: a query version (2^128 + v) is read as v, other huge versions
// are refused, and a block served under a number with a non-final status is refused, and
// so is a receipt with a status the node's API does not name.
func TestQueryVersionAndStatus(t *testing.T) {
	srv := fixtures.NewServer(t, "sepolia-56377")
	var block string
	srv.Override = func(method string, _ json.RawMessage) (string, bool) {
		return `"result":` + block, method == "starknet_getBlockWithReceipts"
	}
	c := rpc.NewClient(srv.URL)
	v3 := `"type":"DEPLOY_ACCOUNT","version":"0x3"`
	block = strings.Replace(allTypesJSON(), v3, `"type":"DEPLOY_ACCOUNT","version":"0x100000000000000000000000000000003"`, 1)
	b, err := c.BlockWithReceipts(context.Background(), 7)
	if err != nil || b.Transactions[9].Version != 3 || b.Transactions[9].Type != rpc.TxDeployAccount {
		t.Fatalf("query version: %v", err)
	}
	for name, raw := range map[string]string{
		"2^129 + 3":     strings.Replace(allTypesJSON(), v3, `"type":"DEPLOY_ACCOUNT","version":"0x200000000000000000000000000000003"`, 1),
		"2^128 + 9":     strings.Replace(allTypesJSON(), v3, `"type":"DEPLOY_ACCOUNT","version":"0x100000000000000000000000000000009"`, 1),
		"pre-confirmed": strings.Replace(allTypesJSON(), `"status":"ACCEPTED_ON_L2"`, `"status":"PRE_CONFIRMED"`, 1),
		// The database stores the statuses as enums of the known labels (migration 00055).
		"unknown execution status": strings.Replace(allTypesJSON(), `"execution_status":"SUCCEEDED"`, `"execution_status":"SUCCEEDED_MAYBE"`, 1),
		"unknown finality status":  strings.Replace(allTypesJSON(), `"finality_status":"ACCEPTED_ON_L2"`, `"finality_status":"ACCEPTED_ON_L3"`, 1),
	} {
		block = raw
		_, err := c.BlockWithReceipts(context.Background(), 7)
		var inv *rpc.InvalidResponseError
		if !errors.As(err, &inv) || inv.Block == nil || *inv.Block != 7 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
