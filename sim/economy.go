package sim

import (
	"encoding/binary"
	"math"
	"math/big"
)

// The staking economy and the price oracle of the simulated chain. Everything here is a
// pure function of the block number, like the rest of the world, so a call at any block
// answers what the events up to that block imply.
//
//   - Staking contract (starknet-staking v2 views): contract_parameters_v1, get_current_epoch,
//     get_current_epoch_data, get_total_stake, get_current_total_staking_power,
//     get_active_tokens, get_total_stake_for_token.
//   - Minting curve: yearly_mint = c_num * sqrt(total STRK stake * L1 total supply) / c_denom,
//     contract_parameters = (c_num, c_denom); the L1 total supply is the storage variable
//     l1_total_supply (starknet_getStorageAt), raised every supplyUpdateEvery blocks with a
//     TotalSupplyChanged event.
//   - WBTC pools: stakers s with s%btcPoolEvery == 0 open a second pool, for WBTC, the block
//     after they join (v2 NewDelegationPool with the token key), and genesis accounts
//     delegate WBTC to it (StakeDelegatedBalanceChanged).
//   - Pragma oracle: get_data_median(SpotEntry(pair)) for STRK/USD, ETH/USD, BTC/USD,
//     WBTC/USD and USDC/USD, 8 decimals, walking over time.
const (
	epochLength       = 30  // blocks per staking epoch
	mintingCNum       = 160 // the minting curve's c, in c_denom units (1.6%)
	mintingCDenom     = 10000
	supplyUpdateEvery = 500 // the L1 total supply grows this often
	btcPoolEvery      = 3
	btcPeriod         = 9           // a WBTC pool takes a delegation this often
	btcMembers        = 4           // members per WBTC pool; later delegations top them up
	btcMaxDelegations = 40          // per pool, so members never run out of WBTC
	btcDelegation     = 5_000_000   // 0.05 WBTC
	btcGenesisMint    = 100_000_000 // 1 WBTC to every genesis account
	exitWaitSeconds   = 7 * 24 * 3600
	oracleDecimals    = 8
)

var (
	minStake         = mulU(20000, strkUnit)
	l1SupplyBase     = mulU(10_000_000_000, strkUnit)
	l1SupplyStep     = mulU(1_000_000, strkUnit)
	selSupplyChanged = selector("TotalSupplyChanged")
	selDelegatedBal  = selector("StakeDelegatedBalanceChanged")
	fnUpdateSupply   = selector("update_total_supply")
	fnOpenDelegation = selector("set_open_for_delegation")
	l1TotalSupplyKey = selector("l1_total_supply") // storage address of a plain storage variable
)

// l1TotalSupply is the minting curve's L1 total supply at the end of block n.
func l1TotalSupply(n uint64) u128 {
	return l1SupplyBase.add(mulU(l1SupplyStep.lo, n/supplyUpdateEvery)) // the step fits 64 bits
}

func hasBTCPool(s int) bool     { return s%btcPoolEvery == 0 }
func btcPoolBlock(s int) uint64 { return stakerBlock(s) + 1 }
func btcPool(s int) entity      { return entity{kindPool, uint32(numStakers + s)} }
func (w *world) btcMember(s int, j uint64) int {
	return int(mix64(w.seed^uint64(s)<<24^j^0xb7c) % uint64(w.cfg.GenesisAccounts))
}

// btcDelegationsUpTo is the number of delegations WBTC pool s has taken by the end of block n.
func btcDelegationsUpTo(s int, n uint64) uint64 {
	b := btcPoolBlock(s)
	if !hasBTCPool(s) || n <= b {
		return 0
	}
	return min((n-b)/btcPeriod, btcMaxDelegations)
}

// stakeAt is the STRK (self + delegated) and WBTC stake of the staking contract at the end of block n.
func stakeAt(n uint64) (strk, btc *big.Int) {
	strk, btc = new(big.Int), new(big.Int)
	for s := 0; s < numStakers && stakerBlock(s) <= n; s++ {
		strk.Add(strk, selfStakeAfter(s, n).big())
		strk.Add(strk, delegatedAfter(s, delegationsUpTo(s, n)).big())
		btc.Add(btc, new(big.Int).SetUint64(btcDelegationsUpTo(s, n)*btcDelegation))
	}
	return strk, btc
}

// yearlyMint follows the minting curve: c_num * sqrt(stake * supply) / c_denom.
func yearlyMint(n uint64) *big.Int {
	strk, _ := stakeAt(n)
	product := new(big.Int).Mul(strk, l1TotalSupply(n).big())
	m := new(big.Int).Sqrt(product)
	m.Mul(m, big.NewInt(mintingCNum))
	return m.Div(m, big.NewInt(mintingCDenom))
}

