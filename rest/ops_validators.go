package rest

import (
	"context"
	"net/http"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// validatorOf reads the `validator` parameter's validator (404 for none) and the staking
// overview the validator's figures are read against.
func (s *server) validatorOf(ctx context.Context, a *args) (*db.Validator, *db.StakingOverview, error) {
	v, err := s.validatorParam(ctx, a, "validator")
	if err != nil {
		return nil, nil, err
	}
	ov, err := s.res.Query().StakingOverview(ctx)
	return v, ov, err
}

// validatorParam reads the validator a parameter names (404 naming the parameter when no
// validator has that address).
func (s *server) validatorParam(ctx context.Context, a *args, name string) (*db.Validator, error) {
	address := a.felt(name)
	v, err := s.res.Query().Validator(ctx, address)
	return found(v, err, "%s: no validator %s", name, address.Padded())
}

// validatorDetailsOp answers GET /beta/staking/validator-details: the validator as a row of
// GET /staking/validators.
func validatorDetailsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	v, ov, err := s.validatorOf(ctx, a)
	if err != nil {
		return nil, err
	}
	return s.validatorRowInfo(ctx, v, ov)
}

// validatorPoolsBody is the answer of GET /beta/staking/validator-pool-info.
type validatorPoolsBody struct {
	Validator    string          `json:"validator"`
	RevenueShare float64         `json:"revenueShare"` // the commission, in basis points
	Pools        []validatorPool `json:"pools"`
}

type validatorPool struct {
	PoolContract   string     `json:"poolContract"`
	TokenAddress   string     `json:"tokenAddress"`
	TokenInfo      *tokenInfo `json:"tokenInfo"`
	Asset          string     `json:"asset" enum:"strk,btc"`
	TotalDelegated string     `json:"totalDelegated"`
	DelegatorCount int        `json:"delegatorCount"`
	Apr            *float64   `json:"apr"` // the delegators' APR after commission, in basis points
}

func validatorPoolInfoOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	v, ov, err := s.validatorOf(ctx, a)
	if err != nil {
		return nil, err
	}
	// The pools and their tokens, read together; the APRs share one row of economics.
	if err := resolvers.LoadValidatorHeaders(ctx, []*db.Validator{v}); err != nil {
		return nil, err
	}
	pools, err := s.res.Validator().Pools(ctx, v)
	if err != nil {
		return nil, err
	}
	out := validatorPoolsBody{Validator: addr(v.StakerAddress), RevenueShare: bps(v.RevenueShare()), Pools: []validatorPool{}}
	for _, p := range pools {
		info, err := s.tokenInfo(ctx, p.TokenAddress)
		if err != nil {
			return nil, err
		}
		apr, err := s.res.Pool().Apr(ctx, p)
		if err != nil {
			return nil, err
		}
		item := validatorPool{PoolContract: addr(p.Address), TokenAddress: addr(p.TokenAddress), TokenInfo: info,
			Asset: assetOf(p.TokenAddress, ov), TotalDelegated: p.TotalDelegated, DelegatorCount: p.DelegatorCount}
		if apr != nil {
			item.Apr = ptr(bps(*apr))
		}
		out.Pools = append(out.Pools, item)
	}
	return out, nil
}

// assetOf names a pool's asset: strk for the STRK token the overview names, btc otherwise.
func assetOf(token db.Felt, ov *db.StakingOverview) string {
	if ov != nil && token.Equal(ov.StrkTokenAddress) {
		return "strk"
	}
	return "btc"
}

// delegatorItem is an item of GET /beta/staking/delegators.
type delegatorItem struct {
	DelegatorAddress string  `json:"delegatorAddress"`
	RewardAddress    *string `json:"rewardAddress"`
	PoolContract     string  `json:"poolContract"`
	TokenAddress     string  `json:"tokenAddress"`
	Asset            string  `json:"asset" enum:"strk,btc"`
	Amount           string  `json:"amount"`
	RewardsClaimed   string  `json:"rewardsClaimed"`
	RewardsUnclaimed string  `json:"rewardsUnclaimed"`
	UnpoolAmount     string  `json:"unpoolAmount"`
	UnpoolTime       *int64  `json:"unpoolTime"`
	ActivatedAt      *int64  `json:"activatedAt"`
	LastDelegationAt *int64  `json:"lastDelegationAt"`
	Status           string  `json:"status" enum:"active,exited,deleted"`
}

var stakingAssets = map[string]model.StakingAsset{"strk": model.StakingAssetStrk, "btc": model.StakingAssetBtc}

func delegatorsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	v, ov, err := s.validatorOf(ctx, a)
	if err != nil {
		return nil, err
	}
	var asset *model.StakingAsset
	if as, ok := stakingAssets[a.str("asset")]; ok {
		asset = &as
	}
	pg := pageOf(a)
	conn, err := s.res.Validator().Delegations(ctx, v, &pg.first, pg.after, asset, a.felt("delegator"))
	if err != nil {
		return nil, err
	}
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.DelegationEdge) *db.Delegation { return e.Node },
		resolvers.LoadDelegationPools, func(ctx context.Context, d *db.Delegation) (delegatorItem, error) {
			p, err := s.res.Delegation().Pool(ctx, d)
			if err != nil {
				return delegatorItem{}, err
			}
			return delegatorItem{
				DelegatorAddress: addr(d.DelegatorAddress), RewardAddress: addrOrNil(d.RewardAddress), PoolContract: addr(d.PoolAddress),
				TokenAddress: addr(p.TokenAddress), Asset: assetOf(p.TokenAddress, ov), Amount: d.Amount,
				RewardsClaimed: d.RewardsClaimed, RewardsUnclaimed: d.RewardsUnclaimed, UnpoolAmount: d.UnpoolAmount,
				UnpoolTime: d.UnpoolTime, ActivatedAt: d.ActivatedAt, LastDelegationAt: d.LastDelegationAt,
				Status: delegationStatus[d.Status],
			}, nil
		})
}
