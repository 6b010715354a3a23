// Package hostile is the hostile load: requests an attacker would send, generated from the
// REST routes' parameter declarations (rest.Operations) and the GraphQL schema, sent at
// once by many clients to a running server, with a report of what must never happen: an
// answer 5xx, an answer that shows the server's insides (Go types, SQL, file paths, stack
// traces), a connection broken before its answer (an oversized body included: its 413
// must be readable), a request without an answer in time, and memory that does not come
// back. `starkgraph hostile` runs it (see docs/hostile-input.md).
package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/starkgraph/starkgraph/api"
)

// Config says where to send how much.
type Config struct {
	URL         string // the server's public base URL, e.g. http://127.0.0.1:8080
	Key         string // a valid API key (x-api-key)
	Requests    int
	Concurrency int
	// Timeout is how long a request may go unanswered before it counts as a hang.
	Timeout time.Duration
	// PID of the server, for its resident memory (/proc/PID/status); 0: none.
	PID int
	// MetricsURL is the server's Prometheus page (the admin address's /metrics), for its
	// memory when there is no PID; "": none.
	MetricsURL string
	// Idle is how long the server is left without a request before each memory reading:
	// after the warm-up (the reading before) and after the run (the reading after idling).
	Idle time.Duration
	// Warmup is how many requests (of another seed) go before the reading before, so that
	// the comparison is of a server in use before and after, not of a fresh process: its
	// caches, pools and (in `dev`) catch-up are behind it. 0: none.
	Warmup int
	// MaxGrowth is how much the resident memory after idling may exceed the reading
	// before, in percent; a run past it is not clean. Negative: not checked.
	MaxGrowth float64
	// MaxBody is the server's GraphQL body limit (--max-body), for the oversized bodies.
	MaxBody int
	// MaxHeaderBytes is the server's limit on a request's line and headers (serve's is
	// 64 KiB): past it Go's server answers 431 and hangs up, and a broken connection is
	// not counted as one (Report.CutOff).
	MaxHeaderBytes int
	Seed           uint64
	// Progress, when set, receives a line every 10,000 requests.
	Progress io.Writer
}

// Finding is one request that went wrong.
type Finding struct {
	Kind, Method, Target string
	Status               int
	What                 string // the error, the leaked text, or the answer's start
}

// Memory is the server's memory at one moment; zero when unknown.
type Memory struct {
	RSS       int64 // bytes resident (process_resident_memory_bytes, else /proc/PID/status)
	HeapInUse int64 // go_memstats_heap_inuse_bytes (live objects and garbage not yet collected), when /metrics is read
}

// Report is what a run found.
type Report struct {
	Requests  int
	Duration  time.Duration
	ByStatus  map[int]int
	ByKind    map[string]int
	Oversized int // bodies over the limit sent
	Readable  int // of those, answered 413 and read whole
	// OversizedByStatus counts the answers read to oversized bodies (a forged key's 403
	// comes before the size).
	OversizedByStatus map[int]int

	ServerErrors, Leaks, Broken, Hangs []Finding
	// InternalErrors are answers below 500 that carry a GraphQL INTERNAL_SERVER_ERROR: a
	// failure the server hid in a 200 (a database error, a panic), as bad as a 5xx.
	InternalErrors []Finding
	// CutOff are connections broken on requests beyond the documented limits, which the
	// server may hang up on: headers over MaxHeaderBytes, a body more than api.MaxDrain
	// past its limit. Reported, not a failure.
	CutOff []Finding
	// Alive says the server still answered /healthz after the run.
	Alive bool
	// Before is read after the warm-up and Idle without requests; After right after the
	// run; AfterIdle after Idle more.
	Before, After, AfterIdle Memory
	Idle                     time.Duration
	MaxGrowth                float64 // Config.MaxGrowth
}

// Clean tells whether nothing went wrong.
func (r *Report) Clean() bool {
	return len(r.ServerErrors) == 0 && len(r.InternalErrors) == 0 && len(r.Leaks) == 0 && len(r.Broken) == 0 && len(r.Hangs) == 0 && r.Alive &&
		r.MemoryBack()
}

// Growth is how much more the server held after idling than before, in percent; false
// when either reading is missing.
func (r *Report) Growth() (float64, bool) {
	if r.Before.RSS == 0 || r.AfterIdle.RSS == 0 {
		return 0, false
	}
	return 100 * float64(r.AfterIdle.RSS-r.Before.RSS) / float64(r.Before.RSS), true
}

