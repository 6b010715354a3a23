package l1_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/l1"
	"github.com/starkgraph/starkgraph/replay"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const fixtureBlock = 763497

// l1Handler is the L1_HANDLER transaction of mainnet-763497, read from the fixture.
type l1Handler struct {
	hash, contract, selector, nonce string
	calldata                        []string
	messageHash                     string
}

func fixtureSet(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "shared", "fixtures", "starknet", "mainnet-763497"))
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixtures missing at %s", dir)
		}
		t.Skipf("fixtures not found at %s: put ../shared beside the checkout", dir)
	}
	return dir
}

func readL1Handler(t *testing.T, dir string) l1Handler {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "blocks", fmt.Sprint(fixtureBlock)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var block struct {
		Transactions []struct {
			Transaction struct {
				Type               string   `json:"type"`
				ContractAddress    string   `json:"contract_address"`
				EntryPointSelector string   `json:"entry_point_selector"`
				Nonce              string   `json:"nonce"`
				Calldata           []string `json:"calldata"`
			} `json:"transaction"`
			Receipt struct {
				TransactionHash string `json:"transaction_hash"`
				MessageHash     string `json:"message_hash"`
			} `json:"receipt"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal(raw, &block); err != nil {
		t.Fatal(err)
	}
	for _, tx := range block.Transactions {
		if tx.Transaction.Type == "L1_HANDLER" {
			return l1Handler{hash: tx.Receipt.TransactionHash, contract: tx.Transaction.ContractAddress,
				selector: tx.Transaction.EntryPointSelector, nonce: tx.Transaction.Nonce,
				calldata: tx.Transaction.Calldata, messageHash: tx.Receipt.MessageHash}
		}
	}
	t.Fatal("the fixture block has no L1_HANDLER transaction")
	return l1Handler{}
}

func big16(t *testing.T, s string) *big.Int {
	n, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
	if !ok {
		t.Fatalf("not hex: %q", s)
	}
	return n
}

// The message hash computed from the L1_HANDLER's fields (the L1 sender is calldata[0],
// the payload the rest) is the hash its receipt reports.
func TestMessageHashKnownAnswer(t *testing.T) {
	h := readL1Handler(t, fixtureSet(t))
	var payload []*big.Int
	for _, c := range h.calldata[1:] {
		payload = append(payload, big16(t, c))
	}
	got := l1.MessageHash(big16(t, h.calldata[0]), big16(t, h.contract), big16(t, h.nonce), big16(t, h.selector), payload)
	if hexutil.Encode(got) != h.messageHash && "0x"+strings.TrimLeft(hexutil.Encode(got)[2:], "0") != h.messageHash {
		t.Fatalf("message hash %x, receipt says %s", got, h.messageHash)
	}
}

// fakeL1 is an Ethereum JSON-RPC node with one LogMessageToL2 event, the one that sent the
// fixture's L1_HANDLER message, in block 5 of 10.
type fakeL1 struct {
	log  map[string]any
	mu   sync.Mutex
	reqs int
}

const sentBy = "0x5be7a1a0c0a1b0f1b9e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7"

func newFakeL1(t *testing.T, h l1Handler) *fakeL1 {
	var payload []*big.Int
	for _, c := range h.calldata[1:] {
		payload = append(payload, big16(t, c))
	}
	data, err := l1.PackMessageData(payload, big16(t, h.nonce), big.NewInt(1000))
	if err != nil {
		t.Fatal(err)
	}
	topics := []string{l1.LogMessageToL2Topic.Hex(), common.BigToHash(big16(t, h.calldata[0])).Hex(),
		common.BigToHash(big16(t, h.contract)).Hex(), common.BigToHash(big16(t, h.selector)).Hex()}
	return &fakeL1{log: map[string]any{
		"address": l1.MainnetCore.Hex(), "topics": topics, "data": hexutil.Encode(data),
		"blockNumber": "0x5", "transactionHash": sentBy, "transactionIndex": "0x0",
		"blockHash": "0x" + strings.Repeat("ab", 32), "logIndex": "0x2", "removed": false,
	}}
}

func (f *fakeL1) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	f.mu.Lock()
	f.reqs++
	f.mu.Unlock()
	var result any
	switch req.Method {
	case "eth_blockNumber":
		result = "0xa"
	case "eth_getLogs":
		var q struct{ FromBlock, ToBlock string }
		_ = json.Unmarshal(req.Params[0], &q)
		from, to := hexutil.MustDecodeUint64(q.FromBlock), hexutil.MustDecodeUint64(q.ToBlock)
		logs := []any{}
		if from <= 5 && 5 <= to {
			logs = append(logs, f.log)
		}
		result = logs
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no method %s"}}`, req.ID, req.Method)
		return
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func indexFixture(t *testing.T, conn *sqlx.DB, dir string) {
	t.Helper()
	set, err := replay.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	node := httptest.NewServer(set)
	defer node.Close()
	ix, err := indexer.New(indexer.Config{RPCURL: node.URL, DB: conn, FromBlock: fixtureBlock, StopAt: fixtureBlock,
		PollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// follow runs the follower until it has read the fake node's 10 blocks.
func follow(t *testing.T, conn *sqlx.DB, node *httptest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- l1.Run(ctx, l1.Config{RPCURL: node.URL, Core: l1.MainnetCore, FromBlock: 0, Range: 3,
			Poll: 20 * time.Millisecond, DB: conn, Logger: slog.New(slog.DiscardHandler)})
	}()
	for {
		next, ok, err := db.L1NextBlock(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		if ok && next == 11 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the follower did not read the L1 blocks (next %d)", next)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
}

func l1HashOf(t *testing.T, conn *sqlx.DB, txHash string) string {
	t.Helper()
	var got db.Felt
	if err := conn.Get(&got, `SELECT l1_transaction_hash FROM transactions WHERE hash = $1`, db.MustFelt(txHash)); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		return ""
	}
	return got.Hex()
}

// The L1 handler of mainnet-763497 gets the hash of the L1 transaction that sent its
// message, whether the L1 follower reads the message after the block is indexed or before.
func TestL1TransactionHashOfL1Handler(t *testing.T) {
	dir := fixtureSet(t)
	h := readL1Handler(t, dir)
	fake := newFakeL1(t, h)
	node := httptest.NewServer(fake)
	defer node.Close()
	// An L1 hash is 32 bytes of Keccak, most often above the Starknet prime: not a felt.
	want := db.Normalize(common.HexToHash(sentBy).Bytes()).Hex()

	t.Run("indexed first", func(t *testing.T) {
		conn := dbtest.New(t)
		indexFixture(t, conn, dir)
		if got := l1HashOf(t, conn, h.hash); got != "" {
			t.Fatalf("before the L1 follower ran: %s", got)
		}
		follow(t, conn, node)
		if got := l1HashOf(t, conn, h.hash); got != want {
			t.Errorf("l1_transaction_hash %q, want %s", got, want)
		}
	})
	t.Run("L1 first", func(t *testing.T) {
		conn := dbtest.New(t)
		follow(t, conn, node)
		indexFixture(t, conn, dir)
		if got := l1HashOf(t, conn, h.hash); got != want {
			t.Errorf("l1_transaction_hash %q, want %s", got, want)
		}
	})
	// Other transactions are untouched.
	conn := dbtest.New(t)
	indexFixture(t, conn, dir)
	follow(t, conn, node)
	var n int
	if err := conn.Get(&n, `SELECT count(*) FROM transactions WHERE l1_transaction_hash IS NOT NULL`); err != nil || n != 1 {
		t.Errorf("%d transactions have an L1 hash (%v), want 1", n, err)
	}
}
