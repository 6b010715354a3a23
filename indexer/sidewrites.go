package indexer

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
)

// Side writes: what the indexer learns while following the head besides the blocks
// themselves (the node's head, blocks accepted on L1, balances read by calls). Every commit
// that writes a table the answers read is a data version (db.DataChannel), and each version
// makes every cached answer stale (package answercache); committed on their own, once per
// poll, these made about four versions a block (issue 56, the crowd). So they wait for the
// next block's transaction and commit with it: one version a block. When no block comes for
// sideHoldPolls polls (the chain stands still, or the indexer is not following: StopAt), they commit
// on their own. What did not change is not written at all: the node's head is recorded
// when it moves, not on every poll.
type sideWrites struct {
	// node is what indexer_state holds of the node (zero before the first record).
	node, nodeSeen nodeRecord
	// l1 is a range of blocks the node reports ACCEPTED_ON_L1, not marked yet.
	l1 *db.BlockRange
	// balances were read by calls and are not written yet.
	balances []db.CallBalance
	// since is when the oldest write held (l1 or balances) was learnt.
	since time.Time
}

type nodeRecord struct {
	head                 int64
	chainID, specVersion string
}

// sideHoldPolls is how many polls side writes wait for a block's transaction (10 s with the
// default poll of 2 s): longer than Starknet's blocks take, short against how late L1
// acceptance and balances read by calls were anyway (FinalityInterval, the call budget).
const sideHoldPolls = 5

func (s *sideWrites) held() bool { return s.l1 != nil || len(s.balances) > 0 }

func (s *sideWrites) hold(now time.Time) {
	if !s.held() {
		s.since = now
	}
}

// pending reports whether anything waits to be written.
func (s *sideWrites) pending() bool { return s.held() || s.node != s.nodeSeen }

// write adds the side writes to tx; done, called once tx committed, forgets them.
func (s *sideWrites) write(ctx context.Context, tx *sqlx.Tx) (done func(), err error) {
	node, l1, balances := s.nodeSeen, s.l1, s.balances
	if node != s.node {
		if err := db.SetIndexerNode(ctx, tx, node.head, node.chainID, node.specVersion); err != nil {
			return nil, fmt.Errorf("record the node head: %w", err)
		}
	}
	if l1 != nil {
		n, err := db.MarkAcceptedOnL1(ctx, tx, l1.From, l1.To)
		if err != nil {
			return nil, fmt.Errorf("accepted on L1: %w", err)
		}
		if n > 0 {
			if err := db.NotifyChain(ctx, tx, db.ChainNotice{AcceptedOnL1: l1}); err != nil {
				return nil, err
			}
		}
	}
	if err := db.UpsertCallBalances(ctx, tx, balances); err != nil {
		return nil, fmt.Errorf("call balances: write: %w", err)
	}
	// The poll loop is one goroutine: nothing is held anew between write and done.
	return func() { s.node, s.l1, s.balances = node, nil, nil }, nil
}

// reorged forgets what a reorg above ancestor made untrue.
func (s *sideWrites) reorged(ancestor int64) {
	s.l1 = nil // asked again at the next finality check
	kept := s.balances[:0]
	for _, b := range s.balances {
		if b.ReadBlock <= ancestor {
			kept = append(kept, b)
		}
	}
	s.balances = kept
}

// flushSide commits the side writes on their own when they waited long enough for a block
// (at once when the indexer is not following the head).
func (ix *Indexer) flushSide(ctx context.Context) error {
	s := &ix.side
	if !s.pending() {
		return nil
	}
	if s.held() && s.node == s.nodeSeen && ix.cfg.StopAt < 0 && time.Since(s.since) < ix.sideHold {
		return nil
	}
	tx, err := ix.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	done, err := s.write(ctx, tx)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	done()
	return nil
}
