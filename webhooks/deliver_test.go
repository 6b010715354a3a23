package webhooks

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// receiver is a real HTTP receiver on loopback that verifies every request's signature
// with Verify, as a Go receiver would, and records what it got.
type receiver struct {
	*httptest.Server
	secret string
	mu     sync.Mutex
	got    []received
}

type received struct {
	header http.Header
	body   []byte
	verify error
}

func newReceiver(t *testing.T, answer http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{secret: mustSecret(t)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{req.Header.Clone(), body, Verify([]string{r.secret}, req.Header, body, time.Now())})
		r.mu.Unlock()
		answer(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func (r *receiver) endpoint() Endpoint {
	return Endpoint{URL: r.URL + "/hook", Secrets: []string{r.secret}}
}

func testSender(o Options) *Sender {
	o.AllowHTTP, o.AllowLoopback = true, true
	return NewSender(o)
}

var msg = Message{ID: "msg_2Qa7", Body: []byte(`{"type":"block","block":{"number":7}}`)}

func TestDeliverOutcomes(t *testing.T) {
	s := testSender(Options{})
	later := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		name       string
		answer     http.HandlerFunc
		outcome    Outcome
		status     int
		retryAfter time.Duration // for SlowDown, within 2s below
		body       string
	}{
		{"200", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }, Delivered, 200, 0, "ok"},
		{"204", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }, Delivered, 204, 0, ""},
		{"500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, Retry, 500, 0, "boom\n"},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, Retry, 404, 0, "404 page not found\n"},
		{"410", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) }, Disable, 410, 0, "gone\n"},
		{"429 Retry-After seconds", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(429)
		}, SlowDown, 429, 120 * time.Second, ""},
		{"503 Retry-After date", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", later)
			w.WriteHeader(503)
		}, SlowDown, 503, 90 * time.Second, ""},
		{"429 Retry-After beyond the cap", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "99999999")
			w.WriteHeader(429)
		}, SlowDown, 429, 6 * time.Hour, ""},
		{"429 without Retry-After", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) }, Retry, 429, 0, ""},
		{"503 bad Retry-After", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "soon")
			w.WriteHeader(503)
		}, Retry, 503, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t, c.answer)
			a := s.Deliver(context.Background(), r.endpoint(), msg)
			if a.Outcome != c.outcome || a.Status != c.status || string(a.Body) != c.body || a.Truncated {
				t.Fatalf("attempt %+v, want %v %d %q", a, c.outcome, c.status, c.body)
			}
			if (a.Err == nil) != (c.outcome == Delivered) {
				t.Fatalf("outcome %v with error %v", a.Outcome, a.Err)
			}
			if c.outcome != Delivered && !errors.Is(a.Err, ErrStatus) {
				t.Fatalf("error %v does not wrap ErrStatus", a.Err)
			}
			if c.outcome == SlowDown && (a.RetryAfter > c.retryAfter || a.RetryAfter < c.retryAfter-2*time.Second) {
				t.Fatalf("Retry-After %v, want %v", a.RetryAfter, c.retryAfter)
			}
			if a.Latency <= 0 || a.Latency > 5*time.Second {
				t.Fatalf("latency %v", a.Latency)
			}
			got := r.received()
			if len(got) != 1 {
				t.Fatalf("the receiver got %d requests", len(got))
			}
			g := got[0]
			if g.verify != nil || !bytes.Equal(g.body, msg.Body) || g.header.Get("webhook-id") != msg.ID ||
				g.header.Get("Content-Type") != "application/json" {
				t.Fatalf("the receiver got %q with %v (verify: %v)", g.body, g.header, g.verify)
			}
		})
	}
}

// A redirect is not followed: the 301 is the answer, a failure; its target is never asked.
func TestDeliverDoesNotFollowRedirects(t *testing.T) {
	var target atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { target.Add(1) }))
	defer elsewhere.Close()
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, elsewhere.URL+"/moved", http.StatusMovedPermanently)
	})
	a := testSender(Options{}).Deliver(context.Background(), r.endpoint(), msg)
	if a.Outcome != Retry || a.Status != 301 || a.Location != elsewhere.URL+"/moved" || !errors.Is(a.Err, ErrStatus) {
		t.Fatalf("attempt %+v", a)
	}
	if target.Load() != 0 {
		t.Fatal("the redirect was followed")
	}
}

