package indexer

import (
	"context"
	"math"
	"math/big"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// TestFiguresFromTheChain indexes the simulated chain and checks each figure against what
// the test itself reads from the node and computes, without the code under test: the
// yearly mint by the minting curve's formula, a validator's APR, a price at a block, TVL.
func TestFiguresFromTheChain(t *testing.T) {
	const head = 300 // a multiple of --figures-every, so figures are read at the head
	_, url := simNode(t, sim.Config{Seed: 5, Blocks: head + 1, TxPerBlock: 4})
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, head, nil)
	ctx := context.Background()
	node := rpc.NewClient(url)
	at := rpc.AtNumber(head)
	call := func(contract, fn string, args ...starknet.Felt) []starknet.Felt {
		t.Helper()
		out, err := node.CallByName(ctx, starknet.MustFelt(contract), fn, args, at)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		return out
	}
	const (
		staking = "0xca1702e64c81d9a07b86bd2c540188d92a2c73cf5cc0e508d949015e7e84a7"
		curve   = "0xca1705e74233131dbcdee7f1b8d2926bf262168c7df339004b3f46015b6984"
		oracle  = "0x2a85bd616f912537c50a49a4076db02c00b29b2cdc8a197ce92ed1837fa875b"
		strk    = "0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"
		wbtc    = "0x3fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac"
	)
	// The yearly mint: c_num * sqrt(total stake * L1 total supply) / c_denom.
	stake := call(staking, "get_total_stake")[0].Big()
	params := call(curve, "contract_parameters")
	var b rpc.MixedBatch
	slot := b.StorageAt(head, starknet.MustFelt(curve), starknet.Selector("l1_total_supply"))
	if err := node.Send(ctx, &b); err != nil {
		t.Fatal(err)
	}
	supply, err := slot.Result()
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Int).Sqrt(new(big.Int).Mul(stake, supply.Big()))
	want.Mul(want, params[0].Big()).Div(want, params[1].Big())
	var econ struct {
		Mint     string  `db:"yearly_mint"`
		Share    float64 `db:"btc_share"`
		BaseAPR  float64 `db:"base_apr_strk"`
		StakeBTC string  `db:"total_stake_btc"`
	}
	if err := d.Get(&econ, `SELECT yearly_mint::text, btc_share::float8, base_apr_strk::float8, total_stake_btc::text FROM staking_figures`); err != nil {
		t.Fatal(err)
	}
	if econ.Mint != want.String() {
		t.Fatalf("yearly mint %s, the minting curve's formula gives %s", econ.Mint, want)
	}
	if onChain := call(curve, "yearly_mint")[0].Big(); onChain.Cmp(want) != 0 {
		t.Fatalf("the contract's yearly_mint %s, the formula %s", onChain, want)
	}
	btcStake := call(staking, "get_total_stake_for_token", starknet.MustFelt(wbtc))[0].Big()
	if btcStake.Sign() == 0 || econ.StakeBTC != btcStake.String() || econ.Share != 0.25 {
		t.Fatalf("BTC stake %s (chain %s), share %v", econ.StakeBTC, btcStake, econ.Share)
	}

	// A validator's APR on its own stake: its share of the STRK rewards plus commission on
	// what its pools earn, over its own stake.
	var v struct {
		Staker db.Felt `db:"staker_address"`
		Self   string  `db:"self_stake"`
		Deleg  string  `db:"delegated_stake_strk"`
		BTC    string  `db:"delegated_stake_btc"`
		Bps    int64   `db:"revenue_share_bps"`
		APR    float64 `db:"apr"`
		Rank   int64   `db:"rank"`
	}
	if err := d.Get(&v, `SELECT v.staker_address, v.self_stake::text, v.delegated_stake_strk::text, v.delegated_stake_btc::text,
		v.revenue_share_bps, x.apr::float8, x.rank FROM validators v JOIN validator_figures x USING (staker_address)
		WHERE v.delegated_stake_btc > 0 ORDER BY x.rank LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	f := func(s string) float64 { x, _ := new(big.Float).SetString(s); r, _ := x.Float64(); return r }
	y, s, c := f(want.String()), f(stake.String()), float64(v.Bps)/10000
	wantAPR := 100*0.75*y/s*(f(v.Self)+c*f(v.Deleg))/f(v.Self) + 100*0.25*y*f(v.BTC)/f(btcStake.String())*c/f(v.Self)
	if math.Abs(v.APR-wantAPR) > 1e-9*wantAPR {
		t.Fatalf("validator APR %v, computed %v", v.APR, wantAPR)
	}
	var larger int64
	if err := d.Get(&larger, `SELECT count(*) FROM validators WHERE self_stake + delegated_stake_strk > $1::numeric`,
		new(big.Int).Add(bigOf(v.Self), bigOf(v.Deleg)).String()); err != nil || larger+1 != v.Rank {
		t.Fatalf("rank %d, %d validators have more stake (%v)", v.Rank, larger, err)
	}

	// Own stake, whether v1's StakeBalanceChanged or v2's StakeOwnBalanceChanged reported
	// it: the STRK each staker has sent the staking contract, read from the Transfer events.
	var v2Events int64
	if err := d.Get(&v2Events, `SELECT count(*) FROM events_named WHERE key0 = $1`, db.FeltOf(starknet.Selector("StakeOwnBalanceChanged"))); err != nil || v2Events == 0 {
		t.Fatalf("%d StakeOwnBalanceChanged events indexed (%v): the v2 path is not exercised", v2Events, err)
	}
	var sent []struct {
		Staker db.Felt      `db:"staker_address"`
		Self   string       `db:"self_stake"`
		Data   db.FeltArray `db:"data"`
	}
	if err := d.Select(&sent, `SELECT v.staker_address, v.self_stake::text, e.data FROM validators v
		JOIN events_named e ON e.from_address = $1 AND e.key0 = $2 AND felts_at(e.data, 1) = v.staker_address AND felts_at(e.data, 2) = $3`,
		db.FeltOf(starknet.MustFelt(strk)), db.FeltOf(starknet.Selector("Transfer")), db.FeltOf(starknet.MustFelt(staking))); err != nil {
		t.Fatal(err)
	}
	ownStake, recorded := map[string]*big.Int{}, map[string]string{}
	for _, r := range sent {
		k := r.Staker.Hex()
		if ownStake[k] == nil {
			ownStake[k] = new(big.Int)
		}
		ownStake[k].Add(ownStake[k], r.Data[2].Big())
		recorded[k] = r.Self
	}
	if len(ownStake) < 5 {
		t.Fatalf("only %d stakers sent STRK to the staking contract", len(ownStake))
	}
	for k, want := range ownStake {
		if recorded[k] != want.String() {
			t.Errorf("staker %s: self_stake %s, its transfers to the staking contract sum to %s", k, recorded[k], want)
		}
	}

	// A price at a block: the oracle's median at block 290, as the chain answers it then.
	pair, _ := starknet.EncodeShortString("STRK/USD")
	out, err := node.Call(ctx, starknet.MustFelt(oracle), starknet.Selector("get_data_median"), []starknet.Felt{{}, pair}, rpc.AtNumber(290))
	if err != nil {
		t.Fatal(err)
	}
	var price string
	if err := d.Get(&price, `SELECT price::text FROM token_prices WHERE token_address = $1 AND block_number = 290`, db.FeltOf(starknet.MustFelt(strk))); err != nil || price != out[0].Decimal() {
		t.Fatalf("STRK price at 290: %q, the oracle said %s (%v)", price, out[0].Decimal(), err)
	}

	// TVL: what the staking contract and the pools hold, at the newest prices.
	priceAt := func(token string) float64 {
		pair := map[string]string{strk: "STRK/USD", wbtc: "WBTC/USD"}[token]
		p, _ := starknet.EncodeShortString(pair)
		out := call(oracle, "get_data_median", starknet.Felt{}, p)
		return f(out[0].Decimal()) / math.Pow10(int(out[1].Big().Int64()))
	}
	held := func(token string, decimals int) float64 {
		return f(call(token, "balanceOf", starknet.MustFelt(staking))[0].Decimal()) / math.Pow10(decimals)
	}
	wantTVL := held(strk, 18)*priceAt(strk) + held(wbtc, 8)*priceAt(wbtc)
	totals, err := db.NewStore(d).ChainTotals(ctx)
	if err != nil || totals.TvlUsd == nil || math.Abs(*totals.TvlUsd-wantTVL) > 1e-6*wantTVL {
		t.Fatalf("TVL %v, computed %v (%v)", totals.TvlUsd, wantTVL, err)
	}
}

// TestReorgRollsFiguresBack: a reorg that moves prices puts the figures of the replaced
// blocks back, and the index ends as a fresh index of the winning chain.
func TestReorgRollsFiguresBack(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 9, Blocks: 121, TxPerBlock: 3})
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, 120, nil)
	priceAt := func(block int) string {
		var p string
		if err := d.Get(&p, `SELECT price::text FROM token_prices WHERE block_number = $1 ORDER BY token_address LIMIT 1`, block); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := priceAt(120)
	chain.Reorg(15)
	chain.AddBlocks(3)
	runIndexer(t, d, url, 0, 123, nil)
	if after := priceAt(120); after == before {
		t.Fatalf("the price at the reorged block 120 did not change: %s", after)
	}
	if !equalSnapshots(t, snapshot(t, freshIndex(t, url, 123)), snapshot(t, d)) {
		t.Fatal("after the reorg the figures differ from a fresh index of the winning chain")
	}
}

// TestResolveFigures: the chain's defaults apply to what is not set, "off" turns a source
// off, and a malformed or repeated feed is refused.
func TestResolveFigures(t *testing.T) {
	mainnet := "0x534e5f4d41494e" // SN_MAIN
	src, err := resolveFigures(mainnet, FiguresConfig{})
	if err != nil || src.staking == nil || src.oracle == nil || len(src.feeds) != 5 || src.every != 10 {
		t.Fatalf("mainnet defaults: %+v %v", src, err)
	}
	src, err = resolveFigures(mainnet, FiguresConfig{Oracle: "off", MintingCurve: "0x12", Every: 3})
	if err != nil || src.oracle != nil || len(src.feeds) != 0 || src.mintingCurve == nil || *src.mintingCurve != starknet.MustFelt("0x12") || src.every != 3 {
		t.Fatalf("overrides: %+v %v", src, err)
	}
	if src, err := resolveFigures("0x1234", FiguresConfig{}); err != nil || src.staking != nil || len(src.feeds) != 0 {
		t.Fatalf("an unknown chain has no defaults: %+v %v", src, err)
	}
	for _, bad := range []FiguresConfig{
		{Staking: "0xzz"},
		{Prices: "0x1"},
		{Prices: "0x1=STRK/USD,0x01=ETH/USD"},
	} {
		if _, err := resolveFigures(mainnet, bad); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}
