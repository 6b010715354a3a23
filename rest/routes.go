package rest

import (
	"net/http"

	"github.com/starkgraph/starkgraph/db"
)

// route is one operation of the interface: how it is reached, what it takes, what it
// answers, and the function that does it.
type route struct {
	method, path string
	opID         string
	summary      string
	description  string // what the reference leaves open and we chose, for the document
	params       []param
	body         any   // POST: a value of the request body type, for the document
	resp         any   // a value of the response type, for the document
	statuses     []int // error statuses besides 200 (403 and 429 come from the auth middleware)
	graphql      string
	handle       handlerFunc
}

var (
	feltDesc    = "0x followed by 1 to 64 hex digits, any case."
	badAnd404   = []int{http.StatusBadRequest, http.StatusNotFound}
	onlyBad     = []int{http.StatusBadRequest}
	noErrors    = []int{}
	timeRanges  = []string{"1w", "1m", "3m", "6m", "1y", "max"}
	blockIDDesc = "A block number, a 0x block hash, or `pre_confirmed`."

	// Parameters that several operations take.
	collectionParam      = queryFelt("contract_address", "Collection contract address").req()
	tokenIDParam         = query("token_id", kindBigInt, "NFT token id within the collection (decimal or 0x-hex).")
	walletParam          = queryFelt("address", "Wallet address").req()
	tokenParam           = pathFelt("address", "Token contract address")
	contractParam        = pathFelt("contractAddress", "Contract address")
	classHashParam       = pathFelt("classHash", "Class hash")
	classOrContractParam = pathFelt("hash", "Class hash or contract address")
	validatorParam       = queryFelt("validator", "Validator (staker) address").req()

	// The parameters of the sale statistics.
	timeframeParam = query("timeframe", kindEnum, "Window back from the newest block.").oneOf("day", "week", "month", "all").withDefault("all")
	statsSortParam = query("sort", kindEnum, "Sort direction.").oneOf("asc", "desc").withDefault("desc")

	// The parameters of the staking history.
	stakingSeriesParams = []param{
		query("timerange", kindEnum, "Days back from the newest block's day.").oneOf("max", "1y", "1m", "1w").withDefault("1m"),
		queryFelt("address", "Validator (staker) address; the whole network when absent"),
	}
	stakingActivityParams = []param{
		query("sort", kindEnum, "Order by position in the chain.").oneOf("asc", "desc").withDefault("desc"),
		timeParam("start", "Earliest operation time, Unix seconds (inclusive)."),
		timeParam("end", "Latest operation time, Unix seconds (inclusive)."),
		query("operation", kindEnum, "One operation.").oneOf(db.StakingOperations...),
		query("search", kindHash, "A transaction hash."),
	}

	// The parameters of the transfer lists.
	transferPageSizeParam = query("page_size", kindLimit, "Items per page (1 to 100).").withDefault("100")
	transferIDParam       = query("id", kindString, "The `id` of the last item of the previous page.")
	orderByParam          = query("order_by", kindEnum, "Order by position in the chain.").oneOf("asc", "desc").withDefault("desc")
	fromBlockParam        = blockParam("from_block", "Lowest block (inclusive).")
	toBlockParam          = blockParam("to_block", "Highest block (inclusive).")
	fromTimeParam         = timeParam("from_timestamp", "Earliest block time, Unix seconds (inclusive).")
	toTimeParam           = timeParam("to_timestamp", "Latest block time, Unix seconds (inclusive).")
)

// invocationParam is a transfer list's invocation type filter, under the list's name for it.
func invocationParam(name string) param {
	return query(name, kindEnum, "Which transfers of a transaction.").
		oneOf("all", "all_except_fee_transfer", "validate", "execute", "fee_transfer").withDefault("all")
}

// pathFelt and queryFelt are felt parameters; what names the value.
func pathFelt(name, what string) param  { return path(name, kindFelt, what+": "+feltDesc) }
func queryFelt(name, what string) param { return query(name, kindFelt, what+": "+feltDesc) }

