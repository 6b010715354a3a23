package indexer

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/metrics"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// Balances storage cannot show (issue 55; docs/indexer.md, "Balances and the chain's
// storage"): an interest-bearing token's balance_of multiplies a stored raw amount by an
// index that grows with no event and no write to the balance's slot. Once caught up, between
// polls of the node, the indexer
//
//   - probes the ERC-20s with holders, round and round by address: balance_of at the indexed
//     head for each one's two largest holders and its most recently active one, against the
//     balances it indexed (which the writer, the same goroutine, is not changing). A token
//     whose balance_of differs is one whose balances come from calls (balances_source
//     'calls'). Probes take at most half the calls while there are such tokens;
//   - reads balance_of at the indexed head for the holders of those tokens, those never read
//     or read the longest ago first, then the largest, into call_balances with the block
//     each was read at. A call-read balance trails the head by as many blocks as the
//     indexer took to come back to it (with the default rate and a few hundred holders, a
//     few polls).
//
// Calls are bounded by Config.BalanceCallsPerSecond (a token bucket that fills while the
// indexer waits, holding at most ten seconds' worth) and sent in JSON-RPC batches.

const (
	defaultBalanceCallsPerSecond = 20
	probeHolders                 = 3
	callBatch                    = 200
)

type callReader struct {
	rate   float64 // calls per second; <= 0: never
	tokens float64
	last   time.Time
	// cursor is the address after which the next token to probe is; probes go round the
	// tokens by address, again and again.
	cursor db.Felt
}

func newCallReader(rate float64) *callReader {
	return &callReader{rate: rate, cursor: db.Felt{}}
}

// take returns how many calls may be made now.
func (c *callReader) take(now time.Time) int {
	if c == nil || c.rate <= 0 {
		return 0
	}
	if !c.last.IsZero() {
		c.tokens += now.Sub(c.last).Seconds() * c.rate
	} else {
		c.tokens = c.rate // a first second's worth
	}
	c.last = now
	c.tokens = min(c.tokens, c.rate*10)
	n := int(c.tokens)
	c.tokens -= float64(n)
	return n
}

type heldRow struct {
	Token   db.Felt `db:"token_address"`
	Owner   db.Felt `db:"owner_address"`
	Balance string  `db:"balance"`
}

