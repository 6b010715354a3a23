package api_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/jmoiron/sqlx"

	"github.com/starkgraph/starkgraph/api"
	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/indexer/indexertest"
	"github.com/starkgraph/starkgraph/live"
	"github.com/starkgraph/starkgraph/sim"
)

// chromium finds Debian's Chromium; without it the test skips, unless CI=true.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Chromium is not installed (CI installs Debian's chromium package)")
	}
	t.Skip("Chromium is not installed: apt-get install chromium to run the browser test")
	return ""
}

// TestPlaygroundInBrowser opens the playground in headless Chromium against a real server
// on data indexed from the simulated node: the editor renders with the example tab, the
// documentation explorer lists the root fields, running the tab shows data, the live tab
// subscribes over a WebSocket (with the key of the headers tab) and shows the next block
// the indexer writes, and no request leaves the server's origin (nor is any blocked by the
// page's CSP).
func TestPlaygroundInBrowser(t *testing.T) {
	bin := chromium(t)
	dbURL := dbtest.NewURL(t)
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	chain := sim.New(sim.Config{Seed: 7, Blocks: 12})
	node := httptest.NewServer(chain.Handler())
	defer node.Close()
	indexertest.Run(t, conn, node.URL, 0, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Keys are required, as on dev: the page must send the development key itself.
	keys := auth.NewStore(conn)
	devKey, err := auth.DevKey(ctx, keys, "")
	if err != nil {
		t.Fatal(err)
	}
	limiter, closeLimiter, err := auth.NewLimiter("", auth.FailLocal, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer closeLimiter()
	hub := live.NewHub(db.NewStore(conn), live.Options{})
	go hub.Run(ctx, dbURL)
	srv := httptest.NewServer(api.NewHandler(api.Config{
		Store: db.NewStore(conn), Limits: api.DefaultGraphQLLimits, Introspection: true, Live: hub,
		Auth:       auth.New(auth.Options{Keys: keys, Limiter: limiter, Logger: slog.New(slog.DiscardHandler)}),
		Playground: true, PlaygroundKey: devKey,
	}))
	defer srv.Close()

	// Chromium's helpers may still write to their profile as the test ends: remove it at
	// best effort rather than with t.TempDir, whose cleanup fails on a late write.
	profile, err := os.MkdirTemp("", "starkgraph-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.WindowSize(1400, 900))...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	// The first Run starts the browser, which lives as long as that Run's context.
	if err := chromedp.Run(browser); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}

	var mu sync.Mutex
	var requests, sockets, problems []string
	chromedp.ListenTarget(browser, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *network.EventWebSocketCreated:
			sockets = append(sockets, e.URL)
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				problems = append(problems, "console: "+e.Entry.Text)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, "console.error: "+strings.Join(args, " "))
			}
		}
	})
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var png []byte
		shotCtx, cancel := context.WithTimeout(browser, 10*time.Second)
		defer cancel()
		if err := chromedp.Run(shotCtx, chromedp.FullScreenshot(&png, 90)); err == nil {
			path := filepath.Join(os.TempDir(), fmt.Sprintf("starkgraph-playground-failure-%d.png", time.Now().Unix()))
			if os.WriteFile(path, png, 0o644) == nil {
				t.Logf("screenshot of the failing page: %s", path)
			}
		}
	})

	step := func(what string, actions ...chromedp.Action) {
		t.Helper()
		stepCtx, cancel := context.WithTimeout(browser, 30*time.Second)
		defer cancel()
		if err := chromedp.Run(stepCtx, actions...); err != nil {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s: %v\nproblems: %v", what, err, problems)
		}
	}

	// The editor renders, opened on the overview tab, with the key in the headers tab.
	var editor, headers string
	step("open the playground",
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(`.graphiql-query-editor .CodeMirror`, chromedp.ByQuery),
		chromedp.Text(`.graphiql-query-editor .CodeMirror-code`, &editor, chromedp.ByQuery),
	)
	if !strings.Contains(editor, "query Overview") || !strings.Contains(editor, "holders(first: 5)") {
		t.Errorf("the first tab is not the overview:\n%.300s", editor)
	}
	var tabs []string
	step("read the tabs", chromedp.Evaluate(`[...document.querySelectorAll('.graphiql-tab > button:first-child')].map(e => e.textContent.trim())`, &tabs))
	if strings.Join(tabs, ",") != "Overview,Contracts,Staking,DecodedTransaction,LiveBlocks" {
		t.Errorf("tabs %v, want the five examples", tabs)
	}
	step("read the headers tab",
		chromedp.Evaluate(`[...document.querySelectorAll('section[aria-label="Headers"] .CodeMirror')].map(e => e.CodeMirror.getValue()).join('\n')`, &headers))
	if !strings.Contains(headers, `"x-api-key": "`+devKey+`"`) {
		t.Errorf("headers tab %q does not hold the development key", headers)
	}

	// The documentation explorer lists the root fields.
	var docs string
	step("open the documentation explorer",
		chromedp.Click(`button[aria-label="Show Documentation Explorer"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.graphiql-doc-explorer`, chromedp.ByQuery),
		chromedp.Click(`//a[contains(@class, "graphiql-doc-explorer-type-name") and text()="Query"]`, chromedp.BySearch),
		chromedp.WaitVisible(`//a[contains(@class, "graphiql-doc-explorer-field-name") and text()="blocks"]`, chromedp.BySearch),
		chromedp.Text(`.graphiql-doc-explorer`, &docs, chromedp.ByQuery),
	)
	for _, field := range []string{"blocks", "transactions", "contracts", "tokens", "validators", "verifiedClasses"} {
		if !strings.Contains(docs, field) {
			t.Errorf("documentation explorer does not list the root field %s", field)
		}
	}

	// Running the first tab shows data from the indexed chain.
	var result string
	step("run the overview",
		chromedp.Click(`button.graphiql-execute-button`, chromedp.ByQuery),
		chromedp.WaitVisible(`//section[contains(@class, "result-window")]//*[contains(text(), "txnCount")]`, chromedp.BySearch),
		chromedp.Evaluate(`document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()`, &result),
	)
	if !strings.Contains(result, `"number": 10`) || !strings.Contains(result, `"holders"`) || strings.Contains(result, `"errors"`) {
		t.Errorf("result pane: want the newest indexed block (10) and holders, got:\n%.600s", result)
	}

	// The live tab subscribes over a WebSocket with the key of the headers tab: the next
	// block the indexer writes appears in the result pane.
	step("subscribe to new blocks",
		chromedp.Evaluate(`[...document.querySelectorAll('.graphiql-tab > button:first-child')].find(e => e.textContent.trim() === 'LiveBlocks').click()`, nil),
		chromedp.Poll(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue().includes('newBlocks')`, nil),
		chromedp.Sleep(time.Second), // GraphiQL parses the tab's document before it can tell a subscription
		chromedp.Click(`button.graphiql-execute-button`, chromedp.ByQuery),
		chromedp.Sleep(time.Second),
	)
	chain.AddBlocks(1)
	indexertest.Run(t, conn, node.URL, 0, 12)
	var live string
	step("see the new block",
		chromedp.Poll(`document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue().includes('"newBlocks"')`, nil),
		chromedp.Evaluate(`document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()`, &live),
	)
	// The pane shows the newest message: block 11 or 12 written, or an older block's status.
	if !strings.Contains(live, `"kind": "NEW"`) && !strings.Contains(live, `"kind": "STATUS"`) {
		t.Errorf("result pane of the subscription: want a block message, got:\n%.600s", live)
	}

	mu.Lock()
	defer mu.Unlock()
	for _, u := range requests {
		if !strings.HasPrefix(u, srv.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("a request left the server's origin: %s", u)
		}
	}
	if ws := "ws" + strings.TrimPrefix(srv.URL, "http") + "/graphql"; len(sockets) != 1 || sockets[0] != ws {
		t.Errorf("WebSockets opened: %v; want the subscription's one to %s", sockets, ws)
	}
	if len(requests) < 8 {
		t.Errorf("only %d requests seen; the listener is not working", len(requests))
	}
	for _, p := range problems {
		t.Errorf("browser reported: %s", p)
	}
}
