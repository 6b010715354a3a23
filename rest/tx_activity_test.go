package rest

import (
	"strings"
	"testing"
)

// A page of /beta/tx-activity reads its transactions with their blocks' hash and gas
// prices in one statement (db.Store.TransactionActivity), then its count and its calls:
// three statements besides the names, at any page and in either order. The blocks were a
// statement of their own, and the whole rows' 41 columns were read for the 21 the items show.
func TestTxActivityReadsItsPageWithItsBlocks(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{
		"/beta/tx-activity?sender_address=" + account(1).Hex(),
		"/beta/tx-activity?sort=desc&p=2&ps=10&sender_address=" + account(1).Hex(),
		"/beta/tx-activity?p=2&ps=10",
	} {
		ran := e.ranFor(path)
		var list, blocks, calls int
		for _, q := range ran {
			switch {
			case strings.Contains(q, "LEFT JOIN blocks b ON b.number = t.block_number"):
				list++
			case strings.Contains(q, "FROM blocks WHERE number = ANY"):
				blocks++
			case strings.Contains(q, "FROM calls c"):
				calls++
			}
		}
		if len(ran) != 3 || list != 1 || blocks != 0 || calls != 1 {
			t.Errorf("%s ran %d statements besides names, want 3 (its page with its blocks, its count, its calls):\n%s",
				path, len(ran), strings.Join(ran, "\n"))
		}
		// What the items show of their blocks comes from the list's row.
		for _, it := range list_(t, e.mustGet(path)) {
			m := it.(map[string]any)
			n := int(m["block_number"].(float64))
			if m["block_hash"] != blockHash(n).Hex() {
				t.Errorf("%s: block %d shows hash %v, want %s", path, n, m["block_hash"], blockHash(n).Hex())
			}
			if m["gas_price_in_wei"] == nil && m["gas_price_in_fri"] == nil {
				t.Errorf("%s: block %d shows no gas price", path, n)
			}
		}
	}
}

func list_(t *testing.T, body any) []any {
	t.Helper()
	items := listItems(body)
	if len(items) == 0 {
		t.Fatalf("no items in %v", body)
	}
	return items
}
