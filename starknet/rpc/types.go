package rpc

import (
	"github.com/starkgraph/starkgraph/starknet"
)

// Felt is re-exported so that code using this package reads naturally.
type Felt = starknet.Felt

// The types below are the one normalised view of chain data that the indexer uses, whatever
// spec version (0.8, 0.9, 0.10) the node speaks. Optional fields are pointers or nil slices:
// nil means the node did not send the member (it does not apply to that transaction type or
// version), which the indexer stores as NULL.

// Block is a block with its transactions and their receipts (starknet_getBlockWithReceipts).
type Block struct {
	Header
	Transactions []Transaction
}

// BlockTxHashes is a block header with the hashes of its transactions
// (starknet_getBlockWithTxHashes): a cheap way to check a stored block's hash on a reorg.
type BlockTxHashes struct {
	Header
	TransactionHashes []Felt
}

// Header is a block header.
type Header struct {
	Number           uint64
	Hash             Felt
	ParentHash       Felt
	Timestamp        uint64 // Unix seconds
	SequencerAddress Felt
	Status           string // ACCEPTED_ON_L2, ACCEPTED_ON_L1 (PRE_CONFIRMED/PENDING never here)
	NewRoot          Felt   // state root after the block
	L1GasPrice       ResourcePrice
	L1DataGasPrice   ResourcePrice
	L2GasPrice       *ResourcePrice // nil when the node does not send it
	L1DAMode         string         // BLOB or CALLDATA
	StarknetVersion  string         // "" for very old blocks
}

// ResourcePrice is a gas price in both units: wei (ETH) and fri (STRK).
type ResourcePrice struct {
	PriceInWei Felt `json:"price_in_wei"`
	PriceInFri Felt `json:"price_in_fri"`
}

// Transaction types as the node names them.
const (
	TxInvoke        = "INVOKE"
	TxDeclare       = "DECLARE"
	TxDeploy        = "DEPLOY"
	TxDeployAccount = "DEPLOY_ACCOUNT"
	TxL1Handler     = "L1_HANDLER"
)

// Transaction is any transaction type and version, with its receipt.
type Transaction struct {
	Hash    Felt   // from the transaction, or from the receipt in 0.8/0.9 blocks
	Type    string // one of the Tx* constants
	Version uint64 // 0, 1, 2 or 3

	SenderAddress       *Felt // INVOKE v1/v3, DECLARE v0+
	ContractAddress     *Felt // INVOKE v0, L1_HANDLER (the called contract)
	EntryPointSelector  *Felt // INVOKE v0, L1_HANDLER
	ClassHash           *Felt // DECLARE, DEPLOY, DEPLOY_ACCOUNT
	CompiledClassHash   *Felt // DECLARE v2/v3
	ContractAddressSalt *Felt // DEPLOY, DEPLOY_ACCOUNT
	Nonce               *Felt // absent for INVOKE v0, DECLARE v0, DEPLOY
	MaxFee              *Felt // v0-v2
	Tip                 *Felt // v3

	Calldata              []Felt // INVOKE, L1_HANDLER
	ConstructorCalldata   []Felt // DEPLOY, DEPLOY_ACCOUNT
	Signature             []Felt
	PaymasterData         []Felt // v3
	AccountDeploymentData []Felt // INVOKE v3, DECLARE v3

	ResourceBounds *ResourceBounds // v3
	NonceDAMode    string          // v3: L1 or L2
	FeeDAMode      string          // v3: L1 or L2

	Receipt Receipt
}

// ResourceBounds are the v3 fee limits. L1DataGas is zero for transactions from before
// Starknet 0.13.4, as nodes serve it.
type ResourceBounds struct {
	L1Gas     ResourceBound `json:"l1_gas"`
	L2Gas     ResourceBound `json:"l2_gas"`
	L1DataGas ResourceBound `json:"l1_data_gas"`
}

// ResourceBound is one resource's limit.
type ResourceBound struct {
	MaxAmount       Felt `json:"max_amount"`
	MaxPricePerUnit Felt `json:"max_price_per_unit"`
}

// Execution and finality statuses as the node names them.
const (
	ExecutionSucceeded = "SUCCEEDED"
	ExecutionReverted  = "REVERTED"
	AcceptedOnL2       = "ACCEPTED_ON_L2"
	AcceptedOnL1       = "ACCEPTED_ON_L1"
)

