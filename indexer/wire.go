package indexer

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// The wire* types are the JSON shapes of Starknet JSON-RPC 0.8 and 0.9 (0.10 only adds
// members, which are ignored). Required members are pointers so that a node that leaves one
// out is caught: such an answer is refused, never written.

type wireBlock struct {
	Status           *string              `json:"status"`
	BlockHash        *rpc.Felt            `json:"block_hash"`
	ParentHash       *rpc.Felt            `json:"parent_hash"`
	BlockNumber      *uint64              `json:"block_number"`
	NewRoot          rpc.Felt             `json:"new_root"`
	Timestamp        *uint64              `json:"timestamp"`
	SequencerAddress rpc.Felt             `json:"sequencer_address"`
	L1GasPrice       *rpc.ResourcePrice   `json:"l1_gas_price"`
	L1DataGasPrice   rpc.ResourcePrice    `json:"l1_data_gas_price"`
	L2GasPrice       *rpc.ResourcePrice   `json:"l2_gas_price"`
	L1DAMode         string               `json:"l1_da_mode"`
	StarknetVersion  string               `json:"starknet_version"`
	Transactions     *[]wireTxWithReceipt `json:"transactions"`
}

type wireTxWithReceipt struct {
	Transaction *wireTx      `json:"transaction"`
	Receipt     *wireReceipt `json:"receipt"`
}

type wireTx struct {
	Type                  *string             `json:"type"`
	Version               *rpc.Felt           `json:"version"`
	TransactionHash       *rpc.Felt           `json:"transaction_hash"` // 0.9+: may be here
	SenderAddress         *rpc.Felt           `json:"sender_address"`
	ContractAddress       *rpc.Felt           `json:"contract_address"`
	EntryPointSelector    *rpc.Felt           `json:"entry_point_selector"`
	ClassHash             *rpc.Felt           `json:"class_hash"`
	CompiledClassHash     *rpc.Felt           `json:"compiled_class_hash"`
	ContractAddressSalt   *rpc.Felt           `json:"contract_address_salt"`
	Nonce                 *rpc.Felt           `json:"nonce"`
	MaxFee                *rpc.Felt           `json:"max_fee"`
	Tip                   *rpc.Felt           `json:"tip"`
	Calldata              []rpc.Felt          `json:"calldata"`
	ConstructorCalldata   []rpc.Felt          `json:"constructor_calldata"`
	Signature             []rpc.Felt          `json:"signature"`
	PaymasterData         []rpc.Felt          `json:"paymaster_data"`
	AccountDeploymentData []rpc.Felt          `json:"account_deployment_data"`
	ResourceBounds        *rpc.ResourceBounds `json:"resource_bounds"`
	NonceDAMode           string              `json:"nonce_data_availability_mode"`
	FeeDAMode             string              `json:"fee_data_availability_mode"`
}

type wireReceipt struct {
	Type               string                  `json:"type"`
	TransactionHash    *rpc.Felt               `json:"transaction_hash"`
	ActualFee          *rpc.FeePayment         `json:"actual_fee"`
	ExecutionStatus    *string                 `json:"execution_status"`
	FinalityStatus     string                  `json:"finality_status"`
	RevertReason       string                  `json:"revert_reason"`
	Events             []rpc.Event             `json:"events"`
	MessagesSent       []rpc.MessageToL1       `json:"messages_sent"`
	ContractAddress    *rpc.Felt               `json:"contract_address"`
	MessageHash        *starknet.Hash256       `json:"message_hash"`
	ExecutionResources *rpc.ExecutionResources `json:"execution_resources"`
}

// queryVersionBit marks a transaction version signed for fee estimation only (2^128).
var queryVersionBit = func() rpc.Felt { var f rpc.Felt; f[15] = 1; return f }()

