package nftmeta

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/starknet"
)

// byteArray encodes s as a Cairo ByteArray, as a node returns it.
func byteArray(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	full := len(s) / 31
	out = append(out, fmt.Sprintf("0x%x", full))
	for i := 0; i < full; i++ {
		f, _ := starknet.EncodeShortString(s[i*31 : i*31+31])
		out = append(out, f.Hex())
	}
	f, _ := starknet.EncodeShortString(s[full*31:])
	return append(out, f.Hex(), fmt.Sprintf("0x%x", len(s)-full*31))
}

// stubNode answers starknet_call for the entry points in results (by name); any other
// call fails as an unknown entry point does. calls records the calldata it was given.
func stubNode(t *testing.T, results map[string][]string, calls *[][]string) string {
	t.Helper()
	bySelector := map[string][]string{}
	for name, r := range results {
		bySelector[starknet.Selector(name).Hex()] = r
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Request struct {
					Selector string   `json:"entry_point_selector"`
					Calldata []string `json:"calldata"`
				} `json:"request"`
			} `json:"params"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		sel, _ := starknet.ParseFelt(req.Params.Request.Selector)
		if calls != nil {
			*calls = append(*calls, req.Params.Request.Calldata)
		}
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if res, ok := bySelector[sel.Hex()]; ok {
			out["result"] = res
		} else {
			out["error"] = map[string]any{"code": 40, "message": "Contract error", "data": "Entry point not found"}
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestFetchReadsEveryKindOfURI(t *testing.T) {
	doc := `{"name":"Duck #7","description":"A duck.","image":"ipfs://QmImage","external_url":"https://duck.example",
		"animation_url":"https://duck.example/7.mp4","attributes":[{"trait_type":"color","value":"gold"}]}`
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ipfs/QmMeta/7.json", "/meta/7.json", "/1155/" + fmt.Sprintf("%064x", 7) + ".json":
			_, _ = w.Write([]byte(doc))
		case "/big.json":
			_, _ = w.Write([]byte(`{"name":"` + strings.Repeat("x", 2000) + `"}`))
		case "/text":
			_, _ = w.Write([]byte("not json"))
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer docs.Close()
	contract := starknet.MustFelt("0xc0ffee")
	want := func(t *testing.T, m *db.NFTMetadata, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if m.Name == nil || *m.Name != "Duck #7" || *m.Description != "A duck." || *m.ImageURL != "ipfs://QmImage" ||
			*m.ExternalURL != "https://duck.example" || *m.AnimationURL != "https://duck.example/7.mp4" || m.YoutubeURL != nil ||
			!strings.Contains(string(m.Attributes), `"gold"`) {
			t.Errorf("metadata %+v", m)
		}
	}
	for _, c := range []struct {
		name     string
		standard int
		results  map[string][]string
	}{
		{"data: base64, ByteArray", 721, map[string][]string{"token_uri": byteArray(t, "data:application/json;base64,"+base64.StdEncoding.EncodeToString([]byte(doc)))}},
		{"data: plain, camelCase entry point", 721, map[string][]string{"tokenURI": byteArray(t, "data:application/json,"+strings.ReplaceAll(doc, "\n", ""))}},
		{"ipfs:// through the gateway", 721, map[string][]string{"token_uri": byteArray(t, "ipfs://QmMeta/7.json")}},
		{"http, a legacy array of short strings", 721, map[string][]string{"token_uri": legacyArray(docs.URL + "/meta/7.json")}},
		{"ERC-1155 uri with {id}", 1155, map[string][]string{"uri": byteArray(t, docs.URL+"/1155/{id}.json")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls [][]string
			f := New(Config{RPCURL: stubNode(t, c.results, &calls), Gateway: docs.URL + "/ipfs/", AllowPrivate: true})
			m, err := f.Fetch(t.Context(), contract, "7", c.standard)
			want(t, m, err)
			if last := calls[len(calls)-1]; len(last) != 2 || last[0] != "0x7" || last[1] != "0x0" {
				t.Errorf("token id as calldata %v, want [0x7 0x0] (u256 low, high)", last)
			}
		})
	}

	refused := func(name, uri string, cfg Config, wantErr string) {
		t.Helper()
		cfg.RPCURL = stubNode(t, map[string][]string{"token_uri": byteArray(t, uri)}, nil)
		if _, err := New(cfg).Fetch(t.Context(), contract, "7", 721); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: %v, want an error naming %q", name, err, wantErr)
		}
	}
	refused("a private address", docs.URL+"/meta/7.json", Config{}, "not public")
	refused("a document over the cap", docs.URL+"/big.json", Config{AllowPrivate: true, MaxBytes: 1000}, "larger than 1000 bytes")
	refused("not JSON", docs.URL+"/text", Config{AllowPrivate: true}, "not a JSON object")
	refused("a missing document", docs.URL+"/gone", Config{AllowPrivate: true}, "HTTP 404")
	refused("a redirect loop", docs.URL+"/loop", Config{AllowPrivate: true}, "more than 3 redirects")
	refused("another scheme", "ftp://duck.example/7", Config{}, "not a data:")
	refused("a broken data: URI", "data:application/json;base64,%%%", Config{}, "data: URI")
	if _, err := New(Config{RPCURL: stubNode(t, nil, nil)}).Fetch(t.Context(), contract, "7", 721); err == nil || !strings.Contains(err.Error(), "no token URI") {
		t.Errorf("a contract without a token URI: %v", err)
	}
	if _, err := New(Config{RPCURL: stubNode(t, nil, nil)}).Fetch(t.Context(), contract, "1"+strings.Repeat("0", 80), 721); err == nil {
		t.Error("a token id above 2^256 was asked for")
	}
}

func legacyArray(s string) []string {
	var words []string
	for len(s) > 0 {
		n := min(31, len(s))
		f, _ := starknet.EncodeShortString(s[:n])
		words = append(words, f.Hex())
		s = s[n:]
	}
	return append([]string{fmt.Sprintf("0x%x", len(words))}, words...)
}

// TestRefreshesFromTheSimulatedChain: items of the simulated chain, indexed, are queued
// and refreshed over JSON-RPC: those whose URI is a data: URI get their document's fields,
// those whose URI names an address this machine cannot reach are marked failed and keep
// what they had.
func TestRefreshesFromTheSimulatedChain(t *testing.T) {
	chain := sim.New(sim.Config{Seed: 3, Blocks: 120, TxPerBlock: 10})
	node := httptest.NewServer(chain.Handlers())
	defer node.Close()
	url := node.URL + "/rpc/v0_8"
	conn := dbtest.New(t)
	ix, err := indexer.New(indexer.Config{RPCURL: url, DB: conn, StopAt: 119, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	var items []struct {
		Contract db.Felt `db:"contract_address"`
		ID       string  `db:"token_id"`
	}
	if err := conn.Select(&items, `SELECT contract_address, token_id::text FROM nft_items WHERE contract_type = 721 AND owner_address IS NOT NULL
		ORDER BY md5(contract_address || token_id::text) LIMIT 40`); err != nil {
		t.Fatal(err)
	}
	if len(items) < 10 {
		t.Fatalf("%d ERC-721 items indexed", len(items))
	}
	for _, it := range items {
		if ok, err := store.RequestNFTMetadata(ctx, it.Contract, it.ID, time.Hour); err != nil || !ok {
			t.Fatalf("request %v: %v %v", it, ok, err)
		}
		if ok, err := store.RequestNFTMetadata(ctx, it.Contract, it.ID, time.Hour); err != nil || ok {
			t.Fatalf("a second request within the hour was taken: %v %v", ok, err)
		}
	}
	f := New(Config{DB: conn, RPCURL: url, Timeout: 2 * time.Second})
	for n := 0; ; n++ {
		did, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			if n != len(items) {
				t.Fatalf("%d requests settled of %d", n, len(items))
			}
			break
		}
	}
	var outcomes []struct {
		State string  `db:"state"`
		Error *string `db:"error"`
		URI   *string `db:"token_uri"`
		Name  *string `db:"name"`
		Attrs string  `db:"attributes"`
	}
	if err := conn.Select(&outcomes, `SELECT r.state, r.error, i.token_uri, i.name, i.attributes::text AS attributes
		FROM nft_metadata_requests r JOIN nft_items i USING (contract_address, token_id)`); err != nil {
		t.Fatal(err)
	}
	var done, failed int
	for _, o := range outcomes {
		switch {
		case o.State == "done" && o.URI != nil && strings.HasPrefix(*o.URI, "data:") && o.Name != nil && strings.HasPrefix(*o.Name, "Sim ") &&
			strings.Contains(o.Attrs, "rarity"):
			done++
		case o.State == "failed" && o.Error != nil && strings.Contains(*o.Error, "https://nft.sim.starkgraph.dev/") && o.URI == nil && o.Name == nil:
			failed++
		default:
			t.Errorf("outcome %s %v: uri %v name %v attributes %s", o.State, deref(o.Error), deref(o.URI), deref(o.Name), o.Attrs)
		}
	}
	if done == 0 || failed == 0 {
		t.Errorf("%d refreshed and %d failed: want both kinds of collection", done, failed)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestMain(m *testing.M) { dbtest.Main(m) }

// TestDocumentPostgresRefuses: a document that parses as JSON but that PostgreSQL's jsonb
// refuses (a lone surrogate escape) fails its request instead of leaving it queued.
func TestDocumentPostgresRefuses(t *testing.T) {
	conn := dbtest.New(t)
	contract := db.MustFelt("0xc0ffee")
	if _, err := conn.Exec(`INSERT INTO nft_items (contract_address, token_id, contract_type, name) VALUES ($1, 7, 721, 'kept')`, contract); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.NewStore(conn).RequestNFTMetadata(t.Context(), contract, "7", time.Minute); err != nil || !ok {
		t.Fatalf("request: %v %v", ok, err)
	}
	doc := `{"name":"new","attributes":[{"trait_type":"x","value":"\ud800"}]}`
	node := stubNode(t, map[string][]string{"token_uri": byteArray(t, "data:application/json;base64,"+base64.StdEncoding.EncodeToString([]byte(doc)))}, nil)
	f := New(Config{DB: conn, RPCURL: node})
	if did, err := f.Next(t.Context()); !did || err != nil {
		t.Fatalf("Next: %v %v", did, err)
	}
	var state, msg, name string
	if err := conn.QueryRow(`SELECT r.state, r.error, i.name FROM nft_metadata_requests r JOIN nft_items i USING (contract_address, token_id)`).Scan(&state, &msg, &name); err != nil {
		t.Fatal(err)
	}
	if state != "failed" || !strings.Contains(msg, "could not be stored") || name != "kept" {
		t.Errorf("state %s (%s), name %s: want failed, the item kept", state, msg, name)
	}
	if did, err := f.Next(t.Context()); did || err != nil {
		t.Errorf("the request is still queued: %v %v", did, err)
	}
}

// TestNoTransactionOpenWhileTheDocumentIsRead: while the fetcher waits on a slow metadata
// server, it holds no transaction open and no lock on its request, and the outcome is
// recorded once the document arrives.
func TestNoTransactionOpenWhileTheDocumentIsRead(t *testing.T) {
	conn := dbtest.New(t)
	contract := db.MustFelt("0xd0c")
	if _, err := conn.Exec(`INSERT INTO nft_items (contract_address, token_id, contract_type) VALUES ($1, 9, 721)`, contract); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.NewStore(conn).RequestNFTMetadata(t.Context(), contract, "9", time.Minute); err != nil || !ok {
		t.Fatalf("request: %v %v", ok, err)
	}
	type seen struct {
		openTx int
		err    error
	}
	during := make(chan seen, 1)
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s seen
		s.err = conn.Get(&s.openTx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`)
		if s.err == nil {
			// The request's row is not locked: another session may change it at once.
			tx := conn.MustBegin()
			tx.MustExec(`SET LOCAL lock_timeout = '200ms'`)
			_, s.err = tx.Exec(`UPDATE nft_metadata_requests SET error = NULL WHERE token_id = 9`)
			_ = tx.Rollback()
		}
		during <- s
		_, _ = w.Write([]byte(`{"name":"slow duck"}`))
	}))
	defer docs.Close()
	node := stubNode(t, map[string][]string{"token_uri": byteArray(t, docs.URL+"/9.json")}, nil)
	f := New(Config{DB: conn, RPCURL: node, AllowPrivate: true, Timeout: 5 * time.Second})
	if did, err := f.Next(t.Context()); !did || err != nil {
		t.Fatalf("Next: %v %v", did, err)
	}
	if s := <-during; s.err != nil || s.openTx != 0 {
		t.Errorf("while the document was read: %d transactions open, updating the request: %v", s.openTx, s.err)
	}
	var state, name string
	if err := conn.QueryRow(`SELECT r.state, i.name FROM nft_metadata_requests r JOIN nft_items i USING (contract_address, token_id)`).Scan(&state, &name); err != nil {
		t.Fatal(err)
	}
	if state != "done" || name != "slow duck" {
		t.Errorf("state %s, name %s: want done, slow duck", state, name)
	}
}

