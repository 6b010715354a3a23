package rest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The shapes of the reference's answers (../shared/spec/voyager-beta.md), written from its
// words in the notation of refshape_test.go: the tables of its 19 detailed operations
// field by field, and for the 37 others what its list of them and its notes say (an
// envelope, a field, a shared component), the rest left open (`...`, `object`). Nothing
// here is read off our answers.

// refNamed are the reference's shared components (its section "Shared component schemas"
// and the item tables the operations share).
var refNamed = map[string]string{
	// TokenInfo: "Every field is optional, and no field is nullable on its own."
	"TokenInfo": `{tokenAddress?: string, price?: number, decimals?: number, logoUrl?: string, name?: string, symbol?: string}`,
	"ValidatorRowInfo": `{address: string, name?: string, imgSrc?: string, isVerified: boolean,
		stakerState?: "active" | "deleted" | "exited", totalStakeStrk: string, totalStakeBtc: string,
		totalStakePercentageStrk: number, totalStakePercentageBtc: number, totalSelfStake: string,
		totalDelegatedStakeStrk: string, totalDelegatedStakeBtc: string, totalDelegators: number,
		revenueShare: number, aprStrk: number, aprBtc: number, rank: string, withdrawalTime?: number,
		unstakingTime?: number, startTime: number, stakerAddress?: string,
		liveness?: number | null, livenessAttestedEpochs?: number | null, livenessTotalEpochs?: number | null,
		livenessLastEpoch?: number | null, liveness90d?: number | null, livenessAttestedEpochs90d?: number | null,
		livenessTotalEpochs90d?: number | null, livenessLastEpoch90d?: number | null,
		poolInfos: {tokenAddress: string, poolContract: string, tokenInfo?: TokenInfo, rewardAddress?: string | null}[]+,
		stakingPowerStrk?: number, stakingPowerBtc?: number, stakingPower?: number}`,
	// "NftBalance-shaped object": NftBalance, NftHolder, NftItem.balance.
	"NftBalance": `{contractAddress?: string | null, ownerAddress?: string | null, contractAddressAlias?: string | null,
		ownerAddressAlias?: string | null, balance: number | null, tokenId?: string | null, lastTransferTime: number | null}`,
	"NftCursorPagination": `{next: string | null, prev: string | null, count?: number}`,
	"NftItem": `{contractAddress?: string | null, tokenId?: string | null, contractType: number | null, name?: string | null,
		description?: string | null, externalUrl?: string | null, attributes: unknown[] | null, imageUrl?: string | null,
		imageSmallUrl?: string | null, imageLargeUrl?: string | null, youtubeUrl?: string | null, animationUrl?: string | null,
		mintedByAddress?: string | null, mintedAtTimestamp: number | null, mintedAtBlockNumber: number | null,
		mintedAtTransactionHash?: string | null, ownerAddress?: string | null, balance: NftBalance | null}`,
	"NftEvent": `{transactionHash?: string | null, blockNumber: number | null, tokenId?: string | null,
		fromAddress?: string | null, toAddress?: string | null, fromAlias?: string | null, toAlias?: string | null,
		nftContractAddress?: string | null, quantity: number | null, paymentTokenAddress?: string | null,
		paymentTokenSymbol?: string | null, totalPrice?: string | null, marketplaceContractAddress?: string | null,
		timestamp: number | null, name?: string | null, imageUrl?: string | null, imageSmallUrl?: string | null,
		imageLargeUrl?: string | null, type?: "Mint" | "Transfer" | "Burn" | "Sale"}`,
	// NftTransfer (GET /nft-transfers, and the nftTransferred items of TransactionDetails):
	// the reference states only that its quantity is `string | null` (note of op 4).
	"NftTransfer": `{quantity: string | null, ...}`,
	"NftContractBalance": `{contractAddress?: string | null, tokenId?: string | null, ownerAddress?: string | null,
		balance: number | null, lastTransferTime: number | null, tokenName?: string | null, tokenDescription?: string | null,
		attributes: unknown[] | null, imageUrl?: string | null, imageSmallUrl?: string | null, imageLargeUrl?: string | null,
		collectionName?: string | null, contractType: number | null}`,
	// TokensHeldResponse's element (op 13); the example omits `logo`, "optional".
	"TokenHeld": `{address: string, name: string, symbol: string, decimals: number | null, balance?: string | null,
		lastTransferTime: number | null, logo??: string, isVerified?: boolean | null}`,
	// BalanceHistoryResponse's item: "The same item shape ... There, lastTransferTime is
	// optional, and the items add balanceHistory" (whose shape the reference does not give).
	"BalanceHistoryItem": `{address: string, name: string, symbol: string, decimals: number | null, balance?: string | null,
		lastTransferTime?: number | null, logo??: string, isVerified?: boolean | null, balanceHistory: unknown}`,
	"StakeOverTime": `{date: string, totalStakeChangeStrk: string, totalStakeChangeBtc: string, totalStakeStrk: string, totalStakeBtc: string}`,
	"ContractItem": `{address: string, blockNumber: number, isAccount: boolean, isErcToken: boolean, isProxy: boolean,
		type: string, creationTimestamp: number, verifiedTimestamp: number | null, classAlias: string | null,
		contractAlias: string | null, classHash: string, version: string | null, blockHash: string}`,
}

