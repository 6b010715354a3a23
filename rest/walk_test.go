package rest

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/cursor"
)

// checkPageNumberWalks walks page-number lists with every page size: lastPage is the true
// last page, the pages hold every item once, and a page past the end is empty.
func checkPageNumberWalks(t *testing.T, shared *env) {
	e := shared.with(t)
	lists := []struct {
		path  string
		total int
		key   func(map[string]any) string
		items func(any) []any
	}{
		{"/beta/blocks?", nBlocks, func(m map[string]any) string { return fmt.Sprint(m["blockNumber"]) }, nil},
		{"/beta/txns?", 2 * nBlocks, func(m map[string]any) string { return m["hash"].(string) }, nil},
		{"/beta/tx-activity?sort=desc&", 2 * nBlocks, func(m map[string]any) string { return m["hash"].(string) }, nil},
		{"/beta/contracts?", nAccounts + 3, func(m map[string]any) string { return m["address"].(string) }, nil},
		{"/beta/contracts?type=Account&", nAccounts, func(m map[string]any) string { return m["address"].(string) }, nil},
		{"/beta/tx-activity?sender_address=" + account(1).Hex() + "&", 2 * nBlocks / nAccounts, func(m map[string]any) string { return m["hash"].(string) }, nil},
		{"/beta/events?", 2 * nBlocks, func(m map[string]any) string { return fmt.Sprint(m["transactionHash"], m["index"]) }, nil},
		{"/beta/classes/" + accountClass.Hex() + "/contracts?", nAccounts, func(m map[string]any) string { return m["address"].(string) }, nil},
	}
	for _, l := range lists {
		for _, ps := range pageSizes {
			t.Run(fmt.Sprintf("%sps=%d", l.path, ps), func(t *testing.T) {
				e := e.with(t)
				wantLast := max(1, (l.total+ps-1)/ps)
				seen := map[string]bool{}
				for p := 1; p <= wantLast+1; p++ {
					body := obj(t, e.mustGet(fmt.Sprintf("%sp=%d&ps=%d", l.path, p, ps)))
					if got := body["lastPage"]; got != float64(wantLast) {
						t.Fatalf("p=%d: lastPage %v, want %d", p, got, wantLast)
					}
					items := list(t, body["items"])
					wantLen := min(ps, l.total-(p-1)*ps)
					if p > wantLast {
						wantLen = 0
					}
					if len(items) != wantLen {
						t.Fatalf("p=%d: %d items, want %d", p, len(items), wantLen)
					}
					for _, it := range items {
						k := l.key(obj(t, it))
						if seen[k] {
							t.Fatalf("p=%d: %s seen twice", p, k)
						}
						seen[k] = true
					}
				}
				if len(seen) != l.total {
					t.Fatalf("walk saw %d items, want %d", len(seen), l.total)
				}
			})
		}
	}
	// nft-holders: page numbers in, the pagination object out.
	body := obj(t, e.mustGet("/beta/nft-holders?ps=10&p=1&contract_address="+nftAddr.Hex()))
	pg := obj(t, body["pagination"])
	if pg["next"] != nil || pg["prev"] != nil || pg["count"] != float64(nAccounts) {
		t.Errorf("nft-holders pagination %v, want no next/prev and count %d", pg, nAccounts)
	}
	body = obj(t, e.mustGet("/beta/nft-holders?ps=10&p=3&contract_address="+nftAddr.Hex()))
	if items := list(t, body["items"]); len(items) != 0 || obj(t, body["pagination"])["prev"] != "1" {
		t.Errorf("nft-holders past the end: %v", body)
	}
	// A page far past every list is empty, not an error.
	for _, p := range []string{"999999999999999", "99999999999999999999999999"} {
		body := obj(t, e.mustGet("/beta/blocks?p="+p))
		if items := list(t, body["items"]); len(items) != 0 || body["lastPage"] != float64(2) {
			t.Errorf("p=%s: %d items, lastPage %v; want none and 2", p, len(items), body["lastPage"])
		}
	}
}

// cursorPage is one page of a cursor-style list.
type cursorPage struct {
	keys       []string
	next, prev string
	count      float64
}

func (e *env) cursorPage(t *testing.T, path, cursor string, key string) cursorPage {
	t.Helper()
	if cursor != "" {
		path += "&cursor=" + url.QueryEscape(cursor)
	}
	body := obj(t, e.mustGet(path))
	pg := obj(t, body["pagination"])
	out := cursorPage{count: pg["count"].(float64)}
	if s, ok := pg["next"].(string); ok {
		out.next = s
	}
	if s, ok := pg["prev"].(string); ok {
		out.prev = s
	}
	for _, it := range list(t, body["items"]) {
		m := obj(t, it)
		out.keys = append(out.keys, fmt.Sprint(m[key], "/", m["tokenId"]))
	}
	return out
}

