package sim

import (
	"fmt"
	"math/rand/v2"
)

// Transaction types.
const (
	txInvoke = iota
	txDeclare
	txDeployAccount
	txL1Handler
)

type event struct {
	from felt
	keys []felt
	data []felt
}

type tx struct {
	typ, version  uint8
	hash          felt
	sender        felt // sender_address, or contract_address of an L1 handler
	nonce         uint64
	calldata      []felt
	signature     []felt
	classHash     felt // DECLARE, DEPLOY_ACCOUNT
	compiledClass felt // DECLARE
	salt          felt // DEPLOY_ACCOUNT
	ctorCalldata  []felt
	deployed      felt // DEPLOY_ACCOUNT receipt contract_address
	entryPoint    felt // L1_HANDLER
	events        []event
	messages      []message // L2 -> L1
	fee           u128
	maxFee        u128   // v1/v2
	l1GasMax      uint64 // v3 resource bounds
	l2GasMax      uint64
	tip           uint64
	reverted      bool
	revertReason  string
	msgHash       felt
	l1Gas, l1Data uint64
	l2Gas         uint64
	l1GasPriceBid uint64
	l2GasPriceBid uint64
}

type deployedContract struct{ addr, class felt }

type message struct {
	from, to felt
	payload  []felt
}

type nonceUpdate struct {
	addr  felt
	nonce uint64
}

// Ledger effects of a block, applied in order by the ledger that answers starknet_call.
const (
	effERC20 = iota
	effERC721
	effERC1155
)

type effect struct {
	kind     uint8
	token    entity
	from, to holder
	id       uint64
	amount   u128
}

// holder is a packed entity (kind<<32 | idx), or zeroHolder for the zero address.
type holder uint64

const zeroHolder holder = 1 << 63

func holderOf(e entity) holder { return holder(uint64(e.kind)<<32 | uint64(e.idx)) }

func (h holder) entity() entity { return entity{uint8(h >> 32), uint32(h)} }

type block struct {
	number, fork   uint64
	hash, parent   felt
	root, oldRoot  felt
	timestamp      uint64
	l1GasWei       uint64
	l1GasFri       uint64
	l1DataWei      uint64
	l1DataFri      uint64
	l2GasWei       uint64
	l2GasFri       uint64
	txs            []tx
	declared       []felt // Sierra class hashes
	deprecatedDecl []felt // Cairo 0 class hashes
	deployed       []deployedContract
	nonces         []nonceUpdate
	effects        []effect
}

// Selectors of the entry points and events the simulator uses.
var (
	selTransfer         = selector("Transfer")
	selApproval         = selector("Approval")
	selTransferSingle   = selector("TransferSingle")
	selDepositHandled   = selector("deposit_handled")
	selNewStaker        = selector("NewStaker")
	selStakeBalance     = selector("StakeBalanceChanged")
	selStakeOwnBalance  = selector("StakeOwnBalanceChanged")
	selNewPool          = selector("NewDelegationPool")
	selNewPoolMember    = selector("NewPoolMember")
	selPoolMemberChange = selector("PoolMemberBalanceChanged")
	selPoolMemberReward = selector("PoolMemberRewardClaimed")
	selAttested         = selector("StakerAttestationSuccessful")
	selOwnerAdded       = selector("OwnerAdded")

	fnTransfer           = selector("transfer")
	fnTransferFrom       = selector("transfer_from")
	fnApprove            = selector("approve")
	fnMint               = selector("mint")
	fnBurn               = selector("burn")
	fnSafeTransfer       = selector("safe_transfer_from")
	fnHandleDeposit      = selector("handle_deposit")
	fnStake              = selector("stake")
	fnIncreaseStake      = selector("increase_stake")
	fnEnterPool          = selector("enter_delegation_pool")
	fnAddToPool          = selector("add_to_delegation_pool")
	fnClaimRewards       = selector("claim_rewards")
	fnAttest             = selector("attest")
	fnFulfillOrder       = selector("fulfill_order")
	fnOutsideV2          = selector("execute_from_outside_v2")
	fnIncrease           = selector("increase")
	fnInitiateWithdraw   = selector("initiate_withdraw")
	selWithdrawInitiated = selector("withdraw_initiated")
	fnDeployContract     = selector("deployContract")
	selContractDeployed  = selector("ContractDeployed")
	selIncreased         = selector("Increased")
	anyCaller            = shortString("ANY_CALLER")
	l1BridgeETH          = mustFelt("0xae0ee0a63a2ce6baeeffe56e7714fb4efe48d419")
	l1BridgeSTRK         = mustFelt("0xcE5485Cfb26914C5dcE00B9BAF0580364daFC7a4")
	ethDeposit           = mulU(1000, 1_000_000_000_000_000_000) // 1000 ETH per new account
	strkDeposit          = mulU(1_000_000, strkUnit)             // 1M STRK per new account
	erc20Mint            = mulU(1_000_000_000, 1_000_000_000_000_000)
)

type call struct {
	to   felt
	sel  felt
	data []felt
}

// gen builds one block. Everything it draws comes from rng, seeded by
// (seed, number, fork), or from the world's pure functions of the seed.
type gen struct {
	w      *world
	b      *block
	rng    *rand.Rand
	nonces map[felt]int // index into b.nonces
}

