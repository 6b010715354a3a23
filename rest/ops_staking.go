package rest

import (
	"context"
	"math"
	"math/big"
	"net/http"
	"strconv"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/graph/model"
	"github.com/starkgraph/starkgraph/resolvers"
)

// tokenInfo describes a staking token (STRK, a BTC wrapper).
type tokenInfo struct {
	TokenAddress string   `json:"tokenAddress"`
	Price        *float64 `json:"price"`
	Decimals     *int     `json:"decimals"`
	LogoURL      *string  `json:"logoUrl"`
	Name         *string  `json:"name"`
	Symbol       *string  `json:"symbol"`
}

// stakingOverviewBody is the answer of GET /beta/staking/overview.
type stakingOverviewBody struct {
	Overview    stakingOverview `json:"overview"`
	LastUpdated int64           `json:"lastUpdated"`
}

type stakingOverview struct {
	TokenInfoStrk           *tokenInfo `json:"tokenInfoStrk"`
	TokenInfoBtc            *tokenInfo `json:"tokenInfoBtc"`
	TotalSupply             string     `json:"totalSupply"`
	TotalValidators         int        `json:"totalValidators"`
	TotalDelegators         int        `json:"totalDelegators"`
	MaxAPRStrk              float64    `json:"maxAPRStrk"`
	MaxAPRBtc               float64    `json:"maxAPRBtc"`
	MintingCurve            float64    `json:"mintingCurve"`
	SecurityLockup          int64      `json:"securityLockup"`
	MinimumStake            string     `json:"minimumStake"`
	AverageCommission       float64    `json:"averageCommission"`
	TotalStakeStrk          string     `json:"totalStakeStrk"`
	TotalStakeBtc           string     `json:"totalStakeBtc"`
	TotalPendingUnstakeBtc  string     `json:"totalPendingUnstakeBtc"`
	TotalPendingUnstakeStrk string     `json:"totalPendingUnstakeStrk"`
	EpochData               *epochData `json:"epochData"`
}

type epochData struct {
	ID                    int64   `json:"id"`
	NextID                int64   `json:"nextId"`
	Progress              float64 `json:"progress"`
	EstimatedEndTimestamp float64 `json:"estimatedEndTimestamp"`
	DurationSeconds       float64 `json:"durationSeconds"`
}

func (s *server) tokenInfo(ctx context.Context, address db.Felt) (*tokenInfo, error) {
	if address == nil {
		return nil, nil
	}
	t, err := s.res.Query().Token(ctx, address)
	if err != nil || t == nil {
		return nil, err
	}
	return &tokenInfo{TokenAddress: addr(t.Address), Price: t.UsdPrice, Decimals: t.Decimals, LogoURL: t.LogoURL, Name: t.Name, Symbol: t.Symbol}, nil
}

