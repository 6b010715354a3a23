package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"

	"github.com/starkgraph/starkgraph/auth"
	"github.com/starkgraph/starkgraph/db/dbtest"
)

// needTool returns the path of a program the test needs: without it the test is skipped,
// unless CI=true, where it fails.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (apt-get install %s)", name, pkg)
		}
		t.Skipf("%s not installed; apt-get install %s to run this test", name, pkg)
	}
	return path
}

// startProcess starts a program until the test ends (SIGTERM, then SIGKILL after 10 s),
// its output to the test's stderr when verbose.
func startProcess(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	if testing.Verbose() {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	runUntilCleanup(t, cmd, 10*time.Second)
	return cmd
}

// runUntilCleanup starts cmd and stops it when the test ends: SIGTERM, then a kill if it
// has not exited within grace.
func runUntilCleanup(t *testing.T, cmd *exec.Cmd, grace time.Duration) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(grace):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
}

// waitFor polls ok every 100 ms until it holds, or fails the test after d.
func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !ok(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// promQuery runs an instant query on Prometheus at base and returns its result's series
// count, or the error Prometheus gave.
func promQuery(base, expr string) (int, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string            `json:"resultType"`
			Result     []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return 0, err
	}
	if out.Status != "success" {
		return 0, fmt.Errorf("%s", out.Error)
	}
	if out.Data.ResultType == "scalar" {
		return 1, nil
	}
	return len(out.Data.Result), nil
}

// selector is one vector selector of a PromQL expression: a metric name and its matchers.
type selector struct {
	metric   string
	matchers []matcher
}

type matcher struct{ label, op, value string }

func (s selector) String() string {
	var ms []string
	for _, m := range s.matchers {
		ms = append(ms, m.label+m.op+strconv.Quote(m.value))
	}
	if len(ms) == 0 {
		return s.metric
	}
	return s.metric + "{" + strings.Join(ms, ",") + "}"
}