// checkCursorWalks follows next to the end and prev back to the start over cursor-style
// lists of several pages: every item once each way, pages identical both ways, null at
// the ends.
func checkCursorWalks(t *testing.T, shared *env) {
	e := shared.with(t)
	lists := []struct {
		path   string
		total  int
		key    string
		limits []int
	}{
		{"/beta/nft-events?contract_address=" + nftAddr.Hex(), nNftItems, "blockNumber", []int{1, 7, 25}},
		{"/beta/nft-items?contract_address=" + nftAddr.Hex(), nNftItems, "contractAddress", []int{4, 7}},
		{"/beta/nft-items?contract_address=" + nftAddr.Hex() + "&owner_address=" + account(2).Hex(), nNftItems / nAccounts, "ownerAddress", []int{1, 4}},
		{"/beta/nft-contract-balance?owner_address=" + account(1).Hex(), nNftItems / nAccounts, "ownerAddress", []int{1, 4}},
	}
	for _, l := range lists {
		for _, limit := range l.limits {
			t.Run(fmt.Sprintf("%s&limit=%d", l.path, limit), func(t *testing.T) {
				e := e.with(t)
				path := fmt.Sprintf("%s&limit=%d", l.path, limit)
				var forward []cursorPage
				seen := map[string]bool{}
				cur := ""
				for i := 0; ; i++ {
					if i > l.total+1 {
						t.Fatal("next never ends")
					}
					pg := e.cursorPage(t, path, cur, l.key)
					if pg.count != float64(l.total) {
						t.Fatalf("count %v, want %d", pg.count, l.total)
					}
					if (i == 0) != (pg.prev == "") {
						t.Fatalf("page %d: prev %q (null exactly on the first page)", i, pg.prev)
					}
					for _, k := range pg.keys {
						if seen[k] {
							t.Fatalf("page %d: %s seen twice", i, k)
						}
						seen[k] = true
					}
					forward = append(forward, pg)
					if pg.next == "" {
						break
					}
					cur = pg.next
				}
				if len(seen) != l.total {
					t.Fatalf("forward walk saw %d items, want %d", len(seen), l.total)
				}
				// Walk back from the last page with prev.
				i := len(forward) - 1
				cur = forward[i].prev
				for cur != "" {
					i--
					if i < 0 {
						t.Fatal("prev goes past the first page")
					}
					pg := e.cursorPage(t, path, cur, l.key)
					if strings.Join(pg.keys, ",") != strings.Join(forward[i].keys, ",") {
						t.Fatalf("back at page %d: %v, forward it was %v", i, pg.keys, forward[i].keys)
					}
					if pg.next == "" {
						t.Fatalf("back at page %d: no next", i)
					}
					cur = pg.prev
				}
				if i != 0 {
					t.Fatalf("prev walk stopped at page %d, not the first", i)
				}
			})
		}
	}
}

// checkCursorsAreValidated: a garbled, forged or foreign cursor is a 400.
func checkCursorsAreValidated(t *testing.T, shared *env) {
	e := shared.with(t)
	events := "/beta/nft-events?limit=5&contract_address=" + nftAddr.Hex()
	pg := e.cursorPage(t, events, "", "blockNumber")
	if pg.next == "" {
		t.Fatal("no next cursor")
	}
	body, sig, _ := strings.Cut(pg.next, ".")
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		t.Fatal(err)
	}
	forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"o":5`, `"o":15`, 1))) + "." + sig
	for _, c := range []string{
		"garbage", pg.next + "x", "x" + pg.next, forged, strings.Replace(pg.next, ".", "", 1), ".", body + ".",
		base64.RawURLEncoding.EncodeToString([]byte(`{"k":"nft-events","o":5}`)) + ".AAAAAAAAAAAAAAAAAAAAAA",
	} {
		errorOf(t, e.get(events+"&cursor="+url.QueryEscape(c)), 400, "cursor")
	}
	// A cursor of another list.
	errorOf(t, e.get("/beta/nft-items?limit=5&contract_address="+nftAddr.Hex()+"&cursor="+url.QueryEscape(pg.next)), 400, "cursor")
	// A cursor signed with another key (another deployment).
	other := cursor.New([]byte("another key")).Seal("rest:nft-events", listCursor{Op: "nft-events", Offset: 5})
	errorOf(t, e.get(events+"&cursor="+url.QueryEscape(other)), 400, "cursor")
}
