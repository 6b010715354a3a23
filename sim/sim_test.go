package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/rpcserver/rpctest"
)

type client struct{ rpctest.Client }

func serveChain(t testing.TB, c *Chain) client {
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return client{rpctest.Client{T: t, URL: srv.URL + "/rpc/v0_8"}}
}

type rpcEvent struct {
	From string   `json:"from_address"`
	Keys []string `json:"keys"`
	Data []string `json:"data"`
}

type rpcBlock struct {
	Status       string `json:"status"`
	Hash         string `json:"block_hash"`
	Parent       string `json:"parent_hash"`
	Number       uint64 `json:"block_number"`
	Root         string `json:"new_root"`
	Transactions []struct {
		Transaction struct {
			Type      string   `json:"type"`
			Version   string   `json:"version"`
			Sender    string   `json:"sender_address"`
			Calldata  []string `json:"calldata"`
			ClassHash string   `json:"class_hash"`
		} `json:"transaction"`
		Receipt struct {
			Hash      string `json:"transaction_hash"`
			Execution string `json:"execution_status"`
			Finality  string `json:"finality_status"`
			Fee       struct {
				Amount string `json:"amount"`
				Unit   string `json:"unit"`
			} `json:"actual_fee"`
			Events          []rpcEvent `json:"events"`
			ContractAddress string     `json:"contract_address"`
		} `json:"receipt"`
	} `json:"transactions"`
}

func (c client) block(n uint64) rpcBlock {
	c.T.Helper()
	var b rpcBlock
	if err := json.Unmarshal(c.OK("starknet_getBlockWithReceipts", map[string]uint64{"block_number": n}), &b); err != nil {
		c.T.Fatal(err)
	}
	return b
}

func TestSelectorsAreSnKeccak(t *testing.T) {
	// Known values: the Transfer event key in the fixtures, and well-known selectors.
	for name, want := range map[string]string{
		"Transfer":  "0x99cd8bde557814842a3121e8ddfd433a539b8c9f14bf31ebf108d12e6196e9",
		"transfer":  "0x83afd3f4caedc6eebf44246fe54e38c95e3179a5ec9ea81740eca5b482d12e",
		"balanceOf": "0x2e4263afad30923c891518314c3c95dbe830a16874e8abc5777a9a20b54c76e",
	} {
		if got := selector(name).String(); got != want {
			t.Errorf("selector(%s) = %s, want %s", name, got, want)
		}
	}
}

func TestDeterminism(t *testing.T) {
	a, b := New(Config{Seed: 42, Blocks: 30}), New(Config{Seed: 42, Blocks: 30})
	other := New(Config{Seed: 43, Blocks: 30})
	ca, cb, co := serveChain(t, a), serveChain(t, b), serveChain(t, other)
	for n := uint64(0); n < 30; n += 3 {
		id := map[string]uint64{"block_number": n}
		for _, m := range []string{"starknet_getBlockWithReceipts", "starknet_getStateUpdate", "starknet_getBlockWithTxs"} {
			if !bytes.Equal(ca.OK(m, id), cb.OK(m, id)) {
				t.Fatalf("%s(%d) differs between two chains of the same seed", m, n)
			}
		}
		if ca.block(n).Hash == co.block(n).Hash {
			t.Errorf("block %d has the same hash under another seed", n)
		}
	}
}

func TestChainLinksAndFinality(t *testing.T) {
	c := New(Config{Seed: 1, Blocks: 40, L1Lag: 5})
	cl := serveChain(t, c)
	if got := string(cl.OK("starknet_blockNumber")); got != "39" {
		t.Fatalf("blockNumber %s", got)
	}
	var hn struct {
		Hash   string `json:"block_hash"`
		Number uint64 `json:"block_number"`
	}
	json.Unmarshal(cl.OK("starknet_blockHashAndNumber"), &hn)
	var prev rpcBlock
	var prevRoot string
	for n := uint64(0); n < 40; n++ {
		b := cl.block(n)
		if b.Number != n {
			t.Fatalf("block %d says %d", n, b.Number)
		}
		if n == 0 && b.Parent != "0x0" || n > 0 && b.Parent != prev.Hash {
			t.Fatalf("block %d parent %s, previous hash %s", n, b.Parent, prev.Hash)
		}
		var su struct {
			Hash    string `json:"block_hash"`
			OldRoot string `json:"old_root"`
			NewRoot string `json:"new_root"`
		}
		json.Unmarshal(cl.OK("starknet_getStateUpdate", map[string]uint64{"block_number": n}), &su)
		if su.Hash != b.Hash || su.NewRoot != b.Root || (n > 0 && su.OldRoot != prevRoot) {
			t.Fatalf("state update %d does not chain: %+v", n, su)
		}
		wantStatus := "ACCEPTED_ON_L2"
		if n+5 <= 39 {
			wantStatus = "ACCEPTED_ON_L1"
		}
		if b.Status != wantStatus {
			t.Errorf("block %d status %s, want %s", n, b.Status, wantStatus)
		}
		for _, tx := range b.Transactions {
			if tx.Receipt.Finality != b.Status {
				t.Fatalf("block %d receipt finality %s", n, tx.Receipt.Finality)
			}
		}
		// By hash, padded and upper-case, gives the same block.
		byHash := cl.OK("starknet_getBlockWithTxHashes", map[string]string{"block_hash": "0x" + strings.ToUpper(fmt.Sprintf("%064s", b.Hash[2:]))})
		if !bytes.Contains(byHash, []byte(b.Hash)) {
			t.Fatalf("block %d by hash", n)
		}
		prev, prevRoot = b, su.NewRoot
	}
	if hn.Number != 39 || hn.Hash != prev.Hash {
		t.Errorf("blockHashAndNumber %+v, head hash %s", hn, prev.Hash)
	}
	latest := cl.OK("starknet_getBlockWithReceipts", "latest")
	if !bytes.Contains(latest, []byte(prev.Hash)) {
		t.Error("latest is not the head")
	}
	// The head grows and finality moves with it.
	c.AddBlocks(10)
	if b := cl.block(39); b.Status != "ACCEPTED_ON_L1" || b.Parent != cl.block(38).Hash {
		t.Errorf("after growth block 39: %s", b.Status)
	}
	if b := cl.block(49); b.Parent != cl.block(48).Hash {
		t.Error("appended blocks do not chain")
	}
}