func stakingOverviewOp(ctx context.Context, s *server, _ *args, _ *http.Request) (any, error) {
	ov, err := s.res.Query().StakingOverview(ctx)
	if err != nil {
		return nil, err
	}
	// The reference gives rates in basis points (maxAPRStrk 668 for 6.68%, mintingCurve 160
	// for c = 1.6%); GraphQL gives percent.
	out := stakingOverview{
		TotalSupply: ov.TotalSupply, TotalValidators: ov.TotalValidators, TotalDelegators: ov.TotalDelegators,
		SecurityLockup: ov.SecurityLockupSeconds, MinimumStake: ov.MinimumStake,
		AverageCommission: bps(ov.AverageCommission), TotalStakeStrk: ov.TotalStakeStrk, TotalStakeBtc: ov.TotalStakeBtc,
		TotalPendingUnstakeBtc: ov.TotalPendingUnstakeBtc, TotalPendingUnstakeStrk: ov.TotalPendingUnstakeStrk,
	}
	if ov.MintingCDenom > 0 {
		out.MintingCurve = math.Round(ov.MintingCurve / float64(ov.MintingCDenom) * 10000)
	}
	if ov.MaxAprStrk != nil {
		out.MaxAPRStrk = bps(*ov.MaxAprStrk)
	}
	sr := s.res.StakingOverview()
	if btcAPR, err := sr.MaxAprBtc(ctx, ov); err != nil {
		return nil, err
	} else if btcAPR != nil {
		out.MaxAPRBtc = bps(*btcAPR)
	}
	if out.TokenInfoStrk, err = s.tokenInfo(ctx, ov.StrkTokenAddress); err != nil {
		return nil, err
	}
	if out.TokenInfoBtc, err = s.tokenInfo(ctx, ov.BtcTokenAddress); err != nil {
		return nil, err
	}
	if ov.EpochLengthBlocks > 0 {
		start, err := sr.EpochStartTime(ctx, ov)
		if err != nil {
			return nil, err
		}
		duration, err := sr.EpochDurationSeconds(ctx, ov)
		if err != nil {
			return nil, err
		}
		if start > 0 && duration > 0 && ov.HeadBlock != nil {
			// Progress in blocks: the epoch ends after its length, however long blocks take.
			progress := min(max(float64(*ov.HeadBlock-ov.EpochStartingBlock+1)/float64(ov.EpochLengthBlocks)*100, 0), 100)
			out.EpochData = &epochData{
				ID: ov.EpochID, NextID: ov.EpochID + 1, Progress: math.Round(progress*100) / 100,
				EstimatedEndTimestamp: float64(start) + duration, DurationSeconds: duration,
			}
		}
	}
	return stakingOverviewBody{Overview: out, LastUpdated: ov.LastUpdated}, nil
}

// walletStakingBody is the answer of GET /beta/staking/wallet-info.
type walletStakingBody struct {
	Overview walletStakingOverview `json:"overview"`
	Staked   []stakedPosition      `json:"staked"`
}

type walletStakingOverview struct {
	TotalStakedStrk           string `json:"totalStakedStrk"`
	TotalStakedBtc            string `json:"totalStakedBtc"`
	TotalRewardsClaimedStrk   string `json:"totalRewardsClaimedStrk"`
	TotalRewardsClaimedBtc    string `json:"totalRewardsClaimedBtc"`
	TotalRewardsUnclaimedStrk string `json:"totalRewardsUnclaimedStrk"`
	TotalRewardsUnclaimedBtc  string `json:"totalRewardsUnclaimedBtc"`
}

type stakedPosition struct {
	TokenAddress          string            `json:"tokenAddress"`
	PoolContract          string            `json:"poolContract"`
	Amount                string            `json:"amount"`
	WithdrawalTime        *int64            `json:"withdrawalTime"`
	UnpoolTime            *int64            `json:"unpoolTime"`
	FormattedTotalAmount  string            `json:"formattedTotalAmount"`
	RewardAddress         string            `json:"rewardAddress"`
	RewardsClaimed        string            `json:"rewardsClaimed"`
	RewardsUnclaimed      string            `json:"rewardsUnclaimed"`
	DelegationActivatedAt int64             `json:"delegationActivatedAt"`
	LastDelegationAt      int64             `json:"lastDelegationAt"`
	Status                string            `json:"status" enum:"active,exited,deleted"`
	ValidatorRowInfo      *validatorRowInfo `json:"validatorRowInfo"`
}