// refShapes is the 200 answer of each of the reference's 56 operations.
var refShapes = map[string]string{
	// The 19 detailed operations, table by table.
	"listTokens": `{items: {address: string, name: string | null, symbol: string | null, decimals: string | null,
		transfers: string, holders: string, type: "erc20" | "erc721" | "erc1155"}[]+, lastPage: number}`,
	"getTokenHoldersOverview": `{overview: {tokenAddress: string, totalSupply: string, burnedSupply: string,
		circulatingSupply: string, holderCount: number, holdersOver1Pct: number,
		topNConcentration: {top5: number, top10: number, top100: number},
		concentrationBuckets: {top_1_5: number, top_6_10: number, top_11_25: number, top_26_50: number, top_51_100: number, outside_100: number},
		tierDistribution: {tier: "whale" | "shark" | "dolphin" | "fish" | "crab" | "shrimp", count: number, supplyShare: number}[]+,
		walletDepthUsd: {usdThreshold: number, walletCount: number}[]+ | null, giniTop10k: number,
		tokenUsdPrice: number | null, computedAt: string, isStale: boolean, isRecomputing: boolean} | null}`,
	"getNftItems":           `{items: NftItem[]+, pagination: NftCursorPagination}`,
	"getNftEvents":          `{items: NftEvent[]+, pagination: NftCursorPagination}`,
	"getNftContractBalance": `{items: NftContractBalance[]+, pagination: NftCursorPagination}`,
	"getNftHolders":         `{items: NftBalance[]+, pagination: NftCursorPagination}`,
	"submitVerification":    `{job_id: string} | {verification_status: "Error" | "Ok", error?: {message: string, detail?: string}} | null`,
	"getTransactionActivities": `{items: {block_hash: string, block_number: number, hash: string, index: number,
		l1_transaction_hash: string | null, type: "DECLARE" | "DEPLOY" | "DEPLOY_ACCOUNT" | "INVOKE" | "L1_HANDLER" | "OTHER",
		class_hash: string | null, contract_address: string | null, sender_address: string | null, timestamp: number,
		status: string, execution_status: string, finality_status: string, revert_error: string | null,
		entry_point_selector: string | null, max_fee: string | null, actual_fee: string | null, actual_fee_unit: string | null,
		gas_price_in_wei: string | null, gas_price_in_fri: string | null, version: string | null, nonce: string | null,
		constructor_calldata: string[] | null, calldata: string[] | null,
		calls: {contract_address: string, class_hash: string, entrypoint_type: string, entrypoint: string, selector: string,
			calldata: string[], call_type: string, inputs: {[key: string]: unknown}, outputs?: unknown}[]+,
		partial_calls_parsing: boolean, sender_alias: string | null, contract_alias: string | null, class_alias: string | null}[]+,
		lastPage: number}`,
	"getWalletStakingInfo": `{overview: {totalStakedStrk: string, totalStakedBtc: string, totalRewardsClaimedStrk: string,
		totalRewardsClaimedBtc: string, totalRewardsUnclaimedStrk: string, totalRewardsUnclaimedBtc: string},
		staked: {tokenAddress: string, poolContract: string, amount: string, withdrawalTime?: number, unpoolTime?: number,
		formattedTotalAmount: string, rewardAddress: string, rewardsClaimed: string, rewardsUnclaimed: string,
		delegationActivatedAt: number, lastDelegationAt: number, status: "active" | "exited" | "deleted",
		validatorRowInfo?: ValidatorRowInfo}[]+}`,
	"listMetaTransactions": `{items: {blockNumber: number, blockId: string, hash: string, index: number, l1VerificationHash: string,
		classHash: string | null, contractAddress: string | null, timestamp: number, actualFee: string | null,
		contractAlias: string | null, classAlias: string | null, senderAddress: string | null, senderAlias: string | null,
		status: string, type: string, actions: string | null, executionStatus: string, finalityStatus: string,
		operations: string | null, name?: string | null, selector?: string | null, revertError?: string | null}[]+, lastPage: number}`,
	"getContractByAddress": `{address: string, blockNumber: number, isAccount: boolean, isErcToken: boolean, isProxy: boolean,
		type: string, creationTimestamp: number, verifiedTimestamp: number | null, classAlias: string | null,
		contractAlias: string | null, classHash: string, version: string | null, blockHash: string, nonce: number,
		implementationContract: string | null, tokenName: string | null, tokenSymbol: string | null}`,
	"listContracts":         `{items: ContractItem[]+, lastPage: number}`,
	"getContractTokensHeld": `TokenHeld[]+ | null`,
	"listBlocks": `{items: {blockNumber: number | null, hash?: string | null, timestamp: number | null, stateRoot?: string | null,
		txnCount: number | null, messageCount: number | null, eventCount: number | null, l1VerificationTxHash?: string | null,
		status?: string | null}[]+, lastPage: number}`,
	"listClasses": `{items: {hash: string, transactionHash: string, version: string | null, type: number | null,
		isAccount: boolean | null, isProxy: boolean | null, isErcToken: boolean | null, creationTimestamp: number | null}[]+, lastPage: number}`,
	"getStakingOverview": `{overview: {tokenInfoStrk: TokenInfo | null, tokenInfoBtc: TokenInfo | null, totalSupply: string,
		totalValidators: number, totalDelegators: number, maxAPRStrk: number, maxAPRBtc: number, mintingCurve: number,
		securityLockup: number, minimumStake: string, averageCommission: number, totalStakeStrk: string, totalStakeBtc: string,
		totalPendingUnstakeBtc: string, totalPendingUnstakeStrk: string,
		epochData: {id: number, nextId: number, progress: number, estimatedEndTimestamp: number, durationSeconds: number} | null},
		lastUpdated: number}`,
	"getNetworkStats": `{blocksCount: string, contractsCount: string, classesCount: string, transactionsCount: string,
		tpsAtBlockHash: string, tps: string, maxRecordedTps: string, latestAvgFee: {avgFee: string, unit: "USD" | "ETH"}[]+,
		activeAccounts: string, accountsGrowth: string, totalTvl: {value: string, unit: string}}`,
	"getWalletStakeOverTime": `StakeOverTime[]+ | null`,
	"listVerifiedClasses":    `{items: {classHash: string, verifiedTimestamp: number, verifiedName: string}[]+, lastPage: number}`,

	// The 37 others: what the reference's list of them and its notes say.
	"listTransactions": `object`, // query p, ps, to, block, type, rejected; no response given
	// "TransactionDetails has an nftTransferred key (items with quantity string or null)".
	"getTransactionByHash":     `{nftTransferred: NftTransfer[]+, ...}`,
	"getTokenTransfers":        `{items: object[]+, hasMore: boolean}`,                   // "Returns {items, hasMore}"
	"getTokenHolders":          `{items: object[]+, lastPage: number, hasMore: boolean}`, // "Returns {items, lastPage, hasMore}"
	"getContractTokenBalances": `object`,
	"getContractTransfers":     `{items: object[]+, hasMore: boolean, range: unknown}`, // "Returns {items, hasMore, range}"
	// "The same item shape appears in BalanceHistoryResponse": the reference gives the
	// items, not the envelope.
	"getContractBalanceHistory": `{items: BalanceHistoryItem[]+, ...}`,
	// The class type is a number; "5 in the getClassByHash example, where the class has
	// isErcToken: true" (note of op 15).
	"getClassByHash":     `{type: number | null, isErcToken: boolean | null, ...}`,
	"getClassSourceCode": `object`,
	"listClassContracts": `object`,
	"getNftContract":     `object`,
	"getNftDetails":      `object`,
	// The NFT cursor envelope: "It is also used by /nft-balances, /nft-transfers, /nft-stats
	// and /marketplace-stats"; NftBalance is the component of /nft-balances' records.
	"getNftBalances":           `{items: NftBalance[]+, pagination: NftCursorPagination}`,
	"getNftTransfers":          `{items: NftTransfer[]+, pagination: NftCursorPagination}`,
	"getNftStats":              `{items: object[]+, pagination: NftCursorPagination}`,
	"getMarketplaceStats":      `{items: object[]+, pagination: NftCursorPagination}`,
	"requestNftMetadataUpdate": `{success: boolean}`, // "Returns {success: boolean}"
	"getBlockByHash":           `object`,
	// The listValidators example is ValidatorRowInfo's (note of the shared component).
	"listValidators":       `{items: ValidatorRowInfo[]+, ...}`,
	"getValidatorDetails":  `object`,
	"getValidatorPoolInfo": `object`,
	"listDelegators":       `object`,
	// Its answer is not given (only "query timerange, address").
	"getDelegatorsOverTime": `unknown`,
	// "This operation uses the same response schema as GET /staking/stake-over-time" (op 18).
	"getStakeOverTime":             `StakeOverTime[]+ | null`,
	"getWalletStakingActivity":     `object`,
	"getValidatorActivity":         `object`,
	"getAttestations":              `object`,
	"listEvents":                   `object`,
	"listMessages":                 `object`,
	"getMessageByHash":             `object`,
	"getMessageBridgeTransactions": `object`,
	"getDailyStats":                `object`,
	"getTodayStats":                `object`,
	"getEventActivities":           `object`,
	// "status is an integer: 0 Submitted, 1 Compiled, 2 CompileFailed, 3 Fail, 4 Success, 5 Processing".
	"getVerificationJobStatus": `{status: 0 | 1 | 2 | 3 | 4 | 5, ...}`,
	"checkVerificationStatus":  `object`,
	// "Returns {apis: {[name]: {status: ok|lagging|down, lagSeconds}}, timestamp}". Each API
	// also has lagBlocks, headBlock and replicaLagSeconds, a documented extension that
	// operators read (route description, docs/scaling.md).
	"getApiStatus": `{apis: {[key: string]: {status: "ok" | "lagging" | "down", lagSeconds: unknown, ...}}, timestamp: unknown}`,
}

