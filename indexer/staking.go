package indexer

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Staking events, with the layouts of the Starknet staking contract (and the simulator):
//
//	NewStaker                keys [sel, staker]        data [reward, operational, self_stake]
//	StakeBalanceChanged      keys [sel, staker]        data [old_self, old_delegated, new_self, new_delegated]
//	NewDelegationPool        keys [sel, staker, pool]  data [commission_bps]
//	  (v2)                   keys [sel, staker, pool, token] data [commission_bps]
//	StakeOwnBalanceChanged (v2)       keys [sel, staker]        data [old_self, new_self]
//	StakeDelegatedBalanceChanged (v2) keys [sel, staker, token] data [old_delegated, new_delegated]
//	NewPoolMember (pool)     keys [sel, member, staker] data [reward, amount]
//	PoolMemberBalanceChanged (pool) keys [sel, member] data [old_amount, new_amount]
//
// Pool events count only when they come from a pool the staking contract announced.
var (
	selNewStaker           = starknet.Selector("NewStaker")
	selStakeBalanceChanged = starknet.Selector("StakeBalanceChanged")
	selNewDelegationPool   = starknet.Selector("NewDelegationPool")
	selNewPoolMember       = starknet.Selector("NewPoolMember")
	selPoolMemberChanged   = starknet.Selector("PoolMemberBalanceChanged")
	selStakeOwnChanged     = starknet.Selector("StakeOwnBalanceChanged")
	selStakeDelegChanged   = starknet.Selector("StakeDelegatedBalanceChanged")
)

// strkToken is the token delegation pools hold (STRK on mainnet and Sepolia).
var strkToken = starknet.MustFelt("0x4718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d")

// newPoolToken is the token of the pool a NewDelegationPool event opens: v1 pools hold
// STRK; v2 names the token in the last key.
func newPoolToken(keys []starknet.Felt) starknet.Felt {
	if len(keys) == 4 {
		return keys[3]
	}
	return strkToken
}

type stakePointKey struct {
	wallet, token starknet.Felt
	day           string
}

// staking holds the staking rows a batch touches.
type staking struct {
	validators  map[starknet.Felt]*db.ValidatorRow
	pools       map[starknet.Felt]*db.Pool
	delegations map[[2]starknet.Felt]*db.DelegationRow
	points      map[stakePointKey]*db.StakePointRow

	dirtyValidators  map[starknet.Felt]bool
	dirtyPools       map[starknet.Felt]bool
	dirtyDelegations map[[2]starknet.Felt]bool
	dirtyPoints      map[stakePointKey]bool

	// The staking contract, as the emitter of the staker events, and when it last spoke.
	contract     *starknet.Felt
	lastChangeTs int64

	// The history's end-of-day rows the batch writes, and the network's totals as the
	// batch's events move them (read before the first).
	days    map[dayKey]*db.ValidatorDayRow
	network stakeTotals
}

func newStaking() *staking {
	return &staking{
		validators: map[starknet.Felt]*db.ValidatorRow{}, pools: map[starknet.Felt]*db.Pool{},
		delegations: map[[2]starknet.Felt]*db.DelegationRow{}, points: map[stakePointKey]*db.StakePointRow{},
		dirtyValidators: map[starknet.Felt]bool{}, dirtyPools: map[starknet.Felt]bool{},
		dirtyDelegations: map[[2]starknet.Felt]bool{}, dirtyPoints: map[stakePointKey]bool{},
		days: map[dayKey]*db.ValidatorDayRow{}, network: totalsOf(nil),
	}
}

func dayOf(ts int64) string { return time.Unix(ts, 0).UTC().Format("2006-01-02") }

