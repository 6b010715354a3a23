package sim

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzRequests: hostile requests get JSON-RPC errors, never a panic or bad JSON.
func FuzzRequests(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithReceipts","params":[{"block_number":3}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithTxHashes","params":{"block_id":{"block_hash":"0x1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_call","params":[{"contract_address":"0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7","entry_point_selector":"0x2e4263afad30923c891518314c3c95dbe830a16874e8abc5777a9a20b54c76e","calldata":["0x1"]},"latest"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getClass","params":["latest","0x1"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getTransactionReceipt","params":["0xabc"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"starknet_getTransactionByBlockIdAndIndex","params":["latest",-1]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"starknet_getStateUpdate","params":["pending"]}]`,
	} {
		f.Add([]byte(seed))
	}
	c := New(Config{Seed: 1, Blocks: 8, TxPerBlock: 4})
	f.Fuzz(func(t *testing.T, body []byte) {
		out, herr := c.rpc.Handle(context.Background(), body)
		if herr != nil {
			t.Fatalf("HTTP error for %q", body)
		}
		if out != nil && !json.Valid(out) {
			t.Fatalf("invalid JSON answer for %q", body)
		}
	})
}