func (w *world) blockHash(n, fork uint64) felt {
	f := hash3(w.seed, n, fork^0xb10c)
	f[3] = f[3]&^(1<<40-1) | (n^w.lowMask())&(1<<40-1)
	return f
}

// txHash names transaction j of block n; like block hashes it carries its
// position in its low bits (40 bits of block number, 16 of index), so that
// getTransactionReceipt finds it without an index.
func (w *world) txHash(n, fork, j uint64) felt {
	f := hash3(w.seed^fork*0x2545f4914f6cdd1d, n, j)
	f[3] = f[3]&^(1<<56-1) | ((j&0xffff)<<40 | n&(1<<40-1)) ^ (w.lowMask() | w.lowMask()<<16&(0xffff<<40))
	return f
}

// txPosition decodes txHash.
func (w *world) txPosition(h felt) (n, j uint64) {
	low := h[3] ^ (w.lowMask() | w.lowMask()<<16&(0xffff<<40))
	return low & (1<<40 - 1), (low >> 40) & 0xffff
}

func (w *world) stateRoot(n, fork uint64) felt { return hash3(w.seed^0x5707, n, fork) }

// generate builds block n on fork; parentFork is the fork id of block n-1.
func (w *world) generate(n, fork, parentFork uint64) *block {
	b := &block{number: n, fork: fork, hash: w.blockHash(n, fork), root: w.stateRoot(n, fork),
		timestamp: genesisTime + n*blockSeconds}
	if n > 0 {
		b.parent = w.blockHash(n-1, parentFork)
		b.oldRoot = w.stateRoot(n-1, parentFork)
	}
	b.txs = make([]tx, 0, 2*w.cfg.TxPerBlock+64) // no regrowth of the big tx structs
	g := &gen{w: w, b: b, rng: rand.New(rand.NewPCG(mix64(w.seed^n*0x9e3779b97f4a7c15), mix64(fork+0x51))), nonces: map[felt]int{}}
	b.l1GasWei = 20_000_000_000 + g.rng.Uint64N(20_000_000_000)
	b.l1GasFri = b.l1GasWei * 3000
	b.l1DataWei = 1 + g.rng.Uint64N(1000)
	b.l1DataFri = b.l1DataWei * 3000
	b.l2GasWei = 10_000 + g.rng.Uint64N(10_000)
	b.l2GasFri = 3_000_000_000 + g.rng.Uint64N(1_000_000_000)
	if n == 0 {
		g.genesis()
		g.oddTraffic()
		return b
	}
	if i, ok := w.deployedAccountAt(n); ok {
		g.newAccount(i)
	}
	g.staking()
	g.naming()
	g.economy()
	if n >= 15 && (n-15)%declareEvery == 0 {
		g.declare((n - 15) / declareEvery)
	}
	for c := 0; c < numERC721; c++ {
		g.nftEvents(c)
	}
	for c := 0; c < numERC1155; c++ {
		g.erc1155Events(c)
	}
	count := w.cfg.TxPerBlock/2 + g.rng.IntN(w.cfg.TxPerBlock+1)
	for i := 0; i < count; i++ {
		g.ordinary()
	}
	g.oddTraffic()
	return b
}

// live is the number of accounts that can act in block n (deployed before it).
func (w *world) live(n uint64) int {
	if n == 0 {
		return w.cfg.GenesisAccounts
	}
	return w.accountsAt(n - 1)
}

func (g *gen) pickAccount() int { return g.rng.IntN(g.w.live(g.b.number)) }

func (g *gen) randFelt() felt { return hash3(g.rng.Uint64(), g.rng.Uint64(), 0) }

// newTx starts a transaction at the next index of the block.
func (g *gen) newTx(typ, version uint8, sender felt) *tx {
	j := uint64(len(g.b.txs))
	g.b.txs = append(g.b.txs, tx{typ: typ, version: version, sender: sender,
		hash: g.w.txHash(g.b.number, g.b.fork, j), nonce: g.b.number<<16 | j})
	t := &g.b.txs[len(g.b.txs)-1]
	if typ != txL1Handler {
		t.signature = []felt{g.randFelt(), g.randFelt()}
		g.noteNonce(sender, t.nonce+1)
	}
	return t
}

func (g *gen) noteNonce(addr felt, next uint64) {
	if i, ok := g.nonces[addr]; ok {
		g.b.nonces[i].nonce = next
		return
	}
	g.nonces[addr] = len(g.b.nonces)
	g.b.nonces = append(g.b.nonces, nonceUpdate{addr, next})
}

// versionFor: Cairo 0 accounts send v1 (fees in WEI); Cairo 1 accounts mostly v3 (FRI).
func (g *gen) versionFor(account int) uint8 {
	if !g.w.isCairo1Account(account) || g.rng.IntN(5) == 0 {
		return 1
	}
	return 3
}

// invoke builds an INVOKE from account with the calls encoded in its account's
// __execute__ layout, then pays the fee (whose Transfer comes last, as on chain).
func (g *gen) invoke(account int, calls []call, events func(t *tx)) *tx {
	sender := g.w.account(account)
	t := g.newTx(txInvoke, g.versionFor(account), sender)
	if g.w.isCairo1Account(account) {
		t.calldata = cairo1Calldata(calls)
	} else {
		t.calldata = cairo0Calldata(calls)
	}
	if events != nil {
		events(t)
	}
	g.payFee(t, holderOf(entity{kindAccount, uint32(account)}))
	return t
}

