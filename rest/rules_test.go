package rest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
)

// checkBadInputAndMissingThings checks every 400 and 404 rule: the status, and an error
// text that names the parameter.
func checkBadInputAndMissingThings(t *testing.T, shared *env) {
	e := shared.with(t)
	nft, acct, eth, strk := nftAddr.Hex(), account(0).Hex(), ethAddr.Hex(), strkAddr.Hex()
	cases := []struct {
		path   string
		status int
		names  string
	}{
		{"/beta/tokens?ps=7", 400, "ps"},
		{"/beta/tokens?ps=ten", 400, "ps"},
		{"/beta/tokens?p=0", 400, "p"},
		{"/beta/tokens?p=-3", 400, "p"},
		{"/beta/tokens?p=1e3", 400, "p"},
		{"/beta/tokens?type=erc999", 400, "type"},
		{"/beta/tokens?attribute=price", 400, "attribute"},
		{"/beta/tokens/0x1234/holders/overview", 404, "address"},
		{"/beta/tokens/" + strk + "/holders/overview", 404, "verified ERC-20"}, // not verified
		{"/beta/tokens/" + nft + "/holders/overview", 404, "verified ERC-20"},  // not ERC-20
		{"/beta/tokens/0xg/holders/overview", 400, "address"},
		{"/beta/tokens/0x1234/holders", 404, "address"},
		{"/beta/nft-items", 400, "contract_address"},
		{"/beta/nft-items?contract_address=", 400, "contract_address"},
		{"/beta/nft-items?contract_address=0x1234", 404, "contract_address"},
		{"/beta/nft-items?contract_address=" + nft + "&owner_address=xyz", 400, "owner_address"},
		{"/beta/nft-items?contract_address=" + nft + "&cursor=garbage", 400, "cursor"},
		{"/beta/nft-items?contract_address=" + nft + "&limit=0", 400, "limit"},
		{"/beta/nft-items?contract_address=" + nft + "&limit=101", 400, "limit"},
		{"/beta/nft-events", 400, "contract_address"},
		{"/beta/nft-events?contract_address=" + nft + "&token_id=abc", 400, "token_id"},
		{"/beta/nft-events?contract_address=" + nft + "&token_id=-1", 400, "token_id"},
		{"/beta/nft-contract-balance", 400, "owner_address"},
		{"/beta/nft-contract-balance?owner_address=" + acct + "&contract_address=0x", 400, "contract_address"},
		{"/beta/nft-holders", 400, "contract_address"},
		{"/beta/nft-holders?contract_address=0x1234", 404, "contract_address"},
		{"/beta/nft-holders?contract_address=" + nft + "&ps=11", 400, "ps"},
		{"/beta/tx-activity?from_block=1", 400, "from_block"},
		{"/beta/tx-activity?from_block=-1&sender_address=" + acct, 400, "from_block"},
		{"/beta/tx-activity?sort=up", 400, "sort"},
		{"/beta/staking/wallet-info", 400, "address"},
		{"/beta/staking/wallet-info?address=0x" + strings.Repeat("f", 64), 400, "address"}, // above the prime
		{"/beta/staking/wallet-info/stake-over-time", 400, "address"},
		{"/beta/staking/wallet-info/stake-over-time?address=" + acct + "&timerange=2w", 400, "timerange"},
		{"/beta/meta-txns", 400, "to"},
		{"/beta/contracts/0x" + strings.Repeat("0", 65) + "1", 400, "contractAddress"}, // 66 digits: the pattern allows it, a felt does not
		{"/beta/contracts/1234", 400, "contractAddress"},
		{"/beta/contracts/0x1234", 404, "contractAddress"},
		{"/beta/contracts?type=wallet", 400, "type"},
		{"/beta/contracts/0x1234/erc20-tokens-held", 404, "contractAddress"},
		{"/beta/blocks?ps=0", 400, "ps"},
		{"/beta/blocks/abc", 400, "blockHash"},
		{"/beta/blocks/999", 404, "blockHash"},
		{"/beta/blocks/pre_confirmed", 404, "blockHash"}, // the test chain has no pending block
		{"/beta/classes?p=x", 400, "p"},
		{"/beta/classes/0x999", 404, "classHash"},
		{"/beta/classes/0x999/contracts", 404, "classHash"},
		{"/beta/classes/verified?ps=1000", 400, "ps"},
		{"/beta/txns/0x999", 404, "txnHash"},
		{"/beta/txns?type=9", 400, "type"},
		{"/beta/txns?block=999", 404, "block"},
		{"/beta/txns?block=0xzz", 400, "block"},
		{"/beta/events?contract=" + eth + "&txnHash=0x2", 400, "contract"},
		{"/beta/events?txnHash=0x999", 404, "txnHash"},
		{"/beta/class-verify/job/not-a-uuid", 400, "job"},
		{"/beta/class-verify/job/" + unknownJob, 404, "job"},
		{"/beta/class-verify/check/0x999", 404, "hash"},
		// An empty address is an error, not "no filter".
		{"/beta/nft-items?contract_address=", 400, "contract_address: empty"},
		{"/beta/nft-items?contract_address=" + eth + "&owner_address=", 400, "owner_address: empty"},
		{"/beta/tx-activity?sender_address=", 400, "sender_address: empty"},
		{"/beta/txns?to=", 400, "to: empty"},
		{"/beta/events?contract=", 400, "contract: empty"},
		{"/beta/nft-contract-balance?owner_address=", 400, "owner_address: empty"},
		{"/beta/staking/wallet-info/stake-over-time?address=", 400, "address: empty"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			e := e.with(t)
			errorOf(t, e.get(c.path), c.status, c.names)
		})
	}
}