// referenceOperations reads the operationIds of voyager-beta.md: its 19 detailed ones and
// the 37 of its list of the others.
func referenceOperations(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "shared", "spec", "voyager-beta.md"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("reference spec missing: %v", err)
		}
		t.Skipf("reference spec missing (../shared/spec/voyager-beta.md): %v", err)
	}
	ref := map[string]bool{}
	for _, re := range []*regexp.Regexp{regexp.MustCompile("(?m)^## \\d+\\. [A-Z]+ \\S+ — `(\\w+)`"), regexp.MustCompile(`(?m)^ +\* (?:GET|POST) \S+ \(` + "`(\\w+)`" + `\)`)} {
		for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
			ref[m[1]] = true
		}
	}
	if len(ref) != 56 {
		t.Fatalf("read %d operations from the reference, want its 56", len(ref))
	}
	return ref
}

// refChecker compiles refNamed and refShapes.
func refChecker(t *testing.T) (*shapeChecker, map[string]*shape) {
	t.Helper()
	c := &shapeChecker{named: map[string]*shape{}}
	for name, src := range refNamed {
		s, err := parseShape(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c.named[name] = s
	}
	ops := map[string]*shape{}
	for op, src := range refShapes {
		s, err := parseShape(src)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		ops[op] = s
	}
	return c, ops
}

// TestAnswersHaveTheReferenceShapes calls each of the reference's 56 operations on the
// seeded chain (with a few rows more, so that every list the reference describes has
// items) and checks the answer against refShapes: keys, JSON types, nullability and
// envelopes as the reference states them.
func TestAnswersHaveTheReferenceShapes(t *testing.T) {
	ops := referenceOperations(t)
	checker, shapes := refChecker(t)
	for op := range ops {
		if shapes[op] == nil {
			t.Errorf("no reference shape for %s", op)
		}
	}
	for op := range shapes {
		if !ops[op] {
			t.Errorf("a reference shape for %s, which the reference does not have", op)
		}
	}
	e := newEnv(t)
	// A sale of the newest NFT through a marketplace, so that /marketplace-stats lists one.
	e.exec(`UPDATE nft_events SET payment_token_address = $1, payment_token_symbol = 'STRK', total_price = 5000000000000000000,
		marketplace_contract_address = $2 WHERE contract_address = $3 AND token_id = $4`, strkAddr, account(2), nftAddr, nNftItems)

	// The day's and the hour's activity the indexer keeps, for /daily-stats and its today.
	head := baseTime + nBlocks*10
	e.exec(`INSERT INTO activity_stats (granularity, starts_at, blocks, transactions, fees_wei) VALUES ('d', $1, 30, 60, 1000), ('h', $2, 30, 60, 1000)`,
		head/86400*86400, head/3600*3600)

	// The two writes, as their clients send them.
	body, ct := multipartBody(t, verifyFields, map[string]string{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]\nname = \"duck\""})
	posts := map[string]func() response{
		"submitVerification": func() response { return e.post(t, "/beta/class-verify/"+erc20Class.Hex(), ct, body) },
		"requestNftMetadataUpdate": func() response {
			return e.post(t, "/beta/nft/update-metadata/"+nftAddr.Hex()+"/7", "application/json", strings.NewReader(""))
		},
	}
	for _, rt := range routeTable() {
		if !ops[rt.opID] {
			continue // ours only
		}
		t.Run(rt.opID, func(t *testing.T) {
			e := e.with(t)
			var r response
			what := rt.method + " "
			if rt.method == http.MethodPost {
				what += rt.path
				r = posts[rt.opID]()
			} else {
				path, ok := sampleRequests[rt.opID]
				if !ok {
					t.Fatalf("no sample request for %s", rt.opID)
				}
				what += path
				r = e.get(path)
			}
			if r.status != http.StatusOK {
				t.Fatalf("%s: status %d: %s", what, r.status, r.raw)
			}
			// A list's items are checked only if there are some: every sample finds data.
			if l, ok := r.body.([]any); ok && len(l) == 0 {
				t.Errorf("%s: an empty list; the sample request must find data", what)
			}
			if m, ok := r.body.(map[string]any); ok {
				if l, ok := m["items"].([]any); ok && len(l) == 0 {
					t.Errorf("%s: no items; the sample request must find data", what)
				}
			}
			if diffs := checker.check("$", shapes[rt.opID], r.body); len(diffs) > 0 {
				if len(diffs) > 20 {
					diffs = append(diffs[:20], "...")
				}
				t.Errorf("%s differs from the reference:\n  %s\n%s", what, strings.Join(diffs, "\n  "), r.raw)
			}
		})
	}
}