// readCallBalances spends the calls the rate allows on probing tokens and reading the
// balances of call tokens, at the indexed head.
func (ix *Indexer) readCallBalances(ctx context.Context) error {
	if len(ix.side.balances) > 0 {
		return nil // the reads held are written first (sidewrites.go); the budget grows meanwhile
	}
	budget := ix.calls.take(time.Now())
	if budget == 0 || ix.head < 0 {
		return nil
	}
	head := uint64(ix.head)
	// Probes take at most half the calls while there are call tokens to read.
	var haveCalls bool
	if err := ix.db.GetContext(ctx, &haveCalls, `SELECT EXISTS (SELECT FROM tokens WHERE balances_source = 'calls')`); err != nil {
		return fmt.Errorf("call balances: %w", err)
	}
	probeBudget := budget
	if haveCalls {
		probeBudget = budget / 2
	}
	var candidates []db.Felt
	if n := probeBudget / probeHolders; n > 0 {
		if err := ix.db.SelectContext(ctx, &candidates, `SELECT address FROM tokens WHERE standard = 'erc20' AND holder_count > 0
			AND balances_source <> 'calls' AND address > $1 ORDER BY address LIMIT $2`, ix.calls.cursor, n); err != nil {
			return fmt.Errorf("call balances: tokens: %w", err)
		}
		if len(candidates) < n {
			ix.calls.cursor = db.Felt{} // round again from the start next time
		} else {
			ix.calls.cursor = candidates[len(candidates)-1]
		}
	}
	var probes []heldRow
	for _, t := range candidates {
		var rows []heldRow
		if err := ix.db.SelectContext(ctx, &rows, `(SELECT token_address, owner_address, balance::text AS balance FROM erc20_balances
				WHERE token_address = $1 AND balance > 0 ORDER BY balance DESC LIMIT 2)
			UNION (SELECT token_address, owner_address, balance::text FROM erc20_balances
				WHERE token_address = $1 AND balance > 0 ORDER BY last_transfer_block DESC LIMIT 1)`, t); err != nil {
			return fmt.Errorf("call balances: probe holders: %w", err)
		}
		probes = append(probes, rows...)
	}
	got, err := ix.balancesOf(ctx, head, probes)
	if err != nil {
		return err
	}
	budget -= len(probes)
	found := map[starknet.Felt]bool{}
	for i, r := range probes {
		if got[i] != nil && got[i].String() != r.Balance {
			found[r.Token.Starknet()] = true
		}
	}
	if len(found) > 0 {
		var keys []db.Felt
		for t := range found {
			keys = append(keys, db.FeltOf(t))
			ix.log.Info("token balances come from calls: balance_of differs from events and storage", "token", t.Hex(), "block", head)
		}
		if _, err := ix.db.ExecContext(ctx, `UPDATE tokens SET balances_source = 'calls' WHERE address = ANY($1)`, db.ByteaKeys(keys)); err != nil {
			return fmt.Errorf("call balances: mark tokens: %w", err)
		}
	}
	// Reads: the holders of call tokens, least recently read first.
	var reads []heldRow
	if budget > 0 {
		if err := ix.db.SelectContext(ctx, &reads, `SELECT b.token_address, b.owner_address, b.balance::text AS balance
			FROM tokens t JOIN erc20_balances b ON b.token_address = t.address
			LEFT JOIN call_balances c ON c.token_address = b.token_address AND c.owner_address = b.owner_address
			WHERE t.balances_source = 'calls' AND (b.balance > 0 OR c.balance > 0) AND (c.read_block IS NULL OR c.read_block < $1)
			ORDER BY c.read_block NULLS FIRST, b.balance DESC, b.token_address, b.owner_address LIMIT $2`, int64(head), budget); err != nil {
			return fmt.Errorf("call balances: holders: %w", err)
		}
	}
	got, err = ix.balancesOf(ctx, head, reads)
	if err != nil {
		return err
	}
	rows := make([]db.CallBalance, 0, len(reads))
	for i, r := range reads {
		if got[i] != nil {
			rows = append(rows, db.CallBalance{TokenAddress: r.Token, OwnerAddress: r.Owner, Balance: got[i].String(), ReadBlock: int64(head)})
		}
	}
	if len(rows) > 0 {
		// Written with the next block's transaction (sidewrites.go).
		ix.side.hold(time.Now())
		ix.side.balances = rows
	}
	return nil
}

// balancesOf asks balance_of at block n for each row; a call that fails gives nil.
func (ix *Indexer) balancesOf(ctx context.Context, n uint64, rows []heldRow) ([]*big.Int, error) {
	out := make([]*big.Int, len(rows))
	sel := starknet.Selector("balance_of")
	for i := 0; i < len(rows); i += callBatch {
		part := rows[i:min(i+callBatch, len(rows))]
		var b rpc.MixedBatch
		calls := make([]*rpc.CallCall, len(part))
		for j, r := range part {
			calls[j] = b.Call(n, r.Token.Starknet(), sel, []starknet.Felt{r.Owner.Starknet()})
		}
		err := ix.node.Send(ctx, &b)
		noteNodeAnswer(err)
		if err != nil {
			return nil, fmt.Errorf("call balances: balance_of: %w", err)
		}
		metrics.IndexerBalanceCalls.Add(float64(len(part)))
		for j := range part {
			res, err := calls[j].Result()
			switch {
			case err != nil || len(res) == 0:
			case len(res) == 1:
				out[i+j] = res[0].Big()
			default:
				out[i+j] = new(big.Int).Add(res[0].Big(), new(big.Int).Lsh(res[1].Big(), 128))
			}
		}
	}
	return out, nil
}
