// Package audit compares the ERC-20 balances and NFT owners the database serves with what the
// node answers (starknet_call balance_of and owner_of) at the indexed head: `starkgraph
// audit --rpc URL` (cmd_audit.go). It finds what neither events nor storage diffs show
// (an interest-bearing token's balance_of, a token whose balances live at a non-standard
// slot and whose events lie) and anything the database got wrong.
//
// The database is read in one REPEATABLE READ snapshot, so the balances it holds are those
// of its head block in that snapshot, and every call asks the node about that block. The
// balances of a token known by calls (tokens.balances_source 'calls', indexer/callbalances.go)
// are those its holders' call_balances rows hold, compared at the block each was read at.
package audit

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Options say what to check. With Token set, that token's holders (a sample of Sample of
// them, or all with Sample <= 0); with Holder set, that holder's balances; with both, the one
// balance; with neither, a random sample of Sample balances of any token. NFTs: a sample of
// NFTSample ERC-721 items (of Token, when set).
type Options struct {
	Token, Holder *starknet.Felt
	Sample        int
	NFTSample     int
	// Skip names tokens left out (a token known to answer balance_of with a computed value).
	Skip []starknet.Felt
	// CallsPerBatch bounds the calls sent in one JSON-RPC batch; default 200.
	CallsPerBatch int
}

// Difference is one balance or owner the node and the database disagree on.
type Difference struct {
	Token, Holder starknet.Felt
	TokenID       string // NFTs
	Block         uint64
	Indexed       string
	Chain         string // or the node's error
}

func (d Difference) String() string {
	if d.TokenID != "" {
		return fmt.Sprintf("token %s item %s at block %d: indexed owner %s, node says %s", d.Token.Hex(), d.TokenID, d.Block, d.Indexed, d.Chain)
	}
	return fmt.Sprintf("token %s holder %s at block %d: indexed %s, node says %s", d.Token.Hex(), d.Holder.Hex(), d.Block, d.Indexed, d.Chain)
}

// Report is what an audit checked and found.
type Report struct {
	Block       uint64
	Balances    int // balances compared
	NotRead     int // balances of tokens known by calls that no call has read yet: not compared
	Owners      int // NFT owners compared
	Differences []Difference
}

type balanceRow struct {
	Token   db.Felt `db:"token_address"`
	Owner   db.Felt `db:"owner_address"`
	Balance string  `db:"balance"`
	// For a token whose balances come from calls (balances_source 'calls'): the balance
	// read by a call and its block, compared instead; none read yet: left out.
	Calls     bool    `db:"calls"`
	ReadBlock *int64  `db:"read_block"`
	Called    *string `db:"called"`
}

type ownerRow struct {
	Contract db.Felt `db:"contract_address"`
	TokenID  string  `db:"token_id"`
	Owner    db.Felt `db:"owner"`
}