// decodeBlock turns a getBlockWithReceipts result into a block, refusing answers that lack a
// required member or do not belong to the block that was asked for.
func decodeBlock(raw json.RawMessage, want uint64) (*rpc.Block, error) {
	var w wireBlock
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("block %d: malformed: %w", want, err)
	}
	switch {
	case w.BlockNumber == nil:
		return nil, fmt.Errorf("block %d: no block_number (a pending block?)", want)
	case *w.BlockNumber != want:
		return nil, fmt.Errorf("block %d: node answered block %d", want, *w.BlockNumber)
	case w.BlockHash == nil:
		return nil, fmt.Errorf("block %d: no block_hash", want)
	case w.ParentHash == nil:
		return nil, fmt.Errorf("block %d: no parent_hash", want)
	case w.Timestamp == nil:
		return nil, fmt.Errorf("block %d: no timestamp", want)
	case w.Status == nil:
		return nil, fmt.Errorf("block %d: no status", want)
	case w.L1GasPrice == nil:
		return nil, fmt.Errorf("block %d: no l1_gas_price", want)
	case w.Transactions == nil:
		return nil, fmt.Errorf("block %d: no transactions", want)
	}
	if *w.Status != rpc.AcceptedOnL2 && *w.Status != rpc.AcceptedOnL1 {
		return nil, fmt.Errorf("block %d: status %q is not final enough to index", want, truncate(*w.Status, 40))
	}
	b := &rpc.Block{Header: rpc.Header{
		Number:           want,
		Hash:             *w.BlockHash,
		ParentHash:       *w.ParentHash,
		Timestamp:        *w.Timestamp,
		SequencerAddress: w.SequencerAddress,
		Status:           *w.Status,
		NewRoot:          w.NewRoot,
		L1GasPrice:       *w.L1GasPrice,
		L1DataGasPrice:   w.L1DataGasPrice,
		L2GasPrice:       w.L2GasPrice,
		L1DAMode:         w.L1DAMode,
		StarknetVersion:  w.StarknetVersion,
	}}
	b.Transactions = make([]rpc.Transaction, len(*w.Transactions))
	for i, wt := range *w.Transactions {
		if err := decodeTx(&b.Transactions[i], wt, b.Status); err != nil {
			return nil, fmt.Errorf("block %d: transaction %d: %w", want, i, err)
		}
	}
	return b, nil
}

func decodeTx(t *rpc.Transaction, w wireTxWithReceipt, blockStatus string) error {
	tx, r := w.Transaction, w.Receipt
	switch {
	case tx == nil:
		return errors.New("no transaction")
	case r == nil:
		return errors.New("no receipt")
	case tx.Type == nil:
		return errors.New("no type")
	case tx.Version == nil:
		return errors.New("no version")
	case r.ActualFee == nil:
		return errors.New("receipt has no actual_fee")
	case r.ExecutionStatus == nil:
		return errors.New("receipt has no execution_status")
	}
	switch *tx.Type {
	case rpc.TxInvoke, rpc.TxDeclare, rpc.TxDeploy, rpc.TxDeployAccount, rpc.TxL1Handler:
	default:
		return fmt.Errorf("unknown type %q", truncate(*tx.Type, 40))
	}
	if r.Type != "" && r.Type != *tx.Type {
		return fmt.Errorf("receipt type %q differs from transaction type %q", truncate(r.Type, 40), *tx.Type)
	}
	version := *tx.Version
	if version.Cmp(queryVersionBit) >= 0 {
		version = rpc.Felt(subtract(version, queryVersionBit))
	}
	v, ok := version.Uint64()
	if !ok || v > 3 {
		return fmt.Errorf("unknown version %s", tx.Version.Hex())
	}
	switch {
	case r.TransactionHash != nil:
		t.Hash = *r.TransactionHash
	case tx.TransactionHash != nil:
		t.Hash = *tx.TransactionHash
	default:
		return errors.New("no transaction_hash")
	}
	if r.TransactionHash != nil && tx.TransactionHash != nil && *r.TransactionHash != *tx.TransactionHash {
		return errors.New("transaction and receipt hashes differ")
	}
	if *r.ExecutionStatus != rpc.ExecutionSucceeded && *r.ExecutionStatus != rpc.ExecutionReverted {
		return fmt.Errorf("unknown execution_status %q", truncate(*r.ExecutionStatus, 40))
	}
	switch *tx.Type {
	case rpc.TxInvoke:
		if v == 0 && (tx.ContractAddress == nil || tx.EntryPointSelector == nil) {
			return errors.New("INVOKE v0 without contract_address or entry_point_selector")
		}
		if v > 0 && tx.SenderAddress == nil {
			return errors.New("INVOKE without sender_address")
		}
	case rpc.TxL1Handler:
		if tx.ContractAddress == nil || tx.EntryPointSelector == nil {
			return errors.New("L1_HANDLER without contract_address or entry_point_selector")
		}
	case rpc.TxDeclare:
		if tx.ClassHash == nil || tx.SenderAddress == nil {
			return errors.New("DECLARE without class_hash or sender_address")
		}
	case rpc.TxDeploy, rpc.TxDeployAccount:
		if tx.ClassHash == nil {
			return fmt.Errorf("%s without class_hash", *tx.Type)
		}
	}
	finality := r.FinalityStatus
	if finality == "" {
		finality = blockStatus
	}
	*t = rpc.Transaction{
		Hash:                  t.Hash,
		Type:                  *tx.Type,
		Version:               v,
		SenderAddress:         tx.SenderAddress,
		ContractAddress:       tx.ContractAddress,
		EntryPointSelector:    tx.EntryPointSelector,
		ClassHash:             tx.ClassHash,
		CompiledClassHash:     tx.CompiledClassHash,
		ContractAddressSalt:   tx.ContractAddressSalt,
		Nonce:                 tx.Nonce,
		MaxFee:                tx.MaxFee,
		Tip:                   tx.Tip,
		Calldata:              tx.Calldata,
		ConstructorCalldata:   tx.ConstructorCalldata,
		Signature:             tx.Signature,
		PaymasterData:         tx.PaymasterData,
		AccountDeploymentData: tx.AccountDeploymentData,
		ResourceBounds:        tx.ResourceBounds,
		NonceDAMode:           tx.NonceDAMode,
		FeeDAMode:             tx.FeeDAMode,
		Receipt: rpc.Receipt{
			TransactionHash: t.Hash,
			Type:            *tx.Type,
			ActualFee:       *r.ActualFee,
			ExecutionStatus: *r.ExecutionStatus,
			FinalityStatus:  finality,
			RevertReason:    r.RevertReason,
			Events:          r.Events,
			MessagesSent:    r.MessagesSent,
			ContractAddress: r.ContractAddress,
			MessageHash:     r.MessageHash,
		},
	}
	if r.ExecutionResources != nil {
		t.Receipt.ExecutionResources = *r.ExecutionResources
	}
	if t.Receipt.ActualFee.Unit == "" {
		t.Receipt.ActualFee.Unit = "WEI"
		if v == 3 {
			t.Receipt.ActualFee.Unit = "FRI"
		}
	}
	return nil
}