// checkAcceptedVariants checks inputs that must be accepted: enum values in any case,
// unknown parameters, empty optional parameters, the reference's default cursor.
func checkAcceptedVariants(t *testing.T, shared *env) {
	e := shared.with(t)
	for _, path := range []string{
		"/beta/tokens?type=ERC721&attribute=Market_Cap",
		"/beta/contracts?type=ACCOUNT",
		"/beta/contracts?type=Null",
		"/beta/contracts?type=",
		"/beta/blocks?utm_source=x&ps=10&unknown[]=1",
		"/beta/tx-activity?sort=DESC&from_block=3&sender_address=" + account(1).Hex(),
		"/beta/nft-events?contract_address=" + nftAddr.Hex() + "&cursor=ffffffffffffffffffffff",
		"/beta/nft-events?contract_address=" + nftAddr.Hex() + "&token_id=0x1f",
		"/beta/txns?type=null&rejected=false",
		"/beta/blocks/0xB10C005",
	} {
		if r := e.get(path); r.status != http.StatusOK {
			t.Errorf("GET %s: status %d: %s", path, r.status, r.raw)
		}
	}
	// Filters do filter.
	items := list(t, obj(t, e.mustGet("/beta/contracts?type=ACCOUNT"))["items"])
	if len(items) != nAccounts {
		t.Errorf("contracts?type=ACCOUNT: %d items, want %d", len(items), nAccounts)
	}
	for _, it := range items {
		if obj(t, it)["isAccount"] != true {
			t.Errorf("non-account in type=account: %v", it)
		}
	}
	items = list(t, obj(t, e.mustGet("/beta/tokens?type=erc721"))["items"])
	if len(items) != 1 || obj(t, items[0])["type"] != "erc721" {
		t.Errorf("tokens?type=erc721: %v", items)
	}
	acts := list(t, obj(t, e.mustGet("/beta/tx-activity?sort=desc&from_block=20&sender_address="+account(1).Hex()))["items"])
	if len(acts) == 0 {
		t.Fatal("tx-activity from_block=20: no items")
	}
	prev := 1 << 30
	for _, a := range acts {
		m := obj(t, a)
		n := int(m["block_number"].(float64))
		if n < 20 || n > prev || m["sender_address"] != account(1).Padded() {
			t.Errorf("tx-activity item out of filter or order: block %d after %d, sender %v", n, prev, m["sender_address"])
		}
		prev = n
	}
	// The default sort is ascending.
	acts = list(t, obj(t, e.mustGet("/beta/tx-activity?sender_address="+account(1).Hex()))["items"])
	if len(acts) < 2 || obj(t, acts[0])["block_number"].(float64) > obj(t, acts[1])["block_number"].(float64) {
		t.Errorf("tx-activity default order is not ascending")
	}
	if b := obj(t, e.mustGet("/beta/blocks/0xB10C005")); b["blockNumber"] != float64(5) {
		t.Errorf("block by hash: %v", b)
	}
}

