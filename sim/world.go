package sim

import (
	"flag"
	"math"
	"time"
)

// Config says which chain to simulate. The zero value of a field means its default.
type Config struct {
	Seed       uint64        // every block, hash and amount follows from it
	Blocks     uint64        // blocks present at start (head = Blocks-1); default 100
	BlockTime  time.Duration // Serve appends a block every BlockTime (0: never)
	ReorgEvery uint64        // Serve reorgs every ReorgEvery appended blocks (0: never)
	ReorgDepth uint64        // depth of those reorgs; default 3
	TxPerBlock int           // mean number of ordinary transactions per block; default 40, at most 20000
	L1Lag      uint64        // blocks at least this far below the head are ACCEPTED_ON_L1; default 10
	ChainID    string        // default SN_MAIN (0x534e5f4d41494e)
	SlowDelay  time.Duration // delay of a Slow fault; default 2s

	GenesisAccounts int    // accounts deployed at genesis; default 100 (at least 40)
	DeployEvery     uint64 // a new account is deployed every DeployEvery blocks; default 2
}

// RegisterFlags binds the command-line flags of `starkgraph sim` to c:
// --seed, --blocks, --block-time, --reorg-every, --reorg-depth, --tx-per-block,
// --l1-lag and --chain-id. The caller owns --addr.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the simulated chain (same seed, same chain)")
	fs.Uint64Var(&c.Blocks, "blocks", c.Blocks, "blocks present at start (default 100)")
	fs.DurationVar(&c.BlockTime, "block-time", c.BlockTime, "append a block this often, e.g. 2s (0: never)")
	fs.Uint64Var(&c.ReorgEvery, "reorg-every", c.ReorgEvery, "reorg every N appended blocks (0: never)")
	fs.Uint64Var(&c.ReorgDepth, "reorg-depth", c.ReorgDepth, "blocks replaced by each reorg (default 3)")
	fs.IntVar(&c.TxPerBlock, "tx-per-block", c.TxPerBlock, "mean ordinary transactions per block (default 40)")
	fs.Uint64Var(&c.L1Lag, "l1-lag", c.L1Lag, "blocks this far below the head are ACCEPTED_ON_L1 (default 10)")
	fs.StringVar(&c.ChainID, "chain-id", c.ChainID, "chain id felt (default SN_MAIN)")
}

func (c Config) withDefaults() Config {
	if c.Blocks == 0 {
		c.Blocks = 100
	}
	if c.ReorgDepth == 0 {
		c.ReorgDepth = 3
	}
	if c.TxPerBlock <= 0 {
		c.TxPerBlock = 40
	}
	// Transaction positions live in 16 bits of hashes and nonces.
	c.TxPerBlock = min(c.TxPerBlock, 20000)
	if c.L1Lag == 0 {
		c.L1Lag = 10
	}
	if c.ChainID == "" {
		c.ChainID = "0x534e5f4d41494e"
	}
	if c.SlowDelay == 0 {
		c.SlowDelay = 2 * time.Second
	}
	if c.GenesisAccounts < 40 {
		c.GenesisAccounts = 100
	}
	if c.DeployEvery == 0 {
		c.DeployEvery = 2
	}
	return c
}

// Entity kinds. An address of a generated entity carries its kind and index in
// its low 40 bits, so that getClassHashAt can answer without a table.
const (
	kindFixed   = 0 // the fee tokens, bridges, staking contract, sequencer
	kindAccount = 1
	kindERC20   = 2 // OpenZeppelin Cairo 1 tokens
	kindERC721  = 3
	kindERC1155 = 4
	kindPool    = 5 // delegation pools: index s is staker s's STRK pool, numStakers+s its WBTC pool
	kindDapp    = 6 // contracts of the classes declared over time, deployed through the UDC
	kindOdd     = 7 // the misbehaving ERC-20s (odd.go)
)

// Fixed entities (kindFixed), with mainnet addresses where mainnet has them.
const (
	fixedETH = iota
	fixedSTRK
	fixedStaking
	fixedETHBridge
	fixedSTRKBridge
	fixedSequencer
	fixedUDC
	fixedMintingCurve   // staking's minting curve (yearly mint, L1 total supply)
	fixedRewardSupplier // staking's reward supplier (named by the staking parameters)
	fixedOracle         // Pragma price oracle (median spot entries)
	fixedUSDC           // bridged USDC, 6 decimals
	fixedWBTC           // bridged WBTC, 8 decimals: the BTC staking token
	fixedAttestation    // staking's attestation contract
	fixedMarketplace    // an NFT marketplace: buyers pay in ETH through it
	fixedNaming         // Starknet ID's naming contract (naming.go)
	numFixed
)