// MemoryBack tells whether the memory came back within MaxGrowth (true when not checked).
func (r *Report) MemoryBack() bool {
	g, ok := r.Growth()
	return !ok || r.MaxGrowth < 0 || g <= r.MaxGrowth
}

// leakPattern is what no answer may show: Go's type names, driver and SQL text, file
// paths, source positions, stack traces.
var leakPattern = regexp.MustCompile(`map\[|\[\]interface|interface \{\}|json\.Number|\*(?:db|model|resolvers|rest|api|graphql|ast|sqlx|pq|http)\.[A-Z]|pq: |SQLSTATE|(?i:syntax error at or near)|(?i:\bselect\b[^"\n]{0,200}\bfrom\b)|(?i:\binsert into\b)|(?i:\bwhere\b[^"\n]{0,100}\$\d)|/(?:root|home|tmp|usr|work|var|etc|proc)/[\w.-]+|\w+\.go:\d+|goroutine \d+ \[|runtime\.[a-z]|panic:|invalid memory address|nil pointer`)

// Run sends cfg.Requests hostile requests, cfg.Concurrency at a time, and reports.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 16
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 1 << 20
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = 64 << 10
	}
	base, err := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("--url %q is not a URL such as http://127.0.0.1:8080", cfg.URL)
	}
	transport := &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency, MaxConnsPerHost: cfg.Concurrency * 2,
		DisableCompression: false}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	if err := alive(ctx, client, base); err != nil {
		return nil, fmt.Errorf("the server does not answer: %w", err)
	}
	rep := &Report{ByStatus: map[int]int{}, ByKind: map[string]int{}, OversizedByStatus: map[int]int{},
		Idle: cfg.Idle, MaxGrowth: cfg.MaxGrowth}
	idle := func() error {
		transport.CloseIdleConnections()
		select {
		case <-time.After(cfg.Idle):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	if cfg.Warmup > 0 {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "warm-up: %d requests, then %s idle\n", cfg.Warmup, cfg.Idle)
		}
		send(ctx, client, base, newGenerator(cfg.Seed+1<<32, cfg.MaxBody), cfg, cfg.Warmup, func(spec, result) {})
		if err := idle(); err != nil {
			return nil, err
		}
	}
	rep.Before = memory(ctx, client, cfg)

	var mu sync.Mutex
	start := time.Now()
	send(ctx, client, base, newGenerator(cfg.Seed, cfg.MaxBody), cfg, cfg.Requests, func(s spec, res result) {
		beyond := s.beyondLimits(cfg)
		mu.Lock()
		rep.add(s, res, beyond)
		n := rep.Requests
		mu.Unlock()
		if cfg.Progress != nil && n%10000 == 0 {
			fmt.Fprintf(cfg.Progress, "%d requests, %s\n", n, time.Since(start).Round(time.Second))
		}
	})
	rep.Duration = time.Since(start)
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	rep.Alive = alive(ctx, client, base) == nil
	transport.CloseIdleConnections()
	rep.After = memory(ctx, client, cfg)
	if cfg.Idle > 0 {
		if err := idle(); err != nil {
			return rep, err
		}
		rep.AfterIdle = memory(ctx, client, cfg)
	}
	return rep, nil
}

// send sends n requests of gen, cfg.Concurrency at a time, and hands each answer to done
// (from the clients' goroutines).
func send(ctx context.Context, client *http.Client, base *url.URL, gen *generator, cfg Config, n int, done func(spec, result)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range cfg.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				s := gen.request(i)
				if !s.noKey && cfg.Key != "" {
					if s.header == nil {
						s.header = map[string]string{}
					}
					s.header["x-api-key"] = cfg.Key
				}
				done(s, sendOne(ctx, client, base, s, cfg.Timeout))
			}
		}()
	}
	wg.Wait()
}

// result is what came back for one request.
type result struct {
	status int
	body   []byte
	err    error
	hang   bool
}

