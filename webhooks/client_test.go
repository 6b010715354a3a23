package webhooks

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// stubResolver answers from its table and counts its lookups; no query leaves the test.
type stubResolver struct {
	mu      sync.Mutex
	names   map[string][]string
	lookups int
}

func (r *stubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	ss, ok := r.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

// recordingDial records every address a connection is opened to; it opens none itself but
// through to, if set (a loopback test server), so no test sends a packet anywhere else.
type recordingDial struct {
	mu    sync.Mutex
	addrs []string
	to    string
}

func (d *recordingDial) dial(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, address)
	d.mu.Unlock()
	if d.to == "" {
		return nil, errors.New("test: no connection may be opened")
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, d.to)
}

func (d *recordingDial) calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

func TestAddressReason(t *testing.T) {
	refused := map[string]string{
		"127.0.0.1":              "loopback",
		"127.1.2.3":              "loopback",
		"::1":                    "loopback",
		"::ffff:127.0.0.1":       "loopback",
		"10.0.0.1":               "private",
		"172.16.5.4":             "private",
		"192.168.1.1":            "private",
		"fc00::1":                "private",
		"fd12:3456::1":           "private",
		"::ffff:10.0.0.1":        "private",
		"169.254.169.254":        "link-local",
		"::ffff:169.254.169.254": "link-local",
		"fe80::1":                "link-local",
		"fe80::1%eth0":           "link-local",
		"0.0.0.0":                "unspecified",
		"::":                     "unspecified",
		"224.0.0.1":              "multicast",
		"239.255.255.250":        "multicast",
		"ff02::1":                "multicast",
		"ff0e::1":                "multicast",
		"100.64.0.1":             "shared (CGNAT)",
		"100.127.255.254":        "shared (CGNAT)",
		"0.1.2.3":                "this-network",
		"255.255.255.255":        "reserved",
		"192.0.2.7":              "documentation",
		"64:ff9b::7f00:1":        "loopback", // NAT64 of 127.0.0.1
		"64:ff9b::a9fe:a9fe":     "link-local",
		"::7f00:1":               "IPv4-compatible",
		"2002:7f00:1::":          "6to4",
		"2001:db8::1":            "documentation",
	}
	for s, want := range refused {
		if got := AddressReason(netip.MustParseAddr(s), false); got != want {
			t.Errorf("%s: %q, want %q", s, got, want)
		}
	}
	for _, s := range []string{"1.1.1.1", "93.184.215.14", "100.128.0.1", "172.32.0.1", "2606:4700:4700::1111", "64:ff9b::101:101"} {
		if got := AddressReason(netip.MustParseAddr(s), false); got != "" {
			t.Errorf("%s refused as %q", s, got)
		}
	}
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1"} {
		if got := AddressReason(netip.MustParseAddr(s), true); got != "" {
			t.Errorf("%s refused with loopback allowed: %q", s, got)
		}
	}
	for _, s := range []string{"10.0.0.1", "169.254.169.254", "0.0.0.0"} {
		if got := AddressReason(netip.MustParseAddr(s), true); got == "" {
			t.Errorf("%s allowed with loopback allowed", s)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for raw, want := range map[string]error{
		"https://127.0.0.1/hook":             ErrForbiddenAddress,
		"https://10.0.0.1/hook":              ErrForbiddenAddress,
		"https://169.254.169.254/latest":     ErrForbiddenAddress,
		"https://[::ffff:127.0.0.1]/hook":    ErrForbiddenAddress,
		"https://[fe80::1%25eth0]/hook":      ErrForbiddenAddress,
		"https://localhost/hook":             ErrForbiddenAddress,
		"https://LOCALHOST./hook":            ErrForbiddenAddress,
		"https://api.localhost:8443/hook":    ErrForbiddenAddress,
		"http://hooks.example.com/x":         ErrBadURL,
		"ftp://hooks.example.com/x":          ErrBadURL,
		"hooks.example.com/x":                ErrBadURL,
		"https:///x":                         ErrBadURL,
		"https://user:pw@hooks.example.com/": ErrBadURL,
		"https://hooks.example.com/x#frag":   ErrBadURL,
		"https://hooks.example.com:0/x":      ErrBadURL,
		"https://hooks.example.com:99999/x":  ErrBadURL,
		"https://hooks.example.com/x":        nil,
		"https://93.184.215.14:8443/x?a=b":   nil,
	} {
		if _, err := CheckURL(raw, Options{}); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("CheckURL(%q) = %v, want %v", raw, err, want)
		}
	}
	if _, err := CheckURL("http://127.0.0.1:8080/hook", Options{AllowHTTP: true, AllowLoopback: true}); err != nil {
		t.Errorf("loopback http refused with both flags: %v", err)
	}
	if _, err := CheckURL("http://10.0.0.1/hook", Options{AllowHTTP: true, AllowLoopback: true}); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("private address allowed with the flags: %v", err)
	}
}