// A receiver slower than the attempt's timeout fails the attempt at the timeout, retryable.
func TestDeliverSlowAnswerTimesOut(t *testing.T) {
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-req.Context().Done():
		}
	})
	s := testSender(Options{AttemptTimeout: 300 * time.Millisecond})
	a := s.Deliver(context.Background(), r.endpoint(), msg)
	if a.Outcome != Retry || a.Status != 0 || a.Err == nil {
		t.Fatalf("attempt %+v", a)
	}
	if a.Latency < 300*time.Millisecond || a.Latency > 3*time.Second {
		t.Fatalf("took %v for a 300ms timeout", a.Latency)
	}
	var ne net.Error
	if !errors.As(a.Err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v is not a timeout", a.Err)
	}

	// The headers in time but a body trickling past the timeout: 200 is still delivered,
	// and the attempt ends at the timeout.
	r2 := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(200)
		for i := 0; i < 100; i++ {
			if _, err := io.WriteString(w, "."); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(100 * time.Millisecond):
			case <-req.Context().Done():
				return
			}
		}
	})
	a = s.Deliver(context.Background(), r2.endpoint(), msg)
	if a.Outcome != Delivered || a.Latency > 3*time.Second {
		t.Fatalf("trickling 200: %+v", a)
	}
}

// A huge answer is read no further than ReadLimit, recorded no further than RecordBytes,
// and its connection closed: the receiver cannot make the sender read it all.
func TestDeliverHugeAnswer(t *testing.T) {
	var written atomic.Int64
	done := make(chan struct{})
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		defer close(done)
		w.WriteHeader(500)
		for written.Load() < 1<<30 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	start := time.Now()
	a := testSender(Options{}).Deliver(context.Background(), r.endpoint(), msg)
	if a.Outcome != Retry || a.Status != 500 || len(a.Body) != 1024 || !a.Truncated || a.Body[0] != 'x' {
		t.Fatalf("attempt: %v %d, %d bytes recorded, truncated %v, %v", a.Outcome, a.Status, len(a.Body), a.Truncated, a.Err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver is still writing: the connection was not closed")
	}
	if w := written.Load(); w >= 64<<20 {
		t.Fatalf("the receiver wrote %d bytes: the answer was read far past ReadLimit", w)
	}
	t.Logf("the receiver wrote %d KiB before its connection closed, in %v", written.Load()>>10, time.Since(start))
}

// Nothing listening: a network error, retryable.
func TestDeliverNetworkError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	a := testSender(Options{}).Deliver(context.Background(), Endpoint{URL: "http://" + addr + "/hook", Secrets: []string{mustSecret(t)}}, msg)
	if a.Outcome != Retry || a.Status != 0 || a.Err == nil {
		t.Fatalf("attempt %+v", a)
	}
}

// Every attempt of one message carries its id and is signed anew at its own time; during
// a rotation, with both secrets.
func TestDeliverRetriesKeepTheID(t *testing.T) {
	var n atomic.Int32
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(500)
		}
	})
	s := testSender(Options{})
	clock := time.Now()
	s.now = func() time.Time { return clock }
	if a := s.Deliver(context.Background(), r.endpoint(), msg); a.Outcome != Retry {
		t.Fatalf("first attempt %+v", a)
	}
	clock = clock.Add(3 * time.Second)
	newSecret := mustSecret(t)
	ep := Endpoint{URL: r.endpoint().URL, Secrets: []string{newSecret, r.secret}}
	if a := s.Deliver(context.Background(), ep, msg); a.Outcome != Delivered {
		t.Fatalf("second attempt %+v", a)
	}
	got := r.received()
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	if got[0].header.Get(HeaderID) != msg.ID || got[1].header.Get(HeaderID) != msg.ID {
		t.Fatalf("ids %q, %q", got[0].header.Get(HeaderID), got[1].header.Get(HeaderID))
	}
	if got[0].header.Get(HeaderTimestamp) == got[1].header.Get(HeaderTimestamp) {
		t.Fatal("the retry was not signed at its own time")
	}
	if got[1].verify != nil || len(strings.Fields(got[1].header.Get(HeaderSignature))) != 2 {
		t.Fatalf("rotated attempt: %v, %q", got[1].verify, got[1].header.Get(HeaderSignature))
	}
	if err := Verify([]string{newSecret}, got[1].header, got[1].body, time.Now()); err != nil {
		t.Fatalf("the new secret does not verify the rotated attempt: %v", err)
	}
}

// A URL refused at creation is refused by Deliver too, before any connection.
func TestDeliverChecksTheURL(t *testing.T) {
	s := NewSender(Options{})
	for _, u := range []string{"http://hooks.example.com/x", "https://10.0.0.1/x", "https://[::ffff:127.0.0.1]/x"} {
		a := s.Deliver(context.Background(), Endpoint{URL: u, Secrets: []string{mustSecret(t)}}, msg)
		if a.Outcome != Retry || !(errors.Is(a.Err, ErrBadURL) || errors.Is(a.Err, ErrForbiddenAddress)) {
			t.Errorf("%s: %+v", u, a)
		}
	}
}
