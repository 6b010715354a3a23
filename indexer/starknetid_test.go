package indexer

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// TestStarknetIDNamesFollowChangesAndReorgs indexes the simulated chain's Starknet ID
// events: accounts get their domain as their name, an account that changes its main
// domain shows the new one, and undoing the block of the change (a reorg) brings the old
// name back.
func TestStarknetIDNamesFollowChangesAndReorgs(t *testing.T) {
	chain, url := simNode(t, sim.Config{Seed: 5, Blocks: 125, TxPerBlock: 3})
	d := dbtest.New(t)
	head := simHead(chain)
	runIndexer(t, d, url, 0, head, nil)
	store := db.NewStore(d)
	ctx := context.Background()

	var named, accounts int
	if err := d.Get(&named, `SELECT count(*) FROM starknet_id_names`); err != nil {
		t.Fatal(err)
	}
	if err := d.Get(&accounts, `SELECT count(*) FROM contracts c JOIN classes k ON k.hash = c.class_hash WHERE k.is_account`); err != nil {
		t.Fatal(err)
	}
	if named*5 < accounts {
		t.Fatalf("%d of %d accounts have a Starknet ID name, want at least a fifth", named, accounts)
	}

	// The newest change of main domain near the head: an account's second domain.
	var change struct {
		Address db.Felt `db:"address"`
		Domain  string  `db:"domain"`
		Block   int64   `db:"block_number"`
	}
	if err := d.Get(&change, `SELECT address, domain, block_number FROM starknet_id_names
		WHERE domain LIKE '%-v2.stark' AND block_number > $1 ORDER BY block_number DESC LIMIT 1`, head-20); err != nil {
		t.Fatalf("no domain change in the last 20 blocks: %v", err)
	}
	nameOf := func() *db.Alias {
		t.Helper()
		rows, err := store.AliasesOf(ctx, []db.Felt{change.Address})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("%d names for %s", len(rows), change.Address.Starknet().Padded())
		}
		return rows[0]
	}
	if a := nameOf(); a.Name != change.Domain || a.Source != db.NameSourceStarknetID {
		t.Fatalf("after the change: %+v, want %s from starknet_id", a, change.Domain)
	}

	// A reorg that removes the block of the change.
	tx, err := d.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.UndoAbove(ctx, tx, change.Block-1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(change.Domain, "-v2.stark", ".stark", 1)
	if a := nameOf(); a.Name != old || a.Source != db.NameSourceStarknetID {
		t.Fatalf("after the reorg: %+v, want the old name %s", a, old)
	}
	// The domain of the reorged purchase is gone too.
	var n int
	if err := d.Get(&n, `SELECT count(*) FROM starknet_id_domains WHERE domain = $1`, change.Domain); err != nil || n != 0 {
		t.Fatalf("domain %s still registered (%d, %v)", change.Domain, n, err)
	}

	// A curated label wins over the domain; removing it shows the domain again.
	if err := db.ImportLabels(ctx, d, []db.Label{{Address: change.Address, Name: "Curated Name", Kind: "account"}}); err != nil {
		t.Fatal(err)
	}
	if a := nameOf(); a.Name != "Curated Name" || a.Source != db.NameSourceCurated {
		t.Fatalf("curated: %+v", a)
	}
	if ok, err := db.DeleteLabel(ctx, d, change.Address); err != nil || !ok {
		t.Fatal(ok, err)
	}
	if a := nameOf(); a.Name != old {
		t.Fatalf("after removing the label: %+v", a)
	}
}