// cairo1Calldata: calls_len, then (to, selector, calldata_len, calldata...) per call.
func cairo1Calldata(calls []call) []felt {
	out := []felt{feltU(uint64(len(calls)))}
	for _, c := range calls {
		out = append(out, c.to, c.sel, feltU(uint64(len(c.data))))
		out = append(out, c.data...)
	}
	return out
}

// cairo0Calldata: call_array_len, (to, selector, data_offset, data_len) per call,
// calldata_len, then all call data concatenated.
func cairo0Calldata(calls []call) []felt {
	out := []felt{feltU(uint64(len(calls)))}
	total := 0
	for _, c := range calls {
		out = append(out, c.to, c.sel, feltU(uint64(total)), feltU(uint64(len(c.data))))
		total += len(c.data)
	}
	out = append(out, feltU(uint64(total)))
	for _, c := range calls {
		out = append(out, c.data...)
	}
	return out
}

func (g *gen) payFee(t *tx, payer holder) {
	token := entity{kindFixed, fixedETH}
	if t.version == 3 {
		token = entity{kindFixed, fixedSTRK}
		t.fee = mulU(1_000_000_000_000_000+g.rng.Uint64N(99_000_000_000_000_000), 1)
		t.l1GasMax = 0
		t.l2GasMax = 1_000_000 + g.rng.Uint64N(50_000_000)
		t.l1GasPriceBid = g.b.l1GasFri * 2
		t.l2GasPriceBid = g.b.l2GasFri * 2
		t.l1Data = 128 + g.rng.Uint64N(900)
		t.l2Gas = t.l2GasMax / 2
		if g.rng.IntN(4) == 0 {
			t.tip = g.rng.Uint64N(100_000_000)
		}
	} else {
		t.fee = mulU(500_000_000_000+g.rng.Uint64N(50_000_000_000_000), 1)
		t.maxFee = t.fee.add(t.fee)
		t.l1Gas = 1000 + g.rng.Uint64N(30000)
		t.l1Data = 128 + g.rng.Uint64N(900)
	}
	g.legacyTransfer(t, token, payer, holderOf(entity{kindFixed, fixedSequencer}), t.fee)
}

func (g *gen) holderAddr(h holder) felt {
	if h == zeroHolder {
		return felt{}
	}
	return g.w.addr(h.entity())
}

// legacyTransfer: fee-token layout keys=[Transfer], data=[from, to, low, high].
func (g *gen) legacyTransfer(t *tx, token entity, from, to holder, amount u128) {
	t.events = append(t.events, event{from: g.w.addr(token), keys: []felt{selTransfer},
		data: []felt{g.holderAddr(from), g.holderAddr(to), amount.felt(), {}}})
	g.b.effects = append(g.b.effects, effect{kind: effERC20, token: token, from: from, to: to, amount: amount})
}

// ozTransfer: OpenZeppelin Cairo 1 layout keys=[Transfer, from, to], data=[low, high].
func (g *gen) ozTransfer(t *tx, token entity, from, to holder, amount u128) {
	t.events = append(t.events, event{from: g.w.addr(token), keys: []felt{selTransfer, g.holderAddr(from), g.holderAddr(to)},
		data: []felt{amount.felt(), {}}})
	g.b.effects = append(g.b.effects, effect{kind: effERC20, token: token, from: from, to: to, amount: amount})
}

func accountHolder(i int) holder { return holderOf(entity{kindAccount, uint32(i)}) }

// deposit is a StarkGate-style L1_HANDLER minting a fee token to recipient: it consumes
// the message the simulated L1 sent (depositMessage).
func (g *gen) deposit(recipient int, strk bool) {
	bridge, token, amount := entity{kindFixed, fixedETHBridge}, entity{kindFixed, fixedETH}, ethDeposit
	if strk {
		bridge, token, amount = entity{kindFixed, fixedSTRKBridge}, entity{kindFixed, fixedSTRK}, strkDeposit
	}
	msg := g.w.depositMessage(recipient, strk)
	t := g.newTx(txL1Handler, 0, g.w.addr(bridge))
	t.entryPoint = msg.selector
	t.nonce = msg.nonce
	t.calldata = append([]felt{msg.from}, msg.payload...) // an L1 handler's calldata starts with the L1 sender
	t.msgHash = msg.hash()
	rcpt := g.w.account(recipient)
	t.l1Gas = 15000 + g.rng.Uint64N(5000)
	t.l1Data = 128 + g.rng.Uint64N(256)
	g.legacyTransfer(t, token, zeroHolder, accountHolder(recipient), amount)
	t.events = append(t.events, event{from: g.w.addr(bridge), keys: []felt{selDepositHandled}, data: []felt{rcpt, amount.felt(), {}}})
}

// mintERC20s: the admin account mints each OZ token t to the given holders in one multicall.
func (g *gen) mintERC20s(recipients func(t int) []int) {
	var calls []call
	type mint struct{ t, to int }
	var mints []mint
	for t := 0; t < numERC20; t++ {
		for _, r := range recipients(t) {
			calls = append(calls, call{g.w.addr(entity{kindERC20, uint32(t)}), fnMint, []felt{g.w.account(r), erc20Mint.felt(), {}}})
			mints = append(mints, mint{t, r})
		}
	}
	if len(calls) == 0 {
		return
	}
	g.invoke(accountAdmin, calls, func(tx *tx) {
		for _, m := range mints {
			g.ozTransfer(tx, entity{kindERC20, uint32(m.t)}, zeroHolder, accountHolder(m.to), erc20Mint)
		}
	})
}

