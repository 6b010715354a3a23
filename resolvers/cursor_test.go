package resolvers_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/cursor"
	"github.com/starkgraph/starkgraph/db"
)

// walk follows a connection's cursors to its end and returns the ids seen, in order.
func walk(t *testing.T, s *gqlServer, field, args, idField string, pageSize int) []string {
	t.Helper()
	var seen []string
	after := ""
	for page := 0; page < 100; page++ {
		doc := fmt.Sprintf(`query($after: String) { %s(first: %d, after: $after%s) {
			totalCount pageInfo { hasNextPage endCursor } edges { node { %s } } } }`, field, pageSize, args, idField)
		var out map[string]struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage bool
				EndCursor   *string
			}
			Edges []struct{ Node map[string]any }
		}
		var vars map[string]any
		if after != "" {
			vars = map[string]any{"after": after}
		}
		s.mustQuery(doc, vars, &out)
		conn := out[field]
		for _, e := range conn.Edges {
			seen = append(seen, fmt.Sprint(e.Node[idField]))
		}
		if !conn.PageInfo.HasNextPage {
			return seen
		}
		after = *conn.PageInfo.EndCursor
	}
	t.Fatal("the walk did not end")
	return nil
}

func TestKeysetCursorsWalkEveryItemOnce(t *testing.T) {
	s := newGQLServer(t)
	for b := 0; b < 23; b++ {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, $3, $4, 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(1000+b)), db.FeltFromUint64(uint64(999+b)), 1700000000+b)
		for i := 0; i < b%3; i++ {
			s.exec(`INSERT INTO transactions (block_number, tx_index, hash, type, version, timestamp, sender_id, execution_status, finality_status)
				VALUES ($1, $2, $3, 'INVOKE', 1, 0, felt_id('\x0a'), 'SUCCEEDED', 'ACCEPTED_ON_L2')`, b, i, db.FeltFromUint64(uint64(b*10+i+1)))
		}
		// Several contracts per block, so the keyset's second column (address) matters.
		for c := 0; c < 2; c++ {
			s.exec(`INSERT INTO contracts (address, class_hash, deployed_block) VALUES ($1, '\x01', $2)`, db.FeltFromUint64(uint64(b*100+c+7)), b)
		}
	}
	s.exec(`INSERT INTO list_counts (name, count) VALUES ('blocks', 23), ('contracts', 46), ('transactions', 22)`)

	cases := []struct {
		field, args, id string
		want            int
	}{
		{"blocks", "", "number", 23},
		{"contracts", "", "address", 46},
		{"transactions", "", "hash", 22},
		{"transactions", ", order: ASC", "hash", 22},
		{"transactions", `, filter: {senderAddress: "0xa", fromBlock: 10}`, "hash", 13},
	}
	for _, c := range cases {
		for _, size := range []int{1, 4, 25} {
			ids := walk(t, s, c.field, c.args, c.id, size)
			unique := map[string]bool{}
			for _, id := range ids {
				unique[id] = true
			}
			if len(ids) != c.want || len(unique) != c.want {
				t.Errorf("%s%s by %d: walked %d items (%d distinct), want %d", c.field, c.args, size, len(ids), len(unique), c.want)
			}
		}
	}
}

// Edge cursors are signed only when a client selects them (REST and most documents read
// only the page's last); selected, through a fragment too, each resumes right after its edge.
func TestEveryEdgeCursorResumesAfterItsEdge(t *testing.T) {
	s := newGQLServer(t)
	for b := 0; b < 6; b++ {
		s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES ($1, $2, $3, $4, 'ACCEPTED_ON_L2')`,
			b, db.FeltFromUint64(uint64(1000+b)), db.FeltFromUint64(uint64(999+b)), 1700000000+b)
	}
	type page struct {
		Blocks struct {
			Edges []struct {
				Cursor string
				Node   struct{ Number int }
			}
		}
	}
	var all page
	s.mustQuery(`{ blocks(first: 6) { ...E } } fragment E on BlockConnection { edges { cursor node { number } } }`, nil, &all)
	if len(all.Blocks.Edges) != 6 {
		t.Fatalf("%d edges, want 6", len(all.Blocks.Edges))
	}
	for i, e := range all.Blocks.Edges {
		if e.Cursor == "" {
			t.Fatalf("edge %d has no cursor", i)
		}
		var next page
		s.mustQuery(`query($c: String) { blocks(first: 1, after: $c) { edges { node { number } } } }`, map[string]any{"c": e.Cursor}, &next)
		if i == 5 {
			if len(next.Blocks.Edges) != 0 {
				t.Errorf("after the last edge: %+v, want nothing", next.Blocks.Edges)
			}
			continue
		}
		if len(next.Blocks.Edges) != 1 || next.Blocks.Edges[0].Node.Number != all.Blocks.Edges[i+1].Node.Number {
			t.Errorf("after edge %d (block %d): %+v, want block %d", i, e.Node.Number, next.Blocks.Edges, all.Blocks.Edges[i+1].Node.Number)
		}
	}
}

func TestForeignOrGarbledCursorIsRefused(t *testing.T) {
	s := newGQLServer(t)
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (1, '\x01', '\x00', 1, 'ACCEPTED_ON_L2'), (2, '\x02', '\x01', 2, 'ACCEPTED_ON_L2')`)
	var out struct {
		Blocks struct{ PageInfo struct{ EndCursor string } }
	}
	s.mustQuery(`{ blocks(first: 1) { pageInfo { endCursor } } }`, nil, &out)
	for _, c := range []struct{ doc, cursor string }{
		{`query($c: String) { contracts(first: 1, after: $c) { totalCount } }`, out.Blocks.PageInfo.EndCursor}, // another list's
		{`query($c: String) { blocks(first: 1, after: $c) { totalCount } }`, "not a cursor"},
		{`query($c: String) { blocks(first: 1, after: $c) { totalCount } }`, "eyJvIjotNX0"}, // {"o":-5}
	} {
		doc := c.doc
		resp, _ := s.query(doc, map[string]any{"c": c.cursor})
		if len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" {
			t.Errorf("%s: want BAD_USER_INPUT, got %+v", doc, resp.Errors)
		}
	}
}

