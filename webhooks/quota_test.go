package webhooks_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
	"github.com/starkgraph/starkgraph/webhooks/webhookstest"
)

// Deliveries count toward their key's quota, with its requests: a key whose plan allows 8
// a day makes 2 API requests, then its blocks webhook is delivered 6 messages of the 12
// waiting and waits for the next UTC day (active, no failure counted, the reason shown),
// and the key's next request is refused 429. The usage records 6 webhook deliveries
// beside the 2 requests.
func TestDeliveriesCountTowardTheQuota(t *testing.T) {
	conn := dbtest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	chain := sim.New(sim.Config{Seed: 5, Blocks: 12, TxPerBlock: 2})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	indexertest.Run(t, conn, node.URL, 0, 11)

	if _, err := conn.Exec(`INSERT INTO plans (name, rate_per_second, burst, daily_quota, max_webhooks) VALUES ('eight', 1000, 1000, 8, 5)`); err != nil {
		t.Fatal(err)
	}
	keys := auth.NewStore(conn)
	text, key, err := keys.CreateKey(ctx, "eight", "")
	if err != nil {
		t.Fatal(err)
	}
	limiter := auth.NewMemoryLimiter()
	usage := auth.NewUsageRecorder(keys, time.Hour, quiet)
	defer usage.Close(context.Background())
	api := httptest.NewServer(auth.New(auth.Options{Keys: keys, Limiter: limiter, Usage: usage, Logger: quiet}).
		Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })))
	defer api.Close()
	ask := func() int {
		req, _ := http.NewRequest(http.MethodGet, api.URL+"/beta/blocks", nil)
		req.Header.Set("x-api-key", text)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 2 {
		if s := ask(); s != http.StatusOK {
			t.Fatalf("a request within the quota: %d", s)
		}
	}

	recv := webhookstest.NewReceiver(1, 0)
	recvURL, err := recv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	store := db.NewStore(conn)
	from := int64(0)
	w := &db.Webhook{KeyID: key.ID, URL: recvURL + "/hook", Kind: webhooks.KindBlocks}
	if w.Secret, err = webhooks.NewSecret(); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateWebhook(ctx, w, &from); err != nil {
		t.Fatal(err)
	}
	recv.Expect(w.ID, w.Secret)
	d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: store, Logger: quiet, Poll: 20 * time.Millisecond,
		Sender: webhooks.NewSender(webhooks.Options{AllowHTTP: true, AllowLoopback: true}),
		Meter:  auth.NewDeliveryMeter(keys, limiter, usage, quiet)})
	dCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); d.Run(dCtx, "") }()
	var now *db.Webhook
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if now, err = store.Webhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		if now.NextAttemptAt != nil || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // nothing more is delivered
	stop()
	<-done

	if got := len(recv.Holds(w.ID)); got != 6 {
		t.Errorf("the receiver holds %d messages; the quota of 8, 2 taken by requests, allows 6", got)
	}
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	if now.Status != "active" || now.Attempts != 0 || now.NextAttemptAt == nil ||
		now.NextAttemptAt.Sub(tomorrow).Abs() > time.Minute || !strings.Contains(now.LastError, "daily quota is used up") {
		t.Errorf("over quota, the webhook is %s, %d failures, next attempt %v (want %v), %q", now.Status, now.Attempts,
			now.NextAttemptAt, tomorrow, now.LastError)
	}
	if s := ask(); s != http.StatusTooManyRequests {
		t.Errorf("a request after the deliveries used the quota up: %d, want 429", s)
	}
	if err := usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	_, days, err := keys.Usage(ctx, text)
	if err != nil || len(days) != 1 {
		t.Fatalf("usage: %v %v", days, err)
	}
	if days[0].Deliveries != 6 || days[0].Requests != 3 {
		t.Errorf("usage: %d requests and %d webhook deliveries; want 3 (one refused) and 6", days[0].Requests, days[0].Deliveries)
	}
	t.Logf("delivered %d, then waiting until %v: %q; usage %+v", len(recv.Holds(w.ID)), now.NextAttemptAt.UTC(), now.LastError, days[0])
}
