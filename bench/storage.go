package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
)

// TableBytes is what one table takes on disk: its rows (with their TOAST) and its indexes,
// its partitions counted together.
type TableBytes struct {
	Table   string `json:"table"`
	Rows    int64  `json:"rowBytes"`
	Indexes int64  `json:"indexBytes"`
}

// Storage is the database's size against the chain it holds.
type Storage struct {
	Transactions int64        `json:"transactions"`
	Bytes        int64        `json:"bytes"` // the whole database
	Tables       []TableBytes `json:"tables"`
	// NodeJSONPerTx is the node's own answer for the same blocks, starknet_getBlockWithReceipts
	// as uncompressed JSON text, in bytes per transaction (from a sample of the blocks).
	NodeJSONPerTx float64 `json:"nodeJsonBytesPerTx"`
}

// MeasureStorage reads the database's size by table and samples the simulated chain the
// bench database was built from (Build) for the node's JSON bytes per transaction.
func MeasureStorage(ctx context.Context, conn *sqlx.DB) (Storage, error) {
	var s Storage
	if err := conn.GetContext(ctx, &s, `SELECT (SELECT count(*) FROM transactions) AS transactions,
		pg_database_size(current_database()) AS bytes`); err != nil {
		return s, err
	}
	if err := conn.SelectContext(ctx, &s.Tables, `SELECT coalesce(p.relname, c.relname) AS table,
			sum(pg_table_size(c.oid))::bigint AS rows, sum(pg_indexes_size(c.oid))::bigint AS indexes
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
		LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent
		WHERE c.relkind = 'r' GROUP BY 1 ORDER BY sum(pg_total_relation_size(c.oid)) DESC, 1`); err != nil {
		return s, err
	}
	head, _, ok, err := db.IndexedHead(ctx, conn)
	if err != nil || !ok {
		return s, err
	}
	s.NodeJSONPerTx, err = nodeJSONPerTx(uint64(head)+1, 100)
	return s, err
}

// nodeJSONPerTx asks the simulated chain of blocks blocks (seed 1, as Build indexes it)
// for samples of its blocks with their receipts and returns the answers' bytes per
// transaction.
func nodeJSONPerTx(blocks uint64, samples int) (float64, error) {
	chain := sim.New(sim.Config{Seed: 1, Blocks: blocks, TxPerBlock: TxPerBlock})
	var bytes, txs int64
	for i := range uint64(samples) {
		n := i * blocks / uint64(samples)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithReceipts","params":[{"block_number":%d}]}`, n)
		rec := httptest.NewRecorder()
		chain.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
		var answer struct {
			Result struct {
				Transactions []json.RawMessage `json:"transactions"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			return 0, fmt.Errorf("bench: block %d from the simulated node: %w", n, err)
		}
		bytes += int64(rec.Body.Len())
		txs += int64(len(answer.Result.Transactions))
	}
	if txs == 0 {
		return 0, nil
	}
	return float64(bytes) / float64(txs), nil
}

// StorageMarkdown renders the sizes per transaction, the largest tables first, and the
// node's JSON for comparison.
func StorageMarkdown(s Storage) string {
	if s.Transactions == 0 {
		return ""
	}
	per := func(b int64) string { return fmt.Sprintf("%.0f", float64(b)/float64(s.Transactions)) }
	var b strings.Builder
	fmt.Fprintf(&b, "| storage, bytes per transaction (%d transactions) | rows | indexes | total |\n|---|---|---|---|\n", s.Transactions)
	var rows, indexes int64
	for _, t := range s.Tables {
		rows, indexes = rows+t.Rows, indexes+t.Indexes
		if t.Rows+t.Indexes >= s.Bytes/200 { // the tables of at least 0.5%
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Table, per(t.Rows), per(t.Indexes), per(t.Rows+t.Indexes))
		}
	}
	fmt.Fprintf(&b, "| every table | %s | %s | %s |\n", per(rows), per(indexes), per(rows+indexes))
	fmt.Fprintf(&b, "| the database | | | %s |\n", per(s.Bytes))
	fmt.Fprintf(&b, "| the node's JSON (starknet_getBlockWithReceipts) | | | %.0f |\n", s.NodeJSONPerTx)
	return b.String()
}
