package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// The staking history: stake and delegators over time (the network's, or a validator's),
// the staking activity of a wallet and of a validator, and attestations.

// stakingScope reads the optional validator `address` of a series: nil for the network,
// 404 when no validator has that address.
func (s *server) stakingScope(ctx context.Context, a *args) (db.Felt, error) {
	if !a.has("address") {
		return nil, nil
	}
	if _, err := s.validatorParam(ctx, a, "address"); err != nil {
		return nil, err
	}
	return a.felt("address"), nil
}

func (s *server) stakingDays(ctx context.Context, a *args) ([]*db.StakingDay, error) {
	scope, err := s.stakingScope(ctx, a)
	if err != nil {
		return nil, err
	}
	r := timeRangeValues[a.str("timerange")]
	return s.res.Query().StakingHistory(ctx, &r, scope)
}

func stakeOverTimeNetworkOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	days, err := s.stakingDays(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make([]stakePoint, 0, len(days))
	for _, d := range days {
		out = append(out, stakePointOf(&d.StakePoint))
	}
	return out, nil
}

// delegatorsPoint is an element of GET /beta/staking/delegators-over-time.
type delegatorsPoint struct {
	Date                  string `json:"date"`
	TotalDelegators       int    `json:"totalDelegators"`
	TotalDelegatorsChange int    `json:"totalDelegatorsChange"`
}

func delegatorsOverTimeOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	days, err := s.stakingDays(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make([]delegatorsPoint, 0, len(days))
	for _, d := range days {
		out = append(out, delegatorsPoint{Date: d.Date, TotalDelegators: d.Delegators, TotalDelegatorsChange: d.DelegatorsChange})
	}
	return out, nil
}

// stakingActivityItem is an item of GET /beta/staking/wallet-info/activity and
// /staking/validator-details/activity.
type stakingActivityItem struct {
	Operation       string     `json:"operation" enum:"stake,increase_stake,unstake_intent,unstake_action,claim_rewards,set_open_for_delegation,update_commission,enter_delegation_pool,add_to_delegation_pool,exit_delegation_pool_intent,exit_delegation_pool_action,switch_delegation_pool"`
	Address         string     `json:"address"`   // who acted: the staker, or the pool member
	Validator       string     `json:"validator"` // the staker address
	PoolContract    *string    `json:"poolContract"`
	TokenAddress    *string    `json:"tokenAddress"`
	TokenInfo       *tokenInfo `json:"tokenInfo"`
	Amount          *string    `json:"amount"` // in the token's smallest unit
	TransactionHash string     `json:"transactionHash"`
	BlockNumber     int64      `json:"blockNumber"`
	Timestamp       int64      `json:"timestamp"`
}

// stakingActivity answers an activity list: a page of the log narrowed by the shared
// parameters, for filter's wallet or validator.
func (s *server) stakingActivity(ctx context.Context, a *args, filter *model.StakingActivityFilter) (any, error) {
	if op := a.str("operation"); op != "" {
		t := model.StakingOperationType(strings.ToUpper(op))
		filter.Operation = &t
	}
	filter.FromTimestamp, filter.ToTimestamp, filter.TransactionHash = a.int("start"), a.int("end"), a.hash("search")
	order := a.direction("sort")
	pg := pageOf(a)
	conn, err := s.res.Query().StakingActivity(ctx, &pg.first, pg.after, filter, &order)
	if err != nil {
		return nil, asParam(err, "fromTimestamp", "start") // a start after the end
	}
	// The page's tokens in one statement; then each item reads its own.
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.StakingActivityEdge) *db.StakingOperation { return e.Node },
		resolvers.LoadStakingOperationTokens, func(ctx context.Context, o *db.StakingOperation) (out stakingActivityItem, err error) {
			out = stakingActivityItem{Operation: o.Operation, Address: addr(o.WalletAddress), Validator: addr(o.StakerAddress),
				PoolContract: addrOrNil(o.PoolAddress), TokenAddress: addrOrNil(o.TokenAddress), Amount: o.Amount,
				TransactionHash: o.TransactionHash.Hex(), BlockNumber: o.BlockNumber, Timestamp: o.Timestamp}
			out.TokenInfo, err = s.tokenInfo(ctx, o.TokenAddress)
			return out, err
		})
}

func walletStakingActivityOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	return s.stakingActivity(ctx, a, &model.StakingActivityFilter{Wallet: a.felt("address"), Validator: a.felt("destination")})
}

func validatorActivityOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	if _, err := s.validatorParam(ctx, a, "address"); err != nil {
		return nil, err
	}
	return s.stakingActivity(ctx, a, &model.StakingActivityFilter{Validator: a.felt("address"), Pool: a.felt("validator")})
}

// attestationItem is an item of GET /beta/staking/attestations.
type attestationItem struct {
	Validator       string `json:"validator"`
	Epoch           int64  `json:"epoch"`
	TransactionHash string `json:"transactionHash"`
	BlockNumber     int64  `json:"blockNumber"`
	Timestamp       int64  `json:"timestamp"`
}

func attestationsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	validator := a.felt("validator")
	if validator != nil {
		if _, err := s.validatorParam(ctx, a, "validator"); err != nil {
			return nil, err
		}
	}
	pg := pageOf(a)
	conn, err := s.res.Query().Attestations(ctx, &pg.first, pg.after, validator)
	if err != nil {
		return nil, err
	}
	return pageRows(pg, conn.Edges, conn.TotalCount, func(e *model.AttestationEdge) attestationItem {
		at := e.Node
		return attestationItem{Validator: addr(at.StakerAddress), Epoch: at.Epoch, TransactionHash: at.TransactionHash.Hex(),
			BlockNumber: at.BlockNumber, Timestamp: at.Timestamp}
	}), nil
}
