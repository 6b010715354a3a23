package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Resolver resolves a host name; *net.Resolver is one. Tests give their own, so that no
// query leaves the machine and a name can be made to resolve anywhere.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc opens the connection to an address already checked (an IP literal and port).
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Options configure a Sender. The zero value is the production setting: HTTPS only, no
// loopback, the system resolver and the default timeouts and caps below.
type Options struct {
	// AllowHTTP accepts http:// URLs (an operator flag for development).
	AllowHTTP bool
	// AllowLoopback lets webhooks reach 127.0.0.0/8 and ::1 (tests, development). Private,
	// link-local and the other ranges AddressReason names stay refused.
	AllowLoopback bool

	// Resolver resolves the URLs' host names; nil is net.DefaultResolver.
	Resolver Resolver
	// Dial opens connections to checked addresses; nil is a net.Dialer with DialTimeout
	// whose Control checks the address once more just before connect(2).
	Dial DialFunc

	DialTimeout           time.Duration // default 5s, per address tried
	TLSHandshakeTimeout   time.Duration // default 5s
	ResponseHeaderTimeout time.Duration // default 10s, from the request written to the headers read
	AttemptTimeout        time.Duration // default 15s, the whole attempt: resolve, dial, TLS, send, answer
	// RecordBytes is how much of an answer's body an Attempt keeps; default 1 KiB.
	RecordBytes int
	// ReadLimit is the most of an answer's body read, so that a short answer leaves the
	// connection reusable; a longer one is cut and its connection closed. Default 64 KiB.
	ReadLimit int64
	// MaxRetryAfter caps the Retry-After a receiver may ask for; default 6 hours.
	MaxRetryAfter time.Duration
	// MaxConnsPerHost bounds the connections to one receiver's host; default 4.
	MaxConnsPerHost int
	// UserAgent is sent with every delivery; default "starkgraph-webhooks/1".
	UserAgent string
}

func (o Options) withDefaults() Options {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&o.DialTimeout, 5*time.Second)
	set(&o.TLSHandshakeTimeout, 5*time.Second)
	set(&o.ResponseHeaderTimeout, 10*time.Second)
	set(&o.AttemptTimeout, 15*time.Second)
	set(&o.MaxRetryAfter, 6*time.Hour)
	if o.RecordBytes <= 0 {
		o.RecordBytes = 1 << 10
	}
	if o.ReadLimit < int64(o.RecordBytes) {
		o.ReadLimit = max(64<<10, int64(o.RecordBytes))
	}
	if o.MaxConnsPerHost <= 0 {
		o.MaxConnsPerHost = 4
	}
	if o.UserAgent == "" {
		o.UserAgent = "starkgraph-webhooks/1"
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	return o
}

// ErrBadURL is wrapped by every refusal of CheckURL.
var ErrBadURL = errors.New("webhooks: URL not allowed")

// CheckURL checks a webhook's URL when it is created: absolute, https (http only with
// AllowHTTP), a host, no user or password, no fragment; a host naming an address must be an
// allowed one, and "localhost" (and *.localhost, RFC 6761) only with AllowLoopback. A name
// is not resolved here: what it resolves to is checked at every connection, by the dialer.
func CheckURL(raw string, o Options) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && o.AllowHTTP:
	case u.Scheme == "http":
		return nil, fmt.Errorf("%w: %q is not https (plain http is for development only)", ErrBadURL, raw)
	default:
		return nil, fmt.Errorf("%w: %q is not an https URL", ErrBadURL, raw)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %q has no host", ErrBadURL, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %q holds a user name or password", ErrBadURL, raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, fmt.Errorf("%w: %q has a fragment", ErrBadURL, raw)
	}
	if p := u.Port(); p != "" {
		if _, err := net.LookupPort("tcp", p); err != nil || p == "0" {
			return nil, fmt.Errorf("%w: %q has a bad port", ErrBadURL, raw)
		}
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if why := AddressReason(a, o.AllowLoopback); why != "" {
			return nil, &ForbiddenAddressError{Host: host, Addr: a, Reason: why}
		}
		return u, nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if !o.AllowLoopback && (name == "localhost" || strings.HasSuffix(name, ".localhost")) {
		return nil, &ForbiddenAddressError{Host: host, Reason: "loopback"}
	}
	return u, nil
}

// dialer resolves and checks before it connects.
type dialer struct {
	o    Options
	dial DialFunc
}

// DialContext resolves address's host itself, refuses the whole name if any address it
// resolves to is not allowed, and connects only to the addresses it checked, by their
// literal: the name is never resolved again, so an answer changing between the check and
// the connection (DNS rebinding) cannot reach a refused address.
func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := net.LookupPort(network, portStr)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ipnet := "ip"
		switch network {
		case "tcp4":
			ipnet = "ip4"
		case "tcp6":
			ipnet = "ip6"
		}
		addrs, err = d.o.Resolver.LookupNetIP(ctx, ipnet, host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	for _, a := range addrs {
		if why := AddressReason(a, d.o.AllowLoopback); why != "" {
			return nil, &ForbiddenAddressError{Host: host, Addr: a, Reason: why}
		}
	}
	var errs []error
	for _, a := range addrs {
		c, err := d.dial(ctx, network, netip.AddrPortFrom(a.WithZone(""), uint16(port)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// controlAddress is the default dialer's last check, on the address connect(2) is given.
func controlAddress(allowLoopback bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhooks: dialing %q: %w", address, err)
		}
		if why := AddressReason(ap.Addr(), allowLoopback); why != "" {
			return &ForbiddenAddressError{Host: ap.Addr().String(), Addr: ap.Addr(), Reason: why}
		}
		return nil
	}
}

// NewClient returns the HTTP client webhooks are sent with: its transport dials through
// the checking dialer, uses no proxy (a proxy would connect to whatever it is asked),
// bounds each phase's time and the headers' size, and the client follows no redirect (the
// 3xx itself is the answer, a failed attempt).
func NewClient(o Options) *http.Client {
	o = o.withDefaults()
	dial := o.Dial
	if dial == nil {
		nd := &net.Dialer{Timeout: o.DialTimeout, Control: controlAddress(o.AllowLoopback)}
		dial = nd.DialContext
	}
	d := &dialer{o: o, dial: dial}
	t := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    o.TLSHandshakeTimeout,
		ResponseHeaderTimeout:  o.ResponseHeaderTimeout,
		ExpectContinueTimeout:  time.Second,
		IdleConnTimeout:        90 * time.Second,
		MaxIdleConns:           1000,
		MaxIdleConnsPerHost:    o.MaxConnsPerHost,
		MaxConnsPerHost:        o.MaxConnsPerHost,
		MaxResponseHeaderBytes: 64 << 10,
		DisableCompression:     true,
	}
	return &http.Client{
		Transport: t,
		Timeout:   o.AttemptTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