// TestHoldersOverviewComputedBeforeTheFirstPass: a verified ERC-20 without a snapshot (the
// periodic pass has not run yet) gets one computed on demand: 200 with its overview, never
// a 404 or a null.
func TestHoldersOverviewComputedBeforeTheFirstPass(t *testing.T) {
	e := newEnv(t)
	if _, err := e.db.Exec(`UPDATE tokens SET verified = true WHERE address = $1`, strkAddr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Exec(`DELETE FROM holders_snapshots WHERE token_address = $1`, strkAddr); err != nil {
		t.Fatal(err)
	}
	r := e.get("/beta/tokens/" + strkAddr.Hex() + "/holders/overview")
	var body struct {
		Overview *struct {
			TokenAddress string `json:"tokenAddress"`
			HolderCount  int64  `json:"holderCount"`
		} `json:"overview"`
	}
	if r.status != http.StatusOK || json.Unmarshal(r.raw, &body) != nil || body.Overview == nil ||
		body.Overview.TokenAddress != strkAddr.Padded() || body.Overview.HolderCount == 0 {
		t.Fatalf("status %d, body %s; want 200 with a computed overview", r.status, r.raw)
	}
}

// checkAddressesAreNormalised: unpadded, padded and upper-case forms find the same thing.
func checkAddressesAreNormalised(t *testing.T, shared *env) {
	e := shared.with(t)
	short := "0x4d0" + strings.Repeat("0", 59) + "1"
	forms := []string{short, "0x04D0" + strings.Repeat("0", 59) + "1", "0X" + strings.ToUpper(short[2:])}
	var first string
	for _, f := range forms {
		r := e.get("/beta/contracts/" + f)
		if r.status != http.StatusOK {
			t.Fatalf("GET /beta/contracts/%s: %d %s", f, r.status, r.raw)
		}
		if first == "" {
			first = string(r.raw)
		} else if string(r.raw) != first {
			t.Errorf("%s answers differently:\n%s\n%s", f, r.raw, first)
		}
	}
	if got := obj(t, e.mustGet("/beta/contracts/"+short))["address"]; got != account(0).Padded() {
		t.Errorf("address rendered %v, want %s", got, account(0).Padded())
	}
	a := e.mustGet("/beta/tokens/0x49D36570D4E46F48E99674BD3FCC84644DDD6B96F7C741B1562B82F9E004DC7/holders/overview")
	b := e.mustGet("/beta/tokens/" + ethAddr.Padded() + "/holders/overview")
	if obj(t, obj(t, a)["overview"])["tokenAddress"] != obj(t, obj(t, b)["overview"])["tokenAddress"] {
		t.Error("token forms differ")
	}
}

// checkStakeOverTimeRanges: every timerange of the reference is accepted and narrows the
// points (the seed has points on the head block's day, 20 and 40 days before).
func checkStakeOverTimeRanges(t *testing.T, shared *env) {
	e := shared.with(t)
	want := map[string]int{"1w": 1, "1m": 2, "3m": 3, "6m": 3, "1y": 3, "max": 3, "": 2, "1M": 2}
	for tr, n := range want {
		path := "/beta/staking/wallet-info/stake-over-time?address=" + account(0).Hex()
		if tr != "" {
			path += "&timerange=" + tr
		}
		points := list(t, e.mustGet(path))
		if len(points) != n {
			t.Errorf("timerange=%q: %d points, want %d", tr, len(points), n)
		}
	}
}

// checkUnknownPathsAndMethods: 404 and 405 with JSON error bodies.
func checkUnknownPathsAndMethods(t *testing.T, shared *env) {
	e := shared.with(t)
	for _, path := range []string{"/beta/nope", "/beta", "/beta/", "/beta/tokens/", "/beta/contracts/0x1/unknown"} {
		errorOf(t, e.get(path), http.StatusNotFound, "no operation")
	}
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodPost, "/beta/tokens", "GET"},
		{http.MethodDelete, "/beta/blocks", "GET"},
		{http.MethodGet, "/beta/class-verify/0x1", "POST"},
		{http.MethodPut, "/beta/contracts/0x1", "GET"},
	} {
		req, _ := http.NewRequest(c.method, e.url+c.path, nil)
		r := e.do(req)
		errorOf(t, r, http.StatusMethodNotAllowed, "not allowed")
		if r.header.Get("Allow") != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, r.header.Get("Allow"), c.allow)
		}
	}
}

