package db

import (
	"database/sql"
	"time"

	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/starknet/class"
)

// Row types: one struct per table read by the APIs. Field names follow the GraphQL schema
// (gqlgen binds to them directly); `db` tags name the columns. Amounts are decimal strings
// read from numeric columns, so no precision is lost on the way to clients.

// Node is a row of any type the GraphQL Node interface covers; gqlgen binds the interface
// to it. Each of those types gives its global id (nodeid.go).
type Node interface{}

// Block is a block's row. Lists read it without its details (parent, sequencer, version,
// data-availability mode and gas prices: the prices are most of what a list row costs to
// read); DetailsLoaded says which form a row has, and a list row's details come through
// the request's Block loader when a client asks for them.
type Block struct {
	Number               int64   `db:"number"`
	Hash                 Felt    `db:"hash"`
	ParentHash           Felt    `db:"parent_hash,detail"`
	Timestamp            int64   `db:"timestamp"`
	RawStatus            string  `db:"status"`
	StateRoot            Felt    `db:"state_root"`
	SequencerAddress     Felt    `db:"sequencer_address,detail"`
	StarknetVersion      string  `db:"starknet_version,detail"`
	L1DaMode             *string `db:"l1_da_mode,detail"`
	L1GasPriceWei        *string `db:"l1_gas_price_wei,numeric,detail"`
	L1GasPriceFri        *string `db:"l1_gas_price_fri,numeric,detail"`
	L1DataGasPriceWei    *string `db:"l1_data_gas_price_wei,numeric,detail"`
	L1DataGasPriceFri    *string `db:"l1_data_gas_price_fri,numeric,detail"`
	L2GasPriceWei        *string `db:"l2_gas_price_wei,numeric,detail"`
	L2GasPriceFri        *string `db:"l2_gas_price_fri,numeric,detail"`
	TxnCount             int     `db:"tx_count"`
	EventCount           int     `db:"event_count"`
	MessageCount         int     `db:"message_count"`
	L1VerificationTxHash Felt    `db:"l1_verification_tx_hash"`
	DetailsLoaded        bool    `db:"details_loaded,from=true,detail"`
}

type Transaction struct {
	BlockNumber int64  `db:"block_number"`
	Index       int    `db:"tx_index"`
	Hash        Felt   `db:"hash"`
	Type        TxType `db:"type"`
	Version     int    `db:"version"`
	Timestamp   int64  `db:"timestamp"`
	// The sender, the contract and the class, stored as felt ids (migration 00052): the
	// Store fills in the felts from its cache of felt_ids (nameTransactions).
	SenderAddress         Felt          `db:"-"`
	ContractAddress       Felt          `db:"-"`
	ClassHash             Felt          `db:"-"`
	SenderID              sql.NullInt32 `db:"sender_id"`
	ContractID            sql.NullInt32 `db:"contract_id"`
	ClassID               sql.NullInt32 `db:"class_id"`
	EntryPointSelector    Felt          `db:"entry_point_selector"`
	Nonce                 *string       `db:"nonce"`
	MaxFee                *string       `db:"max_fee"`
	Tip                   *string       `db:"tip"`
	ActualFee             string        `db:"actual_fee"`
	ActualFeeUnit         string        `db:"actual_fee_unit"`
	RawExecutionStatus    string        `db:"execution_status"`
	RawFinalityStatus     string        `db:"finality_status"`
	RevertError           *string       `db:"revert_reason"`
	Calldata              FeltArray     `db:"calldata"`
	ConstructorCalldata   FeltArray     `db:"constructor_calldata"`
	Signature             FeltArray     `db:"signature"`
	CompiledClassHash     Felt          `db:"compiled_class_hash"`
	ContractAddressSalt   Felt          `db:"contract_address_salt"`
	PaymasterData         FeltArray     `db:"paymaster_data"`
	AccountDeploymentData FeltArray     `db:"account_deployment_data"`
	NonceDaMode           *string       `db:"nonce_da_mode"`
	FeeDaMode             *string       `db:"fee_da_mode"`
	MessageHash           Felt          `db:"message_hash"`
	L1TransactionHash     Felt          `db:"l1_transaction_hash"`
	EventCount            int           `db:"event_count"`
	PartialCallsParsing   bool          `db:"partial_calls_parsing"`
	// The columns of ResourceBounds and ExecutionResources (tx_resources.go), in decimal.
	MaxL1Gas          *string `db:"max_l1_gas"`
	MaxL1GasPrice     *string `db:"max_l1_gas_price"`
	MaxL2Gas          *string `db:"max_l2_gas"`
	MaxL2GasPrice     *string `db:"max_l2_gas_price"`
	MaxL1DataGas      *string `db:"max_l1_data_gas"`
	MaxL1DataGasPrice *string `db:"max_l1_data_gas_price"`
	L1GasUsed         *string `db:"l1_gas_used"`
	L2GasUsed         *string `db:"l2_gas_used"`
	L1DataGasUsed     *string `db:"l1_data_gas_used"`
	// DetailsLoaded is false for a row read by a list, which reads only the columns list
	// items show (see the store's txListCols): the whole row comes by its key.
	DetailsLoaded bool `db:"details_loaded"`
}