// TestShapeNotationCatchesDeviations: the checker refuses what the seven deviations of
// issue 42 looked like.
func TestShapeNotationCatchesDeviations(t *testing.T) {
	checker, shapes := refChecker(t)
	for op, bad := range map[string]string{
		"getNftBalances":            `{"items": [{"balance": 1, "lastTransferTime": 1}], "lastPage": 1}`,
		"getNftTransfers":           `{"items": [{"quantity": 1}], "pagination": {"next": null, "prev": null}}`,
		"getTransactionByHash":      `{"hash": "0x1"}`,
		"getContractBalanceHistory": `{"items": [{"tokenAddress": "0x1", "tokenName": null, "tokenSymbol": null, "tokenDecimals": null, "points": []}]}`,
		"listTokens":                `{"items": [], "lastPage": 1}`,
		"getContractTokensHeld":     `[{"address": "0x1", "name": "A", "symbol": "A", "decimals": "18", "lastTransferTime": null}]`,
		"listBlocks":                `{"items": [{"blockNumber": 1, "hash": null, "timestamp": 1, "stateRoot": null, "txnCount": 1, "messageCount": 0, "eventCount": 0, "l1VerificationTxHash": null, "status": null, "extra": 1}], "lastPage": 1}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if diffs := checker.check("$", shapes[op], v); len(diffs) == 0 {
			t.Errorf("%s: %s passes", op, bad)
		}
	}
}