var (
	selectorWithMatchers = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}`)
	matcherRE            = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"`)
	groupingRE           = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	stringOrRange        = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|\[[^\]]*\]`)
	identifier           = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promqlWords          = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "inf": true, "nan": true}
)

// selectors finds the vector selectors of a PromQL expression (enough of PromQL for the
// rules and panels here: names with matchers, bare names not followed by "(").
func selectors(expr string) []selector {
	var out []selector
	rest := selectorWithMatchers.ReplaceAllStringFunc(expr, func(s string) string {
		m := selectorWithMatchers.FindStringSubmatch(s)
		sel := selector{metric: m[1]}
		for _, mm := range matcherRE.FindAllStringSubmatch(m[2], -1) {
			sel.matchers = append(sel.matchers, matcher{mm[1], mm[2], mm[3]})
		}
		out = append(out, sel)
		return " "
	})
	rest = groupingRE.ReplaceAllString(rest, " ")
	rest = stringOrRange.ReplaceAllString(rest, " ")
	for _, loc := range identifier.FindAllStringIndex(rest, -1) {
		name := rest[loc[0]:loc[1]]
		if promqlWords[strings.ToLower(name)] {
			continue
		}
		if loc[0] > 0 && (rest[loc[0]-1] >= '0' && rest[loc[0]-1] <= '9' || rest[loc[0]-1] == '.') {
			continue // the exponent or suffix of a number
		}
		if after := strings.TrimLeft(rest[loc[1]:], " \t\n"); strings.HasPrefix(after, "(") {
			continue // a function or an aggregation
		}
		out = append(out, selector{metric: name})
	}
	return out
}

// checkSelector fails the test unless sel finds series: the metric exists, each label it
// matches exists on it, and equality matchers find their value. A regex or negative
// matcher may find nothing (status=~"5.." while nothing failed) as long as its label exists.
func checkSelector(t *testing.T, prom, where string, sel selector) {
	t.Helper()
	if n, err := promQuery(prom, sel.String()); err == nil && n > 0 {
		return
	}
	if n, err := promQuery(prom, sel.metric); err != nil || n == 0 {
		t.Errorf("%s: metric %s has no series (misspelled, or not exported): %v", where, sel.metric, err)
		return
	}
	for _, m := range sel.matchers {
		probe := selector{metric: sel.metric, matchers: []matcher{{m.label, "!=", ""}}}
		if m.op == "=" {
			probe = selector{metric: sel.metric, matchers: []matcher{m}}
		}
		if n, err := promQuery(prom, probe.String()); err != nil || n == 0 {
			t.Errorf("%s: %s finds no series (in %s): %v", where, probe, sel, err)
		}
	}
}

var groupingLabels = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)

// checkGrouping fails the test when a label an expression groups by (sum by (route))
// is on none of the metrics it selects: grouping by a misspelled label still returns a
// series, with the label empty.
func checkGrouping(t *testing.T, prom, where, expr string) {
	t.Helper()
	sels := selectors(expr)
	for _, g := range groupingLabels.FindAllStringSubmatch(expr, -1) {
		for _, label := range strings.Split(g[1], ",") {
			label = strings.TrimSpace(label)
			if label == "" {
				continue
			}
			found := false
			for _, sel := range sels {
				if n, err := promQuery(prom, sel.metric+`{`+label+`!=""}`); err == nil && n > 0 {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: groups by %q, a label none of its metrics has: %s", where, label, expr)
			}
		}
	}
}

// Prometheus (Debian's package) scrapes a running `dev` (its database seeded by the
// indexer from the simulated node, Redis for the rate limits) with monitoring/alerts.yml
// loaded. Every rule evaluates without error; every rule's selectors, and every query of
// every panel of the Grafana dashboard, return series: no metric or label is misspelled,
// and every metric they use is exported.
func TestMonitoringAgainstRealPrometheus(t *testing.T) {
	promBin := needTool(t, "prometheus", "prometheus")
	redisBin := needTool(t, "redis-server", "redis-server")
	ctx := context.Background()

	redisAddr := freePort(t)
	_, redisPort, _ := net.SplitHostPort(redisAddr)
	startProcess(t, redisBin, "--port", redisPort, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning")
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rdb.Close()
	waitFor(t, 10*time.Second, "redis-server", func() bool { return rdb.Ping(ctx).Err() == nil })

	dbURL := dbtest.NewURL(t)
	addr, admin := freePort(t), freePort(t)
	const devKey = "sg_monitoringtest0000000000000000000000000000000"
	cmd := exec.Command(os.Args[0], "dev", "--addr", addr, "--admin-addr", admin, "--dev-key", devKey,
		"--blocks", "30", "--block-time", "500ms", "--verify-workers", "0")
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "DATABASE_URL="+dbURL, "REDIS_URL=redis://"+redisAddr+"/0", "LOG_LEVEL=error")
	cmd.Stderr = os.Stderr
	runUntilCleanup(t, cmd, 20*time.Second)
	base := "http://" + addr
	readyCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := waitReady(readyCtx, base); err != nil {
		t.Fatal(err)
	}
	conn, err := sqlx.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	waitIndexed(t, conn, 29)

	// Traffic: REST and GraphQL with the dev key, a subscription held open, and a free-plan
	// key sent past its burst so that the limiter refuses some.
	get := func(path, key string) int {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	traffic := func() {
		for _, p := range []string{"/beta/blocks?ps=10", "/beta/txns?ps=10", "/beta/stats", "/beta/tokens", "/beta/blocks/0x1"} {
			get(p, devKey)
		}
		req, _ := http.NewRequest(http.MethodPost, base+"/graphql",
			strings.NewReader(`{"query": "query Latest { blocks(first: 3) { edges { node { number } } } }"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("x-api-key", devKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"errors"`) {
			t.Fatalf("GraphQL: %d %s", resp.StatusCode, body)
		}
	}
	traffic()
	subCtx, stopSub := context.WithCancel(ctx)
	defer stopSub()
	subscribeWS(t, subCtx, base, devKey, `subscription { newBlocks { kind block { number } } }`)
	free, _, err := auth.NewStore(conn).CreateKey(ctx, "free", t.Name())
	if err != nil {
		t.Fatal(err)
	}
	limited := 0
	for i := 0; i < 40 && limited == 0; i++ {
		if get("/beta/stats", free) == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("the free key was never refused: no ratelimit_rejections_total to see")
	}

	// Prometheus, scraping the admin address every 500 ms, rules from monitoring/.
	rules, err := filepath.Abs("monitoring/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := fmt.Sprintf(`global: {scrape_interval: 500ms, evaluation_interval: 500ms}
rule_files: [%q]
scrape_configs:
  - job_name: starkgraph-dev
    static_configs: [{targets: [%q]}]
`, rules, admin)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	promAddr := freePort(t)
	startProcess(t, promBin, "--config.file", filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path", filepath.Join(dir, "data"),
		"--web.listen-address", promAddr, "--log.level", "warn")
	prom := "http://" + promAddr
	waitFor(t, 30*time.Second, "Prometheus to be ready", func() bool {
		resp, err := http.Get(prom + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	// A few scrapes with traffic between them, so that rates over 30 s have points.
	waitFor(t, 30*time.Second, "a few scrapes of dev", func() bool {
		n, err := promQuery(prom, `count_over_time(up{job="starkgraph-dev"}[1m]) >= 6 and up == 1`)
		traffic()
		return err == nil && n == 1
	})

	// Every rule loaded and evaluated without error.
	var ruleDoc struct {
		Groups []struct {
			Rules []struct {
				Name      string `json:"name"`
				Query     string `json:"query"`
				Health    string `json:"health"`
				LastError string `json:"lastError"`
			} `json:"rules"`
		} `json:"groups"`
	}
	raw, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	inFile := regexp.MustCompile(`(?m)^\s*- alert: (\S+)`).FindAllStringSubmatch(string(raw), -1)
	waitFor(t, 20*time.Second, "every rule evaluated", func() bool {
		resp, err := http.Get(prom + "/api/v1/rules")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var out struct {
			Data json.RawMessage `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&out) != nil || json.Unmarshal(out.Data, &ruleDoc) != nil {
			return false
		}
		n := 0
		for _, g := range ruleDoc.Groups {
			for _, r := range g.Rules {
				if r.Health == "unknown" {
					return false
				}
				n++
			}
		}
		return n == len(inFile)
	})
	checked := 0
	for _, g := range ruleDoc.Groups {
		for _, r := range g.Rules {
			if r.Health != "ok" {
				t.Errorf("rule %s: health %s: %s", r.Name, r.Health, r.LastError)
			}
			if _, err := promQuery(prom, r.Query); err != nil {
				t.Errorf("rule %s: %v", r.Name, err)
			}
			checkGrouping(t, prom, "rule "+r.Name, r.Query)
			sels := selectors(r.Query)
			if len(sels) == 0 {
				t.Errorf("rule %s: no selector found in %s", r.Name, r.Query)
			}
			for _, sel := range sels {
				checkSelector(t, prom, "rule "+r.Name, sel)
				checked++
			}
		}
	}

	// Every panel query of the dashboard returns series.
	raw, err = os.ReadFile("monitoring/grafana/starkgraph.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}
	queries := 0
	var empty []string
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			expr := strings.ReplaceAll(target.Expr, "$__rate_interval", "30s")
			n, err := promQuery(prom, expr)
			checkGrouping(t, prom, "panel "+p.Title, expr)
			switch {
			case err != nil:
				t.Errorf("panel %q: %s: %v", p.Title, expr, err)
			case n == 0:
				empty = append(empty, fmt.Sprintf("%q: %s", p.Title, expr))
				for _, sel := range selectors(expr) {
					checkSelector(t, prom, "panel "+p.Title, sel)
				}
			}
			queries++
		}
	}
	sort.Strings(empty)
	for _, e := range empty {
		t.Errorf("panel %s returns no series", e)
	}
	t.Logf("%d rules (%d selectors) and %d panel queries checked against Prometheus scraping dev", len(inFile), checked, queries)
}