// TxActivity is a transaction as REST's tx-activity lists it (Store.TransactionActivity):
// the columns its items show, not the whole row (DetailsLoaded is false), with its
// block's hash and L1 gas prices.
type TxActivity struct {
	Transaction
	BlockHash   Felt    `db:"block_hash"`
	GasPriceWei *string `db:"block_gas_price_wei"`
	GasPriceFri *string `db:"block_gas_price_fri"`
	// KeyCount is the sender's transactions, when the list read its count with its rows.
	KeyCount *int64 `db:"key_count"`
}

type Call struct {
	BlockNumber     int64   `db:"block_number"`
	TxIndex         int     `db:"tx_index"`
	Index           int     `db:"call_index"`
	ContractAddress Felt    `db:"-"`
	Selector        Felt    `db:"-"`
	Entrypoint      *string `db:"entrypoint"`
	EntrypointType  string  `db:"entrypoint_type"`
	CallType        string  `db:"call_type"`
	ClassHash       Felt    `db:"-"`
	// The three felts above as stored, by felt id (migration 00048): the Store fills
	// them in from its cache of felt_ids (nameCalls).
	ContractID int32     `db:"contract_id"`
	SelectorID int32     `db:"selector_id"`
	ClassID    *int32    `db:"class_id"`
	Calldata   FeltArray `db:"calldata"`
	Inputs     JSON      `db:"inputs"` // stored before migration 00043 only: DecodedInputs
	Outputs    JSON      `db:"outputs"`

	abi *class.ABI // of ClassHash, for DecodedInputs (call_inputs.go)
}

type Event struct {
	BlockNumber     int64 `db:"block_number"`
	TxIndex         int   `db:"tx_index"`
	Index           int   `db:"event_index"`
	TransactionHash Felt  `db:"transaction_hash,from=t.hash"`
	Timestamp       int64 `db:"timestamp,from=t.timestamp"`
	// The emitter, stored as a felt id (migration 00047): the Store fills in FromAddress
	// from its cache of felt_ids (nameEvents).
	FromAddress Felt  `db:"-"`
	FromID      int32 `db:"from_id"`
	// The keys and the data, stored as the first key's felt id, the other keys and the data
	// (migration 00050), or, for a folded transfer (TransferLayout set, migration 00051),
	// made from its transfer's columns, read beside it (eventTransferJoin): nameEvents
	// fills in Keys and Data.
	// (sql.Null* rather than pointers: a page scans these for each of its rows, and a
	// pointer is an allocation each.)
	Keys           FeltArray      `db:"-"`
	Key0ID         sql.NullInt32  `db:"key0_id"`
	KeysTail       FeltArray      `db:"keys_tail"`
	Data           FeltArray      `db:"data"`
	TransferLayout sql.NullInt16  `db:"transfer_layout"`
	FoldedFromID   sql.NullInt32  `db:"folded_from_id,from=x.from_id"`
	FoldedToID     sql.NullInt32  `db:"folded_to_id,from=x.to_id"`
	FoldedAmount   sql.NullString `db:"folded_amount,numeric,from=x.amount"`
}

// Contract is a row of contracts. The indexer writes it whole (UpsertContracts).
type Contract struct {
	Address               Felt   `db:"address"`
	ClassHash             Felt   `db:"class_hash"`
	Type                  string `db:"type"`
	Nonce                 string `db:"nonce,numeric"`
	ImplementationAddress Felt   `db:"implementation_address"`
	DeployedBlock         *int64 `db:"deployed_block"`
	DeployedTxHash        Felt   `db:"deployed_tx_hash"`
	DeployedAt            *int64 `db:"deployed_at"`
	ClassUpdatedBlock     *int64 `db:"class_updated_block"` // the last block that replaced its class
}

