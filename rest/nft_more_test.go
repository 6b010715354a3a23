package rest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestNftCollectionItemBalancesAndTransfers(t *testing.T) {
	e := newEnv(t)
	nft := nftAddr.Hex()

	// Balance records: three pages of ten, by token id; one item's record.
	var ids []string
	for p := 1; p <= 3; p++ {
		body := e.mustGet(fmt.Sprintf("/beta/nft-balances?contract_address=%s&ps=10&p=%d", nft, p)).(map[string]any)
		// Page numbers in, the NFT cursor envelope out: next is the page after, until the last.
		if pg := body["pagination"].(map[string]any); pg["count"] != float64(nNftItems) || (pg["next"] == nil) != (p == 3) || body["lastPage"] != nil {
			t.Errorf("page %d: pagination %v (lastPage %v)", p, pg, body["lastPage"])
		}
		for _, it := range body["items"].([]any) {
			b := it.(map[string]any)
			ids = append(ids, b["tokenId"].(string))
			if id := b["tokenId"].(string); b["ownerAddress"] != account(atoi(t, id)%nAccounts).Padded() || b["balance"] != 1.0 {
				t.Errorf("record of item %s: %v", id, b)
			}
		}
	}
	want := make([]string, nNftItems)
	for i := range want {
		want[i] = fmt.Sprint(i + 1)
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("balance records by token id: %v", ids)
	}
	if one := e.mustGet("/beta/nft-balances?contract_address=" + nft + "&token_id=0x7").(map[string]any)["items"].([]any); len(one) != 1 || one[0].(map[string]any)["tokenId"] != "7" {
		t.Errorf("item 7's record: %v", one)
	}
	// The aliases of a page's collections and owners are read in one statement: the
	// collection, the page, its total and the aliases.
	e.exec(`INSERT INTO aliases (address, name) VALUES ($1, 'Owner 1')`, account(1))
	before := e.store.Statements()
	records := e.mustGet("/beta/nft-balances?contract_address=" + nft + "&ps=10").(map[string]any)["items"].([]any)
	if n := e.store.Statements() - before; n != 4 {
		t.Errorf("a page of NFT balances took %d statements, want 4", n)
	}
	for _, it := range records {
		if b := it.(map[string]any); (b["ownerAddressAlias"] == "Owner 1") != (b["ownerAddress"] == account(1).Padded()) {
			t.Errorf("owner alias of %v", b)
		}
	}
	// Windows of events and of items read their links once for the window, the aliases of
	// both sides of an event or of an item's collection and owner in one statement.
	for path, want := range map[string]int64{
		"/beta/nft-events?limit=25&contract_address=" + nft:            4, // window, total, aliases, items
		"/beta/nft-items?limit=25&contract_address=" + nft:             5, // collection, window, total, balances, aliases
		"/beta/nft/" + nft + "/7":                                      6, // item, balance, aliases, events, total, their aliases
		"/beta/nft-holders?contract_address=" + nft:                    4, // collection, holders, total, aliases
		"/beta/nft-contract-balance?owner_address=" + account(2).Hex(): 4, // window, total, items, collections
	} {
		before := e.store.Statements()
		e.mustGet(path)
		if n := e.store.Statements() - before; n != want {
			t.Errorf("%s took %d statements, want %d", path, n, want)
		}
	}

	// Transfers: the 30 mints, newest first, walked 10 at a time by cursor; none as ERC-1155.
	var minted []string
	cursor := ""
	for i := 0; i < 5; i++ {
		body := e.mustGet("/beta/nft-transfers?limit=10&contract_address=" + nft + cursor).(map[string]any)
		for _, it := range body["items"].([]any) {
			minted = append(minted, it.(map[string]any)["tokenId"].(string))
			if q := it.(map[string]any)["quantity"]; q != "1" { // NftTransfer's quantity is a string
				t.Errorf("transfer quantity %#v, want \"1\"", q)
			}
		}
		next, _ := body["pagination"].(map[string]any)["next"].(string)
		if next == "" {
			break
		}
		cursor = "&cursor=" + next
	}
	for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
		want[i], want[j] = want[j], want[i]
	}
	if strings.Join(minted, ",") != strings.Join(want, ",") {
		t.Errorf("transfers newest first: %v", minted)
	}
	if items := e.mustGet("/beta/nft-transfers?type=erc1155&contract_address=" + nft).(map[string]any)["items"].([]any); len(items) != 0 {
		t.Errorf("an ERC-721 collection's transfers as ERC-1155: %d", len(items))
	}

	// A transaction's NFT transfers: the mint of item 7 in block 7's first transaction, none
	// in its second; as NftTransfer items, with their item's name.
	sent := e.mustGet("/beta/txns/" + txHash(7, 0).Hex()).(map[string]any)["nftTransferred"].([]any)
	if len(sent) != 1 {
		t.Fatalf("nftTransferred of the mint: %v", sent)
	}
	if m := sent[0].(map[string]any); m["tokenId"] != "7" || m["quantity"] != "1" || m["type"] != "Mint" || m["name"] != "Duck #7" ||
		m["toAddress"] != account(7%nAccounts).Padded() || m["nftContractAddress"] != nftAddr.Padded() || m["transactionHash"] != txHash(7, 0).Hex() {
		t.Errorf("the mint of item 7: %v", m)
	}
	if none := e.mustGet("/beta/txns/" + txHash(7, 1).Hex()).(map[string]any)["nftTransferred"]; none == nil || len(none.([]any)) != 0 {
		t.Errorf("nftTransferred of a transaction without NFTs: %#v", none)
	}
	// Their aliases and items are read for all of them at once: three transfers to three
	// owners cost what one costs.
	before = e.store.Statements()
	e.mustGet("/beta/txns/" + txHash(7, 0).Hex())
	one := e.store.Statements() - before
	for i, id := range []int{8, 9} {
		e.exec(`INSERT INTO nft_events (block_number, tx_index, event_index, contract_address, token_id, from_address, to_address, type, transaction_hash, timestamp, quantity)
			VALUES (7, 0, $1, $2, $3, $4, $5, 'Transfer', $6, $7, 1)`, 2+i, nftAddr, id, account(id%nAccounts), account((id+1)%nAccounts), txHash(7, 0), baseTime+70)
	}
	before = e.store.Statements()
	three := e.mustGet("/beta/txns/" + txHash(7, 0).Hex()).(map[string]any)["nftTransferred"].([]any)
	if n := e.store.Statements() - before; n != one || len(three) != 3 || three[2].(map[string]any)["name"] != "Duck #9" {
		t.Errorf("a transaction's 3 NFT transfers took %d statements, 1 took %d: %v", n, one, three)
	}

	// The collection with a page of its items, and the next page by cursor.
	c := e.mustGet("/beta/nft-contract/" + nft + "?limit=5").(map[string]any)
	if c["name"] != "Ducks" || c["symbol"] != "DUCK" || c["standard"] != "erc721" || c["holders"] != 5.0 || c["transfers"] != 30.0 || c["address"] != nftAddr.Padded() {
		t.Errorf("collection: %v", c)
	}
	page := c["items"].(map[string]any)
	next := page["pagination"].(map[string]any)["next"].(string)
	second := e.mustGet("/beta/nft-contract/" + nft + "?limit=5&cursor=" + next).(map[string]any)["items"].(map[string]any)["items"].([]any)
	if len(page["items"].([]any)) != 5 || len(second) != 5 || second[0].(map[string]any)["tokenId"] == page["items"].([]any)[0].(map[string]any)["tokenId"] {
		t.Errorf("item pages: %v then %v", page["items"], second)
	}

	// An item with its events, by decimal or hex id.
	for _, id := range []string{"7", "0x7"} {
		it := e.mustGet("/beta/nft/" + nft + "/" + id).(map[string]any)
		events := it["events"].(map[string]any)["items"].([]any)
		if it["name"] != "Duck #7" || it["ownerAddress"] != account(7%nAccounts).Padded() || len(events) != 1 || events[0].(map[string]any)["type"] != "Mint" {
			t.Errorf("item %s: %v", id, it)
		}
	}

	e.expectRefusals(t, []refusal{
		{"/beta/nft-balances", 400, "contract_address"},
		{"/beta/nft-balances?contract_address=0x1234", 404, "contract_address"},
		{"/beta/nft-balances?contract_address=" + nft + "&token_id=x", 400, "token_id"},
		{"/beta/nft-transfers?contract_address=0x1234", 404, "contract_address"},
		{"/beta/nft-transfers?contract_address=" + nft + "&type=erc20", 400, "type"},
		{"/beta/nft-transfers?contract_address=" + nft + "&limit=0", 400, "limit"},
		{"/beta/nft-contract/0x1234", 404, "contract_address"},
		{"/beta/nft-contract/" + ethAddr.Hex(), 404, "contract_address"},
		{"/beta/nft-contract/" + nft + "?cursor=junk", 400, "cursor"},
		{"/beta/nft/" + nft + "/99", 404, "token_id"},
		{"/beta/nft/" + nft + "/x", 400, "token_id"},
		{"/beta/nft/0xzz/1", 400, "contract_address"},
	})
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNftMetadataUpdate: a refresh is queued once per interval per item, for items that
// exist; the GraphQL mutation is the same queue.
func TestNftMetadataUpdate(t *testing.T) {
	e := newEnv(t)
	post := func(path string) response {
		t.Helper()
		return e.post(t, path, "application/json", nil)
	}
	path := "/beta/nft/update-metadata/" + nftAddr.Hex() + "/0x3"
	if r := post(path); r.status != http.StatusOK || strings.TrimSpace(string(r.raw)) != `{"success":true}` {
		t.Fatalf("first request: %d %s", r.status, r.raw)
	}
	var queued []string
	if err := e.db.Select(&queued, `SELECT token_id::text || ' ' || state FROM nft_metadata_requests WHERE contract_address = $1`, nftAddr); err != nil {
		t.Fatal(err)
	}
	if len(queued) != 1 || queued[0] != "3 queued" {
		t.Errorf("queue %v, want item 3 queued", queued)
	}
	if r := post(path); r.status != http.StatusOK || !strings.Contains(string(r.raw), `"success":false`) {
		t.Errorf("a second request within five minutes: %d %s", r.status, r.raw)
	}
	// Once the interval has passed, the item may be refreshed again.
	if _, err := e.db.Exec(`UPDATE nft_metadata_requests SET requested_at = now() - interval '6 minutes', state = 'done'`); err != nil {
		t.Fatal(err)
	}
	if r := post("/beta/nft/update-metadata/" + nftAddr.Hex() + "/3"); !strings.Contains(string(r.raw), `"success":true`) {
		t.Errorf("after the interval: %d %s", r.status, r.raw)
	}
	for _, c := range []struct {
		path   string
		status int
		names  string
	}{
		{"/beta/nft/update-metadata/" + nftAddr.Hex() + "/999", 404, "token_id"},
		{"/beta/nft/update-metadata/0x1234/3", 404, "token_id"},
		{"/beta/nft/update-metadata/" + nftAddr.Hex() + "/-1", 400, "token_id"},
		{"/beta/nft/update-metadata/0xzz/3", 400, "contract_address"},
	} {
		if r := post(c.path); r.status != c.status || !strings.Contains(string(r.raw), c.names) {
			t.Errorf("%s: %d %s, want %d naming %s", c.path, r.status, r.raw, c.status, c.names)
		}
	}
	if r := e.get(path); r.status != http.StatusMethodNotAllowed && r.status != http.StatusNotFound {
		t.Errorf("GET of the POST operation: %d", r.status)
	}
}
