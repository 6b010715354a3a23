package indexer

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

type contractFacts struct {
	Address  string  `db:"address"`
	Class    string  `db:"class_hash"`
	Type     string  `db:"type"`
	Impl     *string `db:"impl"`
	Deployed *int64  `db:"deployed_block"`
}

func contractsOf(t *testing.T, d *sqlx.DB) map[string]contractFacts {
	t.Helper()
	var rows []contractFacts
	if err := d.Select(&rows, `SELECT encode(address, 'hex') AS address, encode(class_hash, 'hex') AS class_hash, type,
		encode(implementation_address, 'hex') AS impl, deployed_block FROM contracts`); err != nil {
		t.Fatal(err)
	}
	out := map[string]contractFacts{}
	for _, r := range rows {
		out[r.Address] = r
	}
	return out
}

// Indexing from the middle of a chain looks up the contracts deployed before the first
// block, so that what is derived from them matches a full index from genesis.
func TestFromBlockLooksUpContracts(t *testing.T) {
	const from = 40
	chain, url := simNode(t, sim.Config{Seed: 21, Blocks: 80, TxPerBlock: 15})
	head := simHead(chain)
	full := freshIndex(t, url, head)
	mid := dbtest.New(t)
	runIndexer(t, mid, url, from, head, nil)

	want, got := contractsOf(t, full), contractsOf(t, mid)
	lookedUp, proxies := 0, 0
	for addr, g := range got {
		w, ok := want[addr]
		if !ok {
			t.Errorf("contract %s is not in the full index", addr)
			continue
		}
		if g.Class != w.Class || g.Type != w.Type {
			t.Errorf("contract %s: class %s type %s, full index has %s %s", addr, g.Class, g.Type, w.Class, w.Type)
		}
		if (g.Impl == nil) != (w.Impl == nil) || (g.Impl != nil && *g.Impl != *w.Impl) {
			t.Errorf("contract %s: implementation %v, full index has %v", addr, g.Impl, w.Impl)
		}
		if g.Deployed == nil {
			lookedUp++
			if w.Deployed == nil || *w.Deployed >= from {
				t.Errorf("contract %s looked up, but the full index has it deployed at %v", addr, w.Deployed)
			}
		}
		if g.Impl != nil {
			proxies++
		}
	}
	if lookedUp == 0 || proxies == 0 {
		t.Fatalf("%d contracts looked up, %d with an implementation; want some of each", lookedUp, proxies)
	}
	for addr, w := range want {
		if w.Type == "proxy" && w.Impl == nil {
			t.Errorf("proxy %s has no implementation in the full index", addr)
		}
	}

	// Every sender of the indexed range has its row, and its transactions carry its class.
	var orphans []string
	if err := mid.Select(&orphans, `SELECT DISTINCT encode(t.sender_address, 'hex') FROM transactions_named t
		LEFT JOIN contracts c ON c.address = t.sender_address
		WHERE t.type = 'INVOKE' AND t.version > 0 AND (c.address IS NULL OR t.class_hash IS NULL)`); err != nil {
		t.Fatal(err)
	}
	if len(orphans) > 0 {
		t.Errorf("INVOKE senders without a contract row or class_hash: %v", orphans)
	}
	// Transactions and calls of the range are derived as in the full index.
	for _, q := range []string{
		`SELECT (block_number, tx_index, class_hash, partial_calls_parsing)::text FROM transactions_named WHERE block_number >= 40 ORDER BY block_number, tx_index`,
		`SELECT (block_number, tx_index, call_index, entrypoint, class_hash, calldata_offset, calldata_length)::text FROM calls_named WHERE block_number >= 40 ORDER BY block_number, tx_index, call_index`,
	} {
		var a, b []string
		if err := full.Select(&a, q); err != nil {
			t.Fatal(err)
		}
		if err := mid.Select(&b, q); err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("%d rows from the middle, %d from genesis: %s", len(b), len(a), q)
		}
		diff := 0
		for i := range a {
			if a[i] != b[i] {
				if diff++; diff <= 3 {
					t.Errorf("row differs: from genesis %s, from the middle %s", a[i], b[i])
				}
			}
		}
	}
	var named int
	if err := mid.Get(&named, `SELECT count(*) FROM calls_named k JOIN contracts c ON c.address = k.contract_address
		WHERE c.deployed_block IS NULL AND c.type = 'erc20' AND k.entrypoint IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if named == 0 {
		t.Error("no named calls to ERC-20 tokens deployed before the first block")
	}
	checkNoDuplicateCounts(t, mid)
}

// checkNoDuplicateCounts asserts the contract counters match the rows.
func checkNoDuplicateCounts(t *testing.T, d *sqlx.DB) {
	t.Helper()
	var bad []string
	if err := d.Select(&bad, `SELECT l.name FROM list_counts l
		LEFT JOIN (SELECT 'contracts:' || type AS name, count(*) AS n FROM contracts GROUP BY type
		           UNION ALL SELECT 'contracts', count(*) FROM contracts) c USING (name)
		WHERE l.name LIKE 'contracts%' AND l.count <> coalesce(c.n, 0)`); err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("contract counts do not match the rows: %v", bad)
	}
}

// A reorg undoes looked-up contract rows with the block that wrote them.
func TestFromBlockReorg(t *testing.T) {
	const from = 30
	chain, url := simNode(t, sim.Config{Seed: 23, Blocks: 50, TxPerBlock: 10})
	d := dbtest.New(t)
	runIndexer(t, d, url, from, simHead(chain), nil)
	chain.Reorg(12)
	chain.AddBlocks(3)
	head := simHead(chain)
	runIndexer(t, d, url, from, head, nil)

	fresh := dbtest.New(t)
	runIndexer(t, fresh, url, from, head, func(c *Config) { c.MaxReorgDepth = 1 })
	if !equalSnapshots(t, snapshot(t, fresh), snapshot(t, d)) {
		t.Fatal("after a reorg the state differs from a fresh index of the winning chain from the same block")
	}
}

// countingNode serves chain, counting the JSON-RPC calls of each method it is sent.
func countingNode(t *testing.T, chain *sim.Chain) (string, func(method string) int64) {
	t.Helper()
	var mu sync.Mutex
	counts := map[string]int64{}
	inner := chain.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var calls []struct {
			Method string `json:"method"`
		}
		if err := json.Unmarshal(body, &calls); err != nil {
			calls = calls[:0]
			var one struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &one)
			calls = append(calls, one)
		}
		mu.Lock()
		for _, c := range calls {
			counts[c.Method]++
		}
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(method string) int64 {
		mu.Lock()
		defer mu.Unlock()
		return counts[method]
	}
}

// From genesis every contract comes with its deployment: nothing is looked up, and only
// the proxies deployed are asked for their implementation.
func TestFromGenesisLooksNothingUp(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 21, Blocks: 80, TxPerBlock: 15})
	url, count := countingNode(t, chain)
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, simHead(chain), nil)
	if n := count("starknet_getClassHashAt"); n != 0 {
		t.Errorf("%d getClassHashAt calls indexing from genesis, want 0", n)
	}
	var proxies struct {
		With    int64 `db:"with"`
		Without int64 `db:"without"`
	}
	if err := d.Get(&proxies, `SELECT count(c.implementation_address) AS with, count(*) - count(c.implementation_address) AS without
		FROM contracts c JOIN classes k ON k.hash = c.class_hash WHERE k.is_proxy`); err != nil {
		t.Fatal(err)
	}
	if proxies.With == 0 || proxies.Without != 0 {
		t.Fatalf("%d proxies with an implementation, %d without", proxies.With, proxies.Without)
	}
	// Three selectors are tried per proxy, in one batch.
	if n := count("starknet_call"); n < 3*proxies.With {
		t.Errorf("%d starknet_call calls for %d proxies", n, proxies.With)
	}
}

// replacingNode serves chain, adding to the state diff of block at the class replacements
// given (contract address -> new class hash, both 0x hex).
func replacingNode(t *testing.T, chain *sim.Chain, at uint64, replace map[string]string) string {
	t.Helper()
	inner := chain.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type request struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		var reqs []request
		if json.Unmarshal(body, &reqs) != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			inner.ServeHTTP(w, r)
			return
		}
		target := map[string]bool{} // ids of getStateUpdate calls for block at
		for _, q := range reqs {
			var p struct {
				BlockID struct {
					Number *uint64 `json:"block_number"`
				} `json:"block_id"`
			}
			if q.Method == "starknet_getStateUpdate" && json.Unmarshal(q.Params, &p) == nil && p.BlockID.Number != nil && *p.BlockID.Number == at {
				target[string(q.ID)] = true
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.Header.Del("Accept-Encoding")
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		var resps []map[string]json.RawMessage
		if len(target) == 0 || json.Unmarshal(rec.Body.Bytes(), &resps) != nil {
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		for _, resp := range resps {
			if !target[string(resp["id"])] || resp["result"] == nil {
				continue
			}
			var su map[string]any
			if err := json.Unmarshal(resp["result"], &su); err != nil {
				t.Errorf("state update: %v", err)
				continue
			}
			diff := su["state_diff"].(map[string]any)
			var replaced []any
			for addr, class := range replace {
				replaced = append(replaced, map[string]any{"contract_address": addr, "class_hash": class})
			}
			diff["replaced_classes"] = replaced
			resp["result"], _ = json.Marshal(su)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resps)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A replaced class reads the implementation again: a proxy upgraded to another proxy class
// gets it, a proxy replaced by a token's class loses it.
func TestReplacedClassReadsImplementation(t *testing.T) {
	const at = 30
	chain := sim.New(sim.Config{Seed: 21, Blocks: 50, TxPerBlock: 10})
	plain := httptest.NewServer(chain.Handler())
	t.Cleanup(plain.Close)
	head := simHead(chain)
	first := dbtest.New(t)
	runIndexer(t, first, plain.URL, 0, head, nil)
	var proxies []string
	if err := first.Select(&proxies, `SELECT '0x' || encode(address, 'hex') FROM contracts
		WHERE type = 'proxy' AND deployed_block < $1 ORDER BY address LIMIT 2`, at); err != nil {
		t.Fatal(err)
	}
	var proxyClass, tokenClass string
	if err := first.Get(&proxyClass, `SELECT '0x' || encode(class_hash, 'hex') FROM contracts WHERE type = 'proxy' LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if err := first.Get(&tokenClass, `SELECT '0x' || encode(class_hash, 'hex') FROM contracts WHERE type = 'erc20' LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if len(proxies) != 2 {
		t.Fatalf("want 2 proxies deployed before block %d, have %d", at, len(proxies))
	}
	upgraded, replaced := proxies[0], proxies[1]
	url := replacingNode(t, chain, at, map[string]string{upgraded: proxyClass, replaced: tokenClass})

	for _, tc := range []struct {
		name string
		from int64
	}{{"genesis", 0}, {"from-block", at - 5}} {
		t.Run(tc.name, func(t *testing.T) {
			d := dbtest.New(t)
			runIndexer(t, d, url, tc.from, head, nil)
			var rows []struct {
				Address string  `db:"address"`
				Type    string  `db:"type"`
				Impl    *string `db:"impl"`
				Updated *int64  `db:"class_updated_block"`
			}
			if err := d.Select(&rows, `SELECT '0x' || encode(address, 'hex') AS address, type, encode(implementation_address, 'hex') AS impl,
				class_updated_block FROM contracts WHERE address IN (decode($1, 'hex'), decode($2, 'hex'))`,
				upgraded[2:], replaced[2:]); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 {
				t.Fatalf("%d rows for the two replaced contracts", len(rows))
			}
			for _, r := range rows {
				if r.Updated == nil || *r.Updated != at {
					t.Errorf("%s: class_updated_block %v, want %d", r.Address, r.Updated, at)
				}
				switch r.Address {
				case upgraded:
					if r.Type != "proxy" || r.Impl == nil {
						t.Errorf("upgraded proxy %s: type %s, implementation %v", r.Address, r.Type, r.Impl)
					}
				case replaced:
					if r.Type != "erc20" || r.Impl != nil {
						if r.Impl == nil {
							r.Impl = new(string)
						}
						t.Errorf("proxy %s replaced by a token: type %s, implementation %s", r.Address, r.Type, *r.Impl)
					}
				}
			}
			checkNoDuplicateCounts(t, d)
		})
	}
}

// Looked-up contracts get their nonce from the node: here a proxy in front of the
// simulator answers every starknet_getNonce with 7.
func TestLookedUpNonces(t *testing.T) {
	const from = 40
	chain := sim.New(sim.Config{Seed: 21, Blocks: 60, TxPerBlock: 10})
	inner := chain.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var reqs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &reqs) == nil && len(reqs) > 0 && reqs[0].Method == "starknet_getNonce" {
			out := make([]map[string]any, len(reqs))
			for i, q := range reqs {
				out[i] = map[string]any{"jsonrpc": "2.0", "id": q.ID, "result": "0x7"}
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(out)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	d := dbtest.New(t)
	runIndexer(t, d, srv.URL, from, simHead(chain), nil)
	var c struct {
		LookedUp  int64 `db:"looked_up"`
		Untouched int64 `db:"untouched"`
		Seven     int64 `db:"seven"`
		Changed   int64 `db:"changed"`
	}
	// A contract's nonce changes with the transactions it sends: those that sent none keep
	// the node's answer.
	if err := d.Get(&c, `WITH l AS (SELECT address, nonce FROM contracts WHERE deployed_block IS NULL),
		sent AS (SELECT DISTINCT sender_address AS address FROM transactions_named WHERE sender_address IS NOT NULL)
		SELECT (SELECT count(*) FROM l) AS looked_up,
			(SELECT count(*) FROM l WHERE address NOT IN (SELECT address FROM sent)) AS untouched,
			(SELECT count(*) FROM l WHERE address NOT IN (SELECT address FROM sent) AND nonce = 7) AS seven,
			(SELECT count(*) FROM l WHERE address IN (SELECT address FROM sent)) AS changed`); err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", c)
	if c.LookedUp == 0 || c.Untouched == 0 || c.Untouched != c.Seven {
		t.Fatalf("looked-up contracts and their nonces: %+v", c)
	}
}