// Class is a row of classes. The indexer writes it whole (UpsertClasses).
type Class struct {
	Hash              Felt    `db:"hash"`
	Kind              string  `db:"kind"`
	CairoVersion      int     `db:"cairo_version"`
	Version           string  `db:"version"`
	CompiledClassHash Felt    `db:"compiled_class_hash"`
	ABI               JSON    `db:"abi"`
	IsAccount         bool    `db:"is_account"`
	IsProxy           bool    `db:"is_proxy"`
	RawErcStandard    *string `db:"erc_standard"` // as stored; ErcStandard gives the GraphQL enum
	DeclaredBlock     *int64  `db:"declared_block"`
	DeclaredTxHash    Felt    `db:"declared_tx_hash"`
	DeclaredAt        *int64  `db:"declared_at"`
}

type VerifiedClass struct {
	ClassHash         Felt           `db:"class_hash"`
	VerifiedName      string         `db:"name"`
	VerifiedTimestamp int64          `db:"verified_at"`
	CompilerVersion   *string        `db:"compiler_version"`
	ScarbVersion      *string        `db:"scarb_version"`
	License           *string        `db:"license"`
	PackageName       *string        `db:"package_name"`
	ContractFile      *string        `db:"contract_file"`
	ProjectDirPath    *string        `db:"project_dir_path"`
	BuildTool         *string        `db:"build_tool"`
	FilePaths         pq.StringArray `db:"file_paths"`
}

// VerifiedSources are the bulky part of a verified class, read only when asked for: the
// source files (path -> content) and the ABI of the compiled sources.
type VerifiedSources struct {
	ClassHash Felt `db:"class_hash"`
	Files     JSON `db:"files"`
	Abi       JSON `db:"abi"`
}

type Token struct {
	Address       Felt     `db:"address"`
	RawStandard   string   `db:"standard"`
	Name          *string  `db:"name"`
	Symbol        *string  `db:"symbol"`
	Decimals      *int     `db:"decimals"`
	TotalSupply   *string  `db:"total_supply,numeric"`
	TransferCount int64    `db:"transfer_count"`
	HolderCount   int64    `db:"holder_count"`
	IsVerified    bool     `db:"verified"`
	UsdPrice      *float64 `db:"usd_price"`
	MarketCapUsd  *float64 `db:"market_cap_usd"`
	LogoURL       *string  `db:"logo_url"`
	// RawBalancesSource is tokens.balances_source (BalancesFromEvents, ...; migration 00057).
	RawBalancesSource   string `db:"balances_source"`
	StorageCheckedBlock *int64 `db:"storage_checked_block"`
}

// TokenBalance is a row of erc20_balances: a holder of a token, or a token held by an
// address. The indexer writes it whole (UpsertERC20Balances).
type TokenBalance struct {
	TokenAddress      Felt   `db:"token_address"`
	OwnerAddress      Felt   `db:"owner_address"`
	Balance           string `db:"balance,numeric"`
	LastTransferBlock int64  `db:"last_transfer_block"`
	LastTransferTime  int64  `db:"last_transfer_time"`
}

type HoldersOverview struct {
	TokenAddress         Felt      `db:"token_address"`
	TotalSupply          string    `db:"total_supply,numeric"`
	BurnedSupply         string    `db:"burned_supply,numeric"`
	CirculatingSupply    string    `db:"circulating_supply,numeric"`
	HolderCount          int64     `db:"holder_count"`
	HoldersOver1Pct      int       `db:"holders_over_1pct"`
	TopNConcentration    JSON      `db:"top_n_concentration"`
	ConcentrationBuckets JSON      `db:"concentration_buckets"`
	TierDistribution     JSON      `db:"tier_distribution"`
	WalletDepthUsd       JSON      `db:"wallet_depth_usd"`
	GiniTop10k           float64   `db:"gini_top_10k"`
	TokenUsdPrice        *float64  `db:"token_usd_price"`
	ComputedTime         time.Time `db:"computed_at"`
	IsStale              bool      `db:"is_stale"`
	IsRecomputing        bool      `db:"is_recomputing"`
}

