package indexer

import (
	"context"
	"strings"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Starknet ID (docs/names.md): the events of its naming contract name accounts.
//
//	DomainMint            keys=[sel, domain_label]  data=[identity_id, expiry]   a root domain bought
//	DomainRenewal         keys=[sel, domain_label]  data=[new_expiry]
//	AddressToDomainUpdate keys=[sel, address]       data=[len, labels...]       the address's main domain (len 0: none)
//
// Only events of the known naming contracts count (anyone can emit events of the same
// shape). An address's name is shown until its root domain's expiry passes (the read in
// db.AliasesOf compares it with the newest block's time).

var (
	selDomainMint            = starknet.Selector("DomainMint")
	selDomainRenewal         = starknet.Selector("DomainRenewal")
	selAddressToDomainUpdate = starknet.Selector("AddressToDomainUpdate")
)

// NamingContracts are the Starknet ID naming contracts the indexer follows: mainnet's
// (github.com/NethermindEth/idealis, nethermind/idealis/utils/starknet/protocol.py), at
// which the simulated chain deploys its own too.
var NamingContracts = map[starknet.Felt]bool{
	starknet.MustFelt("0x06ac597f8116f886fa1c97a23fa4e08299975ecaf6b598873ca6792b9bbfb678"): true,
}

// starknetIDState holds the batch's Starknet ID rows: nil name = the address has none.
type starknetIDState struct {
	names        map[starknet.Felt]*db.StarknetIDName
	domains      map[string]*db.StarknetIDDomain
	dirtyNames   map[starknet.Felt]bool
	dirtyDomains map[string]bool
}

func namingEvent(e *rpc.Event) bool {
	return len(e.Keys) >= 2 && NamingContracts[e.FromAddress] &&
		(e.Keys[0] == selAddressToDomainUpdate || e.Keys[0] == selDomainMint || e.Keys[0] == selDomainRenewal)
}

// rootLabel is the domain a DomainMint or DomainRenewal names: one label.
func rootDomain(label starknet.Felt) string { return starknet.StarknetIDDomain([]starknet.Felt{label}) }

// rootOf is the registered domain of a (sub)domain: its last label.
func rootOf(domain string) string {
	parts := strings.Split(strings.TrimSuffix(domain, ".stark"), ".")
	return parts[len(parts)-1] + ".stark"
}

// preloadStarknetID starts the batch's Starknet ID state. It reads nothing: every event
// replaces what it changes (an address's main domain, a domain's expiry) without looking
// at the row before, the journal reads the old images itself, and flush writes only the
// rows the batch changed.
func (w *batchWriter) preloadStarknetID() {
	w.starknetID = &starknetIDState{names: map[starknet.Felt]*db.StarknetIDName{}, domains: map[string]*db.StarknetIDDomain{},
		dirtyNames: map[starknet.Felt]bool{}, dirtyDomains: map[string]bool{}}
}

// starknetIDEvent applies one event of block num.
func (w *batchWriter) starknetIDEvent(num int64, e *rpc.Event) {
	s := w.starknetID
	if s == nil || !namingEvent(e) {
		return
	}
	switch e.Keys[0] {
	case selAddressToDomainUpdate:
		addr := e.Keys[1]
		var domain string
		if len(e.Data) > 0 {
			if n, ok := e.Data[0].Uint64(); ok && n > 0 && int(n) == len(e.Data)-1 {
				domain = starknet.StarknetIDDomain(e.Data[1:])
			}
		}
		s.dirtyNames[addr] = true
		if domain == "" { // cleared, or a layout we do not read: no name
			s.names[addr] = nil
			return
		}
		s.names[addr] = &db.StarknetIDName{Address: db.FeltOf(addr), Domain: domain, Root: rootOf(domain), BlockNumber: num}
	case selDomainMint, selDomainRenewal:
		d := rootDomain(e.Keys[1])
		at := 1 // expiry's position in data
		if e.Keys[0] == selDomainRenewal {
			at = 0
		}
		if d == "" || len(e.Data) <= at {
			return
		}
		expiry, ok := e.Data[at].Uint64()
		if !ok || expiry > 1<<62 {
			return
		}
		s.domains[d] = &db.StarknetIDDomain{Domain: d, Expiry: int64(expiry)}
		s.dirtyDomains[d] = true
	}
}

// journalStarknetID queues the old images of the rows the batch changes.
func (w *batchWriter) journalStarknetID() {
	s := w.starknetID
	if s == nil {
		return
	}
	var addrs []db.Felt
	for a := range s.dirtyNames {
		addrs = append(addrs, db.FeltOf(a))
	}
	w.journalFelts("starknet_id_names", addrs)
	var domains []string
	for d := range s.dirtyDomains {
		domains = append(domains, d)
	}
	if len(domains) > 0 {
		w.journalAdd("starknet_id_domains", stringArray(domains))
	}
}

// flushStarknetID writes the changed rows.
func (w *batchWriter) flushStarknetID(ctx context.Context) error {
	s := w.starknetID
	if s == nil {
		return nil
	}
	var names []db.StarknetIDName
	var cleared []db.Felt
	for a := range s.dirtyNames {
		if n := s.names[a]; n != nil {
			names = append(names, *n)
		} else {
			cleared = append(cleared, db.FeltOf(a))
		}
	}
	if err := db.DeleteStarknetIDNames(ctx, w.tx, cleared); err != nil {
		return err
	}
	if err := db.UpsertStarknetIDNames(ctx, w.tx, names); err != nil {
		return err
	}
	var domains []db.StarknetIDDomain
	for d := range s.dirtyDomains {
		domains = append(domains, *s.domains[d])
	}
	return db.UpsertStarknetIDDomains(ctx, w.tx, domains)
}
