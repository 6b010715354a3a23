package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/resolvers"
	"github.com/starkgraph/starkgraph/webhooks"
)

// The webhook operations through /graphql with API keys: a key sees and changes only its
// own webhooks, the secret is shown at creation and rotation, bad input is BAD_USER_INPUT
// (never a 500), refused URLs are refused, and the plan bounds how many a key holds.
func TestWebhookOperations(t *testing.T) {
	conn := dbtest.New(t)
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	keys := auth.NewStore(conn)
	if _, err := conn.Exec(`INSERT INTO plans (name, rate_per_second, burst, max_webhooks) VALUES ('two', 1000, 1000, 2)`); err != nil {
		t.Fatal(err)
	}
	mine, _, err := keys.CreateKey(ctx, "two", "mine")
	if err != nil {
		t.Fatal(err)
	}
	theirs, _, err := keys.CreateKey(ctx, "dev", "theirs")
	if err != nil {
		t.Fatal(err)
	}
	store := db.NewStore(conn)
	// Blocks 0 to 9 (hash n + 1): the webhooks start after 9, and replays name them.
	if _, err := conn.Exec(`INSERT INTO blocks (number, hash, parent_hash, timestamp, status)
		SELECT n, int8send(n + 1), int8send(n), 1700000000 + n, 'ACCEPTED_ON_L2' FROM generate_series(0, 9) n`); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.NewHandler(api.Config{Store: store, Limits: api.DefaultGraphQLLimits,
		Auth:     auth.New(auth.Options{Keys: keys, Limiter: auth.NewMemoryLimiter(), Logger: quiet}),
		Webhooks: resolvers.WebhookSettings{URLs: webhooks.Options{}}}))
	defer srv.Close()

	type answer struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	ask := func(key, query string) answer {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"query": query})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/graphql", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Fatalf("%s: %d", query, resp.StatusCode)
		}
		var a answer
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	refused := func(key, query, code string) {
		t.Helper()
		a := ask(key, query)
		if len(a.Errors) == 0 || a.Errors[0].Extensions["code"] != code {
			t.Errorf("%s: want %s, got %+v", query, code, a.Errors)
		} else {
			t.Logf("%s: %s", query, a.Errors[0].Message)
		}
	}

	created := ask(mine, `mutation { createWebhook(input: {url: "https://hooks.example.com/x", kind: TRANSFERS,
		token: "0x49D36570D4E46F48E99674BD3FCC84644DDD6B96F7C741B1562B82F9E004DC7"}) { secret webhook { id kind status filter } } }`)
	var c struct {
		Secret  string `json:"secret"`
		Webhook struct {
			ID     string          `json:"id"`
			Kind   string          `json:"kind"`
			Status string          `json:"status"`
			Filter json.RawMessage `json:"filter"`
		} `json:"webhook"`
	}
	if len(created.Errors) > 0 {
		t.Fatalf("createWebhook: %+v", created.Errors)
	}
	_ = json.Unmarshal(created.Data["createWebhook"], &c)
	if webhooks.CheckSecret(c.Secret) != nil || c.Webhook.Kind != "TRANSFERS" || c.Webhook.Status != "ACTIVE" ||
		string(c.Webhook.Filter) != `{"token":"0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7"}` {
		t.Errorf("createWebhook: %+v %s", c, c.Webhook.Filter)
	}
	id := c.Webhook.ID

	// Another key neither sees nor changes it.
	if a := ask(theirs, `{ webhooks { id } }`); string(a.Data["webhooks"]) != "[]" {
		t.Errorf("another key's list: %s", a.Data["webhooks"])
	}
	refused(theirs, `mutation { pauseWebhook(id: "`+id+`") { id } }`, "NOT_FOUND")
	refused(theirs, `mutation { deleteWebhook(id: "`+id+`") }`, "NOT_FOUND")

	// Its owner pauses, resumes and rotates it.
	if a := ask(mine, `mutation { pauseWebhook(id: "`+id+`") { status statusReason } }`); !strings.Contains(string(a.Data["pauseWebhook"]), `"PAUSED"`) {
		t.Errorf("pauseWebhook: %s %+v", a.Data["pauseWebhook"], a.Errors)
	}
	if a := ask(mine, `mutation { resumeWebhook(id: "`+id+`") { status } }`); !strings.Contains(string(a.Data["resumeWebhook"]), `"ACTIVE"`) {
		t.Errorf("resumeWebhook: %s %+v", a.Data["resumeWebhook"], a.Errors)
	}
	rotated := ask(mine, `mutation { rotateWebhookSecret(id: "`+id+`", overlapSeconds: 60) { secret webhook { previousSecretExpiresAt } } }`)
	var r struct {
		Secret  string `json:"secret"`
		Webhook struct {
			Until *int `json:"previousSecretExpiresAt"`
		} `json:"webhook"`
	}
	_ = json.Unmarshal(rotated.Data["rotateWebhookSecret"], &r)
	if r.Secret == c.Secret || webhooks.CheckSecret(r.Secret) != nil || r.Webhook.Until == nil {
		t.Errorf("rotateWebhookSecret: %s %+v", rotated.Data["rotateWebhookSecret"], rotated.Errors)
	}
	w, err := store.KeyWebhook(ctx, mustKeyID(t, conn, "mine"), mustInt(t, id))
	if err != nil || w == nil || len(w.Secrets(w.CreatedAt.Add(59*1e9))) != 2 {
		t.Errorf("after the rotation both secrets sign: %+v %v", w, err)
	}
	if a := ask(mine, `{ webhookDeliveries(id: "`+id+`") { id } }`); string(a.Data["webhookDeliveries"]) != "[]" {
		t.Errorf("webhookDeliveries: %s %+v", a.Data["webhookDeliveries"], a.Errors)
	}

	// A replay of blocks 5 to 7 is under way, then continues after block 9; another key
	// cannot start one.
	if a := ask(mine, `mutation { replayWebhook(id: "`+id+`", fromBlock: 5, toBlock: 7) { positionBlock replay { fromBlock toBlock messageId resumeBlock } } }`); string(a.Data["replayWebhook"]) !=
		`{"positionBlock":4,"replay":{"fromBlock":5,"toBlock":7,"messageId":null,"resumeBlock":9}}` {
		t.Errorf("replayWebhook with toBlock: %s %+v", a.Data["replayWebhook"], a.Errors)
	}
	refused(theirs, `mutation { replayWebhook(id: "`+id+`", fromBlock: 5, toBlock: 7) { id } }`, "NOT_FOUND")
	refused(theirs, `mutation { replayWebhookMessage(id: "`+id+`", messageId: "wh`+id+`_5_0x6_0_0") { id } }`, "NOT_FOUND")
	// Only final blocks: kept, and shown.
	if a := ask(theirs, `mutation { createWebhook(input: {url: "https://hooks.example.com/f", kind: BLOCKS, acceptedOnL1Only: true}) { webhook { acceptedOnL1Only filter } } }`); string(a.Data["createWebhook"]) !=
		`{"webhook":{"acceptedOnL1Only":true,"filter":{"acceptedOnL1Only":true}}}` {
		t.Errorf("createWebhook with acceptedOnL1Only: %s %+v", a.Data["createWebhook"], a.Errors)
	}

	// NFT transfers of a collection to or from a wallet.
	if a := ask(theirs, `mutation { createWebhook(input: {url: "https://hooks.example.com/n", kind: NFT_TRANSFERS, collection: "0xABC", wallet: "0x1"}) { webhook { kind filter } } }`); string(a.Data["createWebhook"]) !=
		`{"webhook":{"kind":"NFT_TRANSFERS","filter":{"wallet":"0x0000000000000000000000000000000000000000000000000000000000000001","collection":"0x0000000000000000000000000000000000000000000000000000000000000abc"}}}` {
		t.Errorf("createWebhook NFT_TRANSFERS: %s %+v", a.Data["createWebhook"], a.Errors)
	}

	// Bad input, refused URLs and the plan's bound.
	for _, q := range []string{
		`mutation { createWebhook(input: {url: "http://hooks.example.com/x", kind: BLOCKS}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://127.0.0.1/x", kind: BLOCKS}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://10.0.0.1/x", kind: BLOCKS}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://169.254.169.254/latest", kind: BLOCKS}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://[::ffff:127.0.0.1]/x", kind: BLOCKS}) { secret } }`,
		`mutation { createWebhook(input: {url: "not a url", kind: BLOCKS}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://hooks.example.com/x", kind: BLOCKS, token: "0x1"}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://hooks.example.com/x", kind: EVENTS, keys: ["0x1","0x2","0x3","0x4","0x5","0x6","0x7","0x8","0x9","0xa","0xb","0xc","0xd","0xe","0xf","0x10","0x11"]}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://hooks.example.com/x", kind: BLOCKS, fromBlock: -1}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://hooks.example.com/x", kind: NFT_TRANSFERS, token: "0x1"}) { secret } }`,
		`mutation { createWebhook(input: {url: "https://hooks.example.com/x", kind: TRANSFERS, collection: "0x1"}) { secret } }`,
		`mutation { replayWebhook(id: "` + id + `", fromBlock: 99999999) { id } }`,
		`mutation { replayWebhook(id: "` + id + `", fromBlock: 5, toBlock: 3) { id } }`,
		`mutation { replayWebhook(id: "` + id + `", fromBlock: 5, toBlock: 10) { id } }`,
		`mutation { replayWebhook(id: "` + id + `", fromBlock: 5, toBlock: -1) { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "msg_2Lp9") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0x6_0_0_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0x6_0_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0x6_0_0_2147483647") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_99999999999999999999_0x6_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0xzz_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh999_5_0x6_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0x6_0_0:removed") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0x7_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_5_0x6_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "` + id + `", messageId: "wh` + id + `_10_0xb_0_0") { id } }`,
		`mutation { replayWebhookMessage(id: "x", messageId: "wh1_5_0x6_0_0") { id } }`,
		`mutation { rotateWebhookSecret(id: "` + id + `", overlapSeconds: 99999999) { secret } }`,
		`mutation { pauseWebhook(id: "x") { id } }`,
		`{ webhookDeliveries(id: "` + id + `", first: 0) { id } }`,
	} {
		refused(mine, q, resolvers.CodeBadInput)
	}
	if a := ask(mine, `mutation { createWebhook(input: {url: "https://hooks.example.com/y", kind: BLOCKS}) { secret } }`); len(a.Errors) > 0 {
		t.Fatalf("the second webhook: %+v", a.Errors)
	}
	refused(mine, `mutation { createWebhook(input: {url: "https://hooks.example.com/z", kind: BLOCKS}) { secret } }`, resolvers.CodeBadInput)

	if a := ask(mine, `mutation { deleteWebhook(id: "`+id+`") }`); string(a.Data["deleteWebhook"]) != "true" {
		t.Errorf("deleteWebhook: %s %+v", a.Data["deleteWebhook"], a.Errors)
	}
	if a := ask(mine, `{ webhooks { id } }`); strings.Contains(string(a.Data["webhooks"]), `"`+id+`"`) {
		t.Errorf("deleted, still listed: %s", a.Data["webhooks"])
	}
}

func mustKeyID(t *testing.T, conn interface {
	Get(dest any, query string, args ...any) error
}, label string) int64 {
	var id int64
	if err := conn.Get(&id, `SELECT id FROM api_keys WHERE label = $1`, label); err != nil {
		t.Fatal(err)
	}
	return id
}

func mustInt(t *testing.T, s string) int64 {
	var v int64
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}
