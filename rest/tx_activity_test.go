package rest

import (
	"slices"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// A page of /beta/tx-activity reads its transactions with their blocks' hash and gas
// prices in one statement (db.Store.TransactionActivity), and a sender's pages its count
// (and, deeper, its mark: db's TestKeyMarksGiveThePagesOffsetReads) in it too, then its
// calls: two statements besides the names for a sender's page, three for the whole chain's,
// which is counted apart. The blocks were a statement of their own, and so were the count
// and the mark; the whole rows' 41 columns were read for the 21 the items show.
func TestTxActivityReadsItsPageWithItsBlocks(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		path    string
		counted bool // the count is read with the page
	}{
		{"/beta/tx-activity?sender_address=" + account(1).Hex(), true},
		{"/beta/tx-activity?sort=desc&p=2&ps=10&sender_address=" + account(1).Hex(), true},
		{"/beta/tx-activity?p=2&ps=10", false},
	} {
		path := c.path
		ran := e.ranFor(path)
		var list, blocks, calls, counts int
		for _, q := range ran {
			switch {
			case strings.Contains(q, "FROM blocks WHERE number = t.block_number"):
				list++
				if strings.Contains(q, "FROM key_counts") {
					counts++
				}
			case strings.Contains(q, "FROM blocks WHERE number = ANY"):
				blocks++
			case strings.Contains(q, "FROM calls c"):
				calls++
			}
		}
		want := 3
		if c.counted {
			want = 2
		}
		if len(ran) != want || list != 1 || blocks != 0 || calls != 1 || (counts == 1) != c.counted {
			t.Errorf("%s ran %d statements besides names, want %d (its page with its blocks, counted with it: %v; its calls):\n%s",
				path, len(ran), want, c.counted, strings.Join(ran, "\n"))
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

// The count read with a sender's page is its last page's, and an empty page past the end,
// which reads no count with its rows, is counted apart.
func TestTxActivityCountsWithItsPage(t *testing.T) {
	e := newEnv(t)
	var n int
	if err := e.db.Get(&n, `SELECT count(*) FROM transactions_named WHERE sender_address = $1`, account(1)); err != nil {
		t.Fatal(err)
	}
	want := float64((n + 9) / 10)
	for _, p := range []string{"1", "2", "1000"} {
		body := e.mustGet("/beta/tx-activity?ps=10&p=" + p + "&sender_address=" + account(1).Hex()).(map[string]any)
		if body["lastPage"] != want {
			t.Errorf("page %s: lastPage %v, want %v (%d transactions)", p, body["lastPage"], want, n)
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

// A call cut from its transaction's calldata shows the felts the transaction's calldata
// showed, without rendering them again; a call with calldata of its own renders it.
func TestCallCalldataRunOfTheTransactions(t *testing.T) {
	whole := []db.Felt{db.FeltFromUint64(2), db.FeltFromUint64(0xa), db.FeltFromUint64(0xb), db.FeltFromUint64(0)}
	hex := feltList(whole)
	run := whole[1:3:3]
	got := runOf(whole, hex, run)
	if !slices.Equal(got, feltList(run)) || &got[0] != &hex[1] {
		t.Errorf("a run of the transaction's calldata: %v, not its rendering's run %v", got, hex[1:3])
	}
	own := slices.Clone(run)
	if got := runOf(whole, hex, own); !slices.Equal(got, feltList(own)) || &got[0] == &hex[1] {
		t.Errorf("calldata of its own: %v", got)
	}
	if got := runOf(whole, hex, nil); got == nil || len(got) != 0 {
		t.Errorf("no calldata: %#v, want []", got)
	}
}