// oraclePairs are the oracle's feeds and their starting prices in USD.
var oraclePairs = map[felt]float64{
	shortString("STRK/USD"): 0.12,
	shortString("ETH/USD"):  3000,
	shortString("BTC/USD"):  90000,
	shortString("WBTC/USD"): 90000,
	shortString("USDC/USD"): 1,
}

// oraclePrice is the median price of pair at block n on fork, with oracleDecimals
// decimals; 0 for a pair the oracle does not know. Prices walk slowly (a period of 600
// blocks) with a faster ripple, and a reorg moves them (0.5% per fork id), so that reorgs
// change figures; USDC stays within a tenth of a percent of a dollar.
func oraclePrice(pair felt, n, fork uint64) uint64 {
	base, ok := oraclePairs[pair]
	if !ok {
		return 0
	}
	phase := float64(pair[3]%1000) / 1000 * 2 * math.Pi
	x := float64(n)
	swing := 0.08*math.Sin(2*math.Pi*x/600+phase) + 0.02*math.Sin(2*math.Pi*x/57+phase) + 0.005*float64(fork%8)
	if pair == shortString("USDC/USD") {
		swing /= 80
	}
	return uint64(math.Round(base * (1 + swing) * math.Pow10(oracleDecimals)))
}

func (a u128) big() *big.Int {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], a.hi)
	binary.BigEndian.PutUint64(b[8:], a.lo)
	return new(big.Int).SetBytes(b[:])
}

// feltOfBig converts a non-negative value below 2^251.
func feltOfBig(v *big.Int) felt {
	var b [32]byte
	v.FillBytes(b[:])
	return felt{binary.BigEndian.Uint64(b[0:]), binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[16:]), binary.BigEndian.Uint64(b[24:])}
}

// economyCall answers the views of the staking contract, the minting curve and the oracle
// at block n; ok is false for anything else.
func (w *world) economyCall(e entity, sel felt, args []felt, n, fork uint64) (out []felt, ok bool, err error) {
	if e.kind != kindFixed {
		return nil, false, nil
	}
	strkAddr, wbtcAddr := w.addr(entity{kindFixed, fixedSTRK}), w.addr(entity{kindFixed, fixedWBTC})
	switch e.idx {
	case fixedStaking:
		strk, btc := stakeAt(n)
		epoch := n / epochLength
		switch sel {
		case selector("contract_parameters_v1"):
			return []felt{minStake.felt(), strkAddr, w.addr(entity{kindFixed, fixedAttestation}), classHash(clsPool),
				w.addr(entity{kindFixed, fixedRewardSupplier}), feltU(exitWaitSeconds)}, true, nil
		case selector("get_current_epoch"):
			return []felt{feltU(epoch)}, true, nil
		case selector("get_current_epoch_data"):
			return []felt{feltU(epoch), feltU(epoch * epochLength), feltU(epochLength)}, true, nil
		case selector("get_total_stake"):
			return []felt{feltOfBig(strk)}, true, nil
		case selector("get_current_total_staking_power"):
			// Both in 18 decimals: WBTC's 8 scaled up by 10^10.
			return []felt{feltOfBig(strk), feltOfBig(new(big.Int).Mul(btc, big.NewInt(1e10)))}, true, nil
		case selector("get_active_tokens"):
			return []felt{feltU(2), strkAddr, wbtcAddr}, true, nil
		case selector("get_total_stake_for_token"):
			if len(args) < 1 {
				return nil, true, errInputTooShort(len(args), 1)
			}
			switch args[0] {
			case strkAddr:
				return []felt{feltOfBig(strk)}, true, nil
			case wbtcAddr:
				return []felt{feltOfBig(btc)}, true, nil
			}
			return []felt{{}}, true, nil
		}
	case fixedMintingCurve:
		switch sel {
		case selector("yearly_mint"):
			return []felt{feltOfBig(yearlyMint(n))}, true, nil
		case selector("contract_parameters"):
			return []felt{feltU(mintingCNum), feltU(mintingCDenom)}, true, nil
		}
	case fixedOracle:
		if sel == selector("get_data_median") {
			if len(args) < 2 {
				return nil, true, errInputTooShort(len(args), 2)
			}
			price := oraclePrice(args[1], n, fork)
			if args[0] != (felt{}) || price == 0 { // only spot entries of known pairs
				return []felt{{}, {}, {}, {}, feltU(1)}, true, nil
			}
			ts := genesisTime + n*blockSeconds
			return []felt{feltU(price), feltU(oracleDecimals), feltU(ts), feltU(5), feltU(1)}, true, nil
		}
	}
	return nil, false, nil
}

