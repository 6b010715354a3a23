package indexer

import (
	"context"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
)

// lookUpMissing gives a contracts row to each address the batch touches that has none and
// that the batch does not deploy, when the node knows its class as of the block before the
// batch: contracts deployed before --from-block. Their deployment is unknown (NULL); their
// nonce is the node's (starknet_getNonce), or 0 from a node that does not serve it.
// Everything the batch derives then sees them like any other contract; the rows are
// written (and journaled) with the batch.
func (w *batchWriter) lookUpMissing(ctx context.Context, first uint64, deployed map[starknet.Felt]bool) error {
	if w.lookup == nil || first == 0 {
		return nil // from genesis nothing existed before
	}
	var missing []starknet.Felt
	for a, c := range w.contracts {
		if c == nil && !deployed[a] && !a.IsZero() {
			missing = append(missing, a)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	at := first - 1
	found, err := w.lookup.classHashesAt(ctx, at, missing)
	if err != nil || len(found) == 0 {
		return err
	}
	var hashes []starknet.Felt
	seen := map[starknet.Felt]bool{}
	for _, h := range found {
		if !seen[h] {
			seen[h] = true
			hashes = append(hashes, h)
		}
	}
	if err := w.classes.load(ctx, w.tx, hashes); err != nil {
		return err
	}
	var unknown []starknet.Felt
	for _, h := range hashes {
		if !w.classes.known(h) {
			unknown = append(unknown, h)
		}
	}
	fetched, err := w.lookup.classes(ctx, at, unknown)
	if err != nil {
		return err
	}
	for h, info := range fetched {
		w.classes.put(h, info)
	}
	// Classes learnt only to know what these contracts are: stored undeclared.
	for _, h := range hashes {
		info := w.classes.get(h)
		if info == nil || w.newClass[h] != nil || w.classes.stored(h) {
			continue
		}
		row := &db.Class{Hash: db.FeltOf(h)}
		fillClassRow(row, info)
		w.putClass(h, row)
	}
	var proxies []proxyAt
	for a, h := range found {
		if info := w.classes.get(h); info != nil && info.IsProxy {
			proxies = append(proxies, proxyAt{at, a})
		}
	}
	impls, err := w.lookup.implementations(ctx, proxies)
	if err != nil {
		return err
	}
	addrs := make([]starknet.Felt, 0, len(found))
	for a := range found {
		addrs = append(addrs, a)
	}
	nonces, err := w.lookup.nonces(ctx, at, addrs)
	if err != nil {
		return err
	}
	for a, h := range found {
		c := &db.Contract{Address: db.FeltOf(a), ClassHash: db.FeltOf(h), Type: contractType(w.classes.get(h)), Nonce: "0"}
		if n, ok := nonces[a]; ok {
			c.Nonce = dec(n)
		}
		if impl, ok := impls[proxyAt{at, a}]; ok {
			c.ImplementationAddress = db.FeltOf(impl)
		}
		w.contracts[a] = c
		w.dirtyContracts[a] = true
		w.counts["contracts"]++
		w.counts["contracts:"+c.Type]++
	}
	return nil
}