// Run audits the database conn against node.
func Run(ctx context.Context, conn *sqlx.DB, node *rpc.Client, o Options) (*Report, error) {
	if o.CallsPerBatch <= 0 {
		o.CallsPerBatch = 200
	}
	tx, err := conn.BeginTxx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var head *int64
	if err := tx.GetContext(ctx, &head, `SELECT head_block FROM indexer_state`); err != nil {
		return nil, fmt.Errorf("indexer head: %w", err)
	}
	if head == nil || *head < 0 {
		return nil, fmt.Errorf("nothing indexed yet")
	}
	rep := &Report{Block: uint64(*head)}
	skip := make([]db.Felt, len(o.Skip))
	for i, s := range o.Skip {
		skip[i] = db.FeltOf(s)
	}
	limit := any(nil)
	if o.Sample > 0 {
		limit = o.Sample
	}
	var bals []balanceRow
	if err := tx.SelectContext(ctx, &bals, `SELECT b.token_address, b.owner_address, b.balance::text AS balance,
			t.balances_source = 'calls' AS calls, c.read_block, c.balance::text AS called
		FROM erc20_balances b JOIN tokens t ON t.address = b.token_address AND t.standard = 'erc20'
		LEFT JOIN call_balances c ON c.token_address = b.token_address AND c.owner_address = b.owner_address
		WHERE ($1::bytea IS NULL OR b.token_address = $1) AND ($2::bytea IS NULL OR b.owner_address = $2)
		  AND NOT b.token_address = ANY($3::bytea[])
		ORDER BY random() LIMIT $4`, feltArg(o.Token), feltArg(o.Holder), db.ByteaKeys(skip), limit); err != nil {
		return nil, fmt.Errorf("read balances: %w", err)
	}
	kept := bals[:0]
	for _, r := range bals {
		if r.Calls && r.Called == nil {
			rep.NotRead++ // a token known by calls whose holder was not read yet
			continue
		}
		kept = append(kept, r)
	}
	bals = kept
	var owners []ownerRow
	if o.NFTSample > 0 {
		if err := tx.SelectContext(ctx, &owners, `SELECT contract_address, token_id::text AS token_id, owner_address AS owner FROM nft_items
			WHERE contract_type = 721 AND owner_address IS NOT NULL AND ($1::bytea IS NULL OR contract_address = $1)
			ORDER BY random() LIMIT $2`, feltArg(o.Token), o.NFTSample); err != nil {
			return nil, fmt.Errorf("read nft owners: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	balanceOf, ownerOf := starknet.Selector("balance_of"), starknet.Selector("owner_of")
	for i := 0; i < len(bals); i += o.CallsPerBatch {
		part := bals[i:min(i+o.CallsPerBatch, len(bals))]
		var b rpc.MixedBatch
		calls := make([]*rpc.CallCall, len(part))
		for j, r := range part {
			calls[j] = b.Call(r.block(rep.Block), r.Token.Starknet(), balanceOf, []starknet.Felt{r.Owner.Starknet()})
		}
		if err := node.Send(ctx, &b); err != nil {
			return nil, fmt.Errorf("balance_of: %w", err)
		}
		for j, r := range part {
			rep.Balances++
			d := Difference{Token: r.Token.Starknet(), Holder: r.Owner.Starknet(), Block: r.block(rep.Block), Indexed: r.Balance}
			if r.Calls {
				d.Indexed = *r.Called
			}
			out, err := calls[j].Result()
			switch {
			case err != nil:
				d.Chain = "error: " + err.Error()
			case len(out) == 2:
				d.Chain = new(big.Int).Add(out[0].Big(), new(big.Int).Lsh(out[1].Big(), 128)).String()
			case len(out) == 1: // a Cairo 0 felt balance
				d.Chain = out[0].Big().String()
			default:
				d.Chain = fmt.Sprintf("%d felts", len(out))
			}
			if d.Chain != d.Indexed {
				rep.Differences = append(rep.Differences, d)
			}
		}
	}
	for i := 0; i < len(owners); i += o.CallsPerBatch {
		part := owners[i:min(i+o.CallsPerBatch, len(owners))]
		var b rpc.MixedBatch
		calls := make([]*rpc.CallCall, len(part))
		for j, r := range part {
			id, ok := new(big.Int).SetString(r.TokenID, 10)
			if !ok {
				return nil, fmt.Errorf("token id %q", r.TokenID)
			}
			lo, _ := starknet.FeltFromBig(new(big.Int).And(id, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))))
			hi, _ := starknet.FeltFromBig(new(big.Int).Rsh(id, 128))
			calls[j] = b.Call(rep.Block, r.Contract.Starknet(), ownerOf, []starknet.Felt{lo, hi})
		}
		if err := node.Send(ctx, &b); err != nil {
			return nil, fmt.Errorf("owner_of: %w", err)
		}
		for j, r := range part {
			rep.Owners++
			d := Difference{Token: r.Contract.Starknet(), TokenID: r.TokenID, Block: rep.Block, Indexed: r.Owner.Starknet().Hex()}
			out, err := calls[j].Result()
			switch {
			case err != nil:
				d.Chain = "error: " + err.Error()
			case len(out) == 1:
				d.Chain = out[0].Hex()
			default:
				d.Chain = fmt.Sprintf("%d felts", len(out))
			}
			if d.Chain != d.Indexed {
				rep.Differences = append(rep.Differences, d)
			}
		}
	}
	return rep, nil
}

// block is the block the row's balance is compared at: the head, or the block a call read it at.
func (r balanceRow) block(head uint64) uint64 {
	if r.Calls && r.ReadBlock != nil {
		return uint64(*r.ReadBlock)
	}
	return head
}

func feltArg(f *starknet.Felt) any {
	if f == nil {
		return nil
	}
	return db.FeltOf(*f)
}
