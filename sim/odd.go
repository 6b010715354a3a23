package sim

import (
	"math/big"
	"math/rand/v2"
)

// The misbehaving ERC-20s (kindOdd; Chain.OddTokens), deployed at genesis on every seed, each wrong the
// way some real tokens are wrong for an indexer that believes Transfer events:
//
//   - oddInterest, an interest-bearing token: it stores raw amounts (at the standard slots,
//     and its events carry raw amounts) but balance_of answers raw * index(n) / 10^18, an
//     index that grows every block with no event;
//   - oddFeeOnTransfer: a transfer of a burns a fee of a/100; the event says a, the
//     receiver gets a - a/100;
//   - oddSilentMint: an airdrop's claim mints to the claiming account with no event (only
//     the storage diff shows it);
//   - oddOtherSlot: well behaved, but its balances live at pedersen(sn_keccak("balances"),
//     account) rather than the standard ERC20_balances slots.
//
// Every account is minted each of them when it is deployed (Transfer events from 0x0), and
// they move between live accounts in transactions appended after the block's ordinary
// traffic. They draw from a generator of their own, so that the rest of a block is what it
// was before they existed.
const (
	oddInterest = iota
	oddFeeOnTransfer
	oddSilentMint
	oddOtherSlot
	numOdd
)

var (
	oddMint      = mulU(1_000_000, strkUnit)
	fnClaim      = selector("claim")
	interestStep = big.NewInt(10_000_000_000_000) // the index grows by 10^-5 a block
	interestOne  = big.NewInt(strkUnit)
)

func oddToken(j int) entity { return entity{kindOdd, uint32(j)} }

// interestIndex is oddInterest's index at block n, scaled by 10^18.
func interestIndex(n uint64) *big.Int {
	i := new(big.Int).Mul(interestStep, new(big.Int).SetUint64(n))
	return i.Add(i, interestOne)
}

// interestBalance is what oddInterest's balance_of answers for a raw amount at block n.
func interestBalance(raw u128, n uint64) u128 {
	v := new(big.Int).Lsh(new(big.Int).SetUint64(raw.hi), 64)
	v.Or(v, new(big.Int).SetUint64(raw.lo))
	v.Mul(v, interestIndex(n))
	v.Quo(v, interestOne)
	lo := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0))).Uint64()
	return u128{v.Rsh(v, 64).Uint64(), lo}
}

// oddMints has the admin mint every odd token to accounts (one multicall).
func (g *gen) oddMints(accounts []int) {
	var calls []call
	for _, a := range accounts {
		for j := 0; j < numOdd; j++ {
			calls = append(calls, call{g.w.addr(oddToken(j)), fnMint, []felt{g.w.account(a), oddMint.felt(), {}}})
		}
	}
	g.invoke(accountAdmin, calls, func(t *tx) {
		for _, a := range accounts {
			for j := 0; j < numOdd; j++ {
				g.ozTransfer(t, oddToken(j), zeroHolder, accountHolder(a), oddMint)
			}
		}
	})
}

// oddTraffic appends the block's transactions of the odd tokens.
func (g *gen) oddTraffic() {
	n := g.b.number
	if n == 0 {
		all := make([]int, g.w.cfg.GenesisAccounts)
		for i := range all {
			all[i] = i
		}
		g.oddMints(all)
		return
	}
	// A generator of their own: the block's ordinary traffic does not change.
	saved := g.rng
	g.rng = rand.New(rand.NewPCG(mix64(g.w.seed^n*0x0dd0dd), mix64(g.b.fork+0x0dd)))
	defer func() { g.rng = saved }()
	if i, ok := g.w.deployedAccountAt(n); ok {
		g.oddMints([]int{i})
	}
	// About one odd transaction a block in all: the bench's transactions stay ordinary ones.
	for j := 0; j < numOdd; j++ {
		if g.rng.IntN(4) != 0 {
			continue
		}
		s := g.pickAccount()
		r := g.otherAccount(s)
		token := oddToken(j)
		amount := mulU(1+g.rng.Uint64N(1000), strkUnit/1000)
		g.invoke(s, []call{{g.w.addr(token), fnTransfer, []felt{g.w.account(r), amount.felt(), {}}}}, func(t *tx) {
			if j != oddFeeOnTransfer {
				g.ozTransfer(t, token, accountHolder(s), accountHolder(r), amount)
				return
			}
			fee := u128{0, amount.lo / 100} // amounts fit 64 bits
			t.events = append(t.events, event{from: g.w.addr(token), keys: []felt{selTransfer, g.w.account(s), g.w.account(r)},
				data: []felt{amount.felt(), {}}})
			g.b.effects = append(g.b.effects,
				effect{kind: effERC20, token: token, from: accountHolder(s), to: accountHolder(r), amount: amount.sub(fee)},
				effect{kind: effERC20, token: token, from: accountHolder(s), to: zeroHolder, amount: fee})
		})
	}
	if g.rng.IntN(4) == 0 {
		a := g.pickAccount()
		token := oddToken(oddSilentMint)
		amount := mulU(1+g.rng.Uint64N(100), strkUnit)
		g.invoke(a, []call{{g.w.addr(token), fnClaim, []felt{}}}, nil)
		g.b.effects = append(g.b.effects, effect{kind: effERC20, token: token, from: zeroHolder, to: accountHolder(a), amount: amount})
	}
}

// OddTokens are the addresses of the misbehaving ERC-20s (see oddToken's comment).
type OddTokens struct {
	Interest, FeeOnTransfer, SilentMint, OtherSlot string
}

// OddTokens returns the addresses of the chain's misbehaving ERC-20s.
func (c *Chain) OddTokens() OddTokens {
	a := func(j int) string { return c.w.addr(oddToken(j)).String() }
	return OddTokens{a(oddInterest), a(oddFeeOnTransfer), a(oddSilentMint), a(oddOtherSlot)}
}

// Accounts returns the addresses of the accounts deployed by block n.
func (c *Chain) Accounts(n uint64) []string {
	out := make([]string, c.w.accountsAt(n))
	for i := range out {
		out[i] = c.w.account(i).String()
	}
	return out
}
