// Package analytics computes holders-analytics snapshots of verified ERC-20 tokens from the
// indexed balances: supply, concentration, tiers and the Gini coefficient of the largest
// holders. The APIs serve the newest snapshot (Token.holdersOverview,
// GET /beta/tokens/{address}/holders/overview).
package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/starkgraph/starkgraph/db"
)

// giniHolders is how many of the largest holders the Gini coefficient covers.
const giniHolders = 10_000

// burnAddresses hold supply that can never move again: it counts as burned, not held.
var burnAddresses = []db.Felt{db.MustFelt("0x0"), db.MustFelt("0xdead")}

// tiers split holders by their share of the circulating supply, largest first.
var tiers = []struct {
	name     string
	minShare float64 // fraction of circulating supply
}{
	{"whale", 0.01},
	{"shark", 0.001},
	{"dolphin", 0.0001},
	{"fish", 0.00001},
	{"shrimp", 0},
}

// Run keeps snapshots fresh: every interval it recomputes the snapshot of each verified
// ERC-20 token (the tokens the label lists verify, docs/names.md), until ctx ends.
func Run(ctx context.Context, conn *sqlx.DB, interval time.Duration, log *slog.Logger) {
	// The first pass comes soon after start, once the indexer has written its first blocks.
	next := time.NewTimer(min(interval, 10*time.Second))
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-next.C:
		}
		if err := RefreshAll(ctx, conn, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("holders analytics", "err", err)
		}
		next.Reset(interval)
	}
}

// RefreshAll snapshots every verified ERC-20 token. Tokens take their verified flag from
// the labels (db.ApplyLabels, and a trigger when their row is made).
func RefreshAll(ctx context.Context, conn *sqlx.DB, now time.Time) error {
	var tokens []db.Felt
	if err := conn.SelectContext(ctx, &tokens, `SELECT address FROM tokens WHERE verified AND standard = 'erc20'`); err != nil {
		return fmt.Errorf("list verified tokens: %w", err)
	}
	for _, token := range tokens {
		if err := Snapshot(ctx, conn, token, now); err != nil {
			return fmt.Errorf("token %s: %w", token.Padded(), err)
		}
	}
	// Only the newest snapshot is served; a week of history is kept for looking back.
	_, err := conn.ExecContext(ctx, `DELETE FROM holders_snapshots WHERE computed_at < $1`, now.Add(-keepSnapshots))
	return err
}

// keepSnapshots is how long old snapshots are kept.
const keepSnapshots = 7 * 24 * time.Hour

