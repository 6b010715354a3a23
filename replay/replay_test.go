package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/internal/fixtures"

	"github.com/starkgraph/starkgraph/rpcserver/rpctest"
)

type client = rpctest.Client

func serve(t *testing.T, set string) (client, *Set) {
	s, err := Load(fixtures.Set(t, set))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return client{T: t, URL: srv.URL + "/rpc/v0_8"}, s
}

type manifestCounts struct {
	ChainID    string `json:"chain_id"`
	LastBlock  uint64 `json:"last_block"`
	FirstBlock uint64 `json:"first_block"`
	Contents   struct {
		Events         int `json:"events"`
		TransferEvents int `json:"transfer_events"`
		Transactions   int `json:"transactions"`
	} `json:"contents"`
}

const transferKey = "0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9"

func TestEveryMethodOnEverySet(t *testing.T) {
	for _, set := range []string{"sepolia-56377", "mainnet-763497", "sepolia-3100000"} {
		t.Run(set, func(t *testing.T) {
			c, s := serve(t, set)
			dir := fixtures.Set(t, set)
			var m manifestCounts
			mustJSON(t, filepath.Join(dir, "manifest.json"), &m)

			if got := string(c.OK("starknet_specVersion")); got != `"0.8.1"` {
				t.Errorf("specVersion %s", got)
			}
			if got := string(c.OK("starknet_chainId")); got != `"`+m.ChainID+`"` {
				t.Errorf("chainId %s want %s", got, m.ChainID)
			}
			if got := string(c.OK("starknet_blockNumber")); got != fmt.Sprint(m.LastBlock) {
				t.Errorf("blockNumber %s", got)
			}
			var hn struct {
				Hash   string `json:"block_hash"`
				Number uint64 `json:"block_number"`
			}
			json.Unmarshal(c.OK("starknet_blockHashAndNumber"), &hn)
			if hn.Number != m.LastBlock || hn.Hash == "" {
				t.Errorf("blockHashAndNumber %+v", hn)
			}

			view := dir
			if _, err := os.Stat(filepath.Join(dir, "rpc_0_8_1")); err == nil {
				view = filepath.Join(dir, "rpc_0_8_1")
			}
			txCount := 0
			for n := m.FirstBlock; n <= m.LastBlock; n++ {
				want, err := os.ReadFile(filepath.Join(view, "blocks", fmt.Sprintf("%d.json", n)))
				if err != nil {
					t.Fatal(err)
				}
				byNum := c.OK("starknet_getBlockWithReceipts", map[string]uint64{"block_number": n})
				if !bytes.Equal(byNum, want) {
					t.Fatalf("block %d: served bytes differ from the fixture file", n)
				}
				var hdr struct {
					Hash         string `json:"block_hash"`
					Transactions []struct {
						Receipt struct {
							Hash string `json:"transaction_hash"`
						} `json:"receipt"`
					} `json:"transactions"`
				}
				json.Unmarshal(want, &hdr)
				// By hash, with the hash padded to 64 digits and upper-cased.
				padded := "0x" + strings.ToUpper(fmt.Sprintf("%064s", hdr.Hash[2:]))
				if got := c.OK("starknet_getBlockWithReceipts", map[string]string{"block_hash": padded}); !bytes.Equal(got, want) {
					t.Errorf("block %d by hash differs", n)
				}
				var withTxs struct {
					Hash         string                       `json:"block_hash"`
					Transactions []map[string]json.RawMessage `json:"transactions"`
				}
				if err := json.Unmarshal(c.OK("starknet_getBlockWithTxs", map[string]uint64{"block_number": n}), &withTxs); err != nil {
					t.Fatal(err)
				}
				var withHashes struct {
					Hash         string   `json:"block_hash"`
					Transactions []string `json:"transactions"`
				}
				if err := json.Unmarshal(c.OK("starknet_getBlockWithTxHashes", map[string]uint64{"block_number": n}), &withHashes); err != nil {
					t.Fatal(err)
				}
				if withTxs.Hash != hdr.Hash || withHashes.Hash != hdr.Hash || len(withTxs.Transactions) != len(hdr.Transactions) || len(withHashes.Transactions) != len(hdr.Transactions) {
					t.Fatalf("block %d: derived views disagree with the block", n)
				}
				for i, tx := range hdr.Transactions {
					if string(withTxs.Transactions[i]["transaction_hash"]) != `"`+tx.Receipt.Hash+`"` || withHashes.Transactions[i] != tx.Receipt.Hash {
						t.Errorf("block %d tx %d: hash not carried into derived views", n, i)
					}
					if _, ok := withTxs.Transactions[i]["type"]; !ok {
						t.Errorf("block %d tx %d: transaction members lost", n, i)
					}
				}
				txCount += len(hdr.Transactions)
				if got := string(c.OK("starknet_getBlockTransactionCount", map[string]uint64{"block_number": n})); got != fmt.Sprint(len(hdr.Transactions)) {
					t.Errorf("getBlockTransactionCount %s", got)
				}

				// State updates: the file when the set has one, BLOCK_NOT_FOUND otherwise.
				su, err := os.ReadFile(filepath.Join(view, "state_updates", fmt.Sprintf("%d.json", n)))
				if err == nil {
					if got := c.OK("starknet_getStateUpdate", map[string]uint64{"block_number": n}); !bytes.Equal(got, su) {
						t.Errorf("state update %d differs", n)
					}
				} else {
					c.WantError(24, "starknet_getStateUpdate", map[string]uint64{"block_number": n})
				}
			}
			if txCount != m.Contents.Transactions && m.Contents.Transactions != 0 {
				t.Errorf("transactions %d, manifest says %d", txCount, m.Contents.Transactions)
			}
			if got := c.OK("starknet_getBlockWithReceipts", "latest"); !bytes.Equal(got, s.blocks[m.LastBlock].withReceipts) {
				t.Error("latest is not the last block")
			}

			// Transactions and receipts by hash.
			for _, b := range s.blocks {
				for _, tx := range b.txs {
					var got map[string]json.RawMessage
					json.Unmarshal(c.OK("starknet_getTransactionReceipt", tx.hash), &got)
					if string(got["block_number"]) != fmt.Sprint(b.number) || string(got["transaction_hash"]) != `"`+tx.hash+`"` {
						t.Errorf("receipt of %s: %s %s", tx.hash, got["block_number"], got["transaction_hash"])
					}
					json.Unmarshal(c.OK("starknet_getTransactionByHash", tx.hash), &got)
					if string(got["transaction_hash"]) != `"`+tx.hash+`"` {
						t.Errorf("transaction %s", tx.hash)
					}
				}
			}

			// Classes and contracts.
			var contracts map[string]string
			mustJSON(t, filepath.Join(dir, "contracts.json"), &contracts)
			for addr, class := range contracts {
				if got := string(c.OK("starknet_getClassHashAt", "latest", addr)); got != `"`+class+`"` {
					t.Errorf("getClassHashAt %s = %s", addr, got)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(dir, "classes"))
			for _, e := range entries {
				hash := strings.TrimSuffix(e.Name(), ".json")
				want, _ := os.ReadFile(filepath.Join(dir, "classes", e.Name()))
				paddedHash := "0x" + fmt.Sprintf("%064s", hash[2:])
				if got := c.OK("starknet_getClass", "latest", paddedHash); !bytes.Equal(got, want) {
					t.Errorf("getClass %s differs", hash)
				}
			}

			// Events: everything, paged, and Transfer only.
			all := collectEvents(t, c, map[string]any{"chunk_size": 10240})
			if len(all) != m.Contents.Events {
				t.Errorf("getEvents: %d events, manifest says %d", len(all), m.Contents.Events)
			}
			paged := collectEvents(t, c, map[string]any{"chunk_size": 7})
			if len(paged) != len(all) {
				t.Errorf("paged getEvents: %d events, want %d", len(paged), len(all))
			}
			for i := range paged {
				if !bytes.Equal(paged[i], all[i]) {
					t.Fatalf("paged event %d differs", i)
				}
			}
			transfers := collectEvents(t, c, map[string]any{"chunk_size": 100, "keys": [][]string{{transferKey}}})
			if len(transfers) != m.Contents.TransferEvents {
				t.Errorf("Transfer events %d, manifest says %d", len(transfers), m.Contents.TransferEvents)
			}
			for _, e := range all[:min(3, len(all))] {
				var ev map[string]json.RawMessage
				json.Unmarshal(e, &ev)
				for _, k := range []string{"from_address", "keys", "data", "block_hash", "block_number", "transaction_hash"} {
					if _, ok := ev[k]; !ok {
						t.Errorf("emitted event lacks %s: %s", k, e)
					}
				}
				var from string
				json.Unmarshal(ev["from_address"], &from)
				byAddr := collectEvents(t, c, map[string]any{"chunk_size": 10240, "address": from})
				for _, x := range byAddr {
					if !bytes.Contains(x, []byte(`"from_address":"`+from+`"`)) {
						t.Errorf("address filter let through %s", x)
					}
				}
				if len(byAddr) == 0 {
					t.Errorf("address filter on %s found nothing", from)
				}
			}

			// Errors.
			c.WantError(24, "starknet_getBlockWithReceipts", map[string]uint64{"block_number": m.LastBlock + 1})
			c.WantError(24, "starknet_getBlockWithTxs", map[string]string{"block_hash": "0x1"})
			c.WantError(24, "starknet_getStateUpdate", map[string]uint64{"block_number": 1})
			c.WantError(28, "starknet_getClass", "latest", "0x1")
			c.WantError(20, "starknet_getClassHashAt", "latest", "0x1")
			c.WantError(29, "starknet_getTransactionReceipt", "0x1")
			c.WantError(-32601, "starknet_nope")
			c.WantError(-32602, "starknet_getBlockWithReceipts")
			c.WantError(-32602, "starknet_getBlockWithReceipts", "earliest")
			c.WantError(-32602, "starknet_getClass", "latest", "not-hex")
			c.WantError(-32602, "starknet_getEvents", map[string]any{})
			c.WantError(31, "starknet_getEvents", map[string]any{"chunk_size": 1 << 20})
			c.WantError(33, "starknet_getEvents", map[string]any{"chunk_size": 1, "continuation_token": "abc"})
			c.WantError(33, "starknet_getEvents", map[string]any{"chunk_size": 1, "continuation_token": "999999"})
		})
	}
}

func collectEvents(t *testing.T, c client, filter map[string]any) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("getEvents paging does not end")
		}
		var page struct {
			Events            []json.RawMessage `json:"events"`
			ContinuationToken string            `json:"continuation_token"`
		}
		if err := json.Unmarshal(c.OK("starknet_getEvents", filter), &page); err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Events...)
		if page.ContinuationToken == "" {
			return out
		}
		filter["continuation_token"] = page.ContinuationToken
	}
}