func TestReorg(t *testing.T) {
	c := New(Config{Seed: 5, Blocks: 50})
	cl := serveChain(t, c)
	before := map[uint64]rpcBlock{}
	for n := uint64(40); n < 50; n++ {
		before[n] = cl.block(n)
	}
	c.Reorg(4)
	if n, _ := c.Head(); n != 49 {
		t.Fatalf("head after reorg %d", n)
	}
	for n := uint64(40); n < 50; n++ {
		b := cl.block(n)
		if n < 46 && b.Hash != before[n].Hash {
			t.Errorf("block %d below the fork point changed", n)
		}
		if n >= 46 && b.Hash == before[n].Hash {
			t.Errorf("block %d above the fork point kept its hash", n)
		}
		if b.Parent != cl.block(n-1).Hash {
			t.Errorf("block %d does not link to its parent after the reorg", n)
		}
		if n >= 46 && b.Transactions[len(b.Transactions)-1].Receipt.Hash == before[n].Transactions[len(before[n].Transactions)-1].Receipt.Hash {
			t.Errorf("block %d kept its transactions", n)
		}
	}
	// The old fork's blocks are gone.
	cl.WantError(24, "starknet_getBlockWithReceipts", map[string]string{"block_hash": before[47].Hash})
	// A second, deeper reorg, then growth.
	c.Reorg(8)
	c.AddBlocks(2)
	for n := uint64(40); n < 52; n++ {
		if b := cl.block(n); b.Parent != cl.block(n-1).Hash {
			t.Errorf("block %d unlinked after second reorg", n)
		}
	}
	if cl.block(41).Hash != before[41].Hash || cl.block(42).Hash == before[42].Hash {
		t.Error("second reorg moved the wrong blocks")
	}
}

func TestFaults(t *testing.T) {
	c := New(Config{Seed: 3, Blocks: 20, SlowDelay: 300 * time.Millisecond})
	cl := serveChain(t, c)
	body := func(n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithReceipts","params":[{"block_number":%d}]}`, n)
	}
	good := cl.block(5)

	c.InjectFault(Fault{Kind: MalformedJSON, Block: 5, Times: 2})
	for i := 0; i < 2; i++ {
		if code, b := cl.Post(body(5)); code != 200 || json.Valid(b) {
			t.Errorf("MalformedJSON: status %d, valid=%v", code, json.Valid(b))
		}
	}
	if _, b := cl.Post(body(5)); !json.Valid(b) {
		t.Error("MalformedJSON lasted longer than Times")
	}

	c.InjectFault(Fault{Kind: MissingField, Block: 5})
	var m map[string]json.RawMessage
	json.Unmarshal(cl.OK("starknet_getBlockWithReceipts", map[string]int{"block_number": 5}), &m)
	if _, ok := m["parent_hash"]; ok || m["block_hash"] == nil {
		t.Errorf("MissingField: parent_hash still there (or block_hash lost)")
	}

	c.InjectFault(Fault{Kind: WrongParentHash, Block: 5})
	if b := cl.block(5); b.Parent == good.Parent || b.Hash != good.Hash {
		t.Errorf("WrongParentHash: parent %s", b.Parent)
	}
	if b := cl.block(5); b.Parent != good.Parent {
		t.Error("WrongParentHash changed the cached block")
	}

	c.InjectFault(Fault{Kind: HTTP500, Block: 5})
	if code, _ := cl.Post(body(5)); code != 500 {
		t.Errorf("HTTP500: status %d", code)
	}

	c.InjectFault(Fault{Kind: Slow, Block: 5})
	start := time.Now()
	cl.block(5)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("Slow answered in %v", d)
	}
	// Faults touch only their block.
	c.InjectFault(Fault{Kind: HTTP500, Block: 6})
	if code, _ := cl.Post(body(5)); code != 200 {
		t.Error("a fault on block 6 hit block 5")
	}
}