// finalityStatuses are those a receipt may carry: JSON-RPC 0.9's TXN_FINALITY_STATUS and the
// transaction statuses before it. The database stores them as an enum of these labels
// (migration 00055), so a receipt with another is refused here, with its name.
var finalityStatuses = []string{"RECEIVED", "CANDIDATE", "PRE_CONFIRMED", AcceptedOnL2, AcceptedOnL1}

// Receipt is a transaction receipt.
type Receipt struct {
	TransactionHash    Felt
	Type               string
	ActualFee          FeePayment
	ExecutionStatus    string // SUCCEEDED or REVERTED
	FinalityStatus     string // ACCEPTED_ON_L2 or ACCEPTED_ON_L1 (PRE_CONFIRMED in 0.9 pre-confirmed data)
	RevertReason       string // set when REVERTED
	Events             []Event
	MessagesSent       []MessageToL1
	ContractAddress    *Felt              // DEPLOY, DEPLOY_ACCOUNT: the deployed contract
	MessageHash        *starknet.Hash256  // L1_HANDLER: keccak256 of the L1 -> L2 message
	ExecutionResources ExecutionResources // all zero for blocks before Starknet 0.13.2
}

// FeePayment is a fee with its unit: WEI (tx v0-v2) or FRI (v3).
type FeePayment struct {
	Amount Felt   `json:"amount"`
	Unit   string `json:"unit"`
}

// Event is an event emitted during a transaction.
type Event struct {
	FromAddress Felt   `json:"from_address"`
	Keys        []Felt `json:"keys"`
	Data        []Felt `json:"data"`
}

// MessageToL1 is an L2 -> L1 message. ToAddress is an Ethereum address held as a felt.
type MessageToL1 struct {
	FromAddress Felt   `json:"from_address"`
	ToAddress   Felt   `json:"to_address"`
	Payload     []Felt `json:"payload"`
}

// ExecutionResources is the gas a transaction consumed.
type ExecutionResources struct {
	L1Gas     uint64 `json:"l1_gas"`
	L1DataGas uint64 `json:"l1_data_gas"`
	L2Gas     uint64 `json:"l2_gas"`
}

// StateUpdate is the state diff of one block (starknet_getStateUpdate).
type StateUpdate struct {
	BlockNumber uint64 // filled in by the client from the request
	BlockHash   Felt
	NewRoot     Felt
	OldRoot     Felt
	StateDiff
}

// StateDiff lists what a block changed, in the node's order.
type StateDiff struct {
	StorageDiffs              []StorageDiff      `json:"storage_diffs"`
	Nonces                    []NonceUpdate      `json:"nonces"`
	DeployedContracts         []DeployedContract `json:"deployed_contracts"`
	DeclaredClasses           []DeclaredClass    `json:"declared_classes"`
	DeprecatedDeclaredClasses []Felt             `json:"deprecated_declared_classes"`
	ReplacedClasses           []ReplacedClass    `json:"replaced_classes"`
	MigratedCompiledClasses   []DeclaredClass    `json:"migrated_compiled_classes"` // RPC 0.10
}

// StorageDiff is the storage writes of one contract.
type StorageDiff struct {
	Address        Felt           `json:"address"`
	StorageEntries []StorageEntry `json:"storage_entries"`
}

// StorageEntry is one storage slot write.
type StorageEntry struct {
	Key   Felt `json:"key"`
	Value Felt `json:"value"`
}

// NonceUpdate is a contract's new nonce.
type NonceUpdate struct {
	ContractAddress Felt `json:"contract_address"`
	Nonce           Felt `json:"nonce"`
}

// DeployedContract is a contract deployed in the block.
type DeployedContract struct {
	Address   Felt `json:"address"`
	ClassHash Felt `json:"class_hash"`
}

// DeclaredClass is a Sierra class declared in the block (or, in MigratedCompiledClasses, one
// whose compiled class hash changed).
type DeclaredClass struct {
	ClassHash         Felt `json:"class_hash"`
	CompiledClassHash Felt `json:"compiled_class_hash"`
}

// ReplacedClass is a contract whose class changed (an upgrade).
type ReplacedClass struct {
	ContractAddress Felt `json:"contract_address"`
	ClassHash       Felt `json:"class_hash"`
}

// BlockHashAndNumber is the node's latest block.
type BlockHashAndNumber struct {
	Hash   Felt   `json:"block_hash"`
	Number uint64 `json:"block_number"`
}
