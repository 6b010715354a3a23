// Package linger gives a server's TCP connections a lingering close, so that the answer
// a server writes just before it hangs up reaches a client that is still sending.
//
// Go's HTTP server closes a connection at once in several places while the client may
// still be writing: after the 400 of a request line or header it cannot parse, after the
// 431 of headers over MaxHeaderBytes, after an answer to a body it stopped reading
// (http.MaxBytesReader, or more than 256 KiB left unread). Closing a TCP socket whose
// receive buffer still holds unread bytes makes Linux send a reset (RST) instead of a FIN,
// and a reset makes the client's kernel throw away what it had received and not yet read:
// the client sees "connection reset by peer" instead of the answer.
//
// A connection of a Listener closes the way RFC 9112 section 9.6 recommends: it shuts its
// sending side (FIN, after everything written), then reads and throws away what the client
// still sends until the client closes, for at most Timeout and MaxBytes, and only then
// closes the socket. Close returns at once; the lingering happens in a goroutine of its
// own, at most MaxLingering at a time (past that a connection closes at once, as before),
// so that the lingering cannot be used to hold sockets or goroutines.
package linger

import (
	"io"
	"net"
	"sync"
	"time"
)

// Defaults of a Listener.
const (
	DefaultTimeout      = 2 * time.Second
	DefaultMaxBytes     = 256 << 10
	DefaultMaxLingering = 1024
)

// Options bound the lingering of each connection; zero values take the defaults.
type Options struct {
	// Timeout is how long a closed connection reads what the client still sends.
	Timeout time.Duration
	// MaxBytes is how much it reads; past it the connection closes at once.
	MaxBytes int64
	// MaxLingering is how many connections may linger at a time.
	MaxLingering int
}

// Listen wraps ln: its TCP connections close with lingering, with the default bounds.
func Listen(ln net.Listener) net.Listener { return New(ln, Options{}) }

// New wraps ln: its TCP connections close with lingering, within opts.
func New(ln net.Listener, opts Options) net.Listener {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxLingering <= 0 {
		opts.MaxLingering = DefaultMaxLingering
	}
	return &listener{Listener: ln, opts: opts, slots: make(chan struct{}, opts.MaxLingering)}
}

type listener struct {
	net.Listener
	opts  Options
	slots chan struct{} // one per lingering connection
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	lc := &conn{Conn: tcp, tcp: tcp, l: l}
	lc.idle = sync.NewCond(&lc.mu)
	return lc, nil
}

// conn is a TCP connection whose Close lingers. It keeps count of the reads in progress:
// Close may come from another goroutine than the reader's (http.Server.Shutdown closes idle
// connections whose goroutine waits in a read), and the lingering read must not start
// before those have returned, or they would read what it is there to throw away.
type conn struct {
	net.Conn
	tcp *net.TCPConn
	l   *listener

	mu      sync.Mutex
	idle    *sync.Cond // signalled when readers drops to 0
	readers int
	closed  bool
	shut    bool // the sending side is shut already
}

// longAgo is a deadline in the past: a read waiting on the connection returns at once.
var longAgo = time.Unix(1, 0)

func (c *conn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0, c.opError("read", net.ErrClosed)
	}
	c.readers++
	c.mu.Unlock()
	n, err := c.tcp.Read(p)
	c.mu.Lock()
	c.readers--
	closed := c.closed
	if c.readers == 0 {
		c.idle.Broadcast()
	}
	c.mu.Unlock()
	if err != nil && closed {
		// Woken by Close: the error a closed connection gives.
		err = c.opError("read", net.ErrClosed)
	}
	return n, err
}

func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return 0, c.opError("write", net.ErrClosed)
	}
	return c.tcp.Write(p)
}

// ReadFrom keeps the server's sendfile and splice (it writes; the reads are the file's).
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return 0, c.opError("readfrom", net.ErrClosed)
	}
	return c.tcp.ReadFrom(r)
}

// CloseWrite shuts the sending side (net/http calls it before its own short wait).
func (c *conn) CloseWrite() error {
	c.mu.Lock()
	c.shut = true
	c.mu.Unlock()
	return c.tcp.CloseWrite()
}

// The deadlines are the lingering's once the connection is closed.
func (c *conn) SetDeadline(t time.Time) error {
	return c.ifOpen(func() error { return c.tcp.SetDeadline(t) })
}
func (c *conn) SetReadDeadline(t time.Time) error {
	return c.ifOpen(func() error { return c.tcp.SetReadDeadline(t) })
}

func (c *conn) ifOpen(f func() error) error {
	// f runs under the lock: a deadline set after Close would overwrite the one the
	// lingering relies on (and setting a deadline does not block).
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.opError("set", net.ErrClosed)
	}
	return f()
}

// Close sends what was written and a FIN, and leaves the reading of what the client still
// sends, and the closing of the socket, to a goroutine of the listener's.
func (c *conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return c.opError("close", net.ErrClosed)
	}
	c.closed = true
	readers, shut := c.readers, c.shut
	c.mu.Unlock()

	select {
	case c.l.slots <- struct{}{}:
	default: // too many lingering already
		return c.tcp.Close()
	}
	if readers > 0 {
		_ = c.tcp.SetReadDeadline(longAgo)
	}
	if !shut {
		if err := c.tcp.CloseWrite(); err != nil { // the connection is gone already
			<-c.l.slots
			return c.tcp.Close()
		}
	}
	go c.linger()
	return nil
}

func (c *conn) linger() {
	defer func() { <-c.l.slots }()
	defer c.tcp.Close()
	c.mu.Lock()
	for c.readers > 0 {
		c.idle.Wait()
	}
	c.mu.Unlock()
	if c.tcp.SetReadDeadline(time.Now().Add(c.l.opts.Timeout)) != nil {
		return
	}
	// Until the client's FIN (EOF), an error, the deadline or the byte cap.
	_, _ = io.CopyN(io.Discard, c.tcp, c.l.opts.MaxBytes)
}

func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.tcp.LocalAddr(), Addr: c.tcp.RemoteAddr(), Err: err}
}