func (g *gen) genesis() {
	w, b := g.w, g.b
	for c := 0; c < numClasses; c++ {
		if isCairo0Class(c) {
			b.deprecatedDecl = append(b.deprecatedDecl, classHash(c))
		} else {
			b.declared = append(b.declared, classHash(c))
		}
	}
	deploy := func(e entity) { b.deployed = append(b.deployed, deployedContract{w.addr(e), w.classOfEntity(e)}) }
	for i := 0; i < numFixed; i++ {
		deploy(entity{kindFixed, uint32(i)})
	}
	for i := 0; i < numERC20; i++ {
		deploy(entity{kindERC20, uint32(i)})
	}
	for i := 0; i < numOdd; i++ {
		deploy(oddToken(i))
	}
	for i := 0; i < numERC721; i++ {
		deploy(entity{kindERC721, uint32(i)})
	}
	for i := 0; i < numERC1155; i++ {
		deploy(entity{kindERC1155, uint32(i)})
	}
	for i := 0; i < w.cfg.GenesisAccounts; i++ {
		deploy(entity{kindAccount, uint32(i)})
	}
	for i := 0; i < w.cfg.GenesisAccounts; i++ {
		g.deposit(i, false)
		g.deposit(i, true)
	}
	// The catalogue's classes are declared by DECLARE transactions of the admin account,
	// as on a real chain (v1 for Cairo 0 classes, v2 for Sierra classes), once it is funded.
	for c := 0; c < numClasses; c++ {
		version := uint8(2)
		if isCairo0Class(c) {
			version = 1
		}
		t := g.newTx(txDeclare, version, w.account(accountAdmin))
		t.classHash = classHash(c)
		if version == 2 {
			t.compiledClass = compiledClassHash(t.classHash)
		}
		g.payFee(t, accountHolder(accountAdmin))
	}
	g.mintStablesAndBTC()
	g.mintERC20s(func(t int) []int {
		var out []int
		for i := 0; i < w.cfg.GenesisAccounts; i++ {
			if w.holdsERC20(t, i) {
				out = append(out, i)
			}
		}
		return out
	})
}

// newAccount funds account i over the bridges, deploys it, and mints it the OZ
// tokens it holds.
func (g *gen) newAccount(i int) {
	g.deposit(i, false)
	g.deposit(i, true)
	addr := g.w.account(i)
	version := uint8(1)
	if g.w.isCairo1Account(i) && g.rng.IntN(10) < 7 {
		version = 3
	}
	t := g.newTx(txDeployAccount, version, addr)
	t.nonce = 0
	g.noteNonce(addr, 1)
	e := entity{kindAccount, uint32(i)}
	t.classHash = g.w.classOfEntity(e)
	t.salt = g.randFelt()
	t.ctorCalldata = []felt{t.salt, {}}
	if g.w.accountClass(i) == 1 { // proxy: implementation, initializer selector, calldata
		t.ctorCalldata = []felt{classHash(clsArgentAccount0), selector("initialize"), feltU(2), t.salt, {}}
	}
	t.deployed = addr
	g.b.deployed = append(g.b.deployed, deployedContract{addr, t.classHash})
	if g.w.isCairo1Account(i) {
		t.events = append(t.events, event{from: addr, keys: []felt{selOwnerAdded, t.salt}, data: []felt{}})
	}
	g.payFee(t, accountHolder(i))
	g.mintERC20s(func(tok int) []int {
		if g.w.holdsERC20(tok, i) {
			return []int{i}
		}
		return nil
	})
}

func (g *gen) declare(v uint64) {
	sender := g.pickCairo1Account()
	version := uint8(2)
	if g.rng.IntN(2) == 0 {
		version = 3
	}
	t := g.newTx(txDeclare, version, g.w.account(sender))
	t.classHash = dappClassHash(v)
	t.compiledClass = compiledClassHash(t.classHash)
	g.b.declared = append(g.b.declared, t.classHash)
	g.payFee(t, accountHolder(sender))

	// The declarer deploys the class through the UDC: deployContract(class, salt,
	// unique, calldata) and the UDC's ContractDeployed event.
	dapp := entity{kindDapp, uint32(v)}
	addr, salt, deployer := g.w.addr(dapp), g.randFelt(), g.w.account(sender)
	udc := fixedAddr[fixedUDC]
	g.invoke(sender, []call{{udc, fnDeployContract, []felt{t.classHash, salt, {}, feltU(1), {}}}}, func(tx *tx) {
		tx.events = append(tx.events, event{udc, []felt{selContractDeployed}, []felt{addr, deployer, {}, dappClassHash(v), feltU(1), {}, salt}})
	})
	g.b.deployed = append(g.b.deployed, deployedContract{addr, dappClassHash(v)})
}