// TestStarknetIDEventsOfOtherContractsIgnored: the same event from a contract that is not
// a known naming contract names nobody.
func TestStarknetIDEventsOfOtherContractsIgnored(t *testing.T) {
	label, _ := starknet.EncodeStarknetIDLabel("mallory")
	w := &batchWriter{starknetID: &starknetIDState{names: map[starknet.Felt]*db.StarknetIDName{}, domains: map[string]*db.StarknetIDDomain{},
		dirtyNames: map[starknet.Felt]bool{}, dirtyDomains: map[string]bool{}}}
	addr := starknet.MustFelt("0x1234")
	ev := func(from starknet.Felt) *rpc.Event {
		return &rpc.Event{FromAddress: from, Keys: []starknet.Felt{selAddressToDomainUpdate, addr}, Data: []starknet.Felt{starknet.FeltFromUint64(1), label}}
	}
	w.starknetIDEvent(7, ev(starknet.MustFelt("0x666")))
	if len(w.starknetID.dirtyNames) != 0 {
		t.Fatal("an impostor's event named an address")
	}
	for naming := range NamingContracts {
		w.starknetIDEvent(7, ev(naming))
	}
	if n := w.starknetID.names[addr]; n == nil || n.Domain != "mallory.stark" || n.Root != "mallory.stark" {
		t.Fatalf("%+v", n)
	}
}

// TestStarknetIDExpiryAndRenewal indexes a naming contract's events from a node: a domain
// bought (with the big alphabet's characters in its label) names its account until its
// expiry passes in chain time, no longer once a block is later than it, and again once the
// domain is renewed. A renewal emitted by another contract changes nothing.
func TestStarknetIDExpiryAndRenewal(t *testing.T) {
	var naming string
	for a := range NamingContracts {
		naming = a.Hex()
	}
	const account = "0xacc1"
	label := "12234603501699554" // efghijk来aa (starknetid.rs's test vector)
	const domain = "efghijk来aa.stark"
	t0 := int64(1_700_000_000)
	expiry, renewed := t0+100, t0+10_000
	dec := func(n int64) string { return strconv.FormatInt(n, 10) }
	nothing := []stubEvent{ev("0x777", "Ping", nil)} // a block's one transaction, naming nobody
	blocks := map[uint64]string{
		0: stubBlock(t, 0, t0, []stubEvent{
			ev(naming, "DomainMint", []string{label}, "0x1", dec(expiry)),
			ev(naming, "AddressToDomainUpdate", []string{account}, "1", label)}),
		1: stubBlock(t, 1, t0+50, nothing),  // before the expiry
		2: stubBlock(t, 2, t0+200, nothing), // after it
		3: stubBlock(t, 3, t0+250, []stubEvent{ // an impostor's renewal
			ev("0x666", "DomainRenewal", []string{label}, dec(renewed))}),
		4: stubBlock(t, 4, t0+300, []stubEvent{ // the renewal
			ev(naming, "DomainRenewal", []string{label}, dec(renewed))}),
	}
	states := map[uint64]string{}
	for n := range blocks {
		states[n] = emptyState(n)
	}
	url := stubNode(t, "0.8.1", blocks, states)
	d := dbtest.New(t)
	store := db.NewStore(d)
	nameAt := func(block int64) string {
		t.Helper()
		runIndexer(t, d, url, 0, block, nil)
		rows, err := store.AliasesOf(context.Background(), []db.Felt{db.MustFelt(account)})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range rows {
			if a != nil && a.Source == db.NameSourceStarknetID {
				return a.Name
			}
		}
		return ""
	}
	if got := nameAt(1); got != domain {
		t.Fatalf("before the expiry: name %q, want %q", got, domain)
	}
	if got := nameAt(2); got != "" {
		t.Fatalf("after the expiry: name %q, want none", got)
	}
	if got := nameAt(3); got != "" {
		t.Fatalf("after an impostor's renewal: name %q, want none", got)
	}
	if got := nameAt(4); got != domain {
		t.Fatalf("after the renewal: name %q, want %q", got, domain)
	}
	var stored int64
	if err := d.Get(&stored, `SELECT expiry FROM starknet_id_domains WHERE domain = $1`, domain); err != nil || stored != renewed {
		t.Fatalf("expiry %d (%v), want %d", stored, err, renewed)
	}
}
