package indexer

import (
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// The state diff of a block: declared classes, deployed contracts, replaced classes and
// nonces, applied to the contracts and classes the batch holds in memory.

func (w *batchWriter) applyStateDiff(bd *blockData) {
	if bd.State == nil {
		return
	}
	b := bd.Block
	num, ts := int64(b.Number), int64(b.Timestamp)
	declaredBy := map[starknet.Felt]starknet.Felt{}
	deployedBy := map[starknet.Felt]starknet.Felt{}
	for _, t := range b.Transactions {
		switch {
		case t.Type == rpc.TxDeclare && t.ClassHash != nil:
			declaredBy[*t.ClassHash] = t.Hash
		case t.Receipt.ContractAddress != nil:
			deployedBy[*t.Receipt.ContractAddress] = t.Hash
		}
		for _, e := range t.Receipt.Events {
			// The Universal Deployer announces the address in data[0].
			if len(e.Keys) > 0 && e.Keys[0] == selDeployed && len(e.Data) > 0 {
				if _, ok := deployedBy[e.Data[0]]; !ok {
					deployedBy[e.Data[0]] = t.Hash
				}
			}
		}
	}
	// A class declared by no transaction of the block (a legacy class that came with its
	// DEPLOY, before DECLARE existed) is attributed to the first transaction of the block
	// that deploys a contract of it.
	txIndex := make(map[starknet.Felt]int, len(b.Transactions))
	for i := range b.Transactions {
		txIndex[b.Transactions[i].Hash] = i
	}
	firstDeploy := map[starknet.Felt]starknet.Felt{}
	for _, d := range bd.State.DeployedContracts {
		tx, ok := deployedBy[d.Address]
		if !ok {
			continue
		}
		if prev, seen := firstDeploy[d.ClassHash]; !seen || txIndex[tx] < txIndex[prev] {
			firstDeploy[d.ClassHash] = tx
		}
	}
	declare := func(hash starknet.Felt, kind string, compiled *starknet.Felt) {
		info := bd.Classes[hash]
		if info == nil {
			info = w.classes.get(hash)
		}
		row := &db.Class{Hash: db.FeltOf(hash), Kind: kind, Version: "0", DeclaredBlock: &num, DeclaredAt: &ts}
		if kind == "sierra" {
			row.CairoVersion, row.Version = 1, "0.1.0"
		}
		if compiled != nil {
			row.CompiledClassHash = db.FeltOf(*compiled)
		}
		if tx, ok := declaredBy[hash]; ok {
			row.DeclaredTxHash = db.FeltOf(tx)
		} else if tx, ok := firstDeploy[hash]; ok {
			row.DeclaredTxHash = db.FeltOf(tx)
		}
		fillClassRow(row, info)
		w.putClass(hash, row)
	}
	for _, d := range bd.State.DeclaredClasses {
		compiled := d.CompiledClassHash
		declare(d.ClassHash, "sierra", &compiled)
	}
	for _, h := range bd.State.DeprecatedDeclaredClasses {
		declare(h, "legacy", nil)
	}
	// Classes fetched only to know what a deployed contract is: stored undeclared.
	var used []starknet.Felt
	for _, d := range bd.State.DeployedContracts {
		used = append(used, d.ClassHash)
	}
	for _, r := range bd.State.ReplacedClasses {
		used = append(used, r.ClassHash)
	}
	for _, hash := range used {
		info := w.classes.get(hash)
		if info == nil || w.newClass[hash] != nil || w.classes.stored(hash) {
			continue
		}
		row := &db.Class{Hash: db.FeltOf(hash)}
		fillClassRow(row, info)
		w.putClass(hash, row)
	}
	for _, d := range bd.State.DeployedContracts {
		info := w.classes.get(d.ClassHash)
		c := &db.Contract{
			Address: db.FeltOf(d.Address), ClassHash: db.FeltOf(d.ClassHash), Type: contractType(info), Nonce: "0",
			DeployedBlock: &num, DeployedAt: &ts,
		}
		if tx, ok := deployedBy[d.Address]; ok {
			c.DeployedTxHash = db.FeltOf(tx)
		}
		if impl, ok := bd.Implementations[d.Address]; ok {
			c.ImplementationAddress = db.FeltOf(impl)
		}
		if old := w.contracts[d.Address]; old != nil {
			w.counts["contracts:"+old.Type]--
			w.counts["contracts"]--
		}
		w.counts["contracts:"+c.Type]++
		w.counts["contracts"]++
		w.contracts[d.Address] = c
		w.dirtyContracts[d.Address] = true
		if info != nil && info.ERCStandard != "" {
			w.token(d.Address, info.ERCStandard, num)
		}
	}
	for _, r := range bd.State.ReplacedClasses {
		info := w.classes.get(r.ClassHash)
		c := w.contracts[r.ContractAddress]
		if c == nil {
			c = &db.Contract{Address: db.FeltOf(r.ContractAddress), Type: "unknown", Nonce: "0"}
			w.counts["contracts"]++
			w.counts["contracts:unknown"]++
		}
		next := *c
		next.ClassHash, next.ClassUpdatedBlock = db.FeltOf(r.ClassHash), &num
		next.Type = contractType(info)
		// A new class means a new implementation, or none when it is no proxy.
		next.ImplementationAddress = nil
		if impl, ok := bd.Implementations[r.ContractAddress]; ok {
			next.ImplementationAddress = db.FeltOf(impl)
		}
		w.counts["contracts:"+c.Type]--
		w.counts["contracts:"+next.Type]++
		w.contracts[r.ContractAddress] = &next
		w.dirtyContracts[r.ContractAddress] = true
	}
	for _, n := range bd.State.Nonces {
		c := w.contracts[n.ContractAddress]
		if c == nil {
			continue // a contract whose class the indexer has not seen: nothing to attach the nonce to
		}
		next := *c
		next.Nonce = dec(n.Nonce)
		w.contracts[n.ContractAddress] = &next
		w.dirtyContracts[n.ContractAddress] = true
	}
}

func (w *batchWriter) putClass(hash starknet.Felt, row *db.Class) {
	if w.newClass[hash] == nil && !w.classes.stored(hash) {
		w.counts["classes"]++
	}
	w.newClass[hash] = row
}

func fillClassRow(row *db.Class, info *classInfo) {
	if info == nil {
		return
	}
	row.Kind, row.CairoVersion, row.Version = info.Kind, info.CairoVersion, info.Version
	row.ABI = db.JSON(info.ABI)
	row.IsAccount, row.IsProxy = info.IsAccount, info.IsProxy
	if info.ERCStandard != "" {
		erc := info.ERCStandard
		row.RawErcStandard = &erc
	}
}