// Forged cursors on every connection: made-up payloads in the old unsigned form (keys of
// the wrong type), a real cursor of another list, an offset-only cursor carrying keys,
// one signed with another secret. Each is a BAD_USER_INPUT naming `after`, never an
// internal error, and runs no SQL.
func TestForgedCursorsOnEveryConnection(t *testing.T) {
	s := newGQLServer(t)
	seedTokens(s, 2, 3)
	var out struct {
		Blocks struct{ PageInfo struct{ EndCursor string } }
	}
	s.exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status) VALUES (2, '\x02', '\x01', 2, 'ACCEPTED_ON_L2')`)
	s.mustQuery(`{ blocks(first: 1) { pageInfo { endCursor } } }`, nil, &out)
	unsigned := func(payload string) string { return base64.RawURLEncoding.EncodeToString([]byte(payload)) }
	forged := []string{
		out.Blocks.PageInfo.EndCursor, // real, of the blocks list
		unsigned(`{"l":"contracts:","o":1,"k":["x1e5","0xzz"]}`),
		unsigned(`{"o":1,"k":["0x1","0x2","0x3","0x4"]}`),
		unsigned(`{"o":1,"k":["abc.e","1"]}`) + ".AAAAAAAAAAAAAAAAAAAAAA",
		cursor.Default().Seal(cursor.AnyList, map[string]any{"o": 1, "k": []string{"0x1", "nope"}}),
		cursor.New([]byte("another deployment")).Seal("contracts:", map[string]any{"o": 1, "k": []string{"1", "0x1"}}),
		strings.Repeat("A", 5000),
	}
	connections := []string{
		`contracts(first: 2, after: $c) { edges { node { address } } }`,
		`nftEvents(first: 2, after: $c) { edges { node { tokenId } } }`,
		`nftItems(first: 2, after: $c) { edges { node { tokenId } } }`,
		`nftHolders(contractAddress: "0x1", first: 2, after: $c) { edges { node { balance } } }`,
		`events(first: 2, after: $c) { edges { node { index } } }`,
		`transactions(first: 2, after: $c) { edges { node { hash } } }`,
		`classes(first: 2, after: $c) { edges { node { hash } } }`,
		`verifiedClasses(first: 2, after: $c) { edges { node { classHash } } }`,
		`tokens(first: 2, after: $c) { edges { node { symbol } } }`,
		`metaTransactions(first: 2, after: $c) { edges { node { index } } }`,
		`validators(first: 2, after: $c) { edges { node { address } } }`,
		`token(address: "` + tokenAddr(0).Hex() + `") { holders(first: 2, after: $c) { edges { node { balance } } } }`,
	}
	for _, conn := range connections {
		for i, c := range forged {
			before := s.store.Statements()
			resp, status := s.query(`query($c: String) { `+conn+` }`, map[string]any{"c": c})
			if status >= 500 || len(resp.Errors) == 0 || resp.Errors[0].Extensions["code"] != "BAD_USER_INPUT" ||
				resp.Errors[0].Extensions["argument"] != "after" {
				t.Errorf("%s with forged cursor %d: status %d, %+v", conn, i, status, resp.Errors)
			}
			if !strings.HasPrefix(conn, "token(") && s.store.Statements() != before {
				t.Errorf("%s with forged cursor %d ran SQL", conn, i)
			}
		}
	}
}