func TestBatchAndErrors(t *testing.T) {
	c := New(Config{Seed: 9, Blocks: 10})
	cl := serveChain(t, c)
	_, body := cl.Post(`[{"jsonrpc":"2.0","id":1,"method":"starknet_blockNumber"},` +
		`{"jsonrpc":"2.0","id":2,"method":"starknet_getBlockWithReceipts","params":{"block_id":{"block_number":3}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"starknet_getStateUpdate","params":[{"block_number":3}]},` +
		`{"jsonrpc":"2.0","id":4,"method":"starknet_getBlockWithReceipts","params":[{"block_number":10}]},` +
		`{"jsonrpc":"2.0","id":5,"method":"starknet_nope"}]`)
	var rs []rpctest.Response
	if err := json.Unmarshal(body, &rs); err != nil || len(rs) != 5 {
		t.Fatalf("batch: %.300s", body)
	}
	if string(rs[0].Result) != "9" || !bytes.Contains(rs[1].Result, []byte(`"block_number":3`)) || !bytes.Contains(rs[2].Result, []byte(`"state_diff"`)) ||
		rs[3].Error == nil || rs[3].Error.Code != 24 || rs[4].Error == nil || rs[4].Error.Code != -32601 {
		t.Errorf("batch answers: %.500s", body)
	}
	if got := string(cl.OK("starknet_specVersion")); got != `"0.8.1"` {
		t.Errorf("specVersion %s", got)
	}
	if got := string(cl.OK("starknet_chainId")); got != `"0x534e5f4d41494e"` {
		t.Errorf("chainId %s", got)
	}
	cl.WantError(24, "starknet_getStateUpdate", map[string]string{"block_hash": "0x123"})
	cl.WantError(-32602, "starknet_getBlockWithReceipts", map[string]string{"block_number": "x"})
	cl.WantError(-32602, "starknet_getClass", "latest", "zz")
	cl.WantError(28, "starknet_getClass", "latest", "0x1234")
	cl.WantError(20, "starknet_getClassHashAt", "latest", "0x1234")
	cl.WantError(20, "starknet_call", map[string]any{"contract_address": "0x77", "entry_point_selector": "0x1", "calldata": []string{}}, "latest")
	cl.WantError(-32602, "starknet_call", "nonsense", "latest")
}

func TestRegisterFlags(t *testing.T) {
	var cfg Config
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	cfg.RegisterFlags(fs)
	if err := fs.Parse([]string{"--seed", "9", "--blocks", "1000", "--block-time", "2s", "--reorg-every", "10", "--reorg-depth", "4"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 9 || cfg.Blocks != 1000 || cfg.BlockTime != 2*time.Second || cfg.ReorgEvery != 10 || cfg.ReorgDepth != 4 {
		t.Errorf("flags not bound: %+v", cfg)
	}
}

func TestServe(t *testing.T) {
	cl := client{rpctest.Serve(t, func(ctx context.Context, addr string) error {
		return Serve(ctx, Config{Seed: 1, Blocks: 5, BlockTime: 20 * time.Millisecond, ReorgEvery: 3, ReorgDepth: 2}, addr, nil)
	})}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var n uint64
		if err := json.Unmarshal(cl.OK("starknet_blockNumber"), &n); err != nil {
			t.Fatal(err)
		}
		if n >= 10 {
			break // the head grew by BlockTime, through several reorgs
		}
		if time.Now().After(deadline) {
			t.Fatal("Serve: head did not grow")
		}
	}
	for n := uint64(1); n < 9; n++ { // reorgs of depth 2 at head >= 10 leave these alone
		if b := cl.block(n); b.Parent != cl.block(n-1).Hash {
			t.Errorf("served chain unlinked at %d", n)
		}
	}
}

// TestReorgIsDeterministic: what a chain serves after reorgs depends only on the
// seed and the reorgs, not on what was asked before (caches, ledger).
func TestReorgIsDeterministic(t *testing.T) {
	a, b := New(Config{Seed: 16, Blocks: 70, TxPerBlock: 10}), New(Config{Seed: 16, Blocks: 70, TxPerBlock: 10})
	ca, cb := serveChain(t, a), serveChain(t, b)
	for n := uint64(0); n < 70; n++ {
		ca.OK("starknet_getBlockWithReceipts", map[string]uint64{"block_number": n})
	}
	ca.OK("starknet_call", map[string]any{"contract_address": fixedAddr[fixedSTRK].String(), "entry_point_selector": selector("totalSupply").String(), "calldata": []string{}}, "latest")
	for _, c := range []*Chain{a, b} {
		c.Reorg(5)
		c.AddBlocks(3)
	}
	for n := uint64(0); n < 73; n++ {
		id := map[string]uint64{"block_number": n}
		if !bytes.Equal(ca.OK("starknet_getBlockWithReceipts", id), cb.OK("starknet_getBlockWithReceipts", id)) ||
			!bytes.Equal(ca.OK("starknet_getStateUpdate", id), cb.OK("starknet_getStateUpdate", id)) {
			t.Fatalf("block %d differs between a used and an unused chain after the same reorg", n)
		}
	}
}