// TestARunOutClaimIsTakenAgain: a claim whose fetcher stopped is taken again once its lease
// runs out, and the first claimant, coming back late, records nothing over the second's.
func TestARunOutClaimIsTakenAgain(t *testing.T) {
	conn := dbtest.New(t)
	ctx := t.Context()
	contract := db.MustFelt("0x1ea5e")
	if _, err := conn.Exec(`INSERT INTO nft_items (contract_address, token_id, contract_type, name) VALUES ($1, 3, 721, 'old')`, contract); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.NewStore(conn).RequestNFTMetadata(ctx, contract, "3", time.Minute); err != nil || !ok {
		t.Fatalf("request: %v %v", ok, err)
	}
	const lease = 300 * time.Millisecond
	first, err := db.ClaimNFTMetadataRequest(ctx, conn, lease)
	if err != nil || first == nil {
		t.Fatalf("first claim: %v %v", first, err)
	}
	if again, err := db.ClaimNFTMetadataRequest(ctx, conn, lease); err != nil || again != nil {
		t.Fatalf("a claimed request was claimed again within its lease: %v %v", again, err)
	}
	time.Sleep(lease + 100*time.Millisecond)
	second, err := db.ClaimNFTMetadataRequest(ctx, conn, lease)
	if err != nil || second == nil || second.TokenID != "3" {
		t.Fatalf("the run-out claim was not taken again: %v %v", second, err)
	}
	finish := func(r *db.NFTMetadataRequest, name string) bool {
		t.Helper()
		tx := conn.MustBegin()
		defer tx.Rollback()
		held, err := db.FinishNFTMetadataRequest(ctx, tx, r, &db.NFTMetadata{TokenURI: "data:,", Name: &name, Attributes: db.JSON("[]")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return held
	}
	if finish(first, "late") {
		t.Error("the first claimant recorded its outcome after its claim ran out")
	}
	if !finish(second, "new") {
		t.Error("the second claimant could not record its outcome")
	}
	var state, name string
	var attempts int
	if err := conn.QueryRow(`SELECT r.state, r.attempts, i.name FROM nft_metadata_requests r JOIN nft_items i USING (contract_address, token_id)`).Scan(&state, &attempts, &name); err != nil {
		t.Fatal(err)
	}
	if state != "done" || name != "new" || attempts != 2 {
		t.Errorf("state %s, name %s, attempts %d: want done, new, 2", state, name, attempts)
	}
}
