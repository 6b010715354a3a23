package indexer

import (
	"context"
	"fmt"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Chain figures are what the overview pages show that events do not carry: the staking
// contract's parameters and epoch, the minting curve's c and the L1 total supply, and USD
// prices from an on-chain oracle. They are read as a node user reads them, with
// starknet_call and starknet_getStorageAt at a block, and written with that block, so a
// reorg rolls them back with everything else.
//
// They are read at every block that is a multiple of Every (so at least once per epoch,
// which is longer on every Starknet network) and at every block in which the staking
// contract or the minting curve emitted a configuration event. Which blocks read depends on
// the chain alone, not on how blocks are batched, so a reorged or restarted index ends as a
// fresh one would.

// FiguresConfig names the contracts figures are read from. Empty fields take the defaults
// of the chain the node serves (mainnet and Sepolia); "off" turns a source off.
type FiguresConfig struct {
	Staking      string // the staking contract
	MintingCurve string // its minting curve
	Oracle       string // a Pragma oracle
	// Prices lists token=PAIR feeds, comma-separated (0x4718...=STRK/USD,...); "off" for none.
	Prices string
	// Every is the most blocks between two readings; default 10.
	Every uint64
}

type priceFeed struct {
	token starknet.Felt
	pair  string
}

// figureSources is a FiguresConfig resolved for one chain.
type figureSources struct {
	staking, mintingCurve, oracle *starknet.Felt
	feeds                         []priceFeed
	every                         uint64
}

// chainDefaults are the deployments of the staking contracts and the Pragma oracle, and
// the oracle feeds of the main tokens.
var chainDefaults = map[string]FiguresConfig{
	"SN_MAIN": {
		Staking:      "0x00ca1702e64c81d9a07b86bd2c540188d92a2c73cf5cc0e508d949015e7e84a7",
		MintingCurve: "0x00ca1705e74233131dbcdee7f1b8d2926bf262168c7df339004b3f46015b6984",
		Oracle:       "0x02a85bd616f912537c50a49a4076db02c00b29b2cdc8a197ce92ed1837fa875b",
		Prices: "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d=STRK/USD," +
			"0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7=ETH/USD," +
			"0x03fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac=WBTC/USD," +
			"0x053c91253bc9682c04929ca02ed00b3e423f6710d2ee7e0d5ebb06f3ecf368a8=USDC/USD," +
			"0x068f5c6a61780768455de69077e07e89787839bf8166decfbf92b645209c0fb8=USDT/USD",
	},
	"SN_SEPOLIA": {
		Staking:      "0x03745ab04a431fc02871a139be6b93d9260b0ff3e779ad9c8b377183b23109f1",
		MintingCurve: "0x0351c67dc2d4653cbe457be59a035f80ff1e6f6939118dad1b7a94317a51a454",
		Oracle:       "0x036031daa264c24520b11d93af622c848b2499b66b41d611bac95e13cfca131a",
		Prices: "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d=STRK/USD," +
			"0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7=ETH/USD",
	},
}

// resolveFigures applies the chain's defaults (chainID is the node's chain id felt).
func resolveFigures(chainID string, cfg FiguresConfig) (*figureSources, error) {
	name := chainID
	if f, err := starknet.ParseFelt(chainID); err == nil {
		if s, ok := starknet.ShortString(f); ok {
			name = s
		}
	}
	def := chainDefaults[name]
	pick := func(flag, set, fallback string) (*starknet.Felt, error) {
		v := set
		if v == "" {
			v = fallback
		}
		if v == "" || v == "off" {
			return nil, nil
		}
		f, err := starknet.ParseFelt(v)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %v", flag, v, err)
		}
		return &f, nil
	}
	src := &figureSources{every: cfg.Every}
	if src.every == 0 {
		src.every = 10
	}
	var err error
	if src.staking, err = pick("staking-contract", cfg.Staking, def.Staking); err != nil {
		return nil, err
	}
	if src.mintingCurve, err = pick("minting-curve", cfg.MintingCurve, def.MintingCurve); err != nil {
		return nil, err
	}
	if src.oracle, err = pick("price-oracle", cfg.Oracle, def.Oracle); err != nil {
		return nil, err
	}
	prices := cfg.Prices
	if prices == "" {
		prices = def.Prices
	}
	if prices != "off" && src.oracle != nil {
		seen := map[starknet.Felt]bool{}
		for _, item := range strings.Split(prices, ",") {
			token, pair, ok := strings.Cut(strings.TrimSpace(item), "=")
			if item == "" {
				continue
			}
			f, err := starknet.ParseFelt(token)
			if !ok || err != nil || pair == "" || len(pair) > 31 {
				return nil, fmt.Errorf("--price-feeds: %q is not token=PAIR (0x4718...=STRK/USD)", item)
			}
			if seen[f] {
				return nil, fmt.Errorf("--price-feeds: token %s has two feeds", token)
			}
			seen[f] = true
			src.feeds = append(src.feeds, priceFeed{f, pair})
		}
	}
	return src, nil
}