// dappCall calls increase(amount) on a deployed dapp contract, which emits Increased.
func (g *gen) dappCall() {
	deployed := dappsBefore(g.b.number)
	if deployed == 0 {
		g.feeTokenTransfer()
		return
	}
	addr := g.w.addr(entity{kindDapp, uint32(g.rng.Uint64N(deployed))})
	by := feltU(1 + g.rng.Uint64N(1000))
	g.invoke(g.pickAccount(), []call{{addr, fnIncrease, []felt{by}}}, func(t *tx) {
		t.events = append(t.events, event{addr, []felt{selIncreased}, []felt{by}})
	})
}

func (g *gen) pickCairo1Account() int {
	for tries := 0; tries < 32; tries++ {
		if i := g.pickAccount(); g.w.isCairo1Account(i) {
			return i
		}
	}
	return accountRelayer
}

// ---- staking ----
//
// Staking events (modelled on starkware-libs/starknet-staking v1; u128 amounts are
// one felt each, addresses one felt):
//   staking NewStaker:                keys=[sel, staker]           data=[reward_address, operational_address, self_stake]
//   staking StakeBalanceChanged:      keys=[sel, staker]           data=[old_self_stake, old_delegated_stake, new_self_stake, new_delegated_stake]
//   staking NewDelegationPool:        keys=[sel, staker, pool]     data=[commission]
//   pool    NewPoolMember:            keys=[sel, member, staker]   data=[reward_address, amount]
//   pool    PoolMemberBalanceChanged: keys=[sel, member]           data=[old_delegated_stake, new_delegated_stake]
//   pool    PoolMemberRewardClaimed:  keys=[sel, member, reward]   data=[amount]
//   attestation StakerAttestationSuccessful: keys=[sel, staker]    data=[epoch]
// Each staker attests once per epoch, at a block of its own within it, and misses one
// epoch in attestMissEvery; the first member of each pool claims rewards every claimEvery
// blocks (the event only: the simulated pools pay no reward tokens).
// STRK moves with the fee-token Transfer: staker -> staking on stake/increase_stake,
// member -> pool -> staking on delegation.

// memberAccount is the account behind member slot j of pool s.
func (w *world) memberAccount(s int, j uint64) int {
	first := stakerBlock(s) + (j+1)*delegationPeriod(s)
	return int(mix64(w.seed^uint64(s)<<32^j^0x3e3b) % uint64(w.live(first)))
}

func (g *gen) staking() {
	n := g.b.number
	w := g.w
	staking := entity{kindFixed, fixedStaking}
	stakingAddr := w.addr(staking)
	strk := entity{kindFixed, fixedSTRK}
	for s := 0; s < numStakers; s++ {
		sb := stakerBlock(s)
		if n < sb {
			break
		}
		acct := stakerAccount(s)
		stakerAddr := w.account(acct)
		pool := entity{kindPool, uint32(s)}
		if n == sb {
			self := initialSelfStake(s)
			reward := w.account(acct + numStakers)
			operational := hash3(w.seed, uint64(s), 0x0e)
			commission := feltU(uint64(100 * (1 + s%10)))
			g.invoke(acct, []call{{stakingAddr, fnStake, []felt{reward, operational, self.felt(), feltU(1), commission}}}, func(t *tx) {
				g.legacyTransfer(t, strk, accountHolder(acct), holderOf(staking), self)
				t.events = append(t.events,
					event{stakingAddr, []felt{selNewStaker, stakerAddr}, []felt{reward, operational, self.felt()}},
					event{stakingAddr, []felt{selStakeBalance, stakerAddr}, []felt{{}, {}, self.felt(), {}}},
					event{stakingAddr, []felt{selNewPool, stakerAddr, w.addr(pool)}, []felt{commission}})
			})
			g.b.deployed = append(g.b.deployed, deployedContract{w.addr(pool), classHash(clsPool)})
			continue
		}
		period := delegationPeriod(s)
		if (n-sb)%period == 0 {
			k := (n - sb) / period // this is the k-th delegation (k >= 1)
			m := poolMembers(s)
			slot := (k - 1) % m
			member := w.memberAccount(s, slot)
			memberAddr := w.account(member)
			amount := delegationAmount(s)
			contributions := (k-1-slot)/m + 1
			oldMember, newMember := mulU(amount.lo, contributions-1), mulU(amount.lo, contributions)
			self := selfStakeAfter(s, n-1)
			oldDeleg, newDeleg := delegatedAfter(s, k-1), delegatedAfter(s, k)
			poolAddr := w.addr(pool)
			fn, data := fnAddToPool, []felt{memberAddr, amount.felt()}
			if k <= m {
				fn, data = fnEnterPool, []felt{memberAddr, amount.felt()}
			}
			g.invoke(member, []call{
				{w.addr(strk), fnApprove, []felt{poolAddr, amount.felt(), {}}},
				{poolAddr, fn, data},
			}, func(t *tx) {
				g.legacyTransfer(t, strk, accountHolder(member), holderOf(pool), amount)
				g.legacyTransfer(t, strk, holderOf(pool), holderOf(staking), amount)
				if hasBTCPool(s) {
					t.events = append(t.events, event{stakingAddr, []felt{selDelegatedBal, stakerAddr, w.addr(strk)}, []felt{oldDeleg.felt(), newDeleg.felt()}})
				} else {
					t.events = append(t.events, event{stakingAddr, []felt{selStakeBalance, stakerAddr}, []felt{self.felt(), oldDeleg.felt(), self.felt(), newDeleg.felt()}})
				}
				if k <= m {
					t.events = append(t.events, event{poolAddr, []felt{selNewPoolMember, memberAddr, stakerAddr}, []felt{memberAddr, amount.felt()}})
				}
				t.events = append(t.events, event{poolAddr, []felt{selPoolMemberChange, memberAddr}, []felt{oldMember.felt(), newMember.felt()}})
			})
		}
		if n%epochLength == uint64(s)%epochLength && mix64(w.seed^uint64(s)<<20^n/epochLength^0xa77e)%attestMissEvery != 0 {
			attestation := w.addr(entity{kindFixed, fixedAttestation})
			g.invoke(acct, []call{{attestation, fnAttest, []felt{hash3(w.seed, n, 0xa7)}}}, func(t *tx) {
				t.events = append(t.events, event{attestation, []felt{selAttested, stakerAddr}, []felt{feltU(n / epochLength)}})
			})
		}
		if period := delegationPeriod(s); n-sb > period && (n-sb)%claimEvery == claimEvery/2 {
			member := w.memberAccount(s, 0)
			memberAddr := w.account(member)
			poolAddr := w.addr(pool)
			reward := feltU(delegationAmount(s).lo / 200)
			g.invoke(member, []call{{poolAddr, fnClaimRewards, []felt{memberAddr}}}, func(t *tx) {
				t.events = append(t.events, event{poolAddr, []felt{selPoolMemberReward, memberAddr, memberAddr}, []felt{reward}})
			})
		}
		if (n-sb)%increaseEvery == 0 {
			deleg := delegatedAfter(s, delegationsUpTo(s, n))
			oldSelf, newSelf := selfStakeAfter(s, n-1), selfStakeAfter(s, n)
			amount := increaseAmount()
			g.invoke(acct, []call{{stakingAddr, fnIncreaseStake, []felt{stakerAddr, amount.felt()}}}, func(t *tx) {
				g.legacyTransfer(t, strk, accountHolder(acct), holderOf(staking), amount)
				if hasBTCPool(s) { // stakers with a BTC pool run on staking v2: one event per kind of stake
					t.events = append(t.events, event{stakingAddr, []felt{selStakeOwnBalance, stakerAddr}, []felt{oldSelf.felt(), newSelf.felt()}})
					return
				}
				t.events = append(t.events, event{stakingAddr, []felt{selStakeBalance, stakerAddr}, []felt{oldSelf.felt(), deleg.felt(), newSelf.felt(), deleg.felt()}})
			})
		}
	}
}