// routeTable lists every operation served under /beta, the 19 of the product description
// first, then the others real clients call.
func routeTable() []route {
	return []route{
		{method: "GET", path: "/beta/tokens", opID: "listTokens", summary: "Get tokens",
			params: []param{pageParam, pageSizeParam,
				query("type", kindEnum, "Token standard.").oneOf("erc20", "erc721", "erc1155").withDefault("erc20"),
				query("attribute", kindEnum, "Sort key (descending).").oneOf("holders", "transfers", "market_cap").withDefault("holders")},
			resp: pageList[tokenItem]{}, statuses: onlyBad, handle: listTokens,
			graphql: "`tokens(first, after, standard, orderBy)`"},
		{method: "GET", path: "/beta/tokens/{address}/holders/overview", opID: "getTokenHoldersOverview", summary: "Get holders analytics overview",
			params: []param{tokenParam},
			resp:   holdersOverviewBody{}, statuses: badAnd404, handle: holdersOverviewOp,
			graphql: "`token(address) { holdersOverview }`"},
		{method: "GET", path: "/beta/nft-items", opID: "getNftItems", summary: "Get NFT items",
			params: []param{cursorParam, limitParam,
				collectionParam,
				queryFelt("owner_address", "Owner address")},
			resp: cursorList[nftItem]{}, statuses: badAnd404, handle: nftItemsOp,
			graphql: "`nftItems(first, after, contractAddress, ownerAddress)`"},
		{method: "GET", path: "/beta/nft-events", opID: "getNftEvents", summary: "Get NFT events",
			params: []param{cursorParam, limitParam,
				collectionParam,
				tokenIDParam},
			resp: cursorList[nftEvent]{}, statuses: onlyBad, handle: nftEventsOp,
			graphql: "`nftEvents(first, after, contractAddress, tokenId)`"},
		{method: "GET", path: "/beta/nft-contract-balance", opID: "getNftContractBalance", summary: "Get NFT contract balance",
			params: []param{cursorParam, limitParam,
				queryFelt("owner_address", "Owner address").req(),
				queryFelt("contract_address", "Collection contract address")},
			resp: cursorList[nftContractBalance]{}, statuses: onlyBad, handle: nftContractBalanceOp,
			graphql: "`wallet(address) { nfts(first, after, contractAddress) }`"},
		{method: "GET", path: "/beta/nft-holders", opID: "getNftHolders", summary: "Get NFT holders",
			params: []param{pageParam, pageSizeParam,
				collectionParam,
				tokenIDParam},
			resp: nftHoldersBody{}, statuses: badAnd404, handle: nftHoldersOp,
			graphql: "`nftHolders(contractAddress, tokenId, first, after)`"},
		{method: "POST", path: "/beta/class-verify/{hash}", opID: "submitVerification", summary: "Submit contract verification",
			params: []param{classOrContractParam},
			body:   verifySubmission{}, resp: verifySubmitAnswer{},
			statuses: []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge}, handle: submitVerificationOp,
			graphql: "mutation `submitVerification(input)`"},
		{method: "GET", path: "/beta/tx-activity", opID: "getTransactionActivities", summary: "Get transaction activities",
			params: []param{pageParam, pageSizeParam,
				blockParam("from_block", "Start of the block range (inclusive). Requires sender_address."),
				queryFelt("sender_address", "Sender wallet address"),
				query("sort", kindEnum, "Sort direction.").oneOf("asc", "desc").withDefault("asc")},
			resp: pageList[txActivity]{}, statuses: onlyBad, handle: txActivityOp,
			graphql: "`transactions(first, after, filter: {senderAddress, fromBlock}, order)`"},
		{method: "GET", path: "/beta/staking/wallet-info", opID: "getWalletStakingInfo", summary: "Get wallet staking info",
			params: []param{walletParam},
			resp:   walletStakingBody{}, statuses: onlyBad, handle: walletInfoOp,
			graphql: "`wallet(address) { staking { positions { pool { validator { pools } } } } }`"},
		{method: "GET", path: "/beta/meta-txns", opID: "listMetaTransactions", summary: "Get meta transactions",
			params: []param{pageParam, pageSizeParam,
				queryFelt("to", "The account that executed from outside").req()},
			resp: pageList[metaTxn]{}, statuses: onlyBad, handle: metaTxnsOp,
			graphql: "`metaTransactions(first, after, contractAddress)`"},
		{method: "GET", path: "/beta/contracts/{contractAddress}", opID: "getContractByAddress", summary: "Get contract by address",
			params: []param{contractParam},
			resp:   contractDetails{}, statuses: badAnd404, handle: contractOp,
			graphql: "`contract(address) { ... token { name symbol } }`"},
		{method: "GET", path: "/beta/contracts", opID: "listContracts", summary: "Get contracts",
			params: []param{pageParam, pageSizeParam,
				query("type", kindEnum, "Contract type, case-insensitive; `null` means every type.").oneOf("account", "erc20", "erc721", "erc1155", "unknown", "proxy", "null")},
			resp: pageList[contractItem]{}, statuses: onlyBad, handle: listContractsOp,
			graphql: "`contracts(first, after, type)`"},
		{method: "GET", path: "/beta/contracts/{contractAddress}/erc20-tokens-held", opID: "getContractTokensHeld", summary: "Get ERC20 tokens ever held",
			params: []param{contractParam},
			resp:   []tokenHeld{}, statuses: badAnd404, handle: tokensHeldOp,
			graphql: "`contract(address) { tokensHeld { token } }`"},
		{method: "GET", path: "/beta/blocks", opID: "listBlocks", summary: "Get blocks",
			params: []param{pageParam, pageSizeParam},
			resp:   pageList[blockItem]{}, statuses: onlyBad, handle: listBlocksOp,
			graphql: "`blocks(first, after)`"},
		{method: "GET", path: "/beta/classes", opID: "listClasses", summary: "Get classes",
			params: []param{pageParam, pageSizeParam},
			resp:   pageList[classItem]{}, statuses: onlyBad, handle: listClassesOp,
			graphql: "`classes(first, after)`"},
		{method: "GET", path: "/beta/staking/overview", opID: "getStakingOverview", summary: "Get staking overview",
			resp: stakingOverviewBody{}, statuses: noErrors, handle: stakingOverviewOp,
			graphql: "`stakingOverview` (+ `token(address)` for the token infos)"},
		{method: "GET", path: "/beta/staking/validators", opID: "listValidators", summary: "List validators",
			description: "`sortBy`: rank (by total STRK stake; rank 1 first in ASC), stakeStrk, stakeBtc, delegators, commission, " +
				"stakingPower (the row's `stakingPower`: its share of all STRK stake and of all BTC stake, weighted as rewards are, 1/4 to BTC when there is BTC stake), " +
				"liveness (epochs attested over epochs from its first attested one to its last), liveness90d (the same over its attestations in the 90 days of block time up to the newest block); " +
				"apr is ours. Ties go by rank; validators without the figure come last either way.",
			params: []param{pageParam, pageSizeParam,
				query("search", kindString, "Part of the validator's name or address."),
				query("sortBy", kindEnum, "Sort key, any case.").oneOf("rank", "apr", "stake", "stakestrk", "stakebtc", "delegators", "commission", "stakingpower", "liveness", "liveness90d").withDefault("rank"),
				query("sortOrder", kindEnum, "Sort direction, any case; rank ASC lists the largest stake first.").oneOf("asc", "desc").withDefault("asc")},
			resp: pageList[validatorRowInfo]{}, statuses: onlyBad, handle: listValidatorsOp,
			graphql: "`validators(first, after, orderBy, direction, search) { rank apr pools { apr } }`"},
		{method: "GET", path: "/beta/stats", opID: "getNetworkStats", summary: "Get network statistics",
			resp: networkStats{}, statuses: noErrors, handle: statsOp,
			graphql: "`networkStats`"},
		{method: "GET", path: "/beta/staking/wallet-info/stake-over-time", opID: "getWalletStakeOverTime", summary: "Get wallet stake over time",
			params: []param{
				query("timerange", kindEnum, "Time window back from now.").oneOf(timeRanges...).withDefault("1m"),
				walletParam},
			resp: []stakePoint{}, statuses: onlyBad, handle: stakeOverTimeOp,
			graphql: "`wallet(address) { stakeOverTime(range) }`"},
		{method: "GET", path: "/beta/classes/verified", opID: "listVerifiedClasses", summary: "Get verified classes",
			params: []param{pageParam, pageSizeParam},
			resp:   pageList[verifiedClassItem]{}, statuses: onlyBad, handle: verifiedClassesOp,
			graphql: "`verifiedClasses(first, after)`"},

		// Other operations real clients call.
		{method: "GET", path: "/beta/blocks/{blockHash}", opID: "getBlockByHash", summary: "Get a block",
			params: []param{path("blockHash", kindString, blockIDDesc)},
			resp:   blockDetails{}, statuses: badAnd404, handle: blockOp,
			graphql: "`block(number, hash)`"},
		{method: "GET", path: "/beta/txns", opID: "listTransactions", summary: "Get transactions",
			params: []param{pageParam, pageSizeParam,
				queryFelt("to", "Called or deployed contract"),
				query("block", kindString, blockIDDesc),
				query("type", kindEnum, "Transaction type: 0 INVOKE, 1 DECLARE, 2 DEPLOY, 3 DEPLOY_ACCOUNT, 4 L1_HANDLER, `null` any.").oneOf("0", "1", "2", "3", "4", "null"),
				query("rejected", kindEnum, "true: rejected transactions (the index has none).").oneOf("true", "false")},
			resp: pageList[txnItem]{}, statuses: badAnd404, handle: listTxnsOp,
			graphql: "`transactions(first, after, filter: {contractAddress, type, fromBlock, toBlock})`"},
		{method: "GET", path: "/beta/txns/{txnHash}", opID: "getTransactionByHash", summary: "Get a transaction", description: "`nftTransferred`: the NFT transfers, mints and burns of the transaction in its order (the first 1,000), as items of GET /nft-transfers.",
			params: []param{pathFelt("txnHash", "Transaction hash")},
			resp:   txnDetails{}, statuses: badAnd404, handle: txnOp,
			graphql: "`transaction(hash) { ... calls }`"},
		{method: "GET", path: "/beta/events", opID: "listEvents", summary: "Get events",
			params: []param{pageParam, pageSizeParam,
				query("contract", kindFelt, "Emitting contract: "+feltDesc+" Not with txnHash or blockHash."),
				queryFelt("txnHash", "Transaction hash"),
				query("blockHash", kindString, blockIDDesc)},
			resp: pageList[eventItem]{}, statuses: badAnd404, handle: listEventsOp,
			graphql: "`events(first, after, filter: {fromAddress, fromBlock, toBlock})`, `transaction(hash) { events }`"},
		{method: "GET", path: "/beta/tokens/{address}/holders", opID: "getTokenHolders", summary: "Get token holders",
			params: []param{tokenParam, pageParam, pageSizeParam,
				query("type", kindString, "Accepted and ignored.")},
			resp: tokenHoldersBody{}, statuses: badAnd404, handle: tokenHoldersOp,
			graphql: "`token(address) { holders(first, after) }`"},
		{method: "GET", path: "/beta/classes/{classHash}", opID: "getClassByHash", summary: "Get a class",
			params: []param{classHashParam},
			resp:   classDetails{}, statuses: badAnd404, handle: classOp,
			graphql: "`class(hash) { ... verified }`"},
		{method: "GET", path: "/beta/classes/{classHash}/source", opID: "getClassSourceCode", summary: "Get the verified sources of a class",
			params: []param{classHashParam},
			resp:   classSource{}, statuses: badAnd404, handle: classSourceOp,
			graphql: "`class(hash) { verified { sources { path content } abi } }`"},
		{method: "GET", path: "/beta/classes/{classHash}/contracts", opID: "listClassContracts", summary: "Get the contracts of a class",
			params: []param{classHashParam, pageParam, pageSizeParam},
			resp:   pageList[contractItem]{}, statuses: badAnd404, handle: classContractsOp,
			graphql: "`class(hash) { contracts(first, after) }`"},
		{method: "GET", path: "/beta/class-verify/job/{job}", opID: "getVerificationJobStatus", summary: "Get a verification job",
			params: []param{path("job", kindString, "Job id (a UUID) returned by submitVerification.").maxLength(64)},
			resp:   verifyJob{}, statuses: badAnd404, handle: verifyJobOp,
			graphql: "`verificationJob(id)`"},
		{method: "GET", path: "/beta/class-verify/check/{hash}", opID: "checkVerificationStatus", summary: "Is a class verified",
			params: []param{classOrContractParam},
			resp:   verificationCheck{}, statuses: badAnd404, handle: verificationCheckOp,
			graphql: "`class(hash) { verified }`, `contract(address) { class { verified } }`"},
		{method: "GET", path: "/beta/token-transfers", opID: "getTokenTransfers", summary: "Get ERC-20 token transfers",
			description: "Newest first unless `order_by=asc`. Keyset pages: pass the `id` of the last item seen to get the items after it; `hasMore` says whether there are more. " +
				"An item's `id` is `<block>_<transaction index>_<event index>`. A fee transfer is the transfer from the transaction's sender (or the account a DEPLOY_ACCOUNT deploys) to the block's sequencer. " +
				"Transfers made while validating are not told apart from execution, so `invocation_type=VALIDATE` lists none; transfers come from Transfer events only, so another `event_selector` lists none.",
			params: []param{
				transferPageSizeParam,
				queryFelt("token_address", "Token contract address"),
				queryFelt("from_address", "Sender address"),
				queryFelt("to_address", "Recipient address"),
				fromBlockParam, toBlockParam, fromTimeParam, toTimeParam,
				queryFelt("event_selector", "Event selector"),
				orderByParam,
				invocationParam("invocation_type"),
				transferIDParam,
			},
			resp: keysetList[transferItem]{}, statuses: onlyBad, handle: tokenTransfersOp,
			graphql: "`tokenTransfers(first, after, token, filter: {fromAddress, toAddress, fromBlock, toBlock, fromTimestamp, toTimestamp, invocationType}, order)`"},
		{method: "GET", path: "/beta/contracts/{contractAddress}/token-balances", opID: "getContractTokenBalances", summary: "Get a contract's ERC-20 balances",
			description: "The contract's positive ERC-20 balances now, largest USD value first (balances of tokens without a price last, by token address), " +
				"each with the exact amount in whole tokens and its value at the token's current price; `totalUsdValue` sums the values known.",
			params: []param{contractParam},
			resp:   tokenBalancesBody{}, statuses: badAnd404, handle: tokenBalancesOp,
			graphql: "`contract(address) { tokensHeld { token balance formattedBalance usdValue } }`"},
		{method: "GET", path: "/beta/contracts/{contractAddress}/transfers", opID: "getContractTransfers", summary: "Get a contract's ERC-20 transfers",
			description: "Transfers the contract sent or received, newest first unless `order_by=asc`, within a window of block times of at most 90 days: " +
				"by default the 90 days up to the newest indexed block (or from `timestampFrom`), reported as `range`; a longer window is a 400. " +
				"Keyset pages by `id`, as GET /token-transfers. `symbol` keeps the ERC-20 tokens with that symbol, in any case. Only ERC-20 transfers are listed here (`type=erc20`): NFT transfers are in GET /nft-events.",
			params: []param{contractParam, pageSizeParam,
				query("type", kindEnum, "Token standard.").oneOf("erc20").withDefault("erc20"),
				queryFelt("from", "Sender address"),
				queryFelt("to", "Recipient address"),
				query("symbol", kindString, "Token symbol, any case."),
				queryFelt("tokenAddress", "Token contract address"),
				timeParam("timestampFrom", "Start of the window, Unix seconds (inclusive)."),
				timeParam("timestampTo", "End of the window, Unix seconds (inclusive)."),
				invocationParam("invocationType"),
				transferIDParam,
				orderByParam,
			},
			resp: contractTransfersBody{}, statuses: badAnd404, handle: contractTransfersOp,
			graphql: "`tokenTransfers(first, after, token, wallet, filter: {tokenAddresses, fromAddress, toAddress, fromTimestamp, toTimestamp, invocationType}, order)`"},
		{method: "GET", path: "/beta/event-activity", opID: "getEventActivities", summary: "Get token transfer activity of an address",
			description: "The ERC-20 transfers a sender made, a recipient received, or both (at least one of the two is required), newest first unless `sort=asc`, as items of GET /token-transfers. " +
				"Page by number (`page`, at most 100) or, further, by `last_id`, the `id` of the last item seen (then `page` is not used). Only ERC-20 transfers are listed (`token_type=erc20`).",
			params: []param{
				transferPageSizeParam,
				query("page", kindPage, "Page number (at most 100).").withDefault("1"),
				query("token_type", kindEnum, "Token standard.").oneOf("erc20").withDefault("erc20"),
				queryFelt("from_address", "Sender address"),
				queryFelt("to_address", "Recipient address"),
				fromBlockParam, toBlockParam, fromTimeParam, toTimeParam,
				query("sort", kindEnum, "Order by position in the chain.").oneOf("asc", "desc").withDefault("desc"),
				query("last_id", kindString, "The `id` of the last item of the previous page."),
			},
			resp: keysetList[transferItem]{}, statuses: onlyBad, handle: eventActivityOp,
			graphql: "`tokenTransfers(first, after, filter: {fromAddress, toAddress, fromBlock, toBlock, fromTimestamp, toTimestamp}, order)`"},
		{method: "GET", path: "/beta/contracts/{contractAddress}/erc20-balance-history", opID: "getContractBalanceHistory", summary: "Get a contract's ERC-20 balances over time",
			description: "One item per token: `token_address`, or else every token the contract holds now. An item is the token's element of GET /contracts/{contractAddress}/erc20-tokens-held " +
				"(`balance` and `lastTransferTime` the latest known, null for a token the contract never held) with `balanceHistory`: each UTC day's closing balance (after the day's last block), oldest first, " +
				"over the days of `timerange` that end on the day of the newest indexed block. The reference gives neither the envelope nor the shape of `balanceHistory`: these are ours.",
			params: []param{contractParam,
				query("timerange", kindEnum, "Days back from the newest block.").oneOf("1w", "1m", "3m", "6m", "1y").withDefault("1m"),
				queryFelt("token_address", "Token contract address")},
			resp: balanceHistoryBody{}, statuses: badAnd404, handle: balanceHistoryOp,
			graphql: "`wallet(address) { dailyBalances(token, range) }`"},
		{method: "GET", path: "/beta/messages", opID: "listMessages", summary: "Get messages between L1 and L2",
			description: "Newest first. L1 -> L2 messages are those L1 handlers consumed; L2 -> L1 messages those receipts sent. A message's hash is keccak256 as the Starknet core contract computes it, which may exceed the field prime. " +
				"`contract` is the L2 side: the recipient of an L1 -> L2 message, the sender of an L2 -> L1 one. Blocks indexed before this version list their L1 -> L2 messages only.",
			params: []param{pageParam, pageSizeParam,
				query("block", kindString, blockIDDesc),
				queryFelt("contract", "L2 contract address"),
				query("type", kindEnum, "0: L1 -> L2, 1: L2 -> L1, `null`: both.").oneOf("0", "1", "null")},
			resp: pageList[messageItem]{}, statuses: badAnd404, handle: listMessagesOp,
			graphql: "`messages(first, after, filter: {blockNumber, contract, direction})`"},
		{method: "GET", path: "/beta/message/{msgHash}", opID: "getMessageByHash", summary: "Get a message between L1 and L2",
			description: "The newest message with this hash (a message sent twice with the same content has one hash).",
			params:      []param{path("msgHash", kindHash, "Message hash: 0x followed by 1 to 64 hex digits, any case.")},
			resp:        messageItem{}, statuses: badAnd404, handle: messageOp,
			graphql: "`messages(first: 1, filter: {hash}) { edges { node { ... transaction { l1TransactionHash } } } }`"},
		{method: "GET", path: "/beta/message/{msgHash}/bridgeTransactions", opID: "getMessageBridgeTransactions", summary: "Get the bridge transactions of a message",
			description: "The L2 transactions that carried the message, newest first: an L1 handler that minted a deposit, or a transaction that burned a withdrawal, with the token and amount when the transaction moved one.",
			params:      []param{path("msgHash", kindHash, "Message hash: 0x followed by 1 to 64 hex digits, any case."), pageParam, pageSizeParam},
			resp:        pageList[bridgeTransaction]{}, statuses: badAnd404, handle: bridgeTransactionsOp,
			graphql: "`messages(filter: {hash}) { edges { node { transaction { l1TransactionHash tokenTransfers { token amount } } } } }`"},
		{method: "GET", path: "/beta/staking/validator-details", opID: "getValidatorDetails", summary: "Get a validator",
			description: "The validator as an item of GET /staking/validators.",
			params:      []param{validatorParam},
			resp:        validatorRowInfo{}, statuses: badAnd404, handle: validatorDetailsOp,
			graphql: "`validator(address) { rank apr pools { apr token } }`"},
		{method: "GET", path: "/beta/staking/validator-pool-info", opID: "getValidatorPoolInfo", summary: "Get a validator's pools",
			description: "Each pool of the validator: its token (the STRK pool is `strk`, every other token `btc`), total delegated, delegators and the delegators' APR after commission, in basis points.",
			params:      []param{validatorParam},
			resp:        validatorPoolsBody{}, statuses: badAnd404, handle: validatorPoolInfoOp,
			graphql: "`validator(address) { revenueShare pools { address token totalDelegated delegatorCount apr } }`"},
		{method: "GET", path: "/beta/staking/delegators", opID: "listDelegators", summary: "Get a validator's delegators",
			description: "Delegations of the validator's pools by amount, largest first (then by pool and delegator).",
			params: []param{pageParam, pageSizeParam, validatorParam,
				queryFelt("delegator", "Delegator address"),
				query("asset", kindEnum, "The pools of one asset.").oneOf("strk", "btc")},
			resp: pageList[delegatorItem]{}, statuses: badAnd404, handle: delegatorsOp,
			graphql: "`validator(address) { delegations(first, after, asset, delegator) }`"},
		{method: "GET", path: "/beta/staking/delegators-over-time", opID: "getDelegatorsOverTime", summary: "Get delegators over time",
			description: "The network's delegations, or one validator's (`address`), at the end of each UTC day of `timerange` that changed them, oldest first, " +
				"with the change since the previous such day. A wallet delegating to two pools counts twice. The reference gives no item shape: " +
				"this one follows StakeOverTimeResponse.",
			params: stakingSeriesParams,
			resp:   []delegatorsPoint{}, statuses: badAnd404, handle: delegatorsOverTimeOp,
			graphql: "`stakingHistory(range, validator) { date delegators delegatorsChange }`"},
		{method: "GET", path: "/beta/staking/stake-over-time", opID: "getStakeOverTime", summary: "Get stake over time",
			description: "The network's stake, or one validator's (`address`: own plus delegated), at the end of each UTC day of `timerange` that changed it, oldest first, " +
				"with the change since the previous such day; BTC stake is in the BTC tokens' smallest units.",
			params: stakingSeriesParams,
			resp:   []stakePoint{}, statuses: badAnd404, handle: stakeOverTimeNetworkOp,
			graphql: "`stakingHistory(range, validator) { date totalStakeStrk totalStakeBtc totalStakeChangeStrk totalStakeChangeBtc }`"},
		{method: "GET", path: "/beta/staking/wallet-info/activity", opID: "getWalletStakingActivity", summary: "Get a wallet's staking activity",
			description: "The staking operations the wallet made, as a staker or as a pool member, newest first unless `sort=asc`. `operation` values are the " +
				"staking contract's and the pools' entry points (the reference names a 12-value enum without listing it); `search` is a transaction hash.",
			params: append([]param{pageParam, pageSizeParam, walletParam,
				queryFelt("destination", "Only operations concerning this validator (staker address)")}, stakingActivityParams...),
			resp: pageList[stakingActivityItem]{}, statuses: onlyBad, handle: walletStakingActivityOp,
			graphql: "`stakingActivity(first, after, filter: {wallet, validator, operation, fromTimestamp, toTimestamp, transactionHash}, order)`"},
		{method: "GET", path: "/beta/staking/validator-details/activity", opID: "getValidatorActivity", summary: "Get a validator's staking activity",
			description: "The staking operations concerning the validator: its own and its pools' members', newest first unless `sort=asc`. " +
				"`validator` narrows the list to one of its pools (the reference declares the parameter without saying more); the others are as in GET /staking/wallet-info/activity.",
			params: append([]param{pageParam, pageSizeParam, queryFelt("address", "Validator (staker) address").req(),
				queryFelt("validator", "One of the validator's pools (pool contract address)")}, stakingActivityParams...),
			resp: pageList[stakingActivityItem]{}, statuses: badAnd404, handle: validatorActivityOp,
			graphql: "`stakingActivity(first, after, filter: {validator, pool, operation, fromTimestamp, toTimestamp, transactionHash}, order)`"},
		{method: "GET", path: "/beta/staking/attestations", opID: "getAttestations", summary: "Get attestations",
			description: "Attestations (StakerAttestationSuccessful events of the attestation contract), of every validator or of one, newest first.",
			params:      []param{pageParam, pageSizeParam, queryFelt("validator", "Validator (staker) address")},
			resp:        pageList[attestationItem]{}, statuses: badAnd404, handle: attestationsOp,
			graphql: "`attestations(first, after, validator) { epoch validator { rank } transaction { hash } }`"},
		{method: "GET", path: "/beta/nft-contract/{contract_address}", opID: "getNftContract", summary: "Get an NFT collection",
			description: "The collection with a page of its items (as items of GET /nft-items). The reference declares `cursor` and `limit` as path parameters, which a path without their placeholders cannot carry: they are query parameters here.",
			params:      []param{pathFelt("contract_address", "Collection contract address"), cursorParam, limitParam},
			resp:        nftContractBody{}, statuses: badAnd404, handle: nftContractOp,
			graphql: "`token(address) { ... }`, `nftItems(first, after, contractAddress)`"},
		{method: "GET", path: "/beta/nft/{contract_address}/{token_id}", opID: "getNftDetails", summary: "Get an NFT item",
			description: "The item (as an item of GET /nft-items) with a page of its events, newest first. `cursor` and `limit` are query parameters (see GET /nft-contract).",
			params: []param{pathFelt("contract_address", "Collection contract address"),
				path("token_id", kindBigInt, "NFT token id within the collection (decimal or 0x-hex)."), cursorParam, limitParam},
			resp: nftDetailsBody{}, statuses: badAnd404, handle: nftDetailsOp,
			graphql: "`nftItem(contractAddress, tokenId) { ... events(first, after) }`"},
		{method: "GET", path: "/beta/nft-balances", opID: "getNftBalances", summary: "Get NFT balance records",
			description: "The collection's balance records (or one item's) with a positive balance, by token id then largest balance: unlike GET /nft-holders, an owner of several ERC-1155 ids has a record per id. Page numbers in, the NFT cursor envelope out, as GET /nft-holders: `next` and `prev` are page numbers.",
			params:      []param{pageParam, pageSizeParam, collectionParam, tokenIDParam},
			resp:        cursorList[nftBalance]{}, statuses: badAnd404, handle: nftBalancesOp,
			graphql: "`nftBalances(contractAddress, tokenId, first, after)`"},
		{method: "GET", path: "/beta/nft-transfers", opID: "getNftTransfers", summary: "Get NFT transfers",
			description: "The collection's transfers, mints and burns, newest first, as items of GET /nft-events but with `quantity` a decimal string (the reference's NftTransfer); a collection of the other standard than `type` lists none.",
			params: []param{cursorParam, limitParam, collectionParam,
				query("type", kindEnum, "The collection's standard.").oneOf("erc721", "erc1155").withDefault("erc721")},
			resp: cursorList[nftTransfer]{}, statuses: badAnd404, handle: nftTransfersOp,
			graphql: "`nftEvents(first, after, contractAddress)`"},
		{method: "GET", path: "/beta/nft-stats", opID: "getNftStats", summary: "Get NFT collection statistics",
			description: "NFT collections with their sales in `timeframe` (back from the newest block; `all`: every sale), owners and supply, sorted by `attribute`. " +
				"A sale is an NFT transfer whose transaction paid the seller in an ERC-20, whatever marketplace ran it; its price is what the buyer paid in that token " +
				"(fees and royalties included), and `salesVolume` sums the prices in USD at the payment tokens' current prices. " +
				"The reference gives no item shape, default or sort values: these are ours. Collections without sales are listed too, with zeros. " +
				"Page numbers in, the NFT cursor envelope out, as GET /nft-holders: `next` and `prev` are page numbers.",
			params: []param{pageParam, pageSizeParam, timeframeParam,
				query("attribute", kindEnum, "Sort key.").oneOf("sales", "owners", "supply", "sales_volume", "traders").withDefault("sales"),
				statsSortParam},
			resp: cursorList[nftStatsItem]{}, statuses: onlyBad, handle: nftStatsOp,
			graphql: "`nftCollectionStats(first, after, timeframe, orderBy, direction) { collection { name } sales salesVolumeUsd }`"},
		{method: "GET", path: "/beta/marketplace-stats", opID: "getMarketplaceStats", summary: "Get NFT marketplace statistics",
			description: "The marketplaces that ran NFT sales in `timeframe`, with their sales, volume in USD, traders and collections, sorted by `attribute`. " +
				"A sale's marketplace is the contract its transaction called first (when that is neither the collection nor the payment token); see GET /nft-stats for sales and for the envelope.",
			params: []param{pageParam, pageSizeParam, timeframeParam,
				query("attribute", kindEnum, "Sort key.").oneOf("sales", "sales_volume", "traders").withDefault("sales"),
				statsSortParam},
			resp: cursorList[marketplaceStatsItem]{}, statuses: onlyBad, handle: marketplaceStatsOp,
			graphql: "`marketplaceStats(first, after, timeframe, orderBy, direction)`"},
		{method: "POST", path: "/beta/nft/update-metadata/{contract_address}/{token_id}", opID: "requestNftMetadataUpdate", summary: "Refresh an NFT's metadata",
			description: "Queues a refresh of the item's metadata: the metadata fetcher asks the contract for the token URI again and reads the document it names. " +
				"`success` is false when a refresh of the item was asked for less than five minutes ago. The reference also declares `cursor` and `limit` " +
				"as path parameters, which the path cannot carry and a refresh does not use: they are not read.",
			params: []param{pathFelt("contract_address", "Collection contract address"),
				path("token_id", kindBigInt, "NFT token id within the collection (decimal or 0x-hex).")},
			resp: metadataUpdateAnswer{}, statuses: badAnd404, handle: nftMetadataUpdateOp,
			graphql: "mutation `requestNftMetadataUpdate(contractAddress, tokenId)`"},
		{method: "GET", path: "/beta/daily-stats", opID: "getDailyStats", summary: "Get daily statistics",
			description: "The chain's activity per UTC day, newest first, over the days of `timerange` up to the newest block's day, from rows the indexer keeps per day. " +
				"`metrics` is `*` (every metric) or one of: blocks, transactions, invokes, declares, deployAccounts, l1Handlers, reverted, events, messagesToL1, tokenTransfers, feesWei, feesFri (any case); with one, each item has only that metric.",
			params: []param{pageParam, pageSizeParam,
				query("metrics", kindString, "`*` or one metric name.").withDefault("*"),
				query("timerange", kindEnum, "Days back from the newest block's day.").oneOf("max", "1y", "1m", "1w", "1d").withDefault("1m")},
			resp: pageList[dailyStat]{}, statuses: onlyBad, handle: dailyStatsOp,
			graphql: "`dailyStats(first, after, days)`"},
		{method: "GET", path: "/beta/daily-stats/today", opID: "getTodayStats", summary: "Get the last hours' statistics",
			description: "The chain's activity over the last whole hours up to the newest block's hour, summed from rows the indexer keeps per hour.",
			params:      []param{query("hours", kindEnum, "Hours back.").oneOf("1h", "4h", "24h").withDefault("24h")},
			resp:        todayStats{}, statuses: onlyBad, handle: todayStatsOp,
			graphql: "`recentActivity(hours)`"},
		{method: "GET", path: "/beta/search", opID: "search", summary: "Search",
			description: "What a search box is given: a block number; a full hash or address (of a block, transaction, contract, class, token or validator); " +
				"a hex prefix of at least 6 digits, of the 64-digit form or of the form without its leading zero; or the start of a token's symbol or name, in any case. Exact matches first.",
			params: []param{query("q", kindString, "What to look for.").req(),
				query("limit", kindLimit, "Most results (1 to 100).").withDefault("10")},
			resp: struct {
				Items []searchItem `json:"items"`
			}{}, statuses: onlyBad, handle: searchOp,
			graphql: "`search(query, first)`"},
		{method: "GET", path: "/beta/api-status", opID: "getApiStatus", summary: "Index lag per API",
			description: "Each API's `status` and `lagSeconds` (since the indexer last heard from the node), as the reference has them; " +
				"beyond the reference, `lagBlocks` (blocks the node is ahead), `headBlock` and `replicaLagSeconds` (null when the API reads the primary).",
			resp: apiStatusBody{}, statuses: noErrors, handle: apiStatusOp,
			graphql: "`indexerStatus`"},
	}
}
