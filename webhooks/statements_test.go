package webhooks_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/sim"
	"github.com/starkgraph/starkgraph/webhooks"
)

// statementCounter counts the statements sessions send PostgreSQL through a proxy on a
// unix socket: every simple query ('Q': BEGIN, COMMIT, a statement without arguments) and
// every execution of an extended query ('E'), whatever sent it (the store, a transaction,
// the lock session), by their text.
type statementCounter struct {
	mu     sync.Mutex
	byText map[string]int
}

func (c *statementCounter) count(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byText[strings.Join(strings.Fields(text), " ")]++
}

// take returns the statements counted since the last take, and their texts, most first.
func (c *statementCounter) take() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	type kv struct {
		text string
		n    int
	}
	var all []kv
	total := 0
	for t, n := range c.byText {
		all = append(all, kv{t, n})
		total += n
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	var b strings.Builder
	for _, x := range all {
		fmt.Fprintf(&b, "%5d  %.400s\n", x.n, x.text)
	}
	c.byText = map[string]int{}
	return total, b.String()
}

// countingProxy serves dsn's PostgreSQL (a lib/pq URL naming a socket directory) through a
// proxy that counts statements, and returns the URL to reach it by.
func countingProxy(t *testing.T, dsn string) (string, *statementCounter) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	socket := filepath.Join(q.Get("host"), ".s.PGSQL."+q.Get("port"))
	if q.Get("host") == "" || !strings.HasPrefix(q.Get("host"), "/") {
		t.Skip("counting statements needs the test cluster's unix socket")
	}
	dir, err := os.MkdirTemp("", "pgc") // short: socket paths are at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL."+q.Get("port")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	c := &statementCounter{byText: map[string]int{}}
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("unix", socket)
			if err != nil {
				client.Close()
				continue
			}
			go func() { _, _ = io.Copy(client, server); client.Close() }()
			go func() { c.relay(client, server); server.Close() }()
		}
	}()
	q.Set("host", dir)
	u.RawQuery = q.Encode()
	return u.String(), c
}

// relay forwards the client's messages to the server, counting the statements among them.
func (c *statementCounter) relay(client, server net.Conn) {
	r := bufio.NewReader(client)
	// The startup message (and an SSL or GSS request before it) has no type byte.
	for {
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err != nil || n < 8 {
			return
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		out := binary.BigEndian.AppendUint32(nil, n)
		if _, err := server.Write(append(out, body...)); err != nil {
			return
		}
		if code := binary.BigEndian.Uint32(body); code != 80877103 && code != 80877104 {
			break
		}
	}
	prepared := map[string]string{} // statement name -> text
	portal := ""                    // the text of the statement bound last
	for {
		typ, err := r.ReadByte()
		if err != nil {
			return
		}
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err != nil || n < 4 {
			return
		}
		body := make([]byte, n-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		cstr := func(b []byte) (string, []byte) {
			i := bytes.IndexByte(b, 0)
			if i < 0 {
				return string(b), nil
			}
			return string(b[:i]), b[i+1:]
		}
		switch typ {
		case 'Q':
			text, _ := cstr(body)
			c.count(text)
		case 'P':
			name, rest := cstr(body)
			text, _ := cstr(rest)
			prepared[name] = text
		case 'B':
			_, rest := cstr(body)
			name, _ := cstr(rest)
			portal = prepared[name]
		case 'E':
			c.count(portal)
		}
		msg := append([]byte{typ}, binary.BigEndian.AppendUint32(nil, n)...)
		if _, err := server.Write(append(msg, body...)); err != nil {
			return
		}
	}
}

// TestRoundStatementsDoNotGrowWithWebhooks: the statements of a delivery round do not grow
// with its webhooks. With a new block, a round over 40 webhooks and then over 400 (the 360
// more matching nothing, of every kind) sends PostgreSQL the same handful of statements,
// counted on the wire by a proxy (every statement of the loop's store, its transactions
// and its lock session): the rows read once for all, the idle positions moved in one
// statement, the locks taken and released in one each; the blocks webhook's delivery
// recorded in one transaction. Serving each webhook on its own (its range read, its
// position written, its lock taken and released) was 10 statements or more a webhook.
func TestRoundStatementsDoNotGrowWithWebhooks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the indexer against the simulated node")
	}
	h := newHarness(t, sim.Config{Seed: 31, Blocks: 6, TxPerBlock: 12}, 0)
	proxyURL, counter := countingProxy(t, h.url)
	counted, err := sqlx.Open("postgres", proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { counted.Close() })
	if _, err := h.conn.Exec(`UPDATE plans SET max_webhooks = 1000 WHERE name = 'dev'`); err != nil {
		t.Fatal(err)
	}
	d := webhooks.NewDispatcher(webhooks.DispatchConfig{Store: db.NewStore(counted), Logger: slog.New(slog.NewTextHandler(logWriter{t}, nil)),
		Sender: webhooks.NewSender(webhooks.Options{AllowHTTP: true, AllowLoopback: true}), PerHost: 8})
	rounds := webhooks.StartRounds(h.ctx, d)
	t.Cleanup(rounds.Stop)

	head, _ := h.heads()
	nothing := func(i int) string { return fmt.Sprintf("0x%x", 0x5700000+i) } // no such address
	var blocks, idle []*db.Webhook
	add := func(n int) {
		for range n {
			k := len(idle)
			var w *db.Webhook
			switch k % 4 {
			case 0:
				w = h.hook(webhooks.KindTransactions, db.WebhookFilter{SenderAddress: nothing(k)}, head+1)
			case 1:
				w = h.hook(webhooks.KindTransfers, db.WebhookFilter{Wallet: nothing(k)}, head+1)
			case 2:
				w = h.hook(webhooks.KindEvents, db.WebhookFilter{ContractAddress: nothing(k)}, head+1)
			case 3:
				w = h.hook(webhooks.KindNftTransfers, db.WebhookFilter{Collection: nothing(k)}, head+1)
			}
			idle = append(idle, w)
		}
	}
	blocks = append(blocks, h.hook(webhooks.KindBlocks, db.WebhookFilter{}, head+1))
	// A new block, then rounds until every webhook is past it; the statements of the round
	// that served them all are returned.
	block := func() (int, string) {
		h.chain.AddBlocks(1)
		waitIndexed(t, h.conn, h.chain)
		head, _ = h.heads()
		counter.take()
		rounds.Round()
		n, texts := counter.take()
		for _, w := range append(append([]*db.Webhook{}, blocks...), idle...) {
			h.waitCaughtUp(w, head)
		}
		rounds.Round() // releases the locks of the webhooks that delivered
		return n, texts
	}
	add(32)
	block() // the first round of each webhook compares what it was sent with the chain
	small, smallTexts := block()
	add(360)
	block()
	big, bigTexts := block()
	t.Logf("a round with a new block: %d statements for 40 webhooks, %d for 400:\n%s", small, big, bigTexts)
	if big > small+3 || big > 30 {
		t.Errorf("a round with a new block: %d statements for 40 webhooks:\n%s\n%d for 400:\n%s", small, smallTexts, big, bigTexts)
	}
	// And they were served: every blocks webhook holds every block from its first.
	for _, w := range blocks {
		h.waitHolds(w, h.chainMessages(w, w.PositionBlock+1, head))
	}
	// At the head with no new block, a round lists the webhooks and reads the head: 2.
	counter.take()
	rounds.Round()
	if n, texts := counter.take(); n > 3 {
		t.Errorf("a round at the head: %d statements:\n%s", n, texts)
	}
}