// Configuration events of the staking contract: a reading follows them in the same batch.
var stakingConfigEvents = map[starknet.Felt]bool{}

func init() {
	for _, name := range []string{"MinimumStakeChanged", "ExitWaitWindowChanged", "RewardSupplierChanged",
		"EpochInfoChanged", "TokenAdded", "TokenEnabled", "TokenDisabled"} {
		stakingConfigEvents[starknet.Selector(name)] = true
	}
}

// chainFigures is one reading, made at Block.
type chainFigures struct {
	Block   uint64
	Staking *db.StakingFigures // nil when there is no staking contract (yet)
	Prices  []db.TokenPrice
}

// wantsFigures says whether figures are read at block bd.
func (src *figureSources) wantsFigures(bd *blockData) bool {
	if bd.Block.Number%src.every == 0 {
		return true
	}
	for _, t := range bd.Block.Transactions {
		for _, e := range t.Receipt.Events {
			if src.mintingCurve != nil && e.FromAddress == *src.mintingCurve {
				return true
			}
			if src.staking != nil && e.FromAddress == *src.staking && len(e.Keys) > 0 && stakingConfigEvents[e.Keys[0]] {
				return true
			}
		}
	}
	return false
}

var (
	selContractParamsV1 = starknet.Selector("contract_parameters_v1")
	selContractParams   = starknet.Selector("contract_parameters")
	selEpochData        = starknet.Selector("get_current_epoch_data")
	selCurrentEpoch     = starknet.Selector("get_current_epoch")
	selActiveTokens     = starknet.Selector("get_active_tokens")
	selDataMedian       = starknet.Selector("get_data_median")
	l1TotalSupplySlot   = starknet.Selector("l1_total_supply")
)

// fetchFigures reads the figures at the blocks of the batch that want them, in one JSON-RPC
// exchange, and hangs each reading on its block. A failed exchange fails the fetch, which is
// retried.
func (ix *Indexer) fetchFigures(ctx context.Context, blocks []*blockData) error {
	if ix.figures == nil {
		return nil
	}
	var b rpc.MixedBatch
	var readings []*figureCalls
	for _, bd := range blocks {
		if ix.figures.wantsFigures(bd) {
			readings = append(readings, ix.figures.addCalls(&b, bd))
		}
	}
	if len(readings) == 0 {
		return nil
	}
	if err := ix.node.Send(ctx, &b); err != nil {
		return fmt.Errorf("figures of blocks %d-%d: %w", blocks[0].Block.Number, blocks[len(blocks)-1].Block.Number, err)
	}
	for _, r := range readings {
		fig, err := r.read(ix.figures)
		if err != nil {
			return fmt.Errorf("figures at block %d: %w", r.bd.Block.Number, err)
		}
		r.bd.Figures = fig
	}
	return nil
}

// figureCalls are the calls of one reading, at one block.
type figureCalls struct {
	bd                                                 *blockData
	paramsV1, params0, epochData, epoch, tokens, curve *rpc.CallCall
	supply                                             *rpc.StorageCall
	prices                                             []*rpc.CallCall // one per feed
}

// addCalls adds the calls of a reading at block bd to b.
func (src *figureSources) addCalls(b *rpc.MixedBatch, bd *blockData) *figureCalls {
	n := bd.Block.Number
	c := &figureCalls{bd: bd, prices: make([]*rpc.CallCall, len(src.feeds))}
	if src.staking != nil {
		c.paramsV1 = b.Call(n, *src.staking, selContractParamsV1, nil)
		c.params0 = b.Call(n, *src.staking, selContractParams, nil)
		c.epochData = b.Call(n, *src.staking, selEpochData, nil)
		c.epoch = b.Call(n, *src.staking, selCurrentEpoch, nil)
		c.tokens = b.Call(n, *src.staking, selActiveTokens, nil)
	}
	if src.mintingCurve != nil {
		c.curve = b.Call(n, *src.mintingCurve, selContractParams, nil)
		c.supply = b.StorageAt(n, *src.mintingCurve, l1TotalSupplySlot)
	}
	for i, f := range src.feeds {
		pair, _ := starknet.EncodeShortString(f.pair)
		c.prices[i] = b.Call(n, *src.oracle, selDataMedian, []starknet.Felt{{}, pair}) // SpotEntry(pair)
	}
	return c
}

