// Package syncbuf is a bytes.Buffer that one goroutine (a log handler, a child process's
// stderr) writes while another reads it: what tests watch logs with.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is safe for concurrent Write and String; the zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
