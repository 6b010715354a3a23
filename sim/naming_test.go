package sim

import (
	"testing"

	"github.com/starkgraph/starkgraph/starknet"
)

// TestLabelsNameTheChainsThings: the labels the simulated chain hands to `dev` name its
// own tokens and stakers (the addresses New derives from the seed).
func TestLabelsNameTheChainsThings(t *testing.T) {
	cfg := Config{Seed: 7}
	c := New(cfg)
	want := map[string]string{
		c.w.addr(entity{kindERC20, 3}).String(): "token",
		c.w.account(stakerAccount(0)).String():  "validator",
		fixedAddr[fixedSTRK].String():           "token",
	}
	for _, l := range cfg.Labels("/logos/") {
		if _, err := starknet.ParseFelt(l.Address); err != nil {
			t.Fatal(err)
		}
		if k, ok := want[l.Address]; ok && k == l.Kind {
			delete(want, l.Address)
		}
	}
	if len(want) != 0 {
		t.Fatalf("not labelled: %v", want)
	}
}

// TestAdminIsAlice: the domain the docs use as an example names the admin account for good.
func TestAdminIsAlice(t *testing.T) {
	w := New(Config{Seed: 1}).w
	if !w.hasDomain(accountAdmin) || w.renames(accountAdmin) || w.shortLived(accountAdmin) || DomainLabel(accountAdmin, 0) != "alice" {
		t.Fatal("the admin account is not alice.stark for good")
	}
}
