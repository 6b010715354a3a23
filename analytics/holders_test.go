package analytics

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

var eth = db.MustFelt("0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7")

func TestSnapshotOfAVerifiedToken(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// 1,000 supply: one whale with 500, 100 holders with 4 each (0.4%), 100 burned.
	// ETH is a verified token of the labels: its row takes the flag when it is made.
	mustExec(`INSERT INTO aliases (address, name, kind, verified) VALUES ($1, 'Ether', 'token', true)`, eth)
	mustExec(`INSERT INTO tokens (address, standard, total_supply) VALUES ($1, 'erc20', 1000), ($2, 'erc20', 10)`, eth, db.MustFelt("0x1234"))
	add := func(owner db.Felt, balance int) {
		mustExec(`INSERT INTO erc20_balances (token_address, owner_address, balance, last_transfer_block, last_transfer_time) VALUES ($1, $2, $3, 1, 1)`, eth, owner, balance)
	}
	add(db.MustFelt("0xa"), 500)
	for i := 0; i < 100; i++ {
		add(db.FeltFromUint64(uint64(0x1000+i)), 4)
	}
	add(db.MustFelt("0xdead"), 100)

	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	if err := RefreshAll(ctx, conn, now); err != nil {
		t.Fatal(err)
	}
	var verified []db.Felt
	if err := conn.Select(&verified, `SELECT address FROM tokens WHERE verified`); err != nil {
		t.Fatal(err)
	}
	if len(verified) != 1 || !verified[0].Equal(eth) {
		t.Fatalf("only the listed token (ETH) becomes verified: %v", verified)
	}

	store := db.NewStore(conn)
	got, err := store.HoldersOverviewsOf(ctx, []db.Felt{eth, db.MustFelt("0x1234")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("want a snapshot of ETH only, got %d", len(got))
	}
	o := got[0]
	if o.TotalSupply != "1000" || o.BurnedSupply != "100" || o.CirculatingSupply != "900" {
		t.Errorf("supply: total %s burned %s circulating %s", o.TotalSupply, o.BurnedSupply, o.CirculatingSupply)
	}
	if o.HolderCount != 101 || o.HoldersOver1Pct != 1 {
		t.Errorf("holders %d, over 1%% %d; want 101 and 1", o.HolderCount, o.HoldersOver1Pct)
	}
	var top map[string]float64
	_ = json.Unmarshal(o.TopNConcentration, &top)
	// top5 = 500 + 4*4 = 516 of 900 circulating.
	if math.Abs(top["top5"]-57.3333) > 0.001 || math.Abs(top["top100"]-(500+99*4)/9.0) > 0.001 {
		t.Errorf("concentration: %v", top)
	}
	var tiers []struct {
		Tier  string
		Count int64
	}
	_ = json.Unmarshal(o.TierDistribution, &tiers)
	if tiers[0].Tier != "whale" || tiers[0].Count != 1 || tiers[1].Tier != "shark" || tiers[1].Count != 100 {
		t.Errorf("tiers: %+v", tiers)
	}
	if o.GiniTop10k <= 0.4 || o.GiniTop10k >= 1 {
		t.Errorf("gini of one 500 and a hundred 4s should be well above 0.4, got %v", o.GiniTop10k)
	}
	if !o.ComputedTime.Equal(now) {
		t.Errorf("computed at %v", o.ComputedTime)
	}
	if o.WalletDepthUsd != nil {
		t.Errorf("wallet depth without a price: %s, want null", o.WalletDepthUsd)
	}

	// Priced at 3 USD (whole units): the whale holds 1,500 USD, each small holder 12; the
	// burned balance does not count.
	mustExec(`UPDATE tokens SET decimals = 0, usd_price = 3 WHERE address = $1`, eth)
	if err := RefreshAll(ctx, conn, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err = store.HoldersOverviewsOf(ctx, []db.Felt{eth}); err != nil || len(got) != 1 {
		t.Fatalf("%d snapshots, %v", len(got), err)
	}
	var depth []struct {
		UsdThreshold float64
		WalletCount  int64
	}
	if err := json.Unmarshal(got[0].WalletDepthUsd, &depth); err != nil {
		t.Fatalf("wallet depth %s: %v", got[0].WalletDepthUsd, err)
	}
	want := map[float64]int64{1: 101, 10: 101, 100: 1, 1000: 1, 10000: 0, 100000: 0, 1000000: 0}
	if len(depth) != len(want) {
		t.Fatalf("wallet depth %+v", depth)
	}
	for _, d := range depth {
		if want[d.UsdThreshold] != d.WalletCount {
			t.Errorf("wallets over %v USD: %d, want %d", d.UsdThreshold, d.WalletCount, want[d.UsdThreshold])
		}
	}
}

func TestGini(t *testing.T) {
	if g := gini([]float64{5, 5, 5, 5}); g != 0 {
		t.Errorf("equal holdings: %v", g)
	}
	if g := gini([]float64{0, 0, 0, 10}); g != 0.75 {
		t.Errorf("one of four holds all: %v, want 0.75", g)
	}
	if g := gini(nil); g != 0 {
		t.Errorf("no holders: %v", g)
	}
}