type NftItem struct {
	ContractAddress         Felt    `db:"contract_address"`
	TokenID                 string  `db:"token_id,numeric"`
	ContractType            int     `db:"contract_type"`
	Name                    *string `db:"name"`
	Description             *string `db:"description"`
	ExternalURL             *string `db:"external_url"`
	ImageURL                *string `db:"image_url"`
	ImageSmallURL           *string `db:"image_small_url"`
	ImageLargeURL           *string `db:"image_large_url"`
	YoutubeURL              *string `db:"youtube_url"`
	AnimationURL            *string `db:"animation_url"`
	Attributes              JSON    `db:"attributes"`
	TokenURI                *string `db:"token_uri"`
	OwnerAddress            Felt    `db:"owner_address"`
	MintedByAddress         Felt    `db:"minted_by_address"`
	MintedAtBlockNumber     *int64  `db:"minted_at_block"`
	MintedAtTransactionHash Felt    `db:"minted_at_tx_hash"`
	MintedAtTimestamp       *int64  `db:"minted_at_timestamp"`
}

// NftBalance is a row of nft_balances, what an owner holds of an NFT item. The indexer
// writes it whole (UpsertNFTBalances).
type NftBalance struct {
	ContractAddress  Felt   `db:"contract_address"`
	TokenID          string `db:"token_id,numeric"`
	OwnerAddress     Felt   `db:"owner_address"`
	Balance          string `db:"balance,numeric"`
	LastTransferTime int64  `db:"last_transfer_time"`
}

type NftEvent struct {
	BlockNumber                int64   `db:"block_number"`
	TxIndex                    int     `db:"tx_index"`
	EventIndex                 int     `db:"event_index"`
	SubIndex                   int     `db:"sub_index"`
	TransactionHash            Felt    `db:"transaction_hash"`
	Timestamp                  int64   `db:"timestamp"`
	ContractAddress            Felt    `db:"contract_address"`
	TokenID                    string  `db:"token_id,numeric"`
	FromAddress                Felt    `db:"from_address"`
	ToAddress                  Felt    `db:"to_address"`
	Quantity                   string  `db:"quantity,numeric"`
	Type                       string  `db:"type"`
	PaymentTokenAddress        Felt    `db:"payment_token_address"`
	PaymentTokenSymbol         *string `db:"payment_token_symbol"`
	TotalPrice                 *string `db:"total_price,numeric"`
	MarketplaceContractAddress Felt    `db:"marketplace_contract_address"`
}

type MetaTransaction struct {
	BlockNumber     int64  `db:"block_number"`
	Index           int    `db:"tx_index"`
	CallIndex       int    `db:"call_index"`
	Hash            Felt   `db:"hash,from=t.hash"`
	ContractAddress Felt   `db:"contract_address"`
	CallerAddress   Felt   `db:"caller_address"`
	Operations      string `db:"operations"`
	Actions         JSON   `db:"actions"`
}

type Validator struct {
	StakerAddress          Felt    `db:"staker_address"`
	RewardAddress          Felt    `db:"reward_address"`
	OperationalAddress     Felt    `db:"operational_address"`
	Name                   *string `db:"name"`
	ImgSrc                 *string `db:"image_url"`
	IsVerified             bool    `db:"is_verified"`
	SelfStake              string  `db:"self_stake,numeric"`
	DelegatedStakeStrk     string  `db:"delegated_stake_strk,numeric"`
	DelegatedStakeBtc      string  `db:"delegated_stake_btc,numeric"`
	RevenueShareBps        int     `db:"revenue_share_bps"`
	StakerState            string  `db:"state"`
	StartTime              *int64  `db:"start_time"`
	UnstakeTime            *int64  `db:"unstake_time"`
	WithdrawalTime         *int64  `db:"withdrawal_time"`
	TotalDelegators        int     `db:"total_delegators"`
	LivenessAttestedEpochs int     `db:"liveness_attested_epochs"`
	LivenessTotalEpochs    int     `db:"liveness_total_epochs"`
	LivenessLastEpoch      *int64  `db:"liveness_last_epoch"`
}

// Pool is a row of pools, a validator's delegation pool of one token. The indexer writes it
// whole (UpsertPools).
type Pool struct {
	Address        Felt   `db:"pool_contract"`
	StakerAddress  Felt   `db:"staker_address"`
	TokenAddress   Felt   `db:"token_address"`
	TotalDelegated string `db:"total_delegated,numeric"`
	DelegatorCount int    `db:"delegator_count"`
	CreatedBlock   *int64 `db:"created_block"` // the block of the staker's NewDelegationPool event
}