// ---- NFTs ----

// step is one event in the life of an NFT or an ERC-1155 lot.
type step struct {
	block    uint64
	from, to int // account indexes; -1 is the zero address
}

// lifecycle of token k of a collection: minted in block k*period to a live
// account, transferred up to three times within nftWindow blocks, maybe burned.
// It depends on the seed only, so it can be recomputed for any block.
func (w *world) lifecycle(kind uint8, c int, k uint64, period uint64) []step {
	r := rand.New(rand.NewPCG(mix64(w.seed^uint64(kind)<<56^uint64(c)<<40^k), 0x11fe))
	m := k * period
	owner := r.IntN(w.live(m))
	steps := []step{{m, -1, owner}}
	b := m
	for i, n := 0, r.IntN(4); i < n; i++ {
		b += 1 + r.Uint64N(nftWindow/4)
		to := r.IntN(w.live(b))
		if to == owner {
			to = (to + 1) % w.live(b)
		}
		steps = append(steps, step{b, owner, to})
		owner = to
	}
	if r.IntN(10) == 0 {
		b += 1 + r.Uint64N(nftWindow/4)
		steps = append(steps, step{b, owner, -1})
	}
	return steps
}

func (g *gen) holderOfIdx(i int) holder {
	if i < 0 {
		return zeroHolder
	}
	return accountHolder(i)
}

// itemStepsInBlock calls fn for each step of a collection's items (the k-th minted at
// block k*period) that falls in this block, among the items minted within nftWindow.
func (g *gen) itemStepsInBlock(kind uint8, c int, period uint64, fn func(k uint64, st step)) {
	n := g.b.number
	first := uint64(1)
	if n > nftWindow {
		first = (n - nftWindow + period - 1) / period
	}
	for k := max(first, 1); k*period <= n; k++ {
		for _, st := range g.w.lifecycle(kind, c, k, period) {
			if st.block == n {
				fn(k, st)
			}
		}
	}
}