type validatorRowInfo struct {
	Address                   string     `json:"address"`
	Name                      *string    `json:"name"`
	ImgSrc                    *string    `json:"imgSrc"`
	IsVerified                bool       `json:"isVerified"`
	StakerState               string     `json:"stakerState" enum:"active,deleted,exited"`
	TotalStakeStrk            string     `json:"totalStakeStrk"`
	TotalStakeBtc             string     `json:"totalStakeBtc"`
	TotalStakePercentageStrk  float64    `json:"totalStakePercentageStrk"`
	TotalStakePercentageBtc   float64    `json:"totalStakePercentageBtc"`
	TotalSelfStake            string     `json:"totalSelfStake"`
	TotalDelegatedStakeStrk   string     `json:"totalDelegatedStakeStrk"`
	TotalDelegatedStakeBtc    string     `json:"totalDelegatedStakeBtc"`
	TotalDelegators           int        `json:"totalDelegators"`
	RevenueShare              float64    `json:"revenueShare"`
	AprStrk                   float64    `json:"aprStrk"`
	AprBtc                    float64    `json:"aprBtc"`
	Rank                      string     `json:"rank"`
	WithdrawalTime            *int64     `json:"withdrawalTime"`
	UnstakingTime             *int64     `json:"unstakingTime"`
	StartTime                 int64      `json:"startTime"`
	StakerAddress             string     `json:"stakerAddress"`
	Liveness                  *float64   `json:"liveness"`
	LivenessAttestedEpochs    *int       `json:"livenessAttestedEpochs"`
	LivenessTotalEpochs       *int       `json:"livenessTotalEpochs"`
	LivenessLastEpoch         *int64     `json:"livenessLastEpoch"`
	Liveness90d               *float64   `json:"liveness90d"`
	LivenessAttestedEpochs90d *int       `json:"livenessAttestedEpochs90d"`
	LivenessTotalEpochs90d    *int       `json:"livenessTotalEpochs90d"`
	LivenessLastEpoch90d      *int64     `json:"livenessLastEpoch90d"`
	PoolInfos                 []poolInfo `json:"poolInfos"`
	StakingPowerStrk          *float64   `json:"stakingPowerStrk"`
	StakingPowerBtc           *float64   `json:"stakingPowerBtc"`
	StakingPower              *float64   `json:"stakingPower"`
}

type poolInfo struct {
	TokenAddress  string     `json:"tokenAddress"`
	PoolContract  string     `json:"poolContract"`
	TokenInfo     *tokenInfo `json:"tokenInfo"`
	RewardAddress *string    `json:"rewardAddress"`
}

// Our state names mapped to the reference's.
var (
	delegationStatus = map[string]string{"active": "active", "exiting": "exited", "exited": "exited"}
	stakerStates     = map[string]string{"active": "active", "unstaking": "exited", "withdrawn": "deleted"}
)

func walletInfoOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	wallet, err := s.res.Query().Wallet(ctx, a.felt("address"))
	if err != nil {
		return nil, err
	}
	st, err := s.res.Wallet().Staking(ctx, wallet)
	if err != nil {
		return nil, err
	}
	out := walletStakingBody{Staked: []stakedPosition{}}
	if st == nil {
		zero := "0"
		out.Overview = walletStakingOverview{zero, zero, zero, zero, zero, zero}
		return out, nil
	}
	out.Overview = walletStakingOverview{
		TotalStakedStrk: st.TotalStakedStrk, TotalStakedBtc: st.TotalStakedBtc,
		TotalRewardsClaimedStrk: st.TotalRewardsClaimedStrk, TotalRewardsClaimedBtc: st.TotalRewardsClaimedBtc,
		TotalRewardsUnclaimedStrk: st.TotalRewardsUnclaimedStrk, TotalRewardsUnclaimedBtc: st.TotalRewardsUnclaimedBtc,
	}
	overview, err := s.res.Query().StakingOverview(ctx)
	if err != nil {
		return nil, err
	}
	out.Staked, err = loadedItems(ctx, st.Positions, self, resolvers.LoadStakedPositions,
		func(ctx context.Context, d *db.Delegation) (stakedPosition, error) {
			return s.stakedPosition(ctx, d, overview)
		})
	return out, err
}