// Sizes of the simulated world.
const (
	numERC20        = 30 // OZ tokens; their holder counts follow a power law
	numERC721       = 8
	numERC1155      = 3
	numStakers      = 20
	stakerEvery     = 7  // a staker joins every stakerEvery blocks, from block 2
	declareEvery    = 30 // a new class is declared every declareEvery blocks, from block 15
	nftWindow       = 80 // an NFT's transfers and burn happen within this many blocks of its mint
	erc1155IDs      = 10
	increaseEvery   = 40 // stakers increase their own stake this often
	claimEvery      = 50 // the first member of each pool claims its rewards this often
	attestMissEvery = 8  // a staker misses one epoch's attestation in this many
	genesisTime     = 1_700_000_000
	blockSeconds    = 6
	accountAdmin    = 0 // genesis account that mints the OZ tokens
	accountRelayer  = 1 // genesis account that relays SNIP-9 meta-transactions
	firstStakerAcct = 10
)

type entity struct {
	kind uint8
	idx  uint32
}

var fixedAddr = [numFixed]felt{
	fixedETH:            mustFelt("0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7"),
	fixedSTRK:           mustFelt("0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"),
	fixedStaking:        mustFelt("0xca1702e64c81d9a07b86bd2c540188d92a2c73cf5cc0e508d949015e7e84a7"),
	fixedETHBridge:      mustFelt("0x73314940630fd6dcda0d772d4c972c4e0a9946bef9dabf4ef84eda8ef542b82"),
	fixedSTRKBridge:     mustFelt("0x594c1582459ea03f77deaf9eb7e3917d6994a03c13405ba42867f83d85f085d"),
	fixedSequencer:      mustFelt("0x1176a1bd84444c89232ec27754698e5d2e7e1a7f1539f12027f28b23ec9f3d8"),
	fixedUDC:            mustFelt("0x41a78e741e5af2fec34b695679bc6891742439f7afb8484ecd7766661ad02bf"),
	fixedMintingCurve:   mustFelt("0xca1705e74233131dbcdee7f1b8d2926bf262168c7df339004b3f46015b6984"),
	fixedRewardSupplier: mustFelt("0x9035556d1ee136e7722ae4e78f92828553a45eed3bc9b2aba90788ec2ca112"),
	fixedOracle:         mustFelt("0x2a85bd616f912537c50a49a4076db02c00b29b2cdc8a197ce92ed1837fa875b"),
	fixedUSDC:           mustFelt("0x53c91253bc9682c04929ca02ed00b3e423f6710d2ee7e0d5ebb06f3ecf368a8"),
	fixedWBTC:           mustFelt("0x3fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac"),
	fixedAttestation:    mustFelt("0x10398fe631af9ab2311840432d507bf7ef4b959ae967f1507928f5afe888a99"),
	fixedMarketplace:    mustFelt("0x5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1e5a1"),
	fixedNaming:         mustFelt("0x6ac597f8116f886fa1c97a23fa4e08299975ecaf6b598873ca6792b9bbfb678"),
}

func mustFelt(s string) felt {
	f, ok := parseFelt(s)
	if !ok {
		panic("bad felt " + s)
	}
	return f
}

// world holds what follows from the seed alone.
type world struct {
	cfg  Config
	seed uint64
}

func (w *world) addr(e entity) felt {
	if e.kind == kindFixed {
		return fixedAddr[e.idx]
	}
	f := hash3(w.seed, 0xadd7, uint64(e.kind)<<32|uint64(e.idx))
	f[3] = f[3]&^(1<<40-1) | (uint64(e.kind)<<32 | uint64(e.idx)) ^ w.lowMask()
	return f
}

func (w *world) account(i int) felt { return w.addr(entity{kindAccount, uint32(i)}) }

// lowMask hides the index carried in the low 40 bits of addresses and block
// hashes behind a seed-dependent pattern, so that they look random.
func (w *world) lowMask() uint64 { return mix64(w.seed^0x10e) & (1<<40 - 1) }

// entityAt decodes an address back to its entity.
func (w *world) entityAt(a felt) (entity, bool) {
	for i, f := range fixedAddr {
		if f == a {
			return entity{kindFixed, uint32(i)}, true
		}
	}
	low := (a[3] ^ w.lowMask()) & (1<<40 - 1)
	e := entity{uint8(low >> 32), uint32(low)}
	if e.kind == kindFixed || e.kind > kindOdd || w.addr(e) != a {
		return entity{}, false
	}
	return e, true
}