// preloadStaking reads the staking rows the batch's events may change.
func (w *batchWriter) preloadStaking(ctx context.Context, batch []*blockData) error {
	s := w.staking
	var stakers, pools, dPools, dMembers, pWallets, pTokens []db.Felt
	var pDays []string
	// Stake points are kept per token, which is known once the pools are: from the batch's
	// own NewDelegationPool events, or from the pools table.
	type pointOf struct {
		pool, wallet starknet.Felt
		day          string
	}
	var points []pointOf
	poolToken := map[starknet.Felt]starknet.Felt{}
	seen := map[string]bool{}
	once := func(k string) bool {
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, bd := range batch {
		day := dayOf(int64(bd.Block.Timestamp))
		for _, t := range bd.Block.Transactions {
			for _, e := range t.Receipt.Events {
				if len(e.Keys) < 2 {
					continue
				}
				switch {
				case stakerEvent(e.Keys[0]):
					if once("v" + string(e.Keys[1][:])) {
						stakers = append(stakers, db.FeltOf(e.Keys[1]))
					}
					if e.Keys[0] == selNewDelegationPool && len(e.Keys) >= 3 {
						if once("p" + string(e.Keys[2][:])) {
							pools = append(pools, db.FeltOf(e.Keys[2]))
						}
						poolToken[e.Keys[2]] = newPoolToken(e.Keys)
					}
				case poolEvent(e.Keys[0]):
					if once("p" + string(e.FromAddress[:])) {
						pools = append(pools, db.FeltOf(e.FromAddress))
					}
					if once("d" + string(e.FromAddress[:]) + string(e.Keys[1][:])) {
						dPools, dMembers = append(dPools, db.FeltOf(e.FromAddress)), append(dMembers, db.FeltOf(e.Keys[1]))
					}
					if once("pt" + string(e.FromAddress[:]) + string(e.Keys[1][:]) + day) {
						points = append(points, pointOf{e.FromAddress, e.Keys[1], day})
					}
				}
			}
		}
	}
	if len(stakers)+len(pools) == 0 {
		return nil
	}
	totals, err := db.LoadStakingTotals(ctx, w.tx)
	if err != nil {
		return fmt.Errorf("load staking totals: %w", err)
	}
	s.network = stakeTotals{bigOf(totals.StakeSTRK), bigOf(totals.StakeBTC), totals.Delegators}
	vs, err := db.LoadValidators(ctx, w.tx, stakers)
	if err != nil {
		return fmt.Errorf("load validators: %w", err)
	}
	for i := range vs {
		s.validators[vs[i].Staker.Starknet()] = &vs[i]
	}
	ps, err := db.LoadPools(ctx, w.tx, pools)
	if err != nil {
		return fmt.Errorf("load pools: %w", err)
	}
	var poolStakers []db.Felt
	for i := range ps {
		s.pools[ps[i].Address.Starknet()] = &ps[i]
		poolStakers = append(poolStakers, ps[i].StakerAddress)
	}
	// Pool events change their staker's delegator count.
	more, err := db.LoadValidators(ctx, w.tx, poolStakers)
	if err != nil {
		return fmt.Errorf("load validators: %w", err)
	}
	for i := range more {
		if s.validators[more[i].Staker.Starknet()] == nil {
			s.validators[more[i].Staker.Starknet()] = &more[i]
		}
	}
	for _, pt := range points {
		token := strkToken
		if t, ok := poolToken[pt.pool]; ok {
			token = t
		} else if p := s.pools[pt.pool]; p != nil {
			token = p.TokenAddress.Starknet()
		}
		if once("s" + string(pt.wallet[:]) + string(token[:]) + pt.day) {
			pWallets, pTokens, pDays = append(pWallets, db.FeltOf(pt.wallet)), append(pTokens, db.FeltOf(token)), append(pDays, pt.day)
		}
	}
	ds, err := db.LoadDelegations(ctx, w.tx, dPools, dMembers)
	if err != nil {
		return fmt.Errorf("load delegations: %w", err)
	}
	for i := range ds {
		s.delegations[[2]starknet.Felt{ds[i].Pool.Starknet(), ds[i].Delegator.Starknet()}] = &ds[i]
	}
	pts, err := db.LoadStakePoints(ctx, w.tx, pWallets, pTokens, pDays)
	if err != nil {
		return fmt.Errorf("load stake points: %w", err)
	}
	for i := range pts {
		s.points[stakePointKey{pts[i].Wallet.Starknet(), pts[i].Token.Starknet(), pts[i].Day}] = &pts[i]
	}
	return nil
}

func bigOf(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

// applyStakingEvent updates staking rows for one event.
func (w *batchWriter) applyStakingEvent(num, ts int64, e *rpc.Event) {
	s := w.staking
	if len(e.Keys) < 2 {
		return
	}
	switch e.Keys[0] {
	case selNewStaker:
		if len(e.Keys) != 2 || len(e.Data) != 3 {
			return
		}
		from := e.FromAddress
		s.contract, s.lastChangeTs = &from, ts
		staker := e.Keys[1]
		v := s.validators[staker]
		if v == nil {
			block, at := num, ts
			v = &db.ValidatorRow{Staker: db.FeltOf(staker), DelegatedStakeSTRK: "0", DelegatedStakeBTC: "0", State: "active", StartTime: &at, CreatedBlock: &block}
			s.validators[staker] = v
			w.counts["validators"]++
		}
		v.RewardAddress, v.OperationalAddress, v.SelfStake = db.FeltOf(e.Data[0]), db.FeltOf(e.Data[1]), dec(e.Data[2])
		s.dirtyValidators[staker] = true
	case selStakeBalanceChanged:
		v := s.validators[e.Keys[1]]
		if v == nil || len(e.Keys) != 2 || len(e.Data) != 4 {
			return
		}
		from := e.FromAddress
		s.contract, s.lastChangeTs = &from, ts
		v.SelfStake, v.DelegatedStakeSTRK = dec(e.Data[2]), dec(e.Data[3])
		s.dirtyValidators[e.Keys[1]] = true
	case selStakeOwnChanged:
		v := s.validators[e.Keys[1]]
		if v == nil || len(e.Keys) != 2 || len(e.Data) != 2 {
			return
		}
		from := e.FromAddress
		s.contract, s.lastChangeTs = &from, ts
		v.SelfStake = dec(e.Data[1])
		s.dirtyValidators[e.Keys[1]] = true
	case selStakeDelegChanged:
		v := s.validators[e.Keys[1]]
		if v == nil || len(e.Keys) != 3 || len(e.Data) != 2 {
			return
		}
		from := e.FromAddress
		s.contract, s.lastChangeTs = &from, ts
		if e.Keys[2] == strkToken {
			v.DelegatedStakeSTRK = dec(e.Data[1])
		} else {
			v.DelegatedStakeBTC = dec(e.Data[1])
		}
		s.dirtyValidators[e.Keys[1]] = true
	case selNewDelegationPool:
		v := s.validators[e.Keys[1]]
		if v == nil || (len(e.Keys) != 3 && len(e.Keys) != 4) || len(e.Data) < 1 {
			return
		}
		if bps, ok := e.Data[0].Uint64(); ok && bps <= 10000 {
			v.RevenueShareBps = int64(bps)
		}
		s.dirtyValidators[e.Keys[1]] = true
		pool := e.Keys[2]
		if s.pools[pool] == nil {
			block := num
			s.pools[pool] = &db.Pool{Address: db.FeltOf(pool), StakerAddress: db.FeltOf(e.Keys[1]), TokenAddress: db.FeltOf(newPoolToken(e.Keys)), TotalDelegated: "0", CreatedBlock: &block}
			w.counts["pools"]++
		}
		s.dirtyPools[pool] = true
	case selStakerExitIntent:
		v := s.validators[e.Keys[1]]
		if v == nil || len(e.Keys) != 2 || len(e.Data) < 1 {
			return
		}
		at := ts
		v.State, v.UnstakeTime = "unstaking", &at
		if exit, ok := e.Data[0].Uint64(); ok && exit < 1<<62 {
			withdrawal := int64(exit)
			v.WithdrawalTime = &withdrawal
		}
		s.dirtyValidators[e.Keys[1]] = true
	case selDeleteStaker:
		if v := s.validators[e.Keys[1]]; v != nil && len(e.Keys) == 2 {
			v.State = "withdrawn"
			s.dirtyValidators[e.Keys[1]] = true
		}
	case selNewPoolMember:
		p := s.pools[e.FromAddress]
		if p == nil || len(e.Keys) != 3 || len(e.Data) != 2 {
			return
		}
		k := [2]starknet.Felt{e.FromAddress, e.Keys[1]}
		if s.delegations[k] == nil {
			at := ts
			s.delegations[k] = &db.DelegationRow{Pool: p.Address, Delegator: db.FeltOf(e.Keys[1]), Amount: "0", ActivatedAt: &at, Status: "active"}
			p.DelegatorCount++
			s.dirtyPools[e.FromAddress] = true
			if v := s.validators[p.StakerAddress.Starknet()]; v != nil {
				v.TotalDelegators++
				s.dirtyValidators[p.StakerAddress.Starknet()] = true
			}
			w.counts["delegators"]++
		}
		s.delegations[k].RewardAddress = db.FeltOf(e.Data[0])
		s.dirtyDelegations[k] = true
	case selPoolMemberChanged:
		p := s.pools[e.FromAddress]
		if p == nil || len(e.Keys) != 2 || len(e.Data) != 2 {
			return
		}
		k := [2]starknet.Felt{e.FromAddress, e.Keys[1]}
		d := s.delegations[k]
		if d == nil {
			return
		}
		// The change is taken against the stored amount, not the event's old amount, so
		// that the pool's total stays the sum of its members whatever the events say.
		next := e.Data[1].Big()
		change := new(big.Int).Sub(next, bigOf(d.Amount))
		at := ts
		d.Amount, d.LastDelegationAt = next.String(), &at
		s.dirtyDelegations[k] = true
		p.TotalDelegated = new(big.Int).Add(bigOf(p.TotalDelegated), change).String()
		s.dirtyPools[e.FromAddress] = true
		pk := stakePointKey{e.Keys[1], p.TokenAddress.Starknet(), dayOf(ts)}
		pt := s.points[pk]
		if pt == nil {
			pt = &db.StakePointRow{Wallet: db.FeltOf(pk.wallet), Token: p.TokenAddress, Day: pk.day, Change: "0"}
			s.points[pk] = pt
		}
		pt.Change = new(big.Int).Add(bigOf(pt.Change), change).String()
		pt.Total, pt.BlockNumber = next.String(), num
		s.dirtyPoints[pk] = true
	}
}

// journalStaking queues the staking rows the batch changes for the journal.
func (w *batchWriter) journalStaking() {
	s := w.staking
	var vs, ps, dp, dm, pw, pt []db.Felt
	var pd []string
	for k := range s.dirtyValidators {
		vs = append(vs, db.FeltOf(k))
	}
	for k := range s.dirtyPools {
		ps = append(ps, db.FeltOf(k))
	}
	for k := range s.dirtyDelegations {
		dp, dm = append(dp, db.FeltOf(k[0])), append(dm, db.FeltOf(k[1]))
	}
	for k := range s.dirtyPoints {
		pw, pt, pd = append(pw, db.FeltOf(k.wallet)), append(pt, db.FeltOf(k.token)), append(pd, k.day)
	}
	w.journalFelts("validators", vs)
	w.journalFelts("pools", ps)
	if len(dp) > 0 {
		w.journalAdd("delegations", db.ByteaKeys(dp), db.ByteaKeys(dm))
	}
	if len(pw) > 0 {
		w.journalAdd("stake_points", db.ByteaKeys(pw), db.ByteaKeys(pt), stringArray(pd))
	}
	if len(s.days) > 0 {
		var stakers []db.Felt
		var days []string
		for _, d := range s.days {
			stakers, days = append(stakers, d.Staker), append(days, d.Day)
		}
		w.journalAdd("validator_days", db.ByteaKeys(stakers), stringArray(days))
	}
	if s.contract != nil {
		w.journalAdd("staking_overview", stringArray([]string{"1"}))
	}
}

// flushStaking writes the changed staking rows, parents first.
func (w *batchWriter) flushStaking(ctx context.Context) error {
	s := w.staking
	vs := make([]db.ValidatorRow, 0, len(s.dirtyValidators))
	for k := range s.dirtyValidators {
		vs = append(vs, *s.validators[k])
	}
	if err := db.UpsertValidators(ctx, w.tx, vs); err != nil {
		return err
	}
	ps := make([]db.Pool, 0, len(s.dirtyPools))
	for k := range s.dirtyPools {
		ps = append(ps, *s.pools[k])
	}
	if err := db.UpsertPools(ctx, w.tx, ps); err != nil {
		return err
	}
	ds := make([]db.DelegationRow, 0, len(s.dirtyDelegations))
	for k := range s.dirtyDelegations {
		ds = append(ds, *s.delegations[k])
	}
	if err := db.UpsertDelegations(ctx, w.tx, ds); err != nil {
		return err
	}
	pts := make([]db.StakePointRow, 0, len(s.dirtyPoints))
	for k := range s.dirtyPoints {
		pts = append(pts, *s.points[k])
	}
	if err := db.UpsertStakePoints(ctx, w.tx, pts); err != nil {
		return err
	}
	days := make([]db.ValidatorDayRow, 0, len(s.days))
	for _, d := range s.days {
		days = append(days, *d)
	}
	if err := db.UpsertValidatorDays(ctx, w.tx, days); err != nil {
		return err
	}
	if s.contract != nil {
		return db.SetStakingContract(ctx, w.tx, db.FeltOf(*s.contract), db.FeltOf(strkToken), s.lastChangeTs*1000)
	}
	return nil
}
