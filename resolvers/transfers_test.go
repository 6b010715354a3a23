package resolvers_test

import (
	"strings"
	"testing"
)

// tokenTransfers' filter and order: each bound, fee transfers apart, oldest first with its
// own cursors, and the arguments it refuses.
func TestTokenTransferFilterAndOrder(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES
		(1, '\x01', '\x00', 100, 'ACCEPTED_ON_L2'), (2, '\x02', '\x01', 200, 'ACCEPTED_ON_L2'), (3, '\x03', '\x02', 300, 'ACCEPTED_ON_L2')`)
	for b := 1; b <= 3; b++ {
		s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_address, execution_status, finality_status)
			VALUES ($1, 0, $2, 'INVOKE', 3, $3, '\xaa', 'SUCCEEDED', 'ACCEPTED_ON_L2')`, b, []byte{0x70, byte(b)}, b*100)
		s.exec(`INSERT INTO token_transfers (block_number, tx_index, event_index, token_address, from_address, to_address, amount, is_fee)
			VALUES ($1, 0, 0, '\x070c', '\xaa', '\xbb', 5, false), ($1, 0, 1, '\x070c', '\xaa', '\x05e9', 1, true)`, b)
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('token_transfers', 6)`) // kept by the indexer
	type page = connection[struct {
		BlockNumber, EventIndex int
		IsFee                   bool
	}]
	positions := func(p page) string {
		var out []string
		for _, e := range p.Edges {
			fee := ""
			if e.Node.IsFee {
				fee = "f"
			}
			out = append(out, string(rune('0'+e.Node.BlockNumber))+"."+string(rune('0'+e.Node.EventIndex))+fee)
		}
		return strings.Join(out, " ")
	}
	const doc = `query($f: TransferFilter, $o: SortDirection, $after: String, $first: Int) {
		tokenTransfers(filter: $f, order: $o, after: $after, first: $first) {
			totalCount pageInfo { hasNextPage endCursor } edges { node { blockNumber eventIndex isFee } } } }`
	run := func(vars map[string]any) page {
		var out struct{ TokenTransfers page }
		s.mustQuery(doc, vars, &out)
		return out.TokenTransfers
	}
	for _, c := range []struct {
		filter map[string]any
		want   string
	}{
		{nil, "3.1f 3.0 2.1f 2.0 1.1f 1.0"},
		{map[string]any{"fromBlock": 2, "toBlock": 2}, "2.1f 2.0"},
		{map[string]any{"fromTimestamp": 150, "toTimestamp": 300}, "3.1f 3.0 2.1f 2.0"},
		{map[string]any{"toTimestamp": 99}, ""},
		{map[string]any{"invocationType": "FEE_TRANSFER"}, "3.1f 2.1f 1.1f"},
		{map[string]any{"invocationType": "EXECUTE", "toAddress": "0xbb"}, "3.0 2.0 1.0"},
		{map[string]any{"invocationType": "VALIDATE"}, ""},
		{map[string]any{"fromAddress": "0xbb"}, ""},
	} {
		p := run(map[string]any{"f": c.filter})
		if got := positions(p); got != c.want || p.TotalCount != len(p.Edges) {
			t.Errorf("filter %v: %q (totalCount %d), want %q", c.filter, got, p.TotalCount, c.want)
		}
	}

	// Oldest first, two at a time; a cursor of one order is refused by the other.
	first := run(map[string]any{"o": "ASC", "first": 2})
	second := run(map[string]any{"o": "ASC", "first": 2, "after": first.PageInfo.EndCursor})
	if positions(first) != "1.0 1.1f" || positions(second) != "2.0 2.1f" || !second.PageInfo.HasNextPage {
		t.Errorf("ascending pages: %q then %q", positions(first), positions(second))
	}
	resp, _ := s.query(doc, map[string]any{"after": first.PageInfo.EndCursor})
	if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
		t.Errorf("an ascending cursor on the descending list: %+v", resp.Errors)
	}

	for _, f := range []map[string]any{
		{"fromBlock": -1}, {"fromBlock": 3, "toBlock": 2}, {"fromTimestamp": 301, "toTimestamp": 300}, {"toTimestamp": -5},
	} {
		resp, _ := s.query(doc, map[string]any{"f": f})
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" || !strings.Contains(resp.Errors[0].Message, "filter.") {
			t.Errorf("filter %v: %+v, want BAD_USER_INPUT naming the bound", f, resp.Errors)
		}
	}
}
