package rpc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	json "github.com/goccy/go-json"

	"github.com/starkgraph/starkgraph/internal/fixtures"
	"github.com/starkgraph/starkgraph/starknet"
	"github.com/starkgraph/starkgraph/starknet/rpc"
)

// TestMixedBatch sends blocks, state updates, classes, header hashes and view calls in one
// HTTP request and reads each typed result, including per-call errors.
func TestMixedBatch(t *testing.T) {
	srv := fixtures.NewServer(t, "sepolia-56377")
	srv.Override = func(method string, params json.RawMessage) (string, bool) {
		if method != "starknet_call" {
			return "", false
		}
		if strings.Contains(string(params), starknet.Selector("decimals").Hex()) {
			return `"result":["0x12"]`, true
		}
		return `"error":{"code":21,"message":"Requested entrypoint does not exist in the contract"}`, true
	}
	c := rpc.NewClient(srv.URL)
	ctx := context.Background()
	classHash := starknet.MustFelt("0x29927c8af6bccf3f6fda035981e765a7bdbf18a2dc0d630494f8758aa908e2b")

	var b rpc.MixedBatch
	blk := b.BlockWithReceipts(56377)
	su := b.StateUpdate(56377)
	hashes := b.BlockTxHashes(56378)
	cls := b.Class(56377, classHash)
	noClass := b.Class(56377, starknet.FeltFromUint64(0xbad))
	dec := b.Call(56377, starknet.FeltFromUint64(0x49), starknet.Selector("decimals"), nil)
	noFn := b.Call(56377, starknet.FeltFromUint64(0x49), starknet.Selector("nope"), nil)
	past := b.BlockWithReceipts(56390)
	if _, err := blk.Result(); !errors.Is(err, rpc.ErrNotSent) {
		t.Fatalf("result before Send: %v", err)
	}
	if b.Len() != 8 {
		t.Fatalf("Len %d", b.Len())
	}
	if err := c.Send(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests.Load(); n != 1 {
		t.Errorf("%d HTTP requests, want 1", n)
	}

	block, err := blk.Result()
	if err != nil || block.Number != 56377 || len(block.Transactions) == 0 {
		t.Fatalf("block: %v %v", block, err)
	}
	state, err := su.Result()
	if err != nil || state.BlockNumber != 56377 || state.BlockHash != block.Hash {
		t.Fatalf("state update: %+v %v", state, err)
	}
	h, err := hashes.Result()
	if err != nil || h.Number != 56378 || h.ParentHash != block.Hash || len(h.TransactionHashes) == 0 {
		t.Fatalf("tx hashes: %+v %v", h, err)
	}
	cl, err := cls.Result()
	if err != nil || cl.Kind == "" {
		t.Fatalf("class: %+v %v", cl, err)
	}
	if _, err := noClass.Result(); !errors.Is(err, rpc.ErrClassHashNotFound) {
		t.Errorf("missing class: %v", err)
	}
	out, err := dec.Result()
	if err != nil || len(out) != 1 || out[0] != starknet.FeltFromUint64(18) {
		t.Errorf("call: %v %v", out, err)
	}
	if _, err := noFn.Result(); !errors.Is(err, rpc.ErrEntrypointNotFound) {
		t.Errorf("missing entry point: %v", err)
	}
	if _, err := past.Result(); !errors.Is(err, rpc.ErrBlockNotFound) {
		t.Errorf("block past the head: %v", err)
	}
}

// TestMixedBatchStateDiffMissing: the mainnet fixture has the block but not its state
// update, which a node answers with BLOCK_NOT_FOUND for the diff alone.
func TestMixedBatchStateDiffMissing(t *testing.T) {
	srv := fixtures.NewServer(t, "mainnet-763497")
	var b rpc.MixedBatch
	blk := b.BlockWithReceipts(763497)
	su := b.StateUpdate(763497)
	if err := rpc.NewClient(srv.URL).Send(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Result(); err != nil {
		t.Fatal(err)
	}
	if _, err := su.Result(); !errors.Is(err, rpc.ErrBlockNotFound) {
		t.Fatalf("state update: %v", err)
	}
}

// TestMixedBatchFailures: garbage and unanswered calls fail alone, naming their block; a
// failed exchange fails every call.
func TestMixedBatchFailures(t *testing.T) {
	srv := fixtures.NewServer(t, "sepolia-56377")
	srv.Override = func(method string, params json.RawMessage) (string, bool) {
		switch {
		case method == "starknet_getStateUpdate":
			return `"result":{"block_hash":"0x1"}`, true
		case method == "starknet_getBlockWithReceipts" && strings.Contains(string(params), "56379"):
			return `"result":null`, true
		}
		return "", false
	}
	var b rpc.MixedBatch
	good := b.BlockWithReceipts(56377)
	null := b.BlockWithReceipts(56379)
	su := b.StateUpdate(56378)
	if err := rpc.NewClient(srv.URL).Send(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if _, err := good.Result(); err != nil {
		t.Errorf("good block: %v", err)
	}
	var inv *rpc.InvalidResponseError
	if _, err := null.Result(); !errors.As(err, &inv) || inv.Block == nil || *inv.Block != 56379 {
		t.Errorf("null block: %v", err)
	}
	if _, err := su.Result(); !errors.As(err, &inv) || *inv.Block != 56378 || !strings.Contains(err.Error(), "state_diff") {
		t.Errorf("state update without a diff: %v", err)
	}

	// A node that answers only the first call of a batch.
	half := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqs []struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&reqs)
		_, _ = w.Write([]byte(`[{"jsonrpc":"2.0","id":` + string(reqs[0].ID) + `,"result":["0x1"]}]`))
	}))
	defer half.Close()
	var h rpc.MixedBatch
	first := h.Call(1, starknet.FeltFromUint64(1), starknet.Selector("name"), nil)
	second := h.Call(1, starknet.FeltFromUint64(1), starknet.Selector("symbol"), nil)
	if err := rpc.NewClient(half.URL).Send(context.Background(), &h); err != nil {
		t.Fatal(err)
	}
	if out, err := first.Result(); err != nil || len(out) != 1 {
		t.Errorf("answered call: %v %v", out, err)
	}
	if _, err := second.Result(); !errors.Is(err, rpc.ErrNoResponse) || !errors.As(err, &inv) {
		t.Errorf("unanswered call: %v", err)
	}

	// The exchange itself fails: every call carries the (transient) error.
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	var d rpc.MixedBatch
	x, y := d.BlockWithReceipts(1), d.StateUpdate(1)
	if err := rpc.NewClient(down.URL).Send(context.Background(), &d); !rpc.IsTransient(err) {
		t.Fatalf("Send to an overloaded node: %v", err)
	}
	if _, err := x.Result(); !rpc.IsTransient(err) {
		t.Errorf("block after a failed exchange: %v", err)
	}
	if _, err := y.Result(); !rpc.IsTransient(err) {
		t.Errorf("state update after a failed exchange: %v", err)
	}
	if err := rpc.NewClient(down.URL).Send(context.Background(), &rpc.MixedBatch{}); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}
