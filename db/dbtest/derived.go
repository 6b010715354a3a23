package dbtest

import (
	"testing"

	"github.com/jmoiron/sqlx"
)

// derivedFromRows are the tables the indexer keeps from the rows it writes, recomputed
// from those rows, as the migrations that created the tables fill them for a database
// indexed before them.
var derivedFromRows = []string{
	`DELETE FROM sender_last_blocks`,
	`DELETE FROM active_sender_blocks`,
	`INSERT INTO sender_last_blocks (sender_address, block_number)
		SELECT sender_address, max(block_number) FROM transactions_named WHERE sender_address IS NOT NULL GROUP BY 1`,
	`INSERT INTO active_sender_blocks (block_number, senders) SELECT block_number, count(*) FROM sender_last_blocks GROUP BY 1`,
	`DELETE FROM nft_holders`,
	`INSERT INTO nft_holders (contract_address, owner_address, token_id, held, last_transfer_time)
		SELECT contract_address, owner_address, min(token_id), sum(balance), max(last_transfer_time)
		FROM nft_balances WHERE balance > 0 GROUP BY 1, 2`,
	`SELECT refresh_chain_stats(), refresh_staking_figures()`,
	`SELECT fill_key_positions()`,
}

// DeriveAsIndexer fills the tables the indexer derives from blocks, transactions and NFT
// balances (sender activity, NFT holders, the chain_stats and staking figures), for tests that seed
// those rows directly instead of indexing them.
func DeriveAsIndexer(t testing.TB, e sqlx.Execer) {
	t.Helper()
	for _, q := range derivedFromRows {
		if _, err := e.Exec(q); err != nil {
			t.Fatalf("derive as the indexer: %v", err)
		}
	}
}