func (g *gen) nftEvents(c int) {
	coll := entity{kindERC721, uint32(c)}
	collAddr := g.w.addr(coll)
	g.itemStepsInBlock(kindERC721, c, nftMintPeriod(c), func(k uint64, st step) {
		id := []felt{feltU(k), {}}
		var sender int
		var cl call
		switch {
		case st.from < 0:
			sender, cl = st.to, call{collAddr, fnMint, []felt{g.w.account(st.to)}}
		case st.to < 0:
			sender, cl = st.from, call{collAddr, fnBurn, id}
		default:
			sender, cl = st.from, call{collAddr, fnTransferFrom, []felt{g.w.account(st.from), g.w.account(st.to), id[0], id[1]}}
		}
		from, to := g.holderOfIdx(st.from), g.holderOfIdx(st.to)
		// Half the transfers (by a hash of the item and the block) are sales: the buyer pays the seller in ETH through the
		// marketplace, which keeps a fee of 2.5%.
		sale := st.from >= 0 && st.to >= 0 && mix64(g.w.seed^uint64(c)<<40^k<<8^st.block^0x5a1e)%2 == 0
		var price u128
		if sale {
			price = mulU(10_000_000_000_000_000, 1+mix64(k^uint64(c)<<32^0x9e1)%100) // 0.01 to 1 ETH
			sender, cl = st.to, call{g.w.addr(entity{kindFixed, fixedMarketplace}), fnFulfillOrder, []felt{collAddr, id[0], id[1], price.felt()}}
		}
		g.invoke(sender, []call{cl}, func(t *tx) {
			if sale {
				eth, market := entity{kindFixed, fixedETH}, holderOf(entity{kindFixed, fixedMarketplace})
				fee := u128{lo: price.lo / 40}
				g.legacyTransfer(t, eth, to, from, price.sub(fee))
				g.legacyTransfer(t, eth, to, market, fee)
			}
			t.events = append(t.events, event{collAddr, []felt{selTransfer, g.holderAddr(from), g.holderAddr(to), id[0], id[1]}, []felt{}})
			g.b.effects = append(g.b.effects, effect{kind: effERC721, token: coll, from: from, to: to, id: k, amount: u128{0, 1}})
		})
	})
}

func (g *gen) erc1155Events(c int) {
	coll := entity{kindERC1155, uint32(c)}
	collAddr := g.w.addr(coll)
	g.itemStepsInBlock(kindERC1155, c, erc1155MintPeriod(c), func(k uint64, st step) {
		tokenID := k % erc1155IDs
		value := 1 + mix64(k^uint64(c)<<32)%100
		id, val := []felt{feltU(tokenID), {}}, []felt{feltU(value), {}}
		var sender int
		var cl call
		switch {
		case st.from < 0:
			sender, cl = st.to, call{collAddr, fnMint, []felt{g.w.account(st.to), id[0], id[1], val[0], val[1]}}
		case st.to < 0:
			sender, cl = st.from, call{collAddr, fnBurn, []felt{g.w.account(st.from), id[0], id[1], val[0], val[1]}}
		default:
			sender, cl = st.from, call{collAddr, fnSafeTransfer, []felt{g.w.account(st.from), g.w.account(st.to), id[0], id[1], val[0], val[1], {}}}
		}
		from, to := g.holderOfIdx(st.from), g.holderOfIdx(st.to)
		operator := g.w.account(sender)
		g.invoke(sender, []call{cl}, func(t *tx) {
			t.events = append(t.events, event{collAddr, []felt{selTransferSingle, operator, g.holderAddr(from), g.holderAddr(to)}, []felt{id[0], id[1], val[0], val[1]}})
			g.b.effects = append(g.b.effects, effect{kind: effERC1155, token: coll, from: from, to: to, id: tokenID, amount: u128{0, value}})
		})
	})
}

// ---- ordinary traffic ----

func (g *gen) ordinary() {
	switch r := g.rng.IntN(100); {
	case r < 40:
		g.feeTokenTransfer()
	case r < 45:
		g.dappCall()
	case r < 70:
		g.erc20Transfer()
	case r < 85:
		g.multicall()
	case r < 93:
		g.metaTx()
	case r < 95:
		g.withdraw()
	default:
		g.reverted()
	}
}

func (g *gen) otherAccount(not int) int {
	r := g.pickAccount()
	if r == not {
		r = (r + 1) % g.w.live(g.b.number)
	}
	return r
}

func (g *gen) feeTokenTransfer() {
	s := g.pickAccount()
	r := g.otherAccount(s)
	token := entity{kindFixed, fixedETH}
	amount := mulU(1_000_000_000_000+g.rng.Uint64N(10_000_000_000_000_000), 1)
	if g.rng.IntN(2) == 0 {
		token = entity{kindFixed, fixedSTRK}
		amount = mulU(1+g.rng.Uint64N(1000), strkUnit/100)
	}
	g.invoke(s, []call{{g.w.addr(token), fnTransfer, []felt{g.w.account(r), amount.felt(), {}}}}, func(t *tx) {
		g.legacyTransfer(t, token, accountHolder(s), accountHolder(r), amount)
	})
}

// erc20Transfer moves an OZ token between two of its holders; popular tokens
// (low index) are traded more.
func (g *gen) erc20Transfer() {
	t := int(float64(numERC20) * g.rng.Float64() * g.rng.Float64() * g.rng.Float64())
	live := g.w.live(g.b.number)
	var who [2]int
	for i := range who {
		found := false
		for tries := 0; tries < 200; tries++ {
			a := g.rng.IntN(live)
			if g.w.holdsERC20(t, a) && (i == 0 || a != who[0]) {
				who[i], found = a, true
				break
			}
		}
		if !found {
			g.feeTokenTransfer()
			return
		}
	}
	token := entity{kindERC20, uint32(t)}
	amount := mulU(1+g.rng.Uint64N(1_000_000), 1_000_000_000)
	g.invoke(who[0], []call{{g.w.addr(token), fnTransfer, []felt{g.w.account(who[1]), amount.felt(), {}}}}, func(tx *tx) {
		g.ozTransfer(tx, token, accountHolder(who[0]), accountHolder(who[1]), amount)
	})
}

