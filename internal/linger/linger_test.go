package linger

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// server serves a small handler the way serve does (serving.go: its header limit and
// timeouts) on a listener of its own, wrapped by wrap when it is not nil.
func server(t *testing.T, wrap func(net.Listener) net.Listener) (string, *http.Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		ln = wrap(ln)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// A body limit of 1 KiB, read the way a handler does with http.MaxBytesReader.
		if _, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<10)); err != nil {
			http.Error(w, "body over 1 KiB", http.StatusRequestEntityTooLarge)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String(), srv
}

// exchange writes request whole on a new connection, before it reads anything, waits
// pause (a client slow to read), then reads the whole answer, as a client does: the status
// line, the headers and the body up to the server's close.
func exchange(addr string, request []byte, pause time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(request); err != nil {
		return "", fmt.Errorf("writing the request: %w", err)
	}
	time.Sleep(pause)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		return resp.Status, fmt.Errorf("reading the answer's body: %w", err)
	}
	return resp.Status, nil
}

// Requests Go's HTTP server answers itself and then hangs up on with part of the request
// unread. The first is the hostile run's broken connection: an invalid escape in the
// request line, with a 5,000-character forged key.
var earlyCloses = []struct {
	name, request, want string
	pause               time.Duration
	times               int
}{
	{"malformed request line, 5 kB of headers",
		"GET /beta/contracts/%u0000 HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + strings.Repeat("k", 5000) + "\r\n\r\n",
		"400 Bad Request", 0, 50},
	{"malformed request line, 5 kB of headers, a client slow to read",
		"GET /beta/contracts/%u0000 HTTP/1.1\r\nHost: x\r\nX-Api-Key: " + strings.Repeat("k", 5000) + "\r\n\r\n",
		"400 Bad Request", 20 * time.Millisecond, 10},
	{"malformed header line, then 60 kB of headers",
		"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\nX-Pad: " + strings.Repeat("p", 60<<10) + "\r\n\r\n",
		"400 Bad Request", 0, 50},
	{"unsupported transfer encoding, 100 kB body",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + strings.Repeat("z", 100<<10),
		"501 Not Implemented", 0, 20},
	// net/http waits 500 ms after its FIN for these two; a client that reads later still
	// gets its answer, FIN first. Here for the lingering's sake: it must not break them.
	{"headers over MaxHeaderBytes, a client slow to read",
		"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("p", 100<<10) + "\r\n\r\n",
		"431 Request Header Fields Too Large", 700 * time.Millisecond, 3},
	{"body over the handler's limit, a client slow to read",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 204800\r\n\r\n" + strings.Repeat("b", 200<<10),
		"413 Request Entity Too Large", 700 * time.Millisecond, 3},
}

// runEarlyCloses sends each request its number of times (those with a pause at once) and
// returns what went wrong, by request.
func runEarlyCloses(addr string) map[string][]string {
	var mu sync.Mutex
	wrong := map[string][]string{}
	for _, tc := range earlyCloses {
		var wg sync.WaitGroup
		for range tc.times {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := exchange(addr, []byte(tc.request), tc.pause)
				if err != nil || got != tc.want {
					mu.Lock()
					wrong[tc.name] = append(wrong[tc.name], fmt.Sprintf("%q %v", got, err))
					mu.Unlock()
				}
			}()
			if tc.pause == 0 {
				wg.Wait() // one after the other: as fast as the client can
			}
		}
		wg.Wait()
	}
	return wrong
}

// Every answer Go's server writes before it hangs up early is read whole by a client that
// sent its whole request first, each of 50 times. Without the lingering close, the
// unread part of the request makes Linux reset the connection, and the client's read of
// the answer fails with "connection reset by peer" (the control below: every time).
func TestEarlyAnswersAreReadable(t *testing.T) {
	addr, _ := server(t, Listen)
	for name, errs := range runEarlyCloses(addr) {
		t.Errorf("%s: %d answers not read, e.g. %s", name, len(errs), errs[0])
	}

	// The control: the same server on a plain listener. If this stops failing, Go's
	// server drains before it closes and this package may go.
	plain, _ := server(t, nil)
	wrong := runEarlyCloses(plain)
	t.Logf("without the lingering close: %d of %d read wrong: %v", len(wrong["malformed request line, 5 kB of headers"]), earlyCloses[0].times, wrong[earlyCloses[0].name][:min(1, len(wrong[earlyCloses[0].name]))])
	if len(wrong[earlyCloses[0].name]) == 0 {
		t.Errorf("without the lingering close, the malformed request line's 400 was read every time: the test no longer shows the reset it is there for")
	}
}

// A client that never stops sending cannot hold a lingering connection past Timeout, nor
// make it read more than MaxBytes; and past MaxLingering connections close at once.
func TestLingeringIsBounded(t *testing.T) {
	opts := Options{Timeout: 300 * time.Millisecond, MaxBytes: 64 << 10, MaxLingering: 2}
	var ln *listener
	addr, _ := server(t, func(l net.Listener) net.Listener { ln = New(l, opts).(*listener); return ln })

	// Each sends a malformed request line, then keeps sending without reading.
	flood := func(stopAfter time.Duration) (time.Duration, error) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		start := time.Now()
		if _, err := c.Write([]byte("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			return 0, err
		}
		chunk := make([]byte, 1<<10)
		for time.Since(start) < stopAfter {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			if _, err := c.Write(chunk); err != nil {
				return time.Since(start), nil // the server closed: reset
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start), errors.New("the server still took bytes")
	}

	// A slow sender (1 KiB every 10 ms: 30 KiB in the timeout) is cut off by the timeout; a
	// fast one by the byte cap (64 KiB).
	took, err := flood(5 * time.Second)
	t.Logf("slow sender cut off after %s (%v)", took, err)
	if err != nil || took < opts.Timeout/2 || took > 3*time.Second {
		t.Errorf("a client sending slowly after its answer held the connection %s (%v); want about %s", took, err, opts.Timeout)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.Write([]byte("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n"))
	start := time.Now()
	n, werr := c.Write(make([]byte, 8<<20)) // far past the cap: the write fails on the reset
	t.Logf("fast sender: wrote %d in %s: %v", n, time.Since(start), werr)
	c.Close()
	if werr == nil || time.Since(start) > 2*time.Second {
		t.Errorf("8 MiB after the answer: wrote %d bytes in %s (%v); the lingering should stop at %d", n, time.Since(start), werr, opts.MaxBytes)
	}

	// The slots come back.
	deadline := time.Now().Add(3 * time.Second)
	for len(ln.slots) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(ln.slots); n != 0 {
		t.Errorf("%d connections still lingering", n)
	}

	// With every slot taken, a connection closes at once.
	ln.slots <- struct{}{}
	ln.slots <- struct{}{}
	got, err := exchange(addr, []byte(earlyCloses[0].request), 0)
	<-ln.slots
	<-ln.slots
	if err == nil {
		t.Errorf("with no slot left the connection lingered anyway (answer %q read whole)", got)
	}
}

// http.Server.Shutdown closes idle connections from its own goroutine while theirs waits
// in a read: the read must end as on a closed connection, and Shutdown return at once.
func TestShutdownClosesIdleConnections(t *testing.T) {
	addr, srv := server(t, Listen)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	resp, err := client.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close() // the connection is idle, kept by the transport

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Shutdown took %s with an idle connection", d)
	}
}
