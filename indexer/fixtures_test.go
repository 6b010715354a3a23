package indexer

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/internal/fixtures"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/replay"
)

func TestMain(m *testing.M) {
	// TestKill9 runs this test binary as the indexer process it kills.
	if os.Getenv(killChildEnv) != "" {
		os.Exit(runKillChild())
	}
	dbtest.Main(m)
}

// quietLogger discards logs unless INDEXER_TEST_LOG is set.
func quietLogger() *slog.Logger {
	if os.Getenv("INDEXER_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// runIndexer indexes from..stopAt from url into d and fails the test on error or timeout.
func runIndexer(t testing.TB, d *sqlx.DB, url string, from, stopAt int64, tweak func(*Config)) {
	t.Helper()
	cfg := Config{RPCURL: url, DB: d, FromBlock: from, StopAt: stopAt, Logger: quietLogger(), PollInterval: 50 * time.Millisecond}
	if tweak != nil {
		tweak(&cfg)
	}
	ix, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("indexer did not reach block %d in time", stopAt)
	}
}

type manifest struct {
	FirstBlock int64 `json:"first_block"`
	LastBlock  int64 `json:"last_block"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestFixtureSets(t *testing.T) {
	for _, name := range []string{"sepolia-56377", "mainnet-763497", "sepolia-3100000"} {
		t.Run(name, func(t *testing.T) {
			dir := fixtures.Set(t, name)
			set, err := replay.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(set)
			defer srv.Close()
			var m manifest
			readJSON(t, filepath.Join(dir, "manifest.json"), &m)
			d := dbtest.New(t)
			runIndexer(t, d, srv.URL, m.FirstBlock, m.LastBlock, nil)
			checkAgainstFixtures(t, d, dir, m)
			var counts []string
			if err := d.Select(&counts, `SELECT name || '=' || count FROM list_counts ORDER BY name`); err != nil {
				t.Fatal(err)
			}
			t.Logf("list_counts: %s", strings.Join(counts, " "))

			// Indexing again changes nothing.
			before := snapshot(t, d)
			runIndexer(t, d, srv.URL, m.FirstBlock, m.LastBlock, nil)
			if after := snapshot(t, d); !equalSnapshots(t, before, after) {
				t.Fatal("indexing the same blocks twice changed the database")
			}
		})
	}
}

// fx reads fixture values.
type fx map[string]any

func (f fx) str(k string) string { s, _ := f[k].(string); return s }
func (f fx) obj(k string) fx     { o, _ := f[k].(map[string]any); return o }
func (f fx) list(k string) []any { l, _ := f[k].([]any); return l }

func feltOrNil(t *testing.T, v any) db.Felt {
	s, ok := v.(string)
	if !ok || s == "" {
		return nil
	}
	f, err := db.ParseFelt(s)
	if err != nil {
		// 32-byte hashes (message_hash) may not be felts; compare raw bytes.
		b, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
		if !ok {
			t.Fatalf("bad hex %q", s)
		}
		return db.Felt(b.Bytes())
	}
	return f
}

func decimalOf(t *testing.T, v any) *string {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	b, ok := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
	if !ok {
		t.Fatalf("bad hex %q", s)
	}
	out := b.String()
	return &out
}

func feltsOf(t *testing.T, v any) db.FeltArray {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := db.FeltArray{}
	for _, x := range l {
		out = append(out, feltOrNil(t, x))
	}
	return out
}

func sameFelts(a, b db.FeltArray) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

func sameJSON(t *testing.T, a json.RawMessage, b any) bool {
	var x, y any
	if len(a) == 0 {
		return b == nil
	}
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(b)
	_ = json.Unmarshal(raw, &y)
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func ptrEq(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func checkAgainstFixtures(t *testing.T, d *sqlx.DB, dir string, m manifest) {
	t.Helper()
	blockDir := filepath.Join(dir, "blocks")
	if _, err := os.Stat(filepath.Join(dir, "rpc_0_8_1")); err == nil {
		blockDir = filepath.Join(dir, "rpc_0_8_1", "blocks")
	}
	var txTotal, evTotal int
	for n := m.FirstBlock; n <= m.LastBlock; n++ {
		var b fx
		readJSON(t, filepath.Join(blockDir, big.NewInt(n).String()+".json"), &b)
		var row struct {
			Hash       db.Felt `db:"hash"`
			Parent     db.Felt `db:"parent_hash"`
			Timestamp  int64   `db:"timestamp"`
			Status     string  `db:"status"`
			Root       db.Felt `db:"state_root"`
			Sequencer  db.Felt `db:"sequencer_address"`
			Version    string  `db:"starknet_version"`
			DAMode     *string `db:"l1_da_mode"`
			L1Wei      *string `db:"l1_gas_price_wei"`
			L1Fri      *string `db:"l1_gas_price_fri"`
			L1DataWei  *string `db:"l1_data_gas_price_wei"`
			L1DataFri  *string `db:"l1_data_gas_price_fri"`
			L2Wei      *string `db:"l2_gas_price_wei"`
			L2Fri      *string `db:"l2_gas_price_fri"`
			TxCount    int     `db:"tx_count"`
			EventCount int     `db:"event_count"`
		}
		if err := d.Get(&row, `SELECT hash, parent_hash, timestamp, status, state_root, sequencer_address, starknet_version,
			l1_da_mode, l1_gas_price_wei::text, l1_gas_price_fri::text, l1_data_gas_price_wei::text, l1_data_gas_price_fri::text,
			l2_gas_price_wei::text, l2_gas_price_fri::text, tx_count, event_count FROM blocks WHERE number = $1`, n); err != nil {
			t.Fatalf("block %d: %v", n, err)
		}
		ts, _ := b["timestamp"].(json.Number).Int64()
		check := func(what string, ok bool) {
			t.Helper()
			if !ok {
				t.Errorf("block %d: %s differs from the fixture", n, what)
			}
		}
		check("hash", row.Hash.Equal(feltOrNil(t, b["block_hash"])))
		check("parent_hash", row.Parent.Equal(feltOrNil(t, b["parent_hash"])))
		check("timestamp", row.Timestamp == ts)
		check("status", row.Status == b.str("status"))
		check("state_root", row.Root.Equal(feltOrNil(t, b["new_root"])))
		check("sequencer", row.Sequencer.Equal(feltOrNil(t, b["sequencer_address"])))
		check("starknet_version", row.Version == b.str("starknet_version"))
		check("l1_da_mode", row.DAMode != nil && *row.DAMode == b.str("l1_da_mode"))
		check("l1_gas_price_wei", ptrEq(row.L1Wei, decimalOf(t, b.obj("l1_gas_price")["price_in_wei"])))
		check("l1_gas_price_fri", ptrEq(row.L1Fri, decimalOf(t, b.obj("l1_gas_price")["price_in_fri"])))
		check("l1_data_gas_price_wei", ptrEq(row.L1DataWei, decimalOf(t, b.obj("l1_data_gas_price")["price_in_wei"])))
		check("l1_data_gas_price_fri", ptrEq(row.L1DataFri, decimalOf(t, b.obj("l1_data_gas_price")["price_in_fri"])))
		check("l2_gas_price_wei", ptrEq(row.L2Wei, decimalOf(t, b.obj("l2_gas_price")["price_in_wei"])))
		check("l2_gas_price_fri", ptrEq(row.L2Fri, decimalOf(t, b.obj("l2_gas_price")["price_in_fri"])))
		txs := b.list("transactions")
		check("tx_count", row.TxCount == len(txs))
		events := 0
		for i, raw := range txs {
			pair := fx(raw.(map[string]any))
			checkTransaction(t, d, n, i, pair.obj("transaction"), pair.obj("receipt"))
			events += len(pair.obj("receipt").list("events"))
		}
		check("event_count", row.EventCount == events)
		txTotal += len(txs)
		evTotal += events
	}
	var counts struct {
		Txs    int64 `db:"txs"`
		Events int64 `db:"events"`
		Blocks int64 `db:"blocks"`
	}
	if err := d.Get(&counts, `SELECT (SELECT count FROM list_counts WHERE name='transactions') AS txs,
		(SELECT count FROM list_counts WHERE name='events') AS events,
		(SELECT count FROM list_counts WHERE name='blocks') AS blocks`); err != nil {
		t.Fatal(err)
	}
	if counts.Txs != int64(txTotal) || counts.Events != int64(evTotal) || counts.Blocks != m.LastBlock-m.FirstBlock+1 {
		t.Errorf("list_counts %+v, want %d blocks, %d txs, %d events", counts, m.LastBlock-m.FirstBlock+1, txTotal, evTotal)
	}
	checkContractsAndClasses(t, d, dir)
}

func checkTransaction(t *testing.T, d *sqlx.DB, block int64, i int, tx, r fx) {
	t.Helper()
	var row struct {
		Hash          db.Felt      `db:"hash"`
		Type          string       `db:"type"`
		Version       int          `db:"version"`
		Sender        db.Felt      `db:"sender_address"`
		Contract      db.Felt      `db:"contract_address"`
		ClassHash     db.Felt      `db:"class_hash"`
		Selector      db.Felt      `db:"entry_point_selector"`
		Nonce         *string      `db:"nonce"`
		MaxFee        *string      `db:"max_fee"`
		Tip           *string      `db:"tip"`
		Fee           string       `db:"actual_fee"`
		Unit          string       `db:"actual_fee_unit"`
		Exec          string       `db:"execution_status"`
		Finality      string       `db:"finality_status"`
		Revert        *string      `db:"revert_reason"`
		Calldata      db.FeltArray `db:"calldata"`
		Constructor   db.FeltArray `db:"constructor_calldata"`
		Signature     db.FeltArray `db:"signature"`
		Compiled      db.Felt      `db:"compiled_class_hash"`
		Salt          db.Felt      `db:"contract_address_salt"`
		Paymaster     db.FeltArray `db:"paymaster_data"`
		AccountDeploy db.FeltArray `db:"account_deployment_data"`
		NonceDA       *string      `db:"nonce_da_mode"`
		FeeDA         *string      `db:"fee_da_mode"`
		MessageHash   db.Felt      `db:"message_hash"`
		EventCount    int          `db:"event_count"`
	}
	if err := d.Get(&row, `SELECT hash, type, version, sender_address, contract_address, class_hash, entry_point_selector,
		nonce::text, max_fee::text, tip::text, actual_fee::text, actual_fee_unit, execution_status,
		finality_status, revert_reason, calldata, constructor_calldata, signature, compiled_class_hash,
		contract_address_salt, paymaster_data, account_deployment_data, nonce_da_mode, fee_da_mode, message_hash,
		event_count FROM transactions_named WHERE block_number = $1 AND tx_index = $2`, block, i); err != nil {
		t.Fatalf("block %d tx %d: %v", block, i, err)
	}
	// Resource bounds and execution resources as the APIs render them from their columns.
	whole, err := db.NewStore(d).TransactionsByKey(context.Background(), []db.TxKey{{Block: block, Index: i}})
	if err != nil || len(whole) != 1 {
		t.Fatalf("block %d tx %d: %d rows, %v", block, i, len(whole), err)
	}
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("block %d tx %d (%s): %s differs from the fixture", block, i, r.str("transaction_hash"), what)
		}
	}
	version, _ := new(big.Int).SetString(strings.TrimPrefix(tx.str("version"), "0x"), 16)
	check("hash", row.Hash.Equal(feltOrNil(t, r["transaction_hash"])))
	check("type", row.Type == tx.str("type"))
	check("version", int64(row.Version) == version.Int64())
	check("sender_address", row.Sender.Equal(feltOrNil(t, tx["sender_address"])))
	wantContract := feltOrNil(t, tx["contract_address"])
	if c := feltOrNil(t, r["contract_address"]); c != nil {
		wantContract = c
	}
	check("contract_address", row.Contract.Equal(wantContract) && (row.Contract == nil) == (wantContract == nil))
	if tx["class_hash"] != nil {
		check("class_hash", row.ClassHash.Equal(feltOrNil(t, tx["class_hash"])))
	}
	check("entry_point_selector", row.Selector.Equal(feltOrNil(t, tx["entry_point_selector"])))
	check("nonce", ptrEq(row.Nonce, decimalOf(t, tx["nonce"])))
	check("max_fee", ptrEq(row.MaxFee, decimalOf(t, tx["max_fee"])))
	check("tip", ptrEq(row.Tip, decimalOf(t, tx["tip"])))
	if tx["resource_bounds"] != nil {
		check("resource_bounds", sameJSON(t, json.RawMessage(whole[0].ResourceBounds()), tx["resource_bounds"]))
	} else {
		check("resource_bounds", whole[0].ResourceBounds() == nil)
	}
	check("actual_fee", row.Fee == *decimalOf(t, r.obj("actual_fee")["amount"]))
	check("actual_fee_unit", row.Unit == r.obj("actual_fee").str("unit"))
	check("execution_status", row.Exec == r.str("execution_status"))
	check("finality_status", row.Finality == r.str("finality_status"))
	if r.str("execution_status") == "REVERTED" {
		check("revert_reason", row.Revert != nil && *row.Revert == r.str("revert_reason"))
	} else {
		check("revert_reason", row.Revert == nil)
	}
	check("calldata", sameFelts(row.Calldata, feltsOf(t, tx["calldata"])))
	check("constructor_calldata", sameFelts(row.Constructor, feltsOf(t, tx["constructor_calldata"])))
	check("signature", sameFelts(row.Signature, feltsOf(t, tx["signature"])))
	check("compiled_class_hash", row.Compiled.Equal(feltOrNil(t, tx["compiled_class_hash"])))
	check("contract_address_salt", row.Salt.Equal(feltOrNil(t, tx["contract_address_salt"])))
	check("paymaster_data", sameFelts(row.Paymaster, feltsOf(t, tx["paymaster_data"])))
	check("account_deployment_data", sameFelts(row.AccountDeploy, feltsOf(t, tx["account_deployment_data"])))
	check("nonce_da_mode", ptrEq(row.NonceDA, strOrNil(tx["nonce_data_availability_mode"])))
	check("fee_da_mode", ptrEq(row.FeeDA, strOrNil(tx["fee_data_availability_mode"])))
	check("message_hash", row.MessageHash.Equal(feltOrNil(t, r["message_hash"])))
	check("execution_resources", sameJSON(t, json.RawMessage(whole[0].ExecutionResources()), r["execution_resources"]))
	events := r.list("events")
	check("event_count", row.EventCount == len(events))

	var got []struct {
		Index int          `db:"event_index"`
		From  db.Felt      `db:"from_address"`
		Key0  db.Felt      `db:"key0"`
		Keys  db.FeltArray `db:"keys"`
		Data  db.FeltArray `db:"data"`
	}
	if err := d.Select(&got, `SELECT event_index, from_address, key0, keys, data FROM events_named
		WHERE block_number = $1 AND tx_index = $2 ORDER BY event_index`, block, i); err != nil {
		t.Fatal(err)
	}
	check("number of events", len(got) == len(events))
	for j := 0; j < len(got) && j < len(events); j++ {
		e := fx(events[j].(map[string]any))
		keys := feltsOf(t, e["keys"])
		check("event index", got[j].Index == j)
		check("event from_address", got[j].From.Equal(feltOrNil(t, e["from_address"])))
		check("event keys", sameFelts(got[j].Keys, keys))
		check("event data", sameFelts(got[j].Data, feltsOf(t, e["data"])))
		if len(keys) > 0 {
			check("event key0", got[j].Key0.Equal(keys[0]))
		}
	}
}

func strOrNil(v any) *string {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return &s
}

func checkContractsAndClasses(t *testing.T, d *sqlx.DB, dir string) {
	var contracts map[string]string
	readJSON(t, filepath.Join(dir, "contracts.json"), &contracts)
	for addr, class := range contracts {
		var row struct {
			Class db.Felt `db:"class_hash"`
			Block *int64  `db:"deployed_block"`
			Type  string  `db:"type"`
		}
		if err := d.Get(&row, `SELECT class_hash, deployed_block, type FROM contracts WHERE address = $1`, db.MustFelt(addr)); err != nil {
			t.Errorf("contract %s: %v", addr, err)
			continue
		}
		if !row.Class.Equal(db.MustFelt(class)) || row.Block == nil {
			t.Errorf("contract %s: class %s deployed at %v, want class %s", addr, row.Class.Hex(), row.Block, class)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "classes", "*.json"))
	for _, f := range files {
		hash := strings.TrimSuffix(filepath.Base(f), ".json")
		var c fx
		readJSON(t, f, &c)
		var row struct {
			Kind string  `db:"kind"`
			ABI  db.JSON `db:"abi"`
			Ver  string  `db:"version"`
		}
		err := d.Get(&row, `SELECT kind, abi, version FROM classes WHERE hash = $1`, db.MustFelt(hash))
		if err != nil {
			// A class in the set that no block of it names is not indexed.
			continue
		}
		wantKind := "legacy"
		if c["sierra_program"] != nil {
			wantKind = "sierra"
			if row.Ver != c.str("contract_class_version") {
				t.Errorf("class %s: version %q, want %q", hash, row.Ver, c.str("contract_class_version"))
			}
		}
		if row.Kind != wantKind {
			t.Errorf("class %s: kind %q, want %q", hash, row.Kind, wantKind)
		}
		abi := c["abi"]
		if s, ok := abi.(string); ok {
			var v any
			_ = json.Unmarshal([]byte(s), &v)
			abi = v
		}
		if !sameJSON(t, json.RawMessage(row.ABI), abi) {
			t.Errorf("class %s: abi differs from the fixture", hash)
		}
	}
	// Every class declared in a state diff is in classes with its block.
	sus, _ := filepath.Glob(filepath.Join(dir, "state_updates", "*.json"))
	for _, f := range sus {
		var su fx
		readJSON(t, f, &su)
		diff := su.obj("state_diff")
		var declared []string
		for _, x := range diff.list("declared_classes") {
			declared = append(declared, fx(x.(map[string]any)).str("class_hash"))
		}
		for _, x := range diff.list("deprecated_declared_classes") {
			declared = append(declared, x.(string))
		}
		for _, h := range declared {
			var block *int64
			if err := d.Get(&block, `SELECT declared_block FROM classes WHERE hash = $1`, db.MustFelt(h)); err != nil || block == nil {
				t.Errorf("declared class %s: not in classes with its block (%v)", h, err)
			}
		}
	}
}

// snapshotTables are compared between runs that must end in the same state.
var snapshotTables = []string{"blocks", "transactions", "calls", "events", "classes", "contracts",
	"tokens", "erc20_balances", "nft_items", "nft_balances", "nft_holders", "nft_events", "token_transfers", "erc20_balance_changes", "messages", "activity_stats", "meta_transactions", "list_counts",
	"validators", "pools", "delegations", "stake_points", "chain_stats", "staking_overview",
	"sender_last_blocks", "active_sender_blocks", "staking_figures", "validator_figures",
	"staking_activity", "attestations", "validator_days", "starknet_id_names", "starknet_id_domains",
	"key_counts", "key_marks", "balance_corrections"}

// snapshotRows read a table whose rows name felts by id (db/felt_ids.go) with the felts:
// ids depend on the order in which a run met the felts, which two runs need not share.
var snapshotRows = map[string]string{
	"erc20_balance_changes": "erc20_balance_changes_named",
	"token_transfers":       "token_transfers_named",
	"events":                "events_named",
	"calls":                 "calls_named",
	"transactions":          "transactions_named",
}

// snapshot returns every row of the derived tables as text, table by table, sorted.
func snapshot(t *testing.T, d *sqlx.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range snapshotTables {
		query := `SELECT t::text FROM ` + table + ` t ORDER BY 1`
		if view, ok := snapshotRows[table]; ok {
			// The ids themselves, which transactions_named shows beside their felts, are
			// left out.
			query = `SELECT (to_jsonb(t) - '{sender_id,contract_id,class_id}'::text[])::text FROM ` + view + ` t ORDER BY 1`
		}
		var rows []string
		if err := d.Select(&rows, query); err != nil {
			t.Fatal(err)
		}
		out[table] = rows
	}
	return out
}

func equalSnapshots(t *testing.T, a, b map[string][]string) bool {
	t.Helper()
	same := true
	for _, table := range snapshotTables {
		x, y := a[table], b[table]
		if len(x) != len(y) {
			t.Errorf("%s: %d rows vs %d rows", table, len(x), len(y))
			same = false
			continue
		}
		for i := range x {
			if x[i] != y[i] {
				t.Errorf("%s: row differs:\n  %.400s\n  %.400s", table, x[i], y[i])
				same = false
				break
			}
		}
	}
	return same
}