// subtract returns a-b for a >= b, bytewise.
func subtract(a, b rpc.Felt) rpc.Felt {
	var out rpc.Felt
	borrow := 0
	for i := 31; i >= 0; i-- {
		d := int(a[i]) - int(b[i]) - borrow
		borrow = 0
		if d < 0 {
			d += 256
			borrow = 1
		}
		out[i] = byte(d)
	}
	return out
}

type wireStateUpdate struct {
	BlockHash *rpc.Felt      `json:"block_hash"`
	NewRoot   rpc.Felt       `json:"new_root"`
	OldRoot   rpc.Felt       `json:"old_root"`
	StateDiff *rpc.StateDiff `json:"state_diff"`
}

// decodeStateUpdate turns a getStateUpdate result into a state update of block number.
func decodeStateUpdate(raw json.RawMessage, number uint64) (*rpc.StateUpdate, error) {
	var w wireStateUpdate
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("state update %d: malformed: %w", number, err)
	}
	if w.BlockHash == nil {
		return nil, fmt.Errorf("state update %d: no block_hash (pending?)", number)
	}
	if w.StateDiff == nil {
		return nil, fmt.Errorf("state update %d: no state_diff", number)
	}
	return &rpc.StateUpdate{
		BlockNumber: number,
		BlockHash:   *w.BlockHash,
		NewRoot:     w.NewRoot,
		OldRoot:     w.OldRoot,
		StateDiff:   *w.StateDiff,
	}, nil
}

// wireHeader is the part of any block answer that finality and reorg checks need.
type wireHeader struct {
	Status      *string   `json:"status"`
	BlockHash   *rpc.Felt `json:"block_hash"`
	BlockNumber *uint64   `json:"block_number"`
}

func decodeHeader(raw json.RawMessage, want uint64) (hash rpc.Felt, status string, err error) {
	var w wireHeader
	if err := json.Unmarshal(raw, &w); err != nil {
		return hash, "", fmt.Errorf("block %d header: malformed: %w", want, err)
	}
	if w.BlockNumber == nil || *w.BlockNumber != want || w.BlockHash == nil || w.Status == nil {
		return hash, "", fmt.Errorf("block %d header: missing or wrong block_number, block_hash or status", want)
	}
	return *w.BlockHash, *w.Status, nil
}