func (s *server) stakedPosition(ctx context.Context, d *db.Delegation, ov *db.StakingOverview) (stakedPosition, error) {
	out := stakedPosition{
		PoolContract: addr(d.PoolAddress), Amount: d.Amount, WithdrawalTime: d.WithdrawalTime, UnpoolTime: d.UnpoolTime,
		RewardsClaimed: d.RewardsClaimed, RewardsUnclaimed: d.RewardsUnclaimed, Status: delegationStatus[d.Status],
	}
	if out.Status == "" {
		out.Status = "active"
	}
	if d.RewardAddress != nil {
		out.RewardAddress = addr(d.RewardAddress)
	}
	if d.ActivatedAt != nil {
		out.DelegationActivatedAt = *d.ActivatedAt
	}
	if d.LastDelegationAt != nil {
		out.LastDelegationAt = *d.LastDelegationAt
	}
	pool, err := s.res.Delegation().Pool(ctx, d)
	if err != nil || pool == nil {
		return out, err
	}
	out.TokenAddress = addr(pool.TokenAddress)
	decimals := 18
	if info, err := s.tokenInfo(ctx, pool.TokenAddress); err != nil {
		return out, err
	} else if info != nil && info.Decimals != nil {
		decimals = *info.Decimals
	}
	out.FormattedTotalAmount = formatUnits(d.Amount, decimals)
	v, err := s.res.Pool().Validator(ctx, pool)
	if err != nil || v == nil {
		return out, err
	}
	out.ValidatorRowInfo, err = s.validatorRowInfo(ctx, v, ov)
	return out, err
}

func (s *server) validatorRowInfo(ctx context.Context, v *db.Validator, ov *db.StakingOverview) (*validatorRowInfo, error) {
	vr := s.res.Validator()
	out := &validatorRowInfo{
		Address: addr(v.StakerAddress), Name: v.Name, ImgSrc: v.ImgSrc, IsVerified: v.IsVerified, StakerState: stakerStates[v.StakerState],
		TotalStakeStrk: v.TotalStakeStrk(), TotalStakeBtc: v.TotalStakeBtc(), TotalSelfStake: v.SelfStake,
		TotalDelegatedStakeStrk: v.DelegatedStakeStrk, TotalDelegatedStakeBtc: v.DelegatedStakeBtc,
		TotalDelegators: v.TotalDelegators, RevenueShare: v.RevenueShare(),
		WithdrawalTime: v.WithdrawalTime, UnstakingTime: v.UnstakeTime, StakerAddress: addr(v.StakerAddress),
		LivenessAttestedEpochs: ptr(v.LivenessAttestedEpochs), LivenessTotalEpochs: ptr(v.LivenessTotalEpochs),
		LivenessLastEpoch: v.LivenessLastEpoch, PoolInfos: []poolInfo{},
	}
	if out.StakerState == "" {
		out.StakerState = "active"
	}
	rank, err := vr.Rank(ctx, v)
	if err != nil {
		return nil, err
	}
	out.Rank = strconv.Itoa(rank)
	if apr, err := vr.Apr(ctx, v); err != nil {
		return nil, err
	} else if apr != nil {
		out.AprStrk = bps(*apr)
	}
	if v.StartTime != nil {
		out.StartTime = *v.StartTime
	}
	if v.LivenessTotalEpochs > 0 {
		out.Liveness = ptr(float64(v.LivenessAttestedEpochs) / float64(v.LivenessTotalEpochs) * 100)
	}
	if ov != nil {
		out.TotalStakePercentageStrk = percentOf(out.TotalStakeStrk, ov.TotalStakeStrk)
		out.TotalStakePercentageBtc = percentOf(out.TotalStakeBtc, ov.TotalStakeBtc)
		out.StakingPowerStrk, out.StakingPowerBtc = ptr(out.TotalStakePercentageStrk), ptr(out.TotalStakePercentageBtc)
		// The two shares weighted as rewards are (db.ValidatorOrders' staking_power).
		out.StakingPower = ptr((1-ov.BtcShare)*out.TotalStakePercentageStrk + ov.BtcShare*out.TotalStakePercentageBtc)
	}
	pools, err := vr.Pools(ctx, v)
	if err != nil {
		return nil, err
	}
	for _, p := range pools {
		info, err := s.tokenInfo(ctx, p.TokenAddress)
		if err != nil {
			return nil, err
		}
		if ov != nil && !p.TokenAddress.Equal(ov.StrkTokenAddress) {
			if apr, err := s.res.Pool().Apr(ctx, p); err != nil {
				return nil, err
			} else if apr != nil {
				out.AprBtc = bps(*apr) // the delegators' APR of its BTC pool
			}
		}
		out.PoolInfos = append(out.PoolInfos, poolInfo{TokenAddress: addr(p.TokenAddress), PoolContract: addr(p.Address), TokenInfo: info, RewardAddress: addrOrNil(v.RewardAddress)})
	}
	return out, nil
}