// The selector finder finds what the checks rely on.
func TestSelectorsOfPromQL(t *testing.T) {
	got := selectors(`sum by (job, route) (rate(http_requests_total{status=~"5.."}[5m])) / sum by (job, route) (rate(http_requests_total[5m])) > 0.05 and indexer_node_up == 0 or db_pool_in_use_connections / (db_pool_max_open_connections > 0) > 1e3`)
	var names []string
	for _, s := range got {
		names = append(names, s.String())
	}
	want := `http_requests_total{status=~"5.."} http_requests_total indexer_node_up db_pool_in_use_connections db_pool_max_open_connections`
	if strings.Join(names, " ") != want {
		t.Fatalf("selectors: %s\nwant:      %s", strings.Join(names, " "), want)
	}
}

// monitoring/alerts.yml is valid (promtool check rules) and each alert fires and clears on
// the synthetic series of monitoring/alerts_test.yml (promtool test rules).
func TestAlertRulesWithPromtool(t *testing.T) {
	promtool := needTool(t, "promtool", "prometheus")
	for _, args := range [][]string{{"check", "rules", "alerts.yml"}, {"test", "rules", "alerts_test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "monitoring"
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Every alert of the rules file has a unit test.
	rules, _ := os.ReadFile("monitoring/alerts.yml")
	tests, _ := os.ReadFile("monitoring/alerts_test.yml")
	for _, m := range regexp.MustCompile(`(?m)^\s*- alert: (\S+)`).FindAllStringSubmatch(string(rules), -1) {
		if !strings.Contains(string(tests), "alertname: "+m[1]+"\n") {
			t.Errorf("alert %s has no test in monitoring/alerts_test.yml that fires it", m[1])
		}
	}
}