func TestRecordedViewsMatchDerived(t *testing.T) {
	// sepolia-3100000 has real getBlockWithTxs/getBlockWithTxHashes recordings;
	// the derived transactions must equal them.
	c, _ := serve(t, "sepolia-3100000")
	dir := fixtures.Set(t, "sepolia-3100000")
	for _, v := range []struct{ method, dir string }{{"starknet_getBlockWithTxs", "block_with_txs"}, {"starknet_getBlockWithTxHashes", "block_with_tx_hashes"}} {
		var recorded, derived struct{ Transactions []any }
		mustJSON(t, filepath.Join(dir, v.dir, "3100000.json"), &recorded)
		json.Unmarshal(c.OK(v.method, "latest"), &derived)
		a, _ := json.Marshal(recorded.Transactions)
		b, _ := json.Marshal(derived.Transactions)
		if !bytes.Equal(a, b) || len(recorded.Transactions) == 0 {
			t.Errorf("%s: derived transactions differ from the recording\n%s\n%s", v.method, a, b)
		}
	}
}

func TestBatch(t *testing.T) {
	c, s := serve(t, "sepolia-56377")
	body := c.Raw(`[{"jsonrpc":"2.0","id":1,"method":"starknet_blockNumber"},` +
		`{"jsonrpc":"2.0","id":2,"method":"starknet_getBlockWithReceipts","params":{"block_id":{"block_number":56378}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"starknet_getBlockWithReceipts","params":[{"block_number":1}]},` +
		`{"jsonrpc":"2.0","id":4,"method":"bogus"}]`)
	var rs []rpctest.Response
	if err := json.Unmarshal(body, &rs); err != nil || len(rs) != 4 {
		t.Fatalf("batch: %s", body)
	}
	if string(rs[0].Result) != "56379" || !bytes.Equal(rs[1].Result, s.blocks[56378].withReceipts) ||
		rs[2].Error == nil || rs[2].Error.Code != 24 || rs[3].Error == nil || rs[3].Error.Code != -32601 {
		t.Errorf("batch answers wrong: %s", body)
	}
	for i, r := range rs {
		if string(r.ID) != fmt.Sprint(i+1) {
			t.Errorf("batch answer %d has id %s", i, r.ID)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("empty directory loaded")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"chain_id":"0x1","first_block":0,"last_block":0}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "blocks"), 0o755)
	os.WriteFile(filepath.Join(dir, "blocks", "0.json"), []byte(`{"block_number":0,`), 0o644)
	if _, err := Load(dir); err == nil {
		t.Error("truncated block loaded")
	}
}

func mustJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestServe(t *testing.T) {
	dir := fixtures.Set(t, "sepolia-56377")
	c := rpctest.Serve(t, func(ctx context.Context, addr string) error { return Serve(ctx, dir, addr, nil) })
	if got := string(c.OK("starknet_blockNumber")); got != "56379" {
		t.Errorf("blockNumber %s", got)
	}
	if err := Serve(context.Background(), t.TempDir(), "127.0.0.1:0", nil); err == nil {
		t.Error("Serve of a directory without a fixture set succeeded")
	}
}
