package db

import (
	"context"
	"encoding/json"

	"github.com/jmoiron/sqlx"
)

// ChainChannel is the PostgreSQL NOTIFY channel on which the indexer announces what it
// committed; API processes LISTEN on it to feed GraphQL subscriptions (package live).
const ChainChannel = "starkgraph_chain"

// ChainNotice is one announcement. Exactly one of its parts is set. It names blocks by
// number only: listeners read the rows themselves (NOTIFY payloads are capped at 8000
// bytes, and a replica's listeners read from their own database).
type ChainNotice struct {
	// Written: blocks [from, to] were committed.
	Written *BlockRange `json:"written,omitempty"`
	// AcceptedOnL1: blocks [from, to] moved from ACCEPTED_ON_L2 to ACCEPTED_ON_L1.
	AcceptedOnL1 *BlockRange `json:"acceptedOnL1,omitempty"`
	// Reorg: blocks above Ancestor were replaced.
	Reorg *ReorgNotice `json:"reorg,omitempty"`
	// PreConfirmed: the block being built changed. It is not stored (it has no hash yet,
	// and grows until it is accepted), so the notice carries what subscribers are told.
	PreConfirmed *PreConfirmedNotice `json:"preConfirmed,omitempty"`
}

// PreConfirmedNotice is the block being built: its number, time and transactions so far.
type PreConfirmedNotice struct {
	Number    int64 `json:"number"`
	Timestamp int64 `json:"timestamp"`
	TxCount   int   `json:"txCount"`
}

// BlockRange is an inclusive range of block numbers.
type BlockRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// ReorgNotice describes replaced blocks: the old chain's hashes above Ancestor (they are
// gone from the database when listeners hear of it) and the node's hashes at the same
// heights when the indexer found the fork (fewer when the new chain is shorter). Hashes
// are 0x-prefixed hex, oldest first, at most MaxReorgHashes of each (the newest dropped).
type ReorgNotice struct {
	Ancestor  int64    `json:"ancestor"`
	Depth     int64    `json:"depth"`
	OldHashes []string `json:"oldHashes"`
	NewHashes []string `json:"newHashes"`
}

// MaxReorgHashes keeps a reorg notice within NOTIFY's 8000-byte payload.
const MaxReorgHashes = 50

// NotifyChain queues n on ChainChannel within tx: listeners hear it when tx commits, and
// never when it rolls back.
func NotifyChain(ctx context.Context, tx sqlx.ExecerContext, n ChainNotice) error {
	if n.Reorg != nil {
		n.Reorg.OldHashes = n.Reorg.OldHashes[:min(len(n.Reorg.OldHashes), MaxReorgHashes)]
		n.Reorg.NewHashes = n.Reorg.NewHashes[:min(len(n.Reorg.NewHashes), MaxReorgHashes)]
	}
	payload, err := json.Marshal(n)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, ChainChannel, string(payload))
	return err
}