// The dialer refuses, before opening any connection, URLs naming refused addresses and
// names resolving to them, including a name with one good and one refused address (a
// rebinding answer); it connects only to the address it checked.
func TestDialerRefusesBeforeConnecting(t *testing.T) {
	res := &stubResolver{names: map[string][]string{
		"localhost":          {"127.0.0.1", "::1"},
		"rebind.example":     {"127.0.0.1"},
		"metadata.example":   {"169.254.169.254"},
		"mapped.example":     {"::ffff:10.0.0.1"},
		"mixed.example":      {"93.184.215.14", "10.0.0.1"},
		"cgnat.example":      {"100.64.0.1"},
		"ula.example":        {"fd00::1"},
		"hooks.example.test": {"93.184.215.14"},
	}}
	d := &recordingDial{}
	// AllowHTTP so that plain http:// URLs reach the dialer: the check is the dialer's.
	client := NewClient(Options{AllowHTTP: true, Resolver: res, Dial: d.dial})
	for _, raw := range []string{
		"http://127.0.0.1/hook",
		"http://10.0.0.1/hook",
		"http://169.254.169.254/latest/meta-data/",
		"http://[::ffff:127.0.0.1]/hook",
		"http://[::1]:8080/hook",
		"http://0.0.0.0/hook",
		"http://localhost/hook",
		"http://rebind.example/hook",
		"http://metadata.example/hook",
		"http://mapped.example/hook",
		"http://mixed.example/hook",
		"http://cgnat.example/hook",
		"https://ula.example/hook",
		"https://127.0.0.1/hook",
	} {
		resp, err := client.Post(raw, "application/json", strings.NewReader("{}"))
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: answered %s", raw, resp.Status)
			continue
		}
		if !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v, want a forbidden address", raw, err)
		}
	}
	if calls := d.calls(); len(calls) != 0 {
		t.Fatalf("connections were opened to %v", calls)
	}

	// An allowed name: the connection goes to the address checked, by its literal.
	resp, err := client.Post("http://hooks.example.test:8080/hook", "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
	}
	if calls := d.calls(); len(calls) != 1 || calls[0] != "93.184.215.14:8080" {
		t.Fatalf("dialed %v, want only 93.184.215.14:8080", calls)
	}
}

// With loopback allowed, a delivery to a receiver on 127.0.0.1 works; the names resolve
// through the resolver given, every time, and the connection goes to what it checked.
func TestDialerLoopbackAllowed(t *testing.T) {
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)

	// Without the flag the same receiver is refused, and never reached.
	refused := NewSender(Options{AllowHTTP: true})
	if a := refused.Deliver(context.Background(), Endpoint{URL: srv.URL, Secrets: []string{mustSecret(t)}}, Message{ID: "msg_1", Body: []byte("{}")}); !errors.Is(a.Err, ErrForbiddenAddress) {
		t.Fatalf("loopback without the flag: %+v", a)
	}
	refusedByDialer := NewClient(Options{AllowHTTP: true})
	if resp, err := refusedByDialer.Get(srv.URL); !errors.Is(err, ErrForbiddenAddress) {
		if err == nil {
			resp.Body.Close()
		}
		t.Fatalf("the dialer without the flag: %v", err)
	}
	if got.Load() != 0 {
		t.Fatal("the receiver was reached without the flag")
	}

	res := &stubResolver{names: map[string][]string{"receiver.test": {"127.0.0.1"}}}
	d := &recordingDial{to: u.Host}
	s := NewSender(Options{AllowHTTP: true, AllowLoopback: true, Resolver: res, Dial: d.dial})
	for _, target := range []string{srv.URL, "http://receiver.test:" + u.Port() + "/hook"} {
		a := s.Deliver(context.Background(), Endpoint{URL: target, Secrets: []string{mustSecret(t)}}, Message{ID: "msg_1", Body: []byte("{}")})
		if a.Outcome != Delivered || a.Status != http.StatusNoContent {
			t.Fatalf("%s: %+v", target, a)
		}
	}
	if got.Load() != 2 || res.lookups != 1 {
		t.Fatalf("receiver got %d, resolver asked %d times", got.Load(), res.lookups)
	}
	// The default dialer too (net.Dialer with its Control check), without hooks.
	plain := NewSender(Options{AllowHTTP: true, AllowLoopback: true})
	if a := plain.Deliver(context.Background(), Endpoint{URL: srv.URL, Secrets: []string{mustSecret(t)}}, Message{ID: "msg_2", Body: []byte("{}")}); a.Outcome != Delivered {
		t.Fatalf("default dialer: %+v", a)
	}
}

func mustSecret(t *testing.T) string {
	t.Helper()
	s, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The default dialer's last check, on the address given to connect(2).
func TestControlAddress(t *testing.T) {
	check := controlAddress(false)
	for _, a := range []string{"127.0.0.1:80", "[::1]:443", "[::ffff:169.254.169.254]:80", "10.1.2.3:443"} {
		if err := check("tcp", a, nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v", a, err)
		}
	}
	if err := check("tcp", "93.184.215.14:443", nil); err != nil {
		t.Error(err)
	}
	if err := controlAddress(true)("tcp", "127.0.0.1:80", nil); err != nil {
		t.Error(err)
	}
}
