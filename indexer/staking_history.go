package indexer

import (
	"math/big"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// The staking history: the operations log (staking_activity), attestations, and the
// stake and delegators of each validator and of the network at the end of each UTC day
// (validator_days). Event layouts, v1 and v2 of starkware-libs/starknet-staking:
//
//	staking     StakerExitIntent          keys [sel, staker]              data [exit_ts, amount] (v2: [exit_ts])
//	staking     DeleteStaker              keys [sel, staker]              data [reward, operational, pools...]
//	staking     StakerRewardClaimed       keys [sel, staker]              data [reward_address, amount]
//	staking     CommissionChanged         keys [sel, staker, pool] (v2: [sel, staker]) data [new, old]
//	pool        PoolMemberExitIntent      keys [sel, member]              data [exit_ts, amount]
//	pool        PoolMemberExitAction      keys [sel, member]              data [unpool_amount]
//	pool        PoolMemberRewardClaimed   keys [sel, member, reward_address] data [amount]
//	pool        SwitchDelegationPool      keys [sel, member, new_pool]    data [amount]
//	attestation StakerAttestationSuccessful keys [sel, staker]            data [epoch]
//
// with the events of staking.go. Pool events count only from pools the staking contract
// announced, staker events only for stakers it announced.
var (
	selStakerExitIntent     = starknet.Selector("StakerExitIntent")
	selDeleteStaker         = starknet.Selector("DeleteStaker")
	selStakerRewardClaimed  = starknet.Selector("StakerRewardClaimed")
	selCommissionChanged    = starknet.Selector("CommissionChanged")
	selPoolMemberExitIntent = starknet.Selector("PoolMemberExitIntent")
	selPoolMemberExitAction = starknet.Selector("PoolMemberExitAction")
	selPoolMemberRewardPaid = starknet.Selector("PoolMemberRewardClaimed")
	selSwitchDelegationPool = starknet.Selector("SwitchDelegationPool")
	selAttestation          = starknet.Selector("StakerAttestationSuccessful")
)

// stakerEvent and poolEvent say who an event is about: keys[1] is a staker, or the event
// comes from a pool.
func stakerEvent(sel starknet.Felt) bool {
	switch sel {
	case selNewStaker, selStakeBalanceChanged, selNewDelegationPool, selStakeOwnChanged, selStakeDelegChanged,
		selStakerExitIntent, selDeleteStaker, selStakerRewardClaimed, selCommissionChanged, selAttestation:
		return true
	}
	return false
}

func poolEvent(sel starknet.Felt) bool {
	switch sel {
	case selNewPoolMember, selPoolMemberChanged, selPoolMemberExitIntent, selPoolMemberExitAction,
		selPoolMemberRewardPaid, selSwitchDelegationPool:
		return true
	}
	return false
}

// stakeTotals are what the series over time follow: own plus delegated STRK, delegated
// BTC tokens, and delegators.
type stakeTotals struct {
	strk, btc  *big.Int
	delegators int64
}

func totalsOf(v *db.ValidatorRow) stakeTotals {
	if v == nil {
		return stakeTotals{new(big.Int), new(big.Int), 0}
	}
	strk := new(big.Int).Add(bigOf(v.SelfStake), bigOf(v.DelegatedStakeSTRK))
	return stakeTotals{strk, bigOf(v.DelegatedStakeBTC), v.TotalDelegators}
}

func (t stakeTotals) equal(o stakeTotals) bool {
	return t.strk.Cmp(o.strk) == 0 && t.btc.Cmp(o.btc) == 0 && t.delegators == o.delegators
}

// dayKey is a validator_days row; the zero staker is the network.
type dayKey struct {
	staker starknet.Felt
	day    string
}

// stakingEvent applies one event of a transaction to the staking rows and records what it
// adds to the history.
func (w *batchWriter) stakingEvent(num, ts int64, txIndex, eventIndex int, txHash starknet.Felt, e *rpc.Event) {
	// Every event passes here: the others leave before anything is computed.
	if len(e.Keys) < 2 || !stakerEvent(e.Keys[0]) && !poolEvent(e.Keys[0]) {
		return
	}
	s := w.staking
	staker, known := s.stakerOf(e)
	before := totalsOf(s.validators[staker])
	w.applyStakingEvent(num, ts, e)
	if !known {
		staker, known = s.stakerOf(e) // NewStaker and NewDelegationPool announce what they are about
	}
	if !known {
		return
	}
	if e.Keys[0] == selAttestation {
		w.attest(num, ts, txIndex, eventIndex, txHash, staker, e)
		return
	}
	if op, ok := s.operationOf(staker, e); ok {
		op.BlockNumber, op.TxIndex, op.EventIndex = num, txIndex, eventIndex
		op.TransactionHash, op.Timestamp = db.FeltOf(txHash), ts
		w.rows.StakingActivity = append(w.rows.StakingActivity, op)
		w.counts["staking_activity"]++
	}
	if after := totalsOf(s.validators[staker]); !after.equal(before) {
		day := dayOf(ts)
		s.network.strk.Add(s.network.strk, new(big.Int).Sub(after.strk, before.strk))
		s.network.btc.Add(s.network.btc, new(big.Int).Sub(after.btc, before.btc))
		s.network.delegators += after.delegators - before.delegators
		s.noteDay(dayKey{staker, day}, after, num)
		s.noteDay(dayKey{starknet.Felt{}, day}, s.network, num)
	}
}

// stakerOf is the validator an event is about, when the staking contract announced it.
func (s *staking) stakerOf(e *rpc.Event) (starknet.Felt, bool) {
	switch {
	case stakerEvent(e.Keys[0]):
		return e.Keys[1], s.validators[e.Keys[1]] != nil
	case poolEvent(e.Keys[0]):
		if p := s.pools[e.FromAddress]; p != nil {
			return p.StakerAddress.Starknet(), true
		}
	}
	return starknet.Felt{}, false
}

func (s *staking) noteDay(k dayKey, t stakeTotals, block int64) {
	staker := db.NetworkScope
	if k.staker != (starknet.Felt{}) {
		staker = db.FeltOf(k.staker)
	}
	s.days[k] = &db.ValidatorDayRow{Staker: staker, Day: k.day, StakeSTRK: t.strk.String(), StakeBTC: t.btc.String(),
		Delegators: t.delegators, BlockNumber: block}
}

// operationOf reads the staking operation an event records, if it records one. Balance
// events that accompany another operation (the first stake, entering a pool, an exit) are
// not operations of their own.
func (s *staking) operationOf(staker starknet.Felt, e *rpc.Event) (db.StakingOperation, bool) {
	k, d := e.Keys, e.Data
	op := db.StakingOperation{WalletAddress: db.FeltOf(staker), StakerAddress: db.FeltOf(staker), TokenAddress: db.FeltOf(strkToken)}
	amount := func(f starknet.Felt) *string { a := f.Big().String(); return &a }
	difference := func(old, next starknet.Felt) *string {
		a := new(big.Int).Sub(next.Big(), old.Big()).String()
		return &a
	}
	grew := func(old, next starknet.Felt) bool { return !old.IsZero() && next.Big().Cmp(old.Big()) > 0 }
	switch k[0] {
	case selNewStaker:
		if len(d) != 3 {
			return op, false
		}
		op.Operation, op.Amount = "stake", amount(d[2])
	case selStakeBalanceChanged, selStakeOwnChanged:
		old, next := 0, 2
		if k[0] == selStakeOwnChanged {
			next = 1
		}
		if len(d) <= next || !grew(d[old], d[next]) {
			return op, false
		}
		op.Operation, op.Amount = "increase_stake", difference(d[old], d[next])
	case selStakerExitIntent:
		op.Operation = "unstake_intent"
		if len(d) >= 2 {
			op.Amount = amount(d[1])
		}
	case selDeleteStaker:
		op.Operation = "unstake_action"
	case selStakerRewardClaimed:
		if len(d) != 2 {
			return op, false
		}
		op.Operation, op.Amount = "claim_rewards", amount(d[1])
	case selNewDelegationPool:
		if len(k) < 3 {
			return op, false
		}
		op.Operation, op.PoolAddress, op.TokenAddress = "set_open_for_delegation", db.FeltOf(k[2]), db.FeltOf(newPoolToken(k))
	case selCommissionChanged:
		op.Operation, op.TokenAddress = "update_commission", nil
		if len(k) == 3 {
			op.PoolAddress = db.FeltOf(k[2])
		}
	default:
		p := s.pools[e.FromAddress]
		if p == nil || !poolEvent(k[0]) {
			return op, false
		}
		op.WalletAddress, op.PoolAddress, op.TokenAddress = db.FeltOf(k[1]), p.Address, p.TokenAddress
		switch {
		case k[0] == selNewPoolMember && len(d) == 2:
			op.Operation, op.Amount = "enter_delegation_pool", amount(d[1])
		case k[0] == selPoolMemberChanged && len(d) == 2 && grew(d[0], d[1]):
			op.Operation, op.Amount = "add_to_delegation_pool", difference(d[0], d[1])
		case k[0] == selPoolMemberExitIntent && len(d) == 2:
			op.Operation, op.Amount = "exit_delegation_pool_intent", amount(d[1])
		case k[0] == selPoolMemberExitAction && len(d) == 1:
			op.Operation, op.Amount = "exit_delegation_pool_action", amount(d[0])
		case k[0] == selPoolMemberRewardPaid && len(d) >= 1:
			op.Operation, op.Amount = "claim_rewards", amount(d[len(d)-1])
		case k[0] == selSwitchDelegationPool && len(k) == 3 && len(d) == 1:
			op.Operation, op.Amount = "switch_delegation_pool", amount(d[0])
		default:
			return op, false
		}
	}
	return op, true
}

// attest records an attestation and the validator's liveness: epochs attested, and
// epochs from its first attested one to its last.
func (w *batchWriter) attest(num, ts int64, txIndex, eventIndex int, txHash, staker starknet.Felt, e *rpc.Event) {
	if len(e.Keys) != 2 || len(e.Data) != 1 {
		return
	}
	epoch, ok := e.Data[0].Uint64()
	if !ok || epoch > 1<<62 {
		return
	}
	w.rows.Attestations = append(w.rows.Attestations, db.Attestation{BlockNumber: num, TxIndex: txIndex, EventIndex: eventIndex,
		StakerAddress: db.FeltOf(staker), Epoch: int64(epoch), TransactionHash: db.FeltOf(txHash), Timestamp: ts})
	w.counts["attestations"]++
	v := w.staking.validators[staker]
	switch last := v.LivenessLastEpoch; {
	case last == nil:
		v.LivenessAttestedEpochs, v.LivenessTotalEpochs = 1, 1
	case int64(epoch) > *last:
		v.LivenessAttestedEpochs++
		v.LivenessTotalEpochs += int64(epoch) - *last
	default:
		return // an epoch already counted
	}
	at := int64(epoch)
	v.LivenessLastEpoch = &at
	w.staking.dirtyValidators[staker] = true
}
