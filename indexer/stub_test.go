package indexer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// stubNode answers the few methods the indexer uses with fixed results, for blocks that
// neither the fixtures nor the simulator have, in single and batch requests. Unknown
// methods and classes get JSON-RPC errors, as from a real node.
func stubNode(t *testing.T, spec string, blocks map[uint64]string, states map[uint64]string) string {
	t.Helper()
	head := uint64(0)
	for n := range blocks {
		head = max(head, n)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		type request struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		var body json.RawMessage
		var reqs []request
		err := json.NewDecoder(r.Body).Decode(&body)
		single := err == nil && len(body) > 0 && body[0] == '{'
		if single {
			reqs = make([]request, 1)
			err = json.Unmarshal(body, &reqs[0])
		} else if err == nil {
			err = json.Unmarshal(body, &reqs)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var out []map[string]any
		for _, q := range reqs {
			var p struct {
				BlockID struct {
					Number uint64 `json:"block_number"`
				} `json:"block_id"`
			}
			_ = json.Unmarshal(q.Params, &p)
			res := map[string]any{"jsonrpc": "2.0", "id": q.ID}
			switch q.Method {
			case "starknet_specVersion":
				res["result"] = spec
			case "starknet_chainId":
				res["result"] = "0x534e5f5345504f4c4941"
			case "starknet_blockNumber":
				res["result"] = head
			case "starknet_getBlockWithReceipts":
				res["result"] = json.RawMessage(blocks[p.BlockID.Number])
			case "starknet_getBlockWithTxHashes":
				res["result"] = withTxHashes(t, blocks[p.BlockID.Number])
			case "starknet_getStateUpdate":
				res["result"] = json.RawMessage(states[p.BlockID.Number])
			case "starknet_getClass":
				res["error"] = map[string]any{"code": 28, "message": "Class hash not found"}
			default:
				res["error"] = map[string]any{"code": -32601, "message": "Method not found"}
			}
			out = append(out, res)
		}
		if single {
			_ = json.NewEncoder(w).Encode(out[0])
			return
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// withTxHashes turns a block with receipts into the block with transaction hashes that
// starknet_getBlockWithTxHashes answers.
func withTxHashes(t *testing.T, block string) json.RawMessage {
	if block == "" {
		return nil
	}
	var b map[string]json.RawMessage
	if err := json.Unmarshal([]byte(block), &b); err != nil {
		t.Errorf("stub block: %v", err)
		return nil
	}
	var txs []struct {
		Receipt struct {
			Hash json.RawMessage `json:"transaction_hash"`
		} `json:"receipt"`
	}
	_ = json.Unmarshal(b["transactions"], &txs)
	hashes := make([]json.RawMessage, len(txs))
	for i, tx := range txs {
		hashes[i] = tx.Receipt.Hash
	}
	b["transactions"], _ = json.Marshal(hashes)
	out, _ := json.Marshal(b)
	return out
}

// TestOldTransactionTypesEndToEnd writes a block holding INVOKE v0, DECLARE v0/v1/v3,
// DEPLOY, DEPLOY_ACCOUNT (query version) and L1_HANDLER, from a node speaking RPC 0.9, and
// a revert reason with a NUL character, which PostgreSQL text cannot hold.
func TestOldTransactionTypesEndToEnd(t *testing.T) {
	block := strings.Replace(allTypesBlock, `"revert_reason":"out of gas"`, `"revert_reason":"out\u0000of gas"`, 1)
	state := `{"block_hash":"0xb1","new_root":"0x1","old_root":"0x0","state_diff":{"storage_diffs":[],"nonces":[{"contract_address":"0xd2","nonce":"0x1"}],
	  "deployed_contracts":[{"address":"0xd1","class_hash":"0xc0de"},{"address":"0xd2","class_hash":"0xc0e0"}],
	  "declared_classes":[{"class_hash":"0xc0e0","compiled_class_hash":"0xcc"}],"deprecated_declared_classes":["0xc0de","0xc0df"],"replaced_classes":[]}}`
	url := stubNode(t, "0.9.0", map[uint64]string{7: block}, map[uint64]string{7: state})
	d := dbtest.New(t)
	runIndexer(t, d, url, 7, 7, nil)

	var rows []struct {
		Type     string  `db:"type"`
		Version  int     `db:"version"`
		Contract db.Felt `db:"contract_address"`
		Class    db.Felt `db:"class_hash"`
		Nonce    *string `db:"nonce"`
		Revert   *string `db:"revert_reason"`
		Calls    int     `db:"calls"`
	}
	if err := d.Select(&rows, `SELECT type, version, contract_address, class_hash, nonce::text, revert_reason,
		(SELECT count(*) FROM calls c WHERE c.block_number = t.block_number AND c.tx_index = t.tx_index) AS calls
		FROM transactions_named t ORDER BY tx_index`); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d transactions written", len(rows))
	}
	if r := rows[0]; r.Type != "INVOKE" || r.Version != 0 || !r.Contract.Equal(db.MustFelt("0xc1")) || r.Nonce != nil || r.Calls != 1 {
		t.Errorf("INVOKE v0: %+v", r)
	}
	if r := rows[3]; r.Revert == nil || *r.Revert != "outof gas" {
		t.Errorf("revert reason: %+v", r.Revert)
	}
	if r := rows[4]; r.Type != "DEPLOY" || !r.Contract.Equal(db.MustFelt("0xd1")) || !r.Class.Equal(db.MustFelt("0xc0de")) {
		t.Errorf("DEPLOY: %+v", r)
	}
	if r := rows[5]; r.Type != "DEPLOY_ACCOUNT" || r.Version != 3 || !r.Contract.Equal(db.MustFelt("0xd2")) {
		t.Errorf("DEPLOY_ACCOUNT: %+v", r)
	}
	if r := rows[6]; r.Type != "L1_HANDLER" || r.Calls != 1 {
		t.Errorf("L1_HANDLER: %+v", r)
	}
	var classes []string
	if err := d.Select(&classes, `SELECT kind || ':' || cairo_version || ':' || encode(declared_tx_hash, 'hex') FROM classes ORDER BY hash`); err != nil {
		t.Fatal(err)
	}
	if strings.Join(classes, " ") != "legacy:0:0101 legacy:0:0102 sierra:1:0103" {
		t.Errorf("classes: %v", classes)
	}
	var contracts []string
	if err := d.Select(&contracts, `SELECT encode(address, 'hex') || ':' || nonce || ':' || encode(deployed_tx_hash, 'hex') FROM contracts ORDER BY address`); err != nil {
		t.Fatal(err)
	}
	if strings.Join(contracts, " ") != "d1:0:0104 d2:1:0105" {
		t.Errorf("contracts: %v", contracts)
	}
	var spec string
	if err := d.Get(&spec, `SELECT spec_version FROM indexer_state`); err != nil || spec != "0.9.0" {
		t.Errorf("spec_version %q (%v)", spec, err)
	}
}

func TestUnsupportedSpecVersion(t *testing.T) {
	url := stubNode(t, "0.6.0", map[uint64]string{7: allTypesBlock}, nil)
	ix, err := New(Config{RPCURL: url, DB: dbtest.New(t), FromBlock: 7, StopAt: 7, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "0.6.0") {
		t.Fatalf("Run against a 0.6 node: %v", err)
	}
}
