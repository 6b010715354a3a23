package indexer

import (
	"context"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// An account that upgrades itself changes its class and its nonce in the same block: the
// block's one contract_changes row holds the contract as it was before the block.
func TestAContractChangedTwiceInABlockIsRecordedOnce(t *testing.T) {
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
	var changes []struct {
		Block    int64   `db:"block_number"`
		OldClass db.Felt `db:"old_class_hash"`
		OldNonce string  `db:"old_nonce"`
	}
	if err := pool.Select(&changes, `SELECT block_number, old_class_hash, old_nonce FROM contract_changes WHERE address = $1`, db.FeltOf(account)); err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Block != 1 || !changes[0].OldClass.Equal(db.FeltOf(oldClass)) || changes[0].OldNonce != "3" {
		t.Fatalf("contract_changes = %+v, want one row of block 1 with class 0xc0 and nonce 3", changes)
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