// answered is a call's result when the contract answered it with at least least felts; a
// call a contract does not answer (or that was not made) is not an error.
func answered(c *rpc.CallCall, least int) ([]starknet.Felt, bool, error) {
	if c == nil {
		return nil, false, nil
	}
	out, err := c.Result()
	switch {
	case err != nil && unanswerable(err):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return out, len(out) >= least, nil
}

// read makes the reading from the answers; nil when nothing was answered. Calls a contract
// does not answer leave their figures out.
func (c *figureCalls) read(src *figureSources) (*chainFigures, error) {
	n := c.bd.Block.Number
	fig := &chainFigures{Block: n}
	st := &db.StakingFigures{Block: int64(n)}
	anyStaking := false
	// contract_parameters_v1 and v0's contract_parameters agree on the fields read here:
	// min_stake, token_address, ..., reward_supplier, exit_wait_window.
	p, ok, err := answered(c.paramsV1, 6)
	if err == nil && !ok {
		p, ok, err = answered(c.params0, 6)
	}
	if err != nil {
		return nil, err
	}
	if ok {
		anyStaking = true
		st.MinimumStake, st.StrkToken, st.RewardSupplier = decPtr(p[0]), db.FeltOf(p[1]), db.FeltOf(p[4])
		st.ExitWaitSeconds = intPtr(p[5])
	}
	if e, ok, err := answered(c.epochData, 3); err != nil {
		return nil, err
	} else if ok {
		anyStaking = true
		st.EpochID, st.EpochStartingBlock, st.EpochLengthBlocks = intPtr(e[0]), intPtr(e[1]), intPtr(e[2])
	} else if e, ok, err := answered(c.epoch, 1); err != nil {
		return nil, err
	} else if ok {
		anyStaking = true
		st.EpochID = intPtr(e[0])
	}
	if t, ok, err := answered(c.tokens, 1); err != nil {
		return nil, err
	} else if ok {
		if count, fits := t[0].Uint64(); fits && int(count) <= len(t)-1 {
			for _, a := range t[1 : 1+count] {
				if st.StrkToken == nil || !db.FeltOf(a).Equal(st.StrkToken) {
					st.BtcToken = db.FeltOf(a) // the first staking token that is not STRK
					break
				}
			}
		}
	}
	if cp, ok, err := answered(c.curve, 2); err != nil {
		return nil, err
	} else if ok {
		anyStaking = true
		st.MintingCurveContract, st.MintingCNum, st.MintingCDenom = db.FeltOf(*src.mintingCurve), intPtr(cp[0]), intPtr(cp[1])
	}
	if c.supply != nil {
		v, err := c.supply.Result()
		switch {
		case err == nil && !v.IsZero():
			st.L1TotalSupply = decPtr(v)
		case err != nil && !unanswerable(err):
			return nil, err
		}
	}
	if anyStaking {
		st.StakingContract = db.FeltPtrOf(src.staking)
		fig.Staking = st
	}
	for i, pc := range c.prices {
		out, ok, err := answered(pc, 2)
		if err != nil {
			return nil, err
		}
		dec, fits := uint64(0), false
		if ok {
			dec, fits = out[1].Uint64()
		}
		if !ok || out[0].IsZero() || !fits || dec > 36 {
			continue // no such feed, or no price yet
		}
		fig.Prices = append(fig.Prices, db.TokenPrice{Token: db.FeltOf(src.feeds[i].token), Pair: src.feeds[i].pair,
			Price: out[0].Decimal(), Decimals: int(dec)})
	}
	if fig.Staking == nil && len(fig.Prices) == 0 {
		return nil, nil
	}
	return fig, nil
}

func decPtr(f starknet.Felt) *string {
	s := f.Decimal()
	return &s
}

// intPtr reads a small integer; nil when it does not fit.
func intPtr(f starknet.Felt) *int64 {
	v, ok := f.Uint64()
	if !ok || v > 1<<62 {
		return nil
	}
	i := int64(v)
	return &i
}

// writeFigures writes the readings of the batch's blocks, in block order.
func (w *batchWriter) writeFigures(ctx context.Context, batch []*blockData) error {
	for _, bd := range batch {
		if err := w.writeReading(ctx, bd.Figures); err != nil {
			return err
		}
	}
	return nil
}

func (w *batchWriter) writeReading(ctx context.Context, fig *chainFigures) error {
	if fig == nil {
		return nil
	}
	if fig.Staking != nil {
		if err := db.SetStakingFigures(ctx, w.tx, *fig.Staking); err != nil {
			return fmt.Errorf("staking figures: %w", err)
		}
	}
	if err := db.RecordTokenPrices(ctx, w.tx, int64(fig.Block), fig.Prices); err != nil {
		return fmt.Errorf("token prices: %w", err)
	}
	return nil
}

// journalFigures queues the rows the batch's readings change.
func (w *batchWriter) journalFigures(batch []*blockData) {
	staking := false
	var toks []db.Felt
	for _, bd := range batch {
		if fig := bd.Figures; fig != nil {
			staking = staking || fig.Staking != nil
			for _, p := range fig.Prices {
				toks = append(toks, p.Token)
			}
		}
	}
	if staking {
		w.journalAdd("staking_overview", stringArray([]string{"1"}))
	}
	w.journalFelts("tokens", toks)
}
