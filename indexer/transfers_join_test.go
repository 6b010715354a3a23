package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/sim"
)

// nodeBlock is what the node says of a block: its time and its transactions' hashes.
type nodeBlock struct {
	Timestamp    int64    `json:"timestamp"`
	Transactions []string `json:"transactions"`
}

func nodeBlockAt(t *testing.T, url string, n int64) nodeBlock {
	t.Helper()
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithTxHashes","params":{"block_id":{"block_number":%d}}}`, n)
	resp, err := http.Post(url, "application/json", bytes.NewBufferString(req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Result nodeBlock }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.Result.Transactions) == 0 {
		t.Fatalf("block %d: the node names no transaction", n)
	}
	return out.Result
}

// TestTransfersAfterAReorgShowTheWinningChain: token_transfers and erc20_balance_changes
// keep no copy of the transaction's hash and the block's time (migration 00042); every
// reader joins them. After a reorg replaced the newest blocks, each reader shows, for each
// transfer and balance change, the hash and time the node gives for the winning chain.
func TestTransfersAfterAReorgShowTheWinningChain(t *testing.T) {
	const depth = 4
	chain, url := simNode(t, sim.Config{Seed: 21, Blocks: 16, TxPerBlock: 6})
	d := dbtest.New(t)
	runIndexer(t, d, url, 0, simHead(chain), nil)
	store := db.NewStore(d)
	ctx := context.Background()
	first := simHead(chain) - depth + 1
	lost, err := store.TransfersInRange(ctx, first, simHead(chain))
	if err != nil || len(lost) == 0 {
		t.Fatalf("the reorged blocks' transfers: %d, %v", len(lost), err)
	}
	chain.Reorg(depth)
	chain.AddBlocks(2)
	head := simHead(chain)
	runIndexer(t, d, url, 0, head, nil)

	blocks := map[int64]nodeBlock{}
	for n := first - 2; n <= head; n++ {
		blocks[n] = nodeBlockAt(t, url, n)
	}
	replaced := 0
	for _, tr := range lost {
		if txs := blocks[tr.BlockNumber].Transactions; tr.TxIndex >= len(txs) || tr.TransactionHash.Hex() != db.MustFelt(txs[tr.TxIndex]).Hex() {
			replaced++
		}
	}
	if replaced == 0 {
		t.Fatal("the reorg replaced no transaction that had a transfer: the test proves nothing")
	}

	checked := 0
	check := func(reader string, rows []*db.TokenTransfer) {
		t.Helper()
		for _, tr := range rows {
			b, ok := blocks[tr.BlockNumber]
			if !ok {
				continue
			}
			checked++
			if tr.TxIndex >= len(b.Transactions) {
				t.Errorf("%s: transfer %d_%d_%d of a transaction the node does not have", reader, tr.BlockNumber, tr.TxIndex, tr.EventIndex)
				continue
			}
			if got, want := tr.TransactionHash.Hex(), db.MustFelt(b.Transactions[tr.TxIndex]).Hex(); got != want || tr.Timestamp != b.Timestamp {
				t.Errorf("%s: transfer %d_%d_%d shows transaction %s at %d; the node says %s at %d",
					reader, tr.BlockNumber, tr.TxIndex, tr.EventIndex, got, tr.Timestamp, want, b.Timestamp)
			}
		}
	}
	live, err := store.TransfersInRange(ctx, first-2, head)
	if err != nil || len(live) == 0 {
		t.Fatalf("live feed: %d, %v", len(live), err)
	}
	check("TransfersInRange (live feed)", live)
	token, wallet := live[len(live)-1].TokenAddress, live[len(live)-1].FromAddress
	for _, f := range []db.TokenTransferFilter{{Token: token}, {Wallet: wallet}, {Wallet: wallet, Ascending: true}} {
		rows, err := store.TokenTransfers(ctx, f, db.Window{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("TokenTransfers %+v", f), rows)
	}
	keys := make([]db.TxKey, 0, len(live))
	for _, tr := range live {
		keys = append(keys, db.TxKey{Block: tr.BlockNumber, Index: tr.TxIndex})
	}
	ofTxs, err := store.TransfersOfTxs(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	check("TransfersOfTxs", ofTxs)
	if checked < 2*len(live) {
		t.Fatalf("only %d transfers checked", checked)
	}

	history, err := store.BalanceHistory(ctx, token, wallet, db.Window{Limit: 1000})
	if err != nil || len(history) == 0 {
		t.Fatalf("balance history: %d, %v", len(history), err)
	}
	for _, p := range history {
		if b, ok := blocks[p.BlockNumber]; ok && p.Timestamp != b.Timestamp {
			t.Errorf("balance history: block %d at %d; the node says %d", p.BlockNumber, p.Timestamp, b.Timestamp)
		}
	}
	if ts, ok, err := store.FirstBalanceChange(ctx, token, wallet); err != nil || !ok || ts != history[len(history)-1].Timestamp {
		t.Errorf("first balance change at %d (%v, %v), the history's oldest at %d", ts, ok, err, history[len(history)-1].Timestamp)
	}
}