// percentOf is part/whole*100 for decimal strings, 0 when whole is 0.
func percentOf(part, whole string) float64 {
	p, ok1 := new(big.Float).SetString(part)
	w, ok2 := new(big.Float).SetString(whole)
	if !ok1 || !ok2 || w.Sign() == 0 {
		return 0
	}
	f, _ := new(big.Float).Quo(new(big.Float).Mul(p, big.NewFloat(100)), w).Float64()
	return f
}

// stakePoint is an element of GET /beta/staking/wallet-info/stake-over-time.
type stakePoint struct {
	Date                 string `json:"date"`
	TotalStakeChangeStrk string `json:"totalStakeChangeStrk"`
	TotalStakeChangeBtc  string `json:"totalStakeChangeBtc"`
	TotalStakeStrk       string `json:"totalStakeStrk"`
	TotalStakeBtc        string `json:"totalStakeBtc"`
}

// timeRanges maps `timerange` to the GraphQL enum.
var timeRangeValues = map[string]model.TimeRange{
	"1w": model.TimeRangeOneWeek, "1m": model.TimeRangeOneMonth, "3m": model.TimeRangeThreeMonths,
	"6m": model.TimeRangeSixMonths, "1y": model.TimeRangeOneYear, "max": model.TimeRangeMax,
}

func stakeOverTimeOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	wallet, err := s.res.Query().Wallet(ctx, a.felt("address"))
	if err != nil {
		return nil, err
	}
	r := timeRangeValues[a.str("timerange")]
	points, err := s.res.Wallet().StakeOverTime(ctx, wallet, &r)
	if err != nil {
		return nil, err
	}
	out := make([]stakePoint, 0, len(points))
	for _, p := range points {
		out = append(out, stakePointOf(p))
	}
	return out, nil
}

func stakePointOf(p *db.StakePoint) stakePoint {
	return stakePoint{Date: p.Date, TotalStakeChangeStrk: p.TotalStakeChangeStrk, TotalStakeChangeBtc: p.TotalStakeChangeBtc,
		TotalStakeStrk: p.TotalStakeStrk, TotalStakeBtc: p.TotalStakeBtc}
}

// bps turns a rate in percent into the reference's basis points.
func bps(percent float64) float64 { return math.Round(percent * 100) }

// validatorSorts maps listValidators' sortBy (enums arrive lower-cased) to the store's
// orders (db.ValidatorOrders).
var validatorSorts = map[string]string{
	"rank": "rank", "apr": "apr", "stake": "stake", "stakestrk": "stake", "stakebtc": "stake_btc",
	"delegators": "delegators", "commission": "commission",
	"stakingpower": "staking_power", "liveness": "liveness", "liveness90d": "liveness_90d",
}

// listValidatorsOp answers GET /beta/staking/validators: validators as ValidatorRowInfo, a
// page at a time.
func listValidatorsOp(ctx context.Context, s *server, a *args, _ *http.Request) (any, error) {
	pg := pageOf(a)
	order, ok := validatorSorts[a.str("sortBy")]
	if !ok {
		return nil, badRequest("sortBy: unknown sort key %q", a.str("sortBy"))
	}
	conn, err := s.res.ValidatorsOrdered(ctx, &pg.first, pg.after, order, a.direction("sortOrder") == model.SortDirectionAsc, a.str("search"))
	if err != nil {
		return nil, err
	}
	ov, err := s.res.Query().StakingOverview(ctx)
	if err != nil {
		return nil, err
	}
	// The page's pools and their tokens in one statement each; then each row reads them.
	return pageLoaded(ctx, pg, conn.Edges, conn.TotalCount, func(e *model.ValidatorEdge) *db.Validator { return e.Node },
		resolvers.LoadValidatorHeaders, func(ctx context.Context, v *db.Validator) (validatorRowInfo, error) {
			row, err := s.validatorRowInfo(ctx, v, ov)
			if err != nil {
				return validatorRowInfo{}, err
			}
			return *row, nil
		})
}