// accountsAt is the number of accounts deployed at or before block n: the
// genesis accounts, then one every DeployEvery blocks from block 1.
func (w *world) accountsAt(n uint64) int {
	g := w.cfg.GenesisAccounts
	if n == 0 {
		return g
	}
	return g + int((n-1)/w.cfg.DeployEvery) + 1
}

// deployedAccountAt returns the account deployed by DEPLOY_ACCOUNT in block n.
func (w *world) deployedAccountAt(n uint64) (int, bool) {
	if n == 0 || (n-1)%w.cfg.DeployEvery != 0 {
		return 0, false
	}
	return w.cfg.GenesisAccounts + int((n-1)/w.cfg.DeployEvery), true
}

// accountDeployBlock is the block that deploys account i.
func (w *world) accountDeployBlock(i int) uint64 {
	if i < w.cfg.GenesisAccounts {
		return 0
	}
	return 1 + uint64(i-w.cfg.GenesisAccounts)*w.cfg.DeployEvery
}

// accountClass: 0 Cairo 0 OZ, 1 Cairo 0 Argent proxy, 2 Cairo 1 OZ, 3 Cairo 1 Argent.
func (w *world) accountClass(i int) int {
	if i == accountAdmin || i == accountRelayer || (i >= firstStakerAcct && i < firstStakerAcct+numStakers) {
		return 2
	}
	switch r := mix64(w.seed^uint64(i)*0x51ed) % 100; {
	case r < 20:
		return 0
	case r < 35:
		return 1
	case r < 70:
		return 2
	default:
		return 3
	}
}

func (w *world) isCairo1Account(i int) bool { return w.accountClass(i) >= 2 }

// holdsERC20: account i holds OZ token t when a hash of (t, i) lands in a 1/K_t
// slice, with K_t = (t+1)^1.3, so the holder counts of the tokens follow a power law.
// Holders get their tokens minted when they are deployed and trade only among themselves.
func (w *world) holdsERC20(t int, i int) bool {
	k := uint64(math.Pow(float64(t+1), 1.3))
	return mix64(w.seed^uint64(t)<<40^uint64(i)*0x9e37)%k == 0
}

// Staking schedule: staker s joins at stakerBlock(s) with its own delegation pool.
func stakerBlock(s int) uint64 { return 2 + uint64(s)*stakerEvery }

func stakerAccount(s int) int { return firstStakerAcct + s }

// delegationPeriod: pool s receives a delegation every period blocks after it opens.
func delegationPeriod(s int) uint64 { return 2 + uint64(s%5) }

// poolMembers: the first poolMembers delegations are new members; later ones add to
// existing members in round robin.
func poolMembers(s int) uint64 { return 6 + uint64(s%5) }

const strkUnit = 1_000_000_000_000_000_000

func delegationAmount(s int) u128 { return mulU(uint64(1+s%7), strkUnit) }
func initialSelfStake(s int) u128 { return mulU(20000+uint64(s)*1000, strkUnit) }
func increaseAmount() u128        { return mulU(100, strkUnit) }

// selfStakeAfter is the staker's own stake at the end of block n (n >= join block).
func selfStakeAfter(s int, n uint64) u128 {
	k := (n - stakerBlock(s)) / increaseEvery
	return initialSelfStake(s).add(mulU(k*100, strkUnit))
}

// delegationsUpTo is the number of delegations pool s has received by the end of block n.
func delegationsUpTo(s int, n uint64) uint64 {
	b := stakerBlock(s)
	if n <= b {
		return 0
	}
	return (n - b) / delegationPeriod(s)
}

// delegatedAfter is the pool's delegated stake after k delegations.
func delegatedAfter(s int, k uint64) u128 {
	a := delegationAmount(s)
	return mulU(a.lo, k) // amounts fit 64 bits
}

// declareBlock is the block of the v-th DECLARE (and of the deployment of its class).
func declareBlock(v uint64) uint64 { return 15 + v*declareEvery }

// dappsBefore is the number of dapp contracts deployed before block n.
func dappsBefore(n uint64) uint64 {
	if n <= 15 {
		return 0
	}
	return (n-1-15)/declareEvery + 1
}

// nftMintPeriod: collection c mints a token every period blocks (popular ones more often).
func nftMintPeriod(c int) uint64     { return 2*uint64(c) + 2 }
func erc1155MintPeriod(c int) uint64 { return 3*uint64(c) + 2 }
