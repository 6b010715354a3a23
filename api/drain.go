package api

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// MaxDrain is how much of a request body the server reads past what its handler read
// before it answers: a client that sends its whole body before it reads the answer (most
// do) gets the 413 of a body over the limit, or the 403 of a missing key, instead of a
// broken pipe. Go's server reads only 256 KiB of what a handler left, then closes the
// connection with the rest unread, and the reset that follows throws the answer away.
// Past MaxDrain the connection is closed after the answer (Connection: close), as before.
const MaxDrain = 32 << 20

// drainBodies reads, before the first byte of an answer, what the handler left of the
// request body, up to MaxDrain bytes. The server's ReadTimeout bounds how long it waits.
func drainBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		body := &trackedBody{ReadCloser: r.Body}
		r.Body = body
		next.ServeHTTP(&drainWriter{ResponseWriter: w, body: body}, r)
	})
}

// trackedBody knows whether its reader reached the end.
type trackedBody struct {
	io.ReadCloser
	done bool // EOF or an error: nothing more to read
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.done = true
	}
	return n, err
}

// drain reads what is left, up to MaxDrain bytes; false when more is left.
func (b *trackedBody) drain() bool {
	if b.done {
		return true
	}
	n, _ := io.CopyN(io.Discard, b, MaxDrain+1)
	return n <= MaxDrain
}

type drainWriter struct {
	http.ResponseWriter
	body  *trackedBody
	wrote bool
}

func (w *drainWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		if code >= 200 && !w.body.drain() {
			w.Header().Set("Connection", "close")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *drainWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *drainWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush sends what a stream has written so far.
func (w *drainWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands a WebSocket's connection over.
func (w *drainWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.wrote = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}