// checkAPIStatus: the seeded indexer state is current and at the node's head.
func checkAPIStatus(t *testing.T, shared *env) {
	e := shared.with(t)
	body := obj(t, e.mustGet("/beta/api-status"))
	apis := obj(t, body["apis"])
	for _, name := range []string{"rest", "graphql"} {
		st := obj(t, apis[name])
		if st["status"] != "ok" || st["lagBlocks"] != float64(0) || st["headBlock"] != float64(nBlocks) {
			t.Errorf("%s: %v, want ok at block %d", name, st, nBlocks)
		}
	}
}

// checkMetaTransactions: the account's three outside executions, newest first, named by
// the outside-execution call and listing the calls it ran.
func checkMetaTransactions(t *testing.T, shared *env) {
	e := shared.with(t)
	body := obj(t, e.mustGet("/beta/meta-txns?to="+account(0).Hex()))
	items := list(t, body["items"])
	if len(items) != 3 || body["lastPage"] != float64(1) {
		t.Fatalf("%d items, lastPage %v; want 3 and 1", len(items), body["lastPage"])
	}
	for i, it := range items {
		m := obj(t, it)
		if m["blockNumber"] != float64(7-i) || m["contractAddress"] != account(0).Padded() ||
			m["name"] != "execute_from_outside_v3" || m["operations"] != "execute_from_outside_v3,claim_reward_token" ||
			m["selector"] != outsideSel.Hex() || m["classAlias"] != "Ready" || m["l1VerificationHash"] != "" {
			t.Errorf("item %d: %v", i, m)
		}
	}
	if items := list(t, obj(t, e.mustGet("/beta/meta-txns?to="+account(1).Hex()))["items"]); len(items) != 0 {
		t.Errorf("another account has %d meta-transactions", len(items))
	}
}

