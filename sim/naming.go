package sim

import (
	"fmt"

	"github.com/starkgraph/starkgraph/starknet"
)

// Starknet ID in the simulated chain: the naming contract (fixedNaming, at mainnet's
// address) sells .stark domains. About two accounts in five buy one early in their life
// and make it their main domain; one in four of those later buys a second domain and
// switches to it; one in ten buys a domain that expires after expiringBlocks blocks.
// Events (modelled on starknet-id/naming, Cairo 1):
//
//	DomainMint            keys=[sel, domain_label]  data=[identity_id, expiry]
//	AddressToDomainUpdate keys=[sel, address]       data=[domain_len, labels...]
var (
	selDomainMint            = selector("DomainMint")
	selAddressToDomainUpdate = selector("AddressToDomainUpdate")
	fnBuyDomain              = selector("buy")
	fnSetAddressToDomain     = selector("set_address_to_domain")
)

const (
	domainSeconds  = 365 * 24 * 3600
	expiringBlocks = 300 // a short-lived domain's life
	renameAfter    = 100 // blocks between a renamer's first and second domain
	genesisSpread  = 20  // genesis accounts register over blocks 1..genesisSpread
)

// names give the simulated domains readable labels.
var names = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
	"mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zoe"}

// hasDomain: the admin account is alice.stark; two accounts in five have a domain.
func (w *world) hasDomain(i int) bool {
	return i == accountAdmin || mix64(w.seed^uint64(i)*0xd0a1)%100 < 40
}
func (w *world) renames(i int) bool {
	return i != accountAdmin && w.hasDomain(i) && mix64(w.seed^uint64(i)*0x5e7a)%4 == 0
}
func (w *world) shortLived(i int) bool { return w.hasDomain(i) && !w.renames(i) && i%10 == 3 }

// domainBlock is the block in which account i buys its first domain.
func (w *world) domainBlock(i int) uint64 {
	if i < w.cfg.GenesisAccounts {
		return 1 + uint64(i%genesisSpread)
	}
	return w.accountDeployBlock(i) + 1
}

// DomainLabel is the label of account i's first (version 0) or second (1) domain.
func DomainLabel(i, version int) string {
	base := names[i%len(names)]
	if i >= len(names) {
		base = fmt.Sprintf("%s%d", base, i/len(names))
	}
	if version > 0 {
		return base + "-v2"
	}
	return base
}

// identityID is the Starknet ID identity (NFT) id that owns account i's domains.
func identityID(i int) felt { return feltU(1_000_000 + uint64(i)) }

// naming emits the domain purchases of block n.
func (g *gen) naming() {
	n, w := g.b.number, g.w
	check := func(i int) {
		if i < 0 || i >= w.accountsAt(n) || !w.hasDomain(i) {
			return
		}
		switch first := w.domainBlock(i); {
		case n == first:
			g.buyDomain(i, 0)
		case w.renames(i) && n == first+renameAfter:
			g.buyDomain(i, 1)
		}
	}
	if n >= 1 && n <= genesisSpread {
		for i := int(n - 1); i < w.cfg.GenesisAccounts; i += genesisSpread {
			check(i)
		}
	}
	// Accounts deployed in block n-1 (first domain) and n-1-renameAfter (second).
	for _, d := range []uint64{1, 1 + renameAfter} {
		if n > d {
			if i, ok := w.deployedAccountAt(n - d); ok {
				check(i)
			}
		}
	}
	if n > renameAfter && n-renameAfter <= genesisSpread {
		for i := int(n - renameAfter - 1); i < w.cfg.GenesisAccounts; i += genesisSpread {
			check(i)
		}
	}
}

// buyDomain: account i buys a domain and makes it its main domain, in one multicall.
func (g *gen) buyDomain(i, version int) {
	label, err := starknet.EncodeStarknetIDLabel(DomainLabel(i, version))
	if err != nil {
		panic(err)
	}
	domain, _ := parseFelt(label.Hex())
	naming := fixedAddr[fixedNaming]
	expiry := g.b.timestamp + domainSeconds
	if g.w.shortLived(i) {
		expiry = g.b.timestamp + expiringBlocks*blockSeconds
	}
	account := g.w.account(i)
	g.invoke(i, []call{
		{naming, fnBuyDomain, []felt{identityID(i), domain, feltU(365), account, {}, {}, {}}},
		{naming, fnSetAddressToDomain, []felt{feltU(1), domain, {}}},
	}, func(t *tx) {
		t.events = append(t.events,
			event{naming, []felt{selDomainMint, domain}, []felt{identityID(i), feltU(expiry)}},
			event{naming, []felt{selAddressToDomainUpdate, account}, []felt{feltU(1), domain}})
	})
}

// Label is a name the simulated chain's operator would curate (labels.Entry's fields).
type Label struct {
	Address  string
	Name     string
	Kind     string // token, contract, class, validator, account
	Logo     string // a path of the API server's /logos/ handler
	Verified bool
}

// Labels names what the simulated chain has that the default mainnet list does not: its
// OpenZeppelin tokens (the first five verified), its validators (with images), its
// marketplace and oracle, and its account and token classes. Logos are paths on the API
// server (logoBase + NAME.svg): nothing is fetched from elsewhere.
func (c Config) Labels(logoBase string) []Label {
	w := &world{cfg: c.withDefaults(), seed: mix64(c.Seed ^ 0x5eed)} // as New makes it
	logo := func(name string) string { return logoBase + name + ".svg" }
	out := []Label{
		{fixedAddr[fixedETH].String(), "Ether", "token", logo("ETH"), true},
		{fixedAddr[fixedSTRK].String(), "Starknet Token", "token", logo("STRK"), true},
		{fixedAddr[fixedUSDC].String(), "USD Coin", "token", logo("USDC"), true},
		{fixedAddr[fixedWBTC].String(), "Wrapped BTC", "token", logo("WBTC"), true},
		{fixedAddr[fixedMarketplace].String(), "Sim Marketplace", "contract", "", false},
		{fixedAddr[fixedOracle].String(), "Pragma Oracle", "contract", "", false},
		{fixedAddr[fixedMintingCurve].String(), "Staking Minting Curve", "contract", "", false},
		{fixedAddr[fixedRewardSupplier].String(), "Staking Reward Supplier", "contract", "", false},
		{fixedAddr[fixedAttestation].String(), "Staking Attestation", "contract", "", false},
		{classHash(clsAccountOZ0).String(), "OpenZeppelin Account (Cairo 0)", "class", "", false},
		{classHash(clsAccountOZ1).String(), "OpenZeppelin Account", "class", "", false},
		{classHash(clsArgentProxy).String(), "Argent Proxy", "class", "", false},
		{classHash(clsArgentAccount0).String(), "Argent Account (Cairo 0)", "class", "", false},
		{classHash(clsAccountArgent1).String(), "Argent Account", "class", "", false},
		{classHash(clsERC20OZ).String(), "OpenZeppelin ERC20", "class", "", false},
		{classHash(clsPool).String(), "Staking Delegation Pool", "class", "", false},
	}
	for t := 0; t < numERC20; t++ {
		name, sym, _ := erc20Meta(t)
		out = append(out, Label{w.addr(entity{kindERC20, uint32(t)}).String(), name, "token", logo(sym), t < 5})
	}
	for s := 0; s < numStakers; s++ {
		name := fmt.Sprintf("Validator %s", names[s%len(names)])
		out = append(out, Label{w.account(stakerAccount(s)).String(), name, "validator", logo(fmt.Sprintf("V%02d", s)), s%3 != 2})
	}
	return out
}