// storageAt answers starknet_getStorageAt: the minting curve's l1_total_supply; every
// other slot reads 0, as unset storage does.
func (w *world) storageAt(e entity, key felt, n uint64) felt {
	if e.kind == kindFixed && e.idx == fixedMintingCurve && key == l1TotalSupplyKey {
		return l1TotalSupply(n).felt()
	}
	return felt{}
}

// economy emits the block's minting-curve and WBTC-pool transactions.
func (g *gen) economy() {
	n, w := g.b.number, g.w
	if n > 0 && n%supplyUpdateEvery == 0 {
		curve := w.addr(entity{kindFixed, fixedMintingCurve})
		old, next := l1TotalSupply(n-1), l1TotalSupply(n)
		g.invoke(accountAdmin, []call{{curve, fnUpdateSupply, []felt{next.felt()}}}, func(t *tx) {
			t.events = append(t.events, event{curve, []felt{selSupplyChanged}, []felt{old.felt(), next.felt()}})
		})
	}
	staking := entity{kindFixed, fixedStaking}
	stakingAddr := w.addr(staking)
	wbtc := entity{kindFixed, fixedWBTC}
	wbtcAddr := w.addr(wbtc)
	for s := 0; s < numStakers && stakerBlock(s) < n; s++ {
		if !hasBTCPool(s) {
			continue
		}
		acct := stakerAccount(s)
		stakerAddr := w.account(acct)
		pool := btcPool(s)
		poolAddr := w.addr(pool)
		pb := btcPoolBlock(s)
		if n == pb {
			commission := feltU(uint64(100 * (1 + s%10)))
			g.invoke(acct, []call{{stakingAddr, fnOpenDelegation, []felt{wbtcAddr}}}, func(t *tx) {
				t.events = append(t.events, event{stakingAddr, []felt{selNewPool, stakerAddr, poolAddr, wbtcAddr}, []felt{commission}})
			})
			g.b.deployed = append(g.b.deployed, deployedContract{poolAddr, classHash(clsPool)})
			continue
		}
		if n < pb || (n-pb)%btcPeriod != 0 || (n-pb)/btcPeriod > btcMaxDelegations {
			continue
		}
		k := (n - pb) / btcPeriod
		slot := (k - 1) % btcMembers
		member := w.btcMember(s, slot)
		memberAddr := w.account(member)
		amount := u128{lo: btcDelegation}
		contributions := (k-1-slot)/btcMembers + 1
		oldMember, newMember := mulU(btcDelegation, contributions-1), mulU(btcDelegation, contributions)
		oldPool, newPool := mulU(btcDelegation, k-1), mulU(btcDelegation, k)
		fn := fnAddToPool
		if k <= btcMembers {
			fn = fnEnterPool
		}
		g.invoke(member, []call{
			{wbtcAddr, fnApprove, []felt{poolAddr, amount.felt(), {}}},
			{poolAddr, fn, []felt{memberAddr, amount.felt()}},
		}, func(t *tx) {
			g.legacyTransfer(t, wbtc, accountHolder(member), holderOf(pool), amount)
			g.legacyTransfer(t, wbtc, holderOf(pool), holderOf(staking), amount)
			t.events = append(t.events, event{stakingAddr, []felt{selDelegatedBal, stakerAddr, wbtcAddr}, []felt{oldPool.felt(), newPool.felt()}})
			if k <= btcMembers {
				t.events = append(t.events, event{poolAddr, []felt{selNewPoolMember, memberAddr, stakerAddr}, []felt{memberAddr, amount.felt()}})
			}
			t.events = append(t.events, event{poolAddr, []felt{selPoolMemberChange, memberAddr}, []felt{oldMember.felt(), newMember.felt()}})
		})
	}
}

// mintStablesAndBTC gives every genesis account WBTC (for the WBTC pools) and USDC in
// amounts spread over five orders of magnitude, so that holder analytics have depth.
func (g *gen) mintStablesAndBTC() {
	w := g.w
	var calls []call
	type mint struct {
		token  entity
		to     int
		amount u128
	}
	var mints []mint
	for i := 0; i < w.cfg.GenesisAccounts; i++ {
		usdc := mulU(uint64(math.Pow10(2+i%5)), 1_000_000)
		mints = append(mints, mint{entity{kindFixed, fixedUSDC}, i, usdc}, mint{entity{kindFixed, fixedWBTC}, i, u128{lo: btcGenesisMint}})
	}
	for _, m := range mints {
		calls = append(calls, call{w.addr(m.token), fnMint, []felt{w.account(m.to), m.amount.felt(), {}}})
	}
	g.invoke(accountAdmin, calls, func(t *tx) {
		for _, m := range mints {
			g.legacyTransfer(t, m.token, zeroHolder, accountHolder(m.to), m.amount)
		}
	})
}