// checkValues spot-checks that values, not only shapes, come through from the store.
func checkValues(t *testing.T, shared *env) {
	e := shared.with(t)
	at := func(v any, path ...any) any {
		t.Helper()
		for _, p := range path {
			switch k := p.(type) {
			case string:
				v = obj(t, v)[k]
			case int:
				v = list(t, v)[k]
			}
		}
		return v
	}
	expect := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	tokens := e.mustGet("/beta/tokens")
	expect("first token by holders", at(tokens, "items", 0, "symbol"), "ETH")
	expect("its holders", at(tokens, "items", 0, "holders"), "4494104")
	expect("its decimals", at(tokens, "items", 0, "decimals"), "18")

	act := e.mustGet("/beta/tx-activity?ps=10&sender_address=" + account(1).Hex())
	call := at(act, "items", 0, "calls", 0)
	expect("decoded amount", at(call, "inputs", "amount", "low"), "48912831549305")
	expect("entrypoint", at(call, "entrypoint"), "transfer")
	expect("output", at(call, "outputs", "0"), true)
	expect("actual fee in hex", at(act, "items", 0, "actual_fee"), "0x2c7c67f30f79")
	expect("fee unit", at(act, "items", 0, "actual_fee_unit"), "ETH")
	expect("version", at(act, "items", 0, "version"), "0x1")
	expect("class alias", at(act, "items", 0, "class_alias"), "Ready")

	c := e.mustGet("/beta/contracts/" + account(0).Hex())
	expect("nonce", at(c, "nonce"), float64(100))
	expect("verifiedTimestamp", at(c, "verifiedTimestamp"), float64(1728474285))
	expect("version", at(c, "version"), "2.6.3")
	expect("blockHash", at(c, "blockHash"), blockHash(3).Hex())
	held := list(t, e.mustGet("/beta/contracts/"+account(0).Hex()+"/erc20-tokens-held"))
	expect("tokens held", len(held), 2)

	ov := e.mustGet("/beta/tokens/" + ethAddr.Hex() + "/holders/overview")
	expect("holderCount", at(ov, "overview", "holderCount"), float64(5))
	expect("top_1_5", at(ov, "overview", "concentrationBuckets", "top_1_5"), float64(100))
	expect("tier", at(ov, "overview", "tierDistribution", 0, "tier"), "whale")

	w := e.mustGet("/beta/staking/wallet-info?address=" + account(0).Hex())
	expect("totalStakedStrk", at(w, "overview", "totalStakedStrk"), "5000000000000000000000")
	expect("formatted amount", at(w, "staked", 0, "formattedTotalAmount"), "5000")
	expect("pool", at(w, "staked", 0, "validatorRowInfo", "poolInfos", 0, "poolContract"), poolAddr.Padded())
	expect("validator", at(w, "staked", 0, "validatorRowInfo", "name"), "Duck Staking")
	expect("liveness", at(w, "staked", 0, "validatorRowInfo", "liveness"), float64(90))

	so := e.mustGet("/beta/staking/overview")
	expect("strk symbol", at(so, "overview", "tokenInfoStrk", "symbol"), "STRK")
	expect("epoch", at(so, "overview", "epochData", "nextId"), float64(3941))
	expect("lastUpdated", at(so, "lastUpdated"), float64(1758543761802))

	st := e.mustGet("/beta/stats")
	expect("blocksCount", at(st, "blocksCount"), "30")
	expect("maxRecordedTps", at(st, "maxRecordedTps"), "992")
	expect("tvl", at(st, "totalTvl", "value"), "0") // nothing priced is staked
	expect("tpsAtBlockHash", at(st, "tpsAtBlockHash"), blockHash(7).Hex())

	ev := e.mustGet("/beta/nft-events?limit=1&contract_address=" + nftAddr.Hex())
	expect("newest event", at(ev, "items", 0, "blockNumber"), float64(nNftItems))
	expect("event type", at(ev, "items", 0, "type"), "Mint")
	expect("item name on the event", at(ev, "items", 0, "name"), "Duck #30")
	item := e.mustGet("/beta/nft-items?limit=1&contract_address=" + nftAddr.Hex() + "&owner_address=" + account(2).Hex())
	expect("owner filter", at(item, "items", 0, "ownerAddress"), account(2).Padded())
	expect("balance record", at(item, "items", 0, "balance", "balance"), float64(1))

	job := e.mustGet("/beta/class-verify/job/" + jobID)
	expect("job status", at(job, "status"), float64(4))
	expect("job class", at(job, "class_hash"), accountClass.Padded())
}

// A class's transactionHash is its declaring transaction's, or null for a class met only
// through a deployment; never "".
func TestClassTransactionHash(t *testing.T) {
	e := newEnv(t)
	undeclared := "0x" + strings.Repeat("c", 10)
	if _, err := e.db.Exec(`INSERT INTO classes (hash, kind, cairo_version, version) VALUES ($1, 'sierra', 1, '0.1.0')`,
		db.MustFelt(undeclared)); err != nil {
		t.Fatal(err)
	}
	declared := obj(t, e.mustGet("/beta/classes/"+accountClass.Hex()))
	if declared["transactionHash"] != txHash(1, 0).Hex() {
		t.Errorf("declared class: transactionHash %v, want %s", declared["transactionHash"], txHash(1, 0).Hex())
	}
	if got := obj(t, e.mustGet("/beta/classes/"+undeclared)); got["transactionHash"] != nil {
		t.Errorf("undeclared class: transactionHash %v, want null", got["transactionHash"])
	}
	for _, item := range obj(t, e.mustGet("/beta/classes?ps=100"))["items"].([]any) {
		if h := obj(t, item)["transactionHash"]; h == "" {
			t.Errorf("a listed class has transactionHash \"\": %v", item)
		}
	}
}
