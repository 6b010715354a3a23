// Tests of the batch writer on blocks made by hand, for cases the simulated chain does not
// produce.

package indexer

import (
	"context"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// A legacy ERC-20 Transfer (keys [selector], data [from, to, low, high]) has the legacy
// ERC-721 layout too, so preload collects NFT keys for every such event. It reads the NFT
// rows of a contract known to be an ERC-20 only when the batch deploys it or replaces its
// class (its standard may change within the batch); those of the other known ERC-20s, the
// fee token's transfers among them, are not read.
func TestPreloadReadsNFTRowsOnlyWhereTheStandardMayChange(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	var (
		fee      = starknet.FeltFromUint64(0xfee)  // known ERC-20, untouched by the batch
		upgraded = starknet.FeltFromUint64(0xa11)  // known ERC-20 whose class the batch replaces
		deployed = starknet.FeltFromUint64(0xb22)  // known ERC-20 that the batch deploys again
		unknown  = starknet.FeltFromUint64(0xc33)  // no token row, no class: standard unknown
		nftClass = starknet.FeltFromUint64(0x721c) // classes the batch names, unknown here
	)
	for _, c := range []starknet.Felt{fee, upgraded, deployed} {
		if _, err := pool.Exec(`INSERT INTO tokens (address, standard) VALUES ($1, 'erc20')`, db.FeltOf(c)); err != nil {
			t.Fatal(err)
		}
	}
	// An NFT row for token id 5 of each contract, so that a read shows in the writer's map.
	for _, c := range []starknet.Felt{fee, upgraded, deployed, unknown} {
		if _, err := pool.Exec(`INSERT INTO nft_items (contract_address, token_id, contract_type) VALUES ($1, 5, 721)`, db.FeltOf(c)); err != nil {
			t.Fatal(err)
		}
	}
	transfer := func(from starknet.Felt) rpc.Event {
		return rpc.Event{FromAddress: from, Keys: []starknet.Felt{selTransfer},
			Data: []starknet.Felt{starknet.FeltFromUint64(0x1), starknet.FeltFromUint64(0x2), starknet.FeltFromUint64(5), {}}}
	}
	tx := rpc.Transaction{Type: rpc.TxInvoke, Version: 3}
	tx.Receipt.Events = []rpc.Event{transfer(fee), transfer(upgraded), transfer(deployed), transfer(unknown)}
	batch := []*blockData{{
		Block: &rpc.Block{Header: rpc.Header{Number: 1}, Transactions: []rpc.Transaction{tx}},
		State: &rpc.StateUpdate{BlockNumber: 1, StateDiff: rpc.StateDiff{
			ReplacedClasses:   []rpc.ReplacedClass{{ContractAddress: upgraded, ClassHash: nftClass}},
			DeployedContracts: []rpc.DeployedContract{{Address: deployed, ClassHash: nftClass}},
		}},
	}}

	wtx, err := db.BeginWrite(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	defer wtx.Rollback()
	w := newBatchWriter(wtx, newClassCache())
	if err := w.preload(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for c, want := range map[starknet.Felt]bool{fee: false, upgraded: true, deployed: true, unknown: true} {
		if _, read := w.nftItems[nftKey{c, "5"}]; read != want {
			t.Errorf("NFT item 5 of %s read: %v, want %v", c, read, want)
		}
	}
}

// An account that upgrades itself changes its class and its nonce in the same block: the
// contract ends the block with both.
func TestAContractChangedTwiceInABlock(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	account, oldClass, newClass := starknet.FeltFromUint64(0xacc), starknet.FeltFromUint64(0xc0), starknet.FeltFromUint64(0xc1)
	if _, err := pool.Exec(`INSERT INTO contracts (address, class_hash, type, nonce) VALUES ($1, $2, 'account', 3)`,
		db.FeltOf(account), db.FeltOf(oldClass)); err != nil {
		t.Fatal(err)
	}
	batch := []*blockData{{
		Block: &rpc.Block{Header: rpc.Header{Number: 1, Hash: starknet.FeltFromUint64(0xb1), Status: "ACCEPTED_ON_L2"}},
		State: &rpc.StateUpdate{BlockNumber: 1, StateDiff: rpc.StateDiff{
			ReplacedClasses: []rpc.ReplacedClass{{ContractAddress: account, ClassHash: newClass}},
			Nonces:          []rpc.NonceUpdate{{ContractAddress: account, Nonce: starknet.FeltFromUint64(4)}},
		}},
	}}
	wtx, err := db.BeginWrite(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	defer wtx.Rollback()
	if err := newBatchWriter(wtx, newClassCache()).write(ctx, batch, false); err != nil {
		t.Fatal(err)
	}
	if err := wtx.Commit(); err != nil {
		t.Fatal(err)
	}
	var class db.Felt
	var nonce string
	if err := pool.QueryRow(`SELECT class_hash, nonce FROM contracts WHERE address = $1`, db.FeltOf(account)).Scan(&class, &nonce); err != nil {
		t.Fatal(err)
	}
	if !class.Equal(db.FeltOf(newClass)) || nonce != "4" {
		t.Fatalf("contract after the block: class %s nonce %s, want 0xc1 and 4", class.Hex(), nonce)
	}
}

// A legacy class that came with its DEPLOY (no DECLARE in the block) is attributed to the
// first transaction of the block that deploys a contract of it; a class declared by a
// DECLARE keeps that transaction.
func TestLegacyClassGetsItsFirstDeploy(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	legacy, declared := starknet.FeltFromUint64(0x1e9), starknet.FeltFromUint64(0xdec)
	a1, a2 := starknet.FeltFromUint64(0xa1), starknet.FeltFromUint64(0xa2)
	deploy := func(hash, addr starknet.Felt) rpc.Transaction {
		tx := rpc.Transaction{Type: rpc.TxDeploy, Hash: hash, ClassHash: &legacy}
		tx.Receipt.ContractAddress = &addr
		return tx
	}
	decl := rpc.Transaction{Type: rpc.TxDeclare, Hash: starknet.FeltFromUint64(0xd1), ClassHash: &declared}
	batch := []*blockData{{
		Block: &rpc.Block{Header: rpc.Header{Number: 0, Hash: starknet.FeltFromUint64(0xb0), Status: "ACCEPTED_ON_L2"},
			Transactions: []rpc.Transaction{deploy(starknet.FeltFromUint64(0x71), a1), decl, deploy(starknet.FeltFromUint64(0x72), a2)}},
		State: &rpc.StateUpdate{BlockNumber: 0, StateDiff: rpc.StateDiff{
			DeprecatedDeclaredClasses: []starknet.Felt{legacy, declared},
			DeployedContracts:         []rpc.DeployedContract{{Address: a2, ClassHash: legacy}, {Address: a1, ClassHash: legacy}},
		}},
	}}
	wtx, err := db.BeginWrite(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	defer wtx.Rollback()
	w := newBatchWriter(wtx, newClassCache())
	if err := w.preload(ctx, batch); err != nil {
		t.Fatal(err)
	}
	w.applyStateDiff(batch[0])
	for class, want := range map[starknet.Felt]uint64{legacy: 0x71, declared: 0xd1} {
		c := w.newClass[class]
		if c == nil || c.DeclaredTxHash == nil || !c.DeclaredTxHash.Equal(db.FeltOf(starknet.FeltFromUint64(want))) {
			t.Errorf("class %s: declared by %v, want %#x", class, c, want)
		}
	}
}