type Delegation struct {
	PoolAddress      Felt   `db:"pool_contract"`
	DelegatorAddress Felt   `db:"delegator_address"`
	RewardAddress    Felt   `db:"reward_address"`
	Amount           string `db:"amount,numeric"`
	RewardsClaimed   string `db:"rewards_claimed,numeric"`
	RewardsUnclaimed string `db:"rewards_unclaimed,numeric"`
	UnpoolAmount     string `db:"unpool_amount,numeric"`
	ActivatedAt      *int64 `db:"activated_at"`
	LastDelegationAt *int64 `db:"last_delegation_at"`
	UnpoolTime       *int64 `db:"unpool_time"`
	WithdrawalTime   *int64 `db:"withdrawal_time"`
	Status           string `db:"status"`
}

type StakingOverview struct {
	StakingContract         Felt    `db:"staking_contract"`
	StrkTokenAddress        Felt    `db:"strk_token_address"`
	BtcTokenAddress         Felt    `db:"btc_token_address"`
	TotalSupply             string  `db:"total_supply"`
	MinimumStake            string  `db:"minimum_stake"`
	TotalStakeStrk          string  `db:"total_stake_strk"`
	TotalStakeBtc           string  `db:"total_stake_btc"`
	TotalPendingUnstakeStrk string  `db:"total_pending_unstake_strk"`
	TotalPendingUnstakeBtc  string  `db:"total_pending_unstake_btc"`
	TotalValidators         int     `db:"total_validators"`
	TotalDelegators         int     `db:"total_delegators"`
	MintingCurve            float64 `db:"minting_curve"`
	SecurityLockupSeconds   int64   `db:"security_lockup_seconds"`
	AverageCommission       float64 `db:"average_commission"`
	MintingCDenom           int64   `db:"minting_c_denom"`
	// YearlyMint follows the minting curve from the stake indexed now (migration 00009).
	YearlyMint string `db:"yearly_mint"`
	// BtcShare is the share of rewards that goes to BTC stake.
	BtcShare   float64  `db:"btc_share"`
	MaxAprStrk *float64 `db:"max_apr_strk"` // the best delegators' APR, in percent
	// MinBtcCommissionBps is the lowest commission of a validator with a BTC pool.
	MinBtcCommissionBps *int64 `db:"min_btc_commission_bps"`
	EpochID             int64  `db:"epoch_id"`
	EpochStartingBlock  int64  `db:"epoch_starting_block"`
	EpochLengthBlocks   int64  `db:"epoch_length_blocks"`
	// EpochStartUnix is the timestamp of the epoch's first block, nil when not indexed.
	EpochStartUnix *int64 `db:"epoch_start_time"`
	// MeanBlockSeconds is the mean block time of the newest 100 blocks.
	MeanBlockSeconds *float64 `db:"mean_block_seconds"`
	HeadBlock        *int64   `db:"head_block"`
	FiguresBlock     *int64   `db:"figures_block"`
	LastUpdated      int64    `db:"updated_at"`
}

type StakePoint struct {
	Date                 string `db:"date"`
	TotalStakeChangeStrk string `db:"change_strk"`
	TotalStakeChangeBtc  string `db:"change_btc"`
	TotalStakeStrk       string `db:"total_strk"`
	TotalStakeBtc        string `db:"total_btc"`
}

type IndexerStatus struct {
	HeadBlock   *int64    `db:"head_block"`
	HeadHash    Felt      `db:"head_hash"`
	NodeHead    *int64    `db:"node_head"`
	ChainID     *string   `db:"chain_id"`
	SpecVersion *string   `db:"spec_version"`
	UpdatedTime time.Time `db:"updated_at"`
	// ReplicaLagSeconds is how far the replica serving the read is behind its primary: 0
	// when it has replayed all it received, nil when the read came from a primary.
	ReplicaLagSeconds *float64 `db:"replica_lag_seconds"`
}

type VerificationJob struct {
	ID                string     `db:"id"`
	ClassHash         Felt       `db:"class_hash"`
	Status            int        `db:"status"`
	Name              *string    `db:"name"`
	Message           *string    `db:"message"`
	ObtainedClassHash Felt       `db:"obtained_class_hash"`
	CompilerOutput    *string    `db:"compiler_output"`
	Attempts          int        `db:"attempts"`
	CreatedTime       time.Time  `db:"created_at"`
	UpdatedTime       time.Time  `db:"updated_at"`
	FinishedTime      *time.Time `db:"finished_at"`
}