// multicall: approve STRK to a spender, and send ETH and STRK in one transaction.
func (g *gen) multicall() {
	s := g.pickAccount()
	spender, r := g.otherAccount(s), g.otherAccount(s)
	eth, strk := entity{kindFixed, fixedETH}, entity{kindFixed, fixedSTRK}
	a1 := mulU(1+g.rng.Uint64N(1000), 1_000_000_000_000)
	a2 := mulU(1+g.rng.Uint64N(1000), strkUnit/1000)
	allowance := mulU(1+g.rng.Uint64N(100), strkUnit)
	calls := []call{
		{g.w.addr(strk), fnApprove, []felt{g.w.account(spender), allowance.felt(), {}}},
		{g.w.addr(eth), fnTransfer, []felt{g.w.account(r), a1.felt(), {}}},
		{g.w.addr(strk), fnTransfer, []felt{g.w.account(r), a2.felt(), {}}},
	}
	g.invoke(s, calls, func(t *tx) {
		t.events = append(t.events, event{g.w.addr(strk), []felt{selApproval}, []felt{g.w.account(s), g.w.account(spender), allowance.felt(), {}}})
		g.legacyTransfer(t, eth, accountHolder(s), accountHolder(r), a1)
		g.legacyTransfer(t, strk, accountHolder(s), accountHolder(r), a2)
	})
}

// metaTx is a SNIP-9 v2 outside execution: the relayer's transaction calls the
// user's execute_from_outside_v2(OutsideExecution{caller, nonce, execute_after,
// execute_before, calls}, signature); the user's STRK moves, the relayer pays the fee.
func (g *gen) metaTx() {
	user := g.pickCairo1Account()
	if user == accountRelayer {
		g.feeTokenTransfer()
		return
	}
	r := g.otherAccount(user)
	strk := entity{kindFixed, fixedSTRK}
	amount := mulU(1+g.rng.Uint64N(1000), strkUnit/100)
	inner := []call{{g.w.addr(strk), fnTransfer, []felt{g.w.account(r), amount.felt(), {}}}}
	caller := g.w.account(accountRelayer)
	if g.rng.IntN(3) == 0 {
		caller = anyCaller
	}
	data := []felt{caller, g.randFelt(), feltU(g.b.timestamp - 300), feltU(g.b.timestamp + 3600)}
	data = append(data, cairo1Calldata(inner)...)
	data = append(data, feltU(2), g.randFelt(), g.randFelt())
	g.invoke(accountRelayer, []call{{g.w.account(user), fnOutsideV2, data}}, func(t *tx) {
		g.legacyTransfer(t, strk, accountHolder(user), accountHolder(r), amount)
	})
}

// withdraw: an account calls initiate_withdraw on a bridge, which burns the
// tokens and sends a message to its L1 bridge (payload as StarkGate's:
// TRANSFER_FROM_STARKNET = 0, l1_recipient, amount low, amount high).
func (g *gen) withdraw() {
	s := g.pickAccount()
	bridge, token, l1, amount := entity{kindFixed, fixedETHBridge}, entity{kindFixed, fixedETH}, l1BridgeETH, mulU(1+g.rng.Uint64N(1000), 1_000_000_000_000_000)
	if g.rng.IntN(2) == 0 {
		bridge, token, l1, amount = entity{kindFixed, fixedSTRKBridge}, entity{kindFixed, fixedSTRK}, l1BridgeSTRK, mulU(1+g.rng.Uint64N(1000), strkUnit)
	}
	bridgeAddr := g.w.addr(bridge)
	recipient := hash3(g.w.seed, uint64(s), 0xe1)
	recipient = felt{0, recipient[1] & 0xffffffff, recipient[2], recipient[3]} // a 160-bit L1 address
	g.invoke(s, []call{{bridgeAddr, fnInitiateWithdraw, []felt{recipient, amount.felt(), {}}}}, func(t *tx) {
		g.legacyTransfer(t, token, accountHolder(s), zeroHolder, amount)
		t.events = append(t.events, event{bridgeAddr, []felt{selWithdrawInitiated}, []felt{recipient, amount.felt(), {}, g.w.account(s)}})
		t.messages = append(t.messages, message{bridgeAddr, l1, []felt{{}, recipient, amount.felt(), {}}})
	})
}

func (g *gen) reverted() {
	s := g.pickAccount()
	r := g.otherAccount(s)
	eth := entity{kindFixed, fixedETH}
	sender := g.w.account(s)
	huge := u128{1 << 40, 0}
	t := g.invoke(s, []call{{g.w.addr(eth), fnTransfer, []felt{g.w.account(r), huge.felt(), {}}}}, nil)
	t.reverted = true
	t.revertReason = fmt.Sprintf("Error in the called contract (%s):\nError at pc=0:4573:\nExecution failed. Failure reason: 0x753235365f737562204f766572666c6f77 ('u256_sub Overflow').\n", sender.padded())
}

// padded renders 0x + 64 hex digits, as revert reasons show addresses.
func (f felt) padded() string {
	b := make([]byte, 0, 66)
	b = append(b, '0', 'x')
	for _, w := range f {
		for s := 60; s >= 0; s -= 4 {
			b = append(b, hexDigits[(w>>uint(s))&0xf])
		}
	}
	return string(b)
}