// Snapshot computes the holders overview of one token as of now and stores it.
func Snapshot(ctx context.Context, conn *sqlx.DB, token db.Felt, now time.Time) error {
	var supply struct {
		Total  *string `db:"total_supply"`
		Held   string  `db:"held"`
		Burned string  `db:"burned"`
	}
	burn := pq.ByteaArray{burnAddresses[0], burnAddresses[1]}
	err := conn.GetContext(ctx, &supply, `SELECT t.total_supply::text,
		(SELECT coalesce(sum(balance), 0)::text FROM erc20_balances WHERE token_address = $1 AND balance > 0 AND owner_address <> ALL($2)) AS held,
		(SELECT coalesce(sum(balance), 0)::text FROM erc20_balances WHERE token_address = $1 AND owner_address = ANY($2)) AS burned
		FROM tokens t WHERE t.address = $1`, token, burn)
	if err != nil {
		return err
	}
	held, burned := decimal(supply.Held), decimal(supply.Burned)
	total := new(big.Int).Add(held, burned)
	if supply.Total != nil {
		total = decimal(*supply.Total)
	}
	circulating := new(big.Int).Sub(total, burned)
	if circulating.Sign() <= 0 {
		circulating = held
	}

	// The largest holders, for concentration and the Gini coefficient.
	var top []string
	if err := conn.SelectContext(ctx, &top, `SELECT balance::text FROM erc20_balances
		WHERE token_address = $1 AND balance > 0 AND owner_address <> ALL($2)
		ORDER BY balance DESC, owner_address DESC LIMIT $3`, token, burn, giniHolders); err != nil {
		return err
	}
	largest := make([]float64, len(top))
	for i, b := range top {
		largest[i], _ = new(big.Float).SetInt(decimal(b)).Float64()
	}
	circ, _ := new(big.Float).SetInt(circulating).Float64()

	// Holders per tier, over all holders: one scan with a count and a sum per threshold.
	var tierRows []struct {
		Tier  int     `db:"tier"`
		Count int64   `db:"count"`
		Share float64 `db:"share"`
	}
	thresholds := make([]float64, len(tiers))
	for i, t := range tiers {
		thresholds[i] = t.minShare * circ
	}
	if err := conn.SelectContext(ctx, &tierRows, `SELECT tier, count(*) AS count,
			coalesce(sum(balance::float8) / nullif($3::float8, 0), 0) AS share
		FROM (SELECT balance, (SELECT min(i) FROM unnest($4::float8[]) WITH ORDINALITY AS th(v, i) WHERE balance::float8 >= th.v) AS tier
			FROM erc20_balances WHERE token_address = $1 AND balance > 0 AND owner_address <> ALL($2)) b
		GROUP BY tier ORDER BY tier`, token, burn, circ, pq.Float64Array(thresholds)); err != nil {
		return err
	}
	var holderCount, over1Pct int64
	tierJSON := make([]map[string]any, len(tiers))
	for i, t := range tiers {
		tierJSON[i] = map[string]any{"tier": t.name, "count": 0, "supplyShare": 0.0}
	}
	for _, r := range tierRows {
		if r.Tier < 1 || r.Tier > len(tiers) {
			continue
		}
		tierJSON[r.Tier-1]["count"] = r.Count
		tierJSON[r.Tier-1]["supplyShare"] = round(r.Share * 100)
		holderCount += r.Count
		if r.Tier == 1 {
			over1Pct = r.Count
		}
	}

	share := func(from, to int) float64 { return round(sumRange(largest, from, to) / nonZero(circ) * 100) }
	topN := map[string]float64{"top5": share(0, 5), "top10": share(0, 10), "top100": share(0, 100)}
	outside := 100 - share(0, 100)
	if outside < 0 {
		outside = 0
	}
	buckets := map[string]float64{
		"top_1_5": share(0, 5), "top_6_10": share(5, 10), "top_11_25": share(10, 25),
		"top_26_50": share(25, 50), "top_51_100": share(50, 100), "outside_100": round(outside),
	}

	depth, err := walletDepth(ctx, conn, token, burn)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `INSERT INTO holders_snapshots (token_address, computed_at, total_supply,
			burned_supply, circulating_supply, holder_count, holders_over_1pct, top_n_concentration,
			concentration_buckets, tier_distribution, wallet_depth_usd, gini_top_10k, token_usd_price)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12, $11, t.usd_price FROM tokens t WHERE t.address = $1
		ON CONFLICT (token_address, computed_at) DO NOTHING`,
		token, now.UTC(), total.String(), burned.String(), circulating.String(), holderCount, over1Pct,
		mustJSON(topN), mustJSON(buckets), mustJSON(tierJSON), gini(largest), depth)
	return err
}

// depthThresholds are the USD values the wallet-depth histogram counts holders above.
var depthThresholds = []float64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000}

// walletDepth counts, for each threshold, the holders whose balance is worth at least that
// many USD at the token's current price; nil (JSON null) when the token has no price.
func walletDepth(ctx context.Context, conn *sqlx.DB, token db.Felt, burn pq.ByteaArray) (any, error) {
	var rows []struct {
		Threshold float64 `db:"usd_threshold"`
		Count     int64   `db:"wallet_count"`
	}
	err := conn.SelectContext(ctx, &rows, `SELECT th AS usd_threshold,
			count(b.owner_address) FILTER (WHERE b.balance / 10::numeric ^ t.decimals * t.usd_price::numeric >= th) AS wallet_count
		FROM tokens t CROSS JOIN unnest($3::float8[]) AS th
		JOIN erc20_balances b ON b.token_address = t.address AND b.balance > 0 AND b.owner_address <> ALL($2)
		WHERE t.address = $1 AND t.usd_price IS NOT NULL AND t.decimals IS NOT NULL
		GROUP BY th ORDER BY th`, token, burn, pq.Float64Array(depthThresholds))
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{"usdThreshold": r.Threshold, "walletCount": r.Count}
	}
	return mustJSON(out), nil
}

// gini is the Gini coefficient of the given holdings (0: all equal, 1: one holds all).
func gini(holdings []float64) float64 {
	n := len(holdings)
	if n == 0 {
		return 0
	}
	asc := append([]float64(nil), holdings...)
	sort.Float64s(asc)
	var sum, weighted float64
	for i, x := range asc {
		sum += x
		weighted += float64(i+1) * x
	}
	if sum == 0 {
		return 0
	}
	return round(2*weighted/(float64(n)*sum) - float64(n+1)/float64(n))
}

func sumRange(xs []float64, from, to int) float64 {
	var s float64
	for i := from; i < to && i < len(xs); i++ {
		s += xs[i]
	}
	return s
}

func nonZero(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// round keeps four decimals: enough for percentages and coefficients.
func round(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

func decimal(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

func mustJSON(v any) db.JSON {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of numbers and strings always marshal
	}
	return db.JSON(b)
}
