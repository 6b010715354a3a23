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

	"github.com/starkgraph/starkgraph/internal/fixtures"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/l1"
	"github.com/starkgraph/starkgraph/replay"
	"github.com/starkgraph/starkgraph/sim"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

const fixtureBlock = 763497

// l1Handler is the L1_HANDLER transaction of mainnet-763497, read from the fixture.
type l1Handler struct {
	hash, contract, selector, nonce string
	calldata                        []string
	messageHash                     string
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
	h := readL1Handler(t, fixtures.Set(t, "mainnet-763497"))
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
	indexertest.Run(t, conn, node.URL, fixtureBlock, fixtureBlock)
}

// follow runs the follower until it has read the fake node's 10 blocks.
func follow(t *testing.T, conn *sqlx.DB, node *httptest.Server) {
	t.Helper()
	followTo(t, conn, node, 10)
}

// followTo runs the follower until it has read the node's blocks up to head.
func followTo(t *testing.T, conn *sqlx.DB, node *httptest.Server, head int64) {
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
		if ok && next == head+1 {
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
	dir := fixtures.Set(t, "mainnet-763497")
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

// The simulated chain's L1 node logs the message of every deposit its L2 chain consumes:
// indexed and followed, every L1_HANDLER transaction gets a distinct L1 hash. The
// simulator computes message hashes its own way; the follower's must agree.
func TestSimulatedL1(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 3, Blocks: 40, TxPerBlock: 4})
	l2 := httptest.NewServer(chain.Handler())
	defer l2.Close()
	conn := dbtest.New(t)
	indexertest.Run(t, conn, l2.URL, 0, 39)
	l1node := httptest.NewServer(chain.L1Handler())
	defer l1node.Close()
	var l1Head hexutil.Uint64
	if err := postJSON(l1node.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`, &l1Head); err != nil || l1Head <= 39 {
		t.Fatalf("L1 head %d (%v): it should run ahead of the L2 head 39", l1Head, err)
	}
	followTo(t, conn, l1node, int64(l1Head))
	var got struct {
		Handlers int64 `db:"handlers"`
		Missing  int64 `db:"missing"`
		Distinct int64 `db:"distinct_l1"`
	}
	if err := conn.Get(&got, `SELECT count(*) AS handlers, count(*) FILTER (WHERE l1_transaction_hash IS NULL) AS missing,
		count(DISTINCT l1_transaction_hash) AS distinct_l1 FROM transactions WHERE type = 'L1_HANDLER'`); err != nil {
		t.Fatal(err)
	}
	if got.Handlers < 200 || got.Missing != 0 || got.Distinct != got.Handlers {
		t.Fatalf("L1 handlers: %+v; want every one with its own L1 hash", got)
	}
	// Messages sent on L1 for L2 blocks not produced yet wait for them.
	var waiting int64
	if err := conn.Get(&waiting, `SELECT count(*) FROM l1_messages m WHERE NOT EXISTS
		(SELECT 1 FROM transactions t WHERE t.message_hash = m.message_hash)`); err != nil || waiting == 0 {
		t.Errorf("%d L1 messages wait for their L2 block (%v); the L1 head runs ahead", waiting, err)
	}
}

// The L1 node answers bad filters with JSON-RPC errors, not with logs.
func TestSimulatedL1Filters(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 3, Blocks: 10})
	node := httptest.NewServer(chain.L1Handler())
	defer node.Close()
	for _, tc := range []struct {
		filter string
		logs   int // -1: an error
	}{
		{`{"fromBlock":"0x1","toBlock":"0x1"}`, 2},
		{`{"fromBlock":"0x0","toBlock":"0x0","address":"` + strings.ToUpper(l1.MainnetCore.Hex()[2:]) + `"}`, -1},
		{`{"fromBlock":"0x1","toBlock":"0x1","address":"` + l1.MainnetCore.Hex() + `"}`, 2},
		{`{"fromBlock":"0x1","toBlock":"0x1","address":"0x0000000000000000000000000000000000000001"}`, 0},
		{`{"fromBlock":"0x1","toBlock":"0x1","topics":[["` + l1.LogMessageToL2Topic.Hex() + `"]]}`, 2},
		{`{"fromBlock":"0x1","toBlock":"0x1","topics":["0x01"]}`, -1},
		{`{"fromBlock":"0x1","toBlock":"0x1","topics":[null,"0x` + strings.Repeat("0", 64) + `"]}`, 0},
		{`{"fromBlock":"0x0","toBlock":"0xffffff"}`, -1},
		{`{"fromBlock":"one"}`, -1},
		{`{"fromBlock":"0x5","toBlock":"0x1"}`, 0},
	} {
		var logs []json.RawMessage
		err := postJSON(node.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[`+tc.filter+`]}`, &logs)
		if tc.logs < 0 {
			if err == nil {
				t.Errorf("%s: %d logs, want an error", tc.filter, len(logs))
			}
			continue
		}
		if err != nil || len(logs) != tc.logs {
			t.Errorf("%s: %d logs (%v), want %d", tc.filter, len(logs), err, tc.logs)
		}
	}
}

// postJSON sends one JSON-RPC request and decodes its result.
func postJSON(url, body string, result any) error {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return err
	}
	if out.Error != nil {
		return fmt.Errorf("%s", out.Error.Message)
	}
	return json.Unmarshal(out.Result, result)
}
