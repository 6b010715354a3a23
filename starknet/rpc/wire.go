package rpc

import (
	"fmt"
	"slices"

	"github.com/starkgraph/starkgraph/starknet"
)

// The wire* types mirror the JSON the node sends. Members that must be present are pointers
// so that absence can be told from zero; normalise() checks them and builds the public types.
// Unknown members (for example the RPC 0.10 commitments) are ignored.

type wireHeader struct {
	Status           *string        `json:"status"`
	BlockHash        *Felt          `json:"block_hash"`
	ParentHash       *Felt          `json:"parent_hash"`
	BlockNumber      *uint64        `json:"block_number"`
	NewRoot          *Felt          `json:"new_root"`
	Timestamp        *uint64        `json:"timestamp"`
	SequencerAddress *Felt          `json:"sequencer_address"`
	L1GasPrice       *ResourcePrice `json:"l1_gas_price"`
	L1DataGasPrice   *ResourcePrice `json:"l1_data_gas_price"`
	L2GasPrice       *ResourcePrice `json:"l2_gas_price"`
	L1DAMode         string         `json:"l1_da_mode"`
	StarknetVersion  string         `json:"starknet_version"`
}

type wireBlock struct {
	wireHeader
	Transactions *[]wireTxAndReceipt `json:"transactions"`
}

// wireBlockTxHashes is the result of starknet_getBlockWithTxHashes.
type wireBlockTxHashes struct {
	wireHeader
	Transactions *[]Felt `json:"transactions"`
}

type wireTxAndReceipt struct {
	Transaction *wireTx      `json:"transaction"`
	Receipt     *wireReceipt `json:"receipt"`
}

type wireTx struct {
	TransactionHash       *Felt           `json:"transaction_hash"`
	Type                  string          `json:"type"`
	Version               *Felt           `json:"version"`
	SenderAddress         *Felt           `json:"sender_address"`
	ContractAddress       *Felt           `json:"contract_address"`
	EntryPointSelector    *Felt           `json:"entry_point_selector"`
	ClassHash             *Felt           `json:"class_hash"`
	CompiledClassHash     *Felt           `json:"compiled_class_hash"`
	ContractAddressSalt   *Felt           `json:"contract_address_salt"`
	Nonce                 *Felt           `json:"nonce"`
	MaxFee                *Felt           `json:"max_fee"`
	Tip                   *Felt           `json:"tip"`
	Calldata              []Felt          `json:"calldata"`
	ConstructorCalldata   []Felt          `json:"constructor_calldata"`
	Signature             []Felt          `json:"signature"`
	PaymasterData         []Felt          `json:"paymaster_data"`
	AccountDeploymentData []Felt          `json:"account_deployment_data"`
	ResourceBounds        *ResourceBounds `json:"resource_bounds"`
	NonceDAMode           string          `json:"nonce_data_availability_mode"`
	FeeDAMode             string          `json:"fee_data_availability_mode"`
}

type wireReceipt struct {
	Type               string              `json:"type"`
	TransactionHash    *Felt               `json:"transaction_hash"`
	ActualFee          *FeePayment         `json:"actual_fee"`
	ExecutionStatus    string              `json:"execution_status"`
	FinalityStatus     string              `json:"finality_status"`
	RevertReason       string              `json:"revert_reason"`
	Events             *[]wireEvent        `json:"events"`
	MessagesSent       []MessageToL1       `json:"messages_sent"`
	ContractAddress    *Felt               `json:"contract_address"`
	MessageHash        *starknet.Hash256   `json:"message_hash"`
	ExecutionResources *ExecutionResources `json:"execution_resources"`
}

type wireEvent struct {
	FromAddress *Felt  `json:"from_address"`
	Keys        []Felt `json:"keys"`
	Data        []Felt `json:"data"`
}

type wireStateUpdate struct {
	BlockHash *Felt      `json:"block_hash"`
	NewRoot   *Felt      `json:"new_root"`
	OldRoot   *Felt      `json:"old_root"`
	StateDiff *StateDiff `json:"state_diff"`
}

// missing collects the names of absent required members.
type missing []string

func (m *missing) check(present bool, name string) {
	if !present {
		*m = append(*m, name)
	}
}

func (m missing) err() error {
	if len(m) == 0 {
		return nil
	}
	return fmt.Errorf("missing required member(s) %v", []string(m))
}

