package resolvers_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/replay"
)

// Real transactions (INVOKE v1 and v3, DECLARE v2, DEPLOY_ACCOUNT v1 of sepolia-56377; the
// v3 ones of its last block served without l1_data_gas, as nodes before Starknet 0.13.4
// did), indexed and read back through GraphQL, whole and from a list: resourceBounds and
// executionResources are, to the byte, the text the jsonb columns gave before migration
// 00041 (the indexer stored the JSON of rpc.ResourceBounds, l1_data_gas 0x0 when the node
// gave none, and of rpc.ExecutionResources; PostgreSQL printed it in jsonb's form).
func TestResourcesReadAsTheirJSONWas(t *testing.T) {
	src := fixtures.Set(t, "sepolia-56377")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	const first, last = 56377, 56379
	blocks := map[int64][]map[string]any{}
	for n := int64(first); n <= last; n++ {
		path := filepath.Join(dir, "blocks", jsonName(n))
		var block map[string]any
		readFixture(t, path, &block)
		var txs []map[string]any
		for _, item := range block["transactions"].([]any) {
			txs = append(txs, item.(map[string]any))
		}
		if n == last { // the node of an older Starknet: no l1_data_gas in the bounds
			dropped := 0
			for _, item := range txs {
				if rb, ok := item["transaction"].(map[string]any)["resource_bounds"].(map[string]any); ok {
					delete(rb, "l1_data_gas")
					dropped++
				}
			}
			if dropped == 0 {
				t.Fatal("the last block has no v3 transaction")
			}
			raw, _ := json.Marshal(block)
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		blocks[n] = txs
	}
	set, err := replay.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	node := httptest.NewServer(set)
	t.Cleanup(node.Close)
	s := newGQLServer(t)
	indexertest.Run(t, s.db, node.URL, first, last)

	// jsonbText is how PostgreSQL printed a jsonb value: the old columns' text.
	jsonbText := func(v any) string {
		if v == nil {
			return "null"
		}
		raw, _ := json.Marshal(v)
		var out string
		if err := s.db.Get(&out, `SELECT $1::jsonb::text`, string(raw)); err != nil {
			t.Fatal(err)
		}
		return out
	}
	zero := map[string]any{"max_amount": "0x0", "max_price_per_unit": "0x0"}
	seen := map[string]int{}
	for n := int64(first); n <= last; n++ {
		var nodes []string
		for _, item := range blocks[n] {
			tx, receipt := item["transaction"].(map[string]any), item["receipt"].(map[string]any)
			var bounds any
			if rb, ok := tx["resource_bounds"].(map[string]any); ok {
				if rb["l1_data_gas"] == nil {
					rb["l1_data_gas"] = zero
					seen["v3 without l1_data_gas"]++
				} else {
					seen["v3 with l1_data_gas"]++
				}
				bounds = rb
			} else {
				seen[tx["type"].(string)+" "+tx["version"].(string)]++
			}
			res := receipt["execution_resources"].(map[string]any)
			used := map[string]any{"l1_gas": res["l1_gas"], "l2_gas": res["l2_gas"], "l1_data_gas": res["l1_data_gas"]}
			nodes = append(nodes, `{"hash":"`+receipt["transaction_hash"].(string)+`","resourceBounds":`+jsonbText(bounds)+
				`,"executionResources":`+jsonbText(used)+`}`)
		}
		want := `{"block":{"transactions":{"edges":[{"node":` + strings.Join(nodes, `},{"node":`) + `}]}}}`
		resp, status := s.query(`query($n: Int!) { block(number: $n) { transactions(first: 100) { edges { node {
			hash resourceBounds executionResources } } } } }`, map[string]any{"n": n})
		if status != 200 || len(resp.Errors) > 0 {
			t.Fatalf("block %d: status %d, errors %+v", n, status, resp.Errors)
		}
		if got := string(resp.Data); got != want {
			t.Errorf("block %d:\n got %s\nwant %s", n, got, want)
		}
		// A transaction by its hash reads the same.
		item := blocks[n][0]
		hash := item["receipt"].(map[string]any)["transaction_hash"].(string)
		resp, status = s.query(`query($h: Felt!) { transaction(hash: $h) { hash resourceBounds executionResources } }`,
			map[string]any{"h": hash})
		if status != 200 || len(resp.Errors) > 0 {
			t.Fatalf("transaction %s: status %d, errors %+v", hash, status, resp.Errors)
		}
		if got, want := string(resp.Data), `{"transaction":`+nodes[0]+`}`; got != want {
			t.Errorf("transaction %s:\n got %s\nwant %s", hash, got, want)
		}
	}
	for _, kind := range []string{"v3 with l1_data_gas", "v3 without l1_data_gas", "INVOKE 0x1", "DECLARE 0x2", "DEPLOY_ACCOUNT 0x1"} {
		if seen[kind] == 0 {
			t.Errorf("no transaction of kind %q in the fixtures: %v", kind, seen)
		}
	}
}

func jsonName(n int64) string { b, _ := json.Marshal(n); return string(b) + ".json" }

// readFixture decodes a fixture file keeping its numbers as they are written.
func readFixture(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