func sendOne(ctx context.Context, client *http.Client, base *url.URL, s spec, timeout time.Duration) result {
	if s.oversized || s.raw {
		return sendWhole(base, s, timeout)
	}
	req, err := http.NewRequestWithContext(ctx, s.method, base.String()+s.target, bytes.NewReader(s.body))
	if err != nil {
		// Not a URL Go's client sends: send it raw.
		return sendWhole(base, s, timeout)
	}
	if len(s.body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for k, v := range s.header {
		req.Header.Set(k, v)
	}
	if s.contentType != "" {
		req.Header.Set("Content-Type", s.contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		return result{err: err, hang: errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		var ne net.Error
		return result{status: resp.StatusCode, err: err, hang: errors.As(err, &ne) && ne.Timeout()}
	}
	return result{status: resp.StatusCode, body: body}
}

// sendWhole writes the request, body and all, on a connection of its own before it reads
// anything, as a client that does not read while it sends.
func sendWhole(base *url.URL, s spec, timeout time.Duration) result {
	host := base.Host
	if base.Port() == "" {
		host += ":80"
	}
	conn, err := net.DialTimeout("tcp", host, timeout)
	if err != nil {
		return result{err: err}
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\nConnection: close\r\n", s.method, s.target, base.Host, len(s.body))
	if s.contentType != "" {
		fmt.Fprintf(&head, "Content-Type: %s\r\n", s.contentType)
	}
	for k, v := range s.header {
		fmt.Fprintf(&head, "%s: %s\r\n", k, v)
	}
	head.WriteString("\r\n")
	if _, err := conn.Write(append(head.Bytes(), s.body...)); err != nil {
		var ne net.Error
		return result{err: fmt.Errorf("writing the request: %w", err), hang: errors.As(err, &ne) && ne.Timeout()}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		var ne net.Error
		return result{err: fmt.Errorf("reading the answer: %w", err), hang: errors.As(err, &ne) && ne.Timeout()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return result{status: resp.StatusCode, err: fmt.Errorf("reading the answer's body: %w", err)}
	}
	return result{status: resp.StatusCode, body: body}
}

// beyondLimits says which documented limit a request is past, beyond which the server may
// hang up on it without an answer the client can read; "" when it is within them all.
// Within them every request gets an answer it can read whole: a 413 for a body over its
// limit (the server reads and throws away up to api.MaxDrain of it), a 400 for a request
// line or header Go cannot parse, a 431 for headers over the limit (the server's lingering
// close reads up to 256 KiB past them).
func (s spec) beyondLimits(cfg Config) string {
	// The request line and headers as sendWhole writes them (Go's client writes about as
	// much): the method, target, Host, Content-Length, Connection, Content-Type, the rest.
	head := len(s.method) + len(s.target) + len(cfg.URL) + len(s.contentType) + 100
	for k, v := range s.header {
		head += len(k) + len(v) + 4
	}
	switch {
	case head > cfg.MaxHeaderBytes:
		return fmt.Sprintf("request line and headers of about %d bytes, over the %d-byte limit", head, cfg.MaxHeaderBytes)
	case len(s.body) > api.MaxDrain:
		return fmt.Sprintf("a body of %d bytes, over the %d the server reads of a body it refuses", len(s.body), api.MaxDrain)
	}
	return ""
}

// add files one answer; beyond says which documented limit the request was past, if any.
func (rep *Report) add(s spec, res result, beyond string) {
	rep.Requests++
	rep.ByKind[s.kind]++
	target := s.target
	if len(target) > 160 {
		target = target[:160] + "..."
	}
	f := Finding{Kind: s.kind, Method: s.method, Target: target, Status: res.status}
	if s.oversized {
		rep.Oversized++
	}
	switch {
	case res.hang:
		f.What = res.err.Error()
		rep.Hangs = append(rep.Hangs, f)
		return
	case res.err != nil && beyond != "":
		f.What = res.err.Error() + " (" + beyond + ")"
		rep.CutOff = append(rep.CutOff, f)
		return
	case res.err != nil:
		f.What = res.err.Error()
		rep.Broken = append(rep.Broken, f)
		return
	}
	rep.ByStatus[res.status]++
	if s.oversized {
		rep.OversizedByStatus[res.status]++
		if res.status == http.StatusRequestEntityTooLarge {
			rep.Readable++
		}
	}
	if res.status >= 500 {
		f.What = snippet(res.body)
		rep.ServerErrors = append(rep.ServerErrors, f)
	} else if bytes.Contains(res.body, []byte(`"INTERNAL_SERVER_ERROR"`)) {
		f.What = snippet(res.body)
		rep.InternalErrors = append(rep.InternalErrors, f)
	}
	if m := leak(s, res); m != "" {
		f.What = m + " in " + snippet(res.body)
		rep.Leaks = append(rep.Leaks, f)
	}
}

// leak finds what an answer shows of the server's insides, leaving out what the request
// itself carried (an error may quote the input). The data of a successful answer is
// the chain's, not the server's: only error answers and GraphQL's errors are read.
func leak(s spec, res result) string {
	text := res.body
	if res.status < 400 {
		if !strings.HasPrefix(s.target, "/graphql") {
			return ""
		}
		var env struct {
			Errors json.RawMessage `json:"errors"`
		}
		if json.Unmarshal(res.body, &env) != nil || len(env.Errors) == 0 {
			return ""
		}
		text = env.Errors
	}
	for _, m := range leakPattern.FindAllString(string(text), -1) {
		if !strings.Contains(s.sent, m) && !strings.Contains(string(s.body), m) && !strings.Contains(unquoteAll(s.sent), m) {
			return m
		}
	}
	return ""
}

// unquoteAll undoes JSON's escaping of the request's text, for comparing with what an
// answer quotes of it.
func unquoteAll(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\/`, `/`).Replace(s)
}

func snippet(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func alive(ctx context.Context, client *http.Client, base *url.URL) error {
	req, err := http.NewRequestWithContext(ctx, "GET", base.String()+"/healthz", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz answers %d", resp.StatusCode)
	}
	return nil
}

// memory reads the server's resident memory and heap from its metrics page (the server
// reports its own process), else the resident memory from /proc (cfg.PID).
func memory(ctx context.Context, client *http.Client, cfg Config) Memory {
	var m Memory
	if cfg.MetricsURL != "" {
		if req, err := http.NewRequestWithContext(ctx, "GET", cfg.MetricsURL, nil); err == nil {
			if resp, err := client.Do(req); err == nil {
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
				resp.Body.Close()
				m.RSS = metric(b, "process_resident_memory_bytes")
				m.HeapInUse = metric(b, "go_memstats_heap_inuse_bytes")
			}
		}
	}
	if cfg.PID > 0 && m.RSS == 0 {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cfg.PID)); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
					m.RSS = kb << 10
				}
			}
		}
	}
	return m
}

func metric(page []byte, name string) int64 {
	for _, line := range strings.Split(string(page), "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return int64(f)
			}
		}
	}
	return 0
}

// Print writes the report for a reader.
func (rep *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "%d hostile requests in %s (%.0f/s)\n", rep.Requests, rep.Duration.Round(time.Millisecond), float64(rep.Requests)/rep.Duration.Seconds())
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprint(w, "by attack:")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s %d,", k, rep.ByKind[k])
	}
	fmt.Fprint(w, "\nby status:")
	statuses := make([]int, 0, len(rep.ByStatus))
	for s := range rep.ByStatus {
		statuses = append(statuses, s)
	}
	sort.Ints(statuses)
	for _, s := range statuses {
		fmt.Fprintf(w, " %d: %d,", s, rep.ByStatus[s])
	}
	fmt.Fprintf(w, "\noversized bodies: %d sent, %d answered with a readable 413; answers read, by status: %v\n", rep.Oversized, rep.Readable, rep.OversizedByStatus)
	for _, c := range []struct {
		name string
		list []Finding
	}{{"answers 5xx", rep.ServerErrors}, {"internal errors in answers below 500", rep.InternalErrors}, {"leaks", rep.Leaks}, {"broken connections (requests within the limits)", rep.Broken}, {"hangs", rep.Hangs},
		{"connections cut off beyond the limits (allowed)", rep.CutOff}} {
		fmt.Fprintf(w, "%s: %d\n", c.name, len(c.list))
		for i, f := range c.list {
			if i == 10 {
				fmt.Fprintf(w, "  ... and %d more\n", len(c.list)-10)
				break
			}
			fmt.Fprintf(w, "  [%s] %s %s -> %d %s\n", f.Kind, f.Method, f.Target, f.Status, f.What)
		}
	}
	fmt.Fprintf(w, "server alive after the run: %v\n", rep.Alive)
	mib := func(b int64) string {
		if b == 0 {
			return "unknown"
		}
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	fmt.Fprintf(w, "server memory (resident / heap in use): before %s / %s, right after %s / %s", mib(rep.Before.RSS), mib(rep.Before.HeapInUse), mib(rep.After.RSS), mib(rep.After.HeapInUse))
	if rep.AfterIdle != (Memory{}) {
		fmt.Fprintf(w, ", after %s idle %s / %s", rep.Idle, mib(rep.AfterIdle.RSS), mib(rep.AfterIdle.HeapInUse))
	}
	fmt.Fprintln(w)
	if g, ok := rep.Growth(); ok {
		verdict := "within"
		if !rep.MemoryBack() {
			verdict = "NOT within"
		}
		if rep.MaxGrowth < 0 {
			verdict = "not checked against"
		}
		fmt.Fprintf(w, "resident memory after idling: %+.0f%% of before, %s the allowed %+.0f%%\n", g, verdict, rep.MaxGrowth)
	}
}