func (w *wireHeader) normalise(m *missing) Header {
	m.check(w.Status != nil, "status")
	m.check(w.BlockHash != nil, "block_hash")
	m.check(w.ParentHash != nil, "parent_hash")
	m.check(w.BlockNumber != nil, "block_number")
	m.check(w.NewRoot != nil, "new_root")
	m.check(w.Timestamp != nil, "timestamp")
	m.check(w.SequencerAddress != nil, "sequencer_address")
	m.check(w.L1GasPrice != nil, "l1_gas_price")
	if len(*m) > 0 {
		return Header{}
	}
	h := Header{
		Number:           *w.BlockNumber,
		Hash:             *w.BlockHash,
		ParentHash:       *w.ParentHash,
		Timestamp:        *w.Timestamp,
		SequencerAddress: *w.SequencerAddress,
		Status:           *w.Status,
		NewRoot:          *w.NewRoot,
		L1GasPrice:       *w.L1GasPrice,
		L2GasPrice:       w.L2GasPrice,
		L1DAMode:         w.L1DAMode,
		StarknetVersion:  w.StarknetVersion,
	}
	if w.L1DataGasPrice != nil {
		h.L1DataGasPrice = *w.L1DataGasPrice
	}
	return h
}

func (w *wireBlock) normalise() (*Block, error) {
	var m missing
	h := w.wireHeader.normalise(&m)
	m.check(w.Transactions != nil, "transactions")
	if err := m.err(); err != nil {
		return nil, err
	}
	b := &Block{Header: h, Transactions: make([]Transaction, len(*w.Transactions))}
	for i := range *w.Transactions {
		if err := (*w.Transactions)[i].normalise(&b.Transactions[i]); err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
	}
	return b, nil
}

func (w *wireBlockTxHashes) normalise() (*BlockTxHashes, error) {
	var m missing
	h := w.wireHeader.normalise(&m)
	m.check(w.Transactions != nil, "transactions")
	if err := m.err(); err != nil {
		return nil, err
	}
	return &BlockTxHashes{Header: h, TransactionHashes: *w.Transactions}, nil
}

func (w *wireTxAndReceipt) normalise(t *Transaction) error {
	if w.Transaction == nil {
		return fmt.Errorf("missing required member transaction")
	}
	if w.Receipt == nil {
		return fmt.Errorf("missing required member receipt")
	}
	if err := w.Transaction.normalise(t); err != nil {
		return err
	}
	if err := w.Receipt.normalise(&t.Receipt); err != nil {
		return fmt.Errorf("receipt: %w", err)
	}
	// RPC 0.8/0.9 leave the hash out of the transaction inside a block; the receipt has it.
	if w.Transaction.TransactionHash == nil {
		t.Hash = t.Receipt.TransactionHash
	} else if t.Hash != t.Receipt.TransactionHash {
		return fmt.Errorf("transaction hash %s differs from its receipt's %s", t.Hash, t.Receipt.TransactionHash)
	}
	if t.Receipt.Type != t.Type {
		return fmt.Errorf("transaction %s: type %s but receipt type %s", t.Hash, t.Type, t.Receipt.Type)
	}
	return nil
}

// requiredByType lists the members each transaction type must carry (beyond type and
// version), so that a garbage answer is caught here and not as a NULL in the database.
func requiredByType(w *wireTx, v uint64) (missing, error) {
	var m missing
	switch w.Type {
	case TxInvoke:
		if v == 0 {
			m.check(w.ContractAddress != nil, "contract_address")
			m.check(w.EntryPointSelector != nil, "entry_point_selector")
		} else {
			m.check(w.SenderAddress != nil, "sender_address")
			m.check(w.Nonce != nil, "nonce")
		}
		m.check(w.Calldata != nil, "calldata")
	case TxDeclare:
		m.check(w.SenderAddress != nil, "sender_address")
		m.check(w.ClassHash != nil, "class_hash")
		if v >= 2 {
			m.check(w.CompiledClassHash != nil, "compiled_class_hash")
		}
	case TxDeploy, TxDeployAccount:
		m.check(w.ClassHash != nil, "class_hash")
		m.check(w.ContractAddressSalt != nil, "contract_address_salt")
		m.check(w.ConstructorCalldata != nil, "constructor_calldata")
	case TxL1Handler:
		m.check(w.ContractAddress != nil, "contract_address")
		m.check(w.EntryPointSelector != nil, "entry_point_selector")
		m.check(w.Calldata != nil, "calldata")
	case "":
		return nil, fmt.Errorf("missing required member type")
	default:
		return nil, fmt.Errorf("unknown transaction type %q", w.Type)
	}
	if v == 3 {
		m.check(w.ResourceBounds != nil, "resource_bounds")
	}
	return m, nil
}

func (w *wireTx) normalise(t *Transaction) error {
	if w.Version == nil {
		if w.Type == "" {
			return fmt.Errorf("missing required member(s) [type version]")
		}
		return fmt.Errorf("%s: missing required member version", w.Type)
	}
	v, err := txVersion(*w.Version)
	if err != nil {
		return err
	}
	m, err := requiredByType(w, v)
	if err != nil {
		return err
	}
	if err := m.err(); err != nil {
		return fmt.Errorf("%s v%d: %w", w.Type, v, err)
	}
	*t = Transaction{
		Type:                  w.Type,
		Version:               v,
		SenderAddress:         w.SenderAddress,
		ContractAddress:       w.ContractAddress,
		EntryPointSelector:    w.EntryPointSelector,
		ClassHash:             w.ClassHash,
		CompiledClassHash:     w.CompiledClassHash,
		ContractAddressSalt:   w.ContractAddressSalt,
		Nonce:                 w.Nonce,
		MaxFee:                w.MaxFee,
		Tip:                   w.Tip,
		Calldata:              w.Calldata,
		ConstructorCalldata:   w.ConstructorCalldata,
		Signature:             w.Signature,
		PaymasterData:         w.PaymasterData,
		AccountDeploymentData: w.AccountDeploymentData,
		ResourceBounds:        w.ResourceBounds,
		NonceDAMode:           w.NonceDAMode,
		FeeDAMode:             w.FeeDAMode,
	}
	if w.TransactionHash != nil {
		t.Hash = *w.TransactionHash
	}
	return nil
}

// queryVersionBit marks transaction versions signed for fee estimation only (2^128 + v).
// Nodes serve some old blocks with such versions; they are read as version v.
var queryVersionBit = starknet.MustFelt("0x100000000000000000000000000000000")

func txVersion(f Felt) (uint64, error) {
	if f.Cmp(queryVersionBit) >= 0 {
		if [16]byte(f[:16]) != [16]byte(queryVersionBit[:16]) {
			return 0, fmt.Errorf("unknown transaction version %s", f)
		}
		clear(f[:16])
	}
	v, ok := f.Uint64()
	if !ok || v > 3 {
		return 0, fmt.Errorf("unknown transaction version %s", f)
	}
	return v, nil
}

func (w *wireReceipt) normalise(r *Receipt) error {
	var m missing
	m.check(w.Type != "", "type")
	m.check(w.TransactionHash != nil, "transaction_hash")
	m.check(w.ActualFee != nil, "actual_fee")
	m.check(w.ExecutionStatus != "", "execution_status")
	m.check(w.FinalityStatus != "", "finality_status")
	m.check(w.Events != nil, "events")
	if err := m.err(); err != nil {
		return err
	}
	if w.ExecutionStatus != ExecutionSucceeded && w.ExecutionStatus != ExecutionReverted {
		return fmt.Errorf("unknown execution_status %q", w.ExecutionStatus)
	}
	if !slices.Contains(finalityStatuses, w.FinalityStatus) {
		return fmt.Errorf("unknown finality_status %q", truncate(w.FinalityStatus, 40))
	}
	*r = Receipt{
		TransactionHash: *w.TransactionHash,
		Type:            w.Type,
		ActualFee:       *w.ActualFee,
		ExecutionStatus: w.ExecutionStatus,
		FinalityStatus:  w.FinalityStatus,
		RevertReason:    w.RevertReason,
		MessagesSent:    w.MessagesSent,
		ContractAddress: w.ContractAddress,
		MessageHash:     w.MessageHash,
	}
	if w.ExecutionResources != nil {
		r.ExecutionResources = *w.ExecutionResources
	}
	r.Events = make([]Event, len(*w.Events))
	for i, e := range *w.Events {
		if e.FromAddress == nil || e.Keys == nil || e.Data == nil {
			return fmt.Errorf("event %d: missing from_address, keys or data", i)
		}
		r.Events[i] = Event{FromAddress: *e.FromAddress, Keys: e.Keys, Data: e.Data}
	}
	return nil
}

func (w *wireStateUpdate) normalise() (*StateUpdate, error) {
	var m missing
	m.check(w.BlockHash != nil, "block_hash")
	m.check(w.NewRoot != nil, "new_root")
	m.check(w.OldRoot != nil, "old_root")
	m.check(w.StateDiff != nil, "state_diff")
	if err := m.err(); err != nil {
		return nil, err
	}
	return &StateUpdate{BlockHash: *w.BlockHash, NewRoot: *w.NewRoot, OldRoot: *w.OldRoot, StateDiff: *w.StateDiff}, nil
}
