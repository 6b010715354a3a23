// Package compressmemo remembers how the response bodies sent lately compressed, so that a
// body sent again is not compressed again.
//
// The REST API runs its SQL and encodes its JSON for every request, so its answers are always
// current, but many requests get the same bytes: the first page of blocks or of
// transactions, a popular token's holders are the same for every client until the next block. Compressing
// such a body was a sixth of the CPU the service spends on `/beta/blocks`. A Memo plugs into
// gzhttp as its gzip and zstd writers: each one collects the plain body, and at Close either
// writes the compressed bytes remembered for an identical body or compresses and remembers
// them. A hit is decided by comparing the whole body, not only its hash, so a memo can never
// answer with another body's bytes. gzhttp still decides whether and how to compress, sets
// the headers and keeps its minimum size.
package compressmemo

import (
	"bytes"
	"io"
	"sync"

	"github.com/cespare/xxhash/v2"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/klauspost/compress/gzhttp/writer"
	"github.com/klauspost/compress/gzhttp/writer/gzkp"
	"github.com/klauspost/compress/gzhttp/writer/zstdkp"
)

// Bounds of what a Memo keeps. A body larger than MaxBody is compressed as it is written and
// not remembered; Entries bodies of at most MaxBody with their compressed forms (no larger
// than the body but for a few bytes, stored at their exact size) bound the memory a Memo
// holds: about 256 x 128 KiB = 32 MiB at worst; pages of /beta are 5 to 30 KB.
const (
	Entries = 256
	MaxBody = 64 << 10
)

// Memo is safe for concurrent use; one serves a whole handler.
type Memo struct {
	// Two-queue: a body must be asked for twice before it may push out one asked for often, so
	// a stream of one-off bodies (transactions by hash) does not flush the popular pages.
	seen    *lru.TwoQueueCache[key, entry]
	bufs    sync.Pool
	observe func(Result)
}

// Result is what became of one compressed body.
type Result int

const (
	Reused     Result = iota // the bytes remembered for an identical body were sent
	Compressed               // compressed, and remembered
	Streamed                 // larger than MaxBody, or flushed: compressed as written
)

func (r Result) String() string { return [...]string{"reused", "compressed", "streamed"}[r] }

type key struct {
	sum      uint64
	encoding byte // 'g'zip or 'z'std
	level    int
}

type entry struct{ plain, packed []byte }

// New returns an empty Memo; observe, when not nil, is told what became of each body (for
// metrics).
func New(observe func(Result)) *Memo {
	seen, err := lru.New2Q[key, entry](Entries)
	if err != nil {
		panic(err) // only for a size below 1
	}
	if observe == nil {
		observe = func(Result) {}
	}
	return &Memo{seen: seen, bufs: sync.Pool{New: func() any { return new(bytes.Buffer) }}, observe: observe}
}

// Gzip is the factory to give gzhttp.Implementation: klauspost's gzip writers, remembered.
func (m *Memo) Gzip() writer.GzipWriterFactory {
	return writer.GzipWriterFactory{
		Levels: gzkp.Levels,
		New: func(dst io.Writer, level int) writer.GzipWriter {
			return m.writer(dst, key{encoding: 'g', level: level}, func(w io.Writer) compressor { return gzkp.NewWriter(w, level) })
		},
	}
}

// Zstd is the factory to give gzhttp.ZstdImplementation: klauspost's zstd writers, remembered.
func (m *Memo) Zstd() writer.ZstdWriterFactory {
	return writer.ZstdWriterFactory{
		Levels: zstdkp.Levels,
		New: func(dst io.Writer, level int) writer.ZstdWriter {
			return m.writer(dst, key{encoding: 'z', level: level}, func(w io.Writer) compressor { return zstdkp.NewWriter(w, level) })
		},
	}
}

// compressor is what gzkp and zstdkp writers have in common.
type compressor interface {
	io.Writer
	Close() error
	Flush() error
}

func (m *Memo) writer(dst io.Writer, k key, open func(io.Writer) compressor) *memoWriter {
	plain := m.bufs.Get().(*bytes.Buffer)
	plain.Reset()
	return &memoWriter{memo: m, dst: dst, key: k, open: open, plain: plain}
}

// memoWriter collects a body until Close, unless it grows past MaxBody or is flushed: then
// it becomes a plain compressing writer (streamed) and remembers nothing.
type memoWriter struct {
	memo     *Memo
	dst      io.Writer
	key      key
	open     func(io.Writer) compressor
	plain    *bytes.Buffer // nil once streaming
	streamed compressor
}

func (w *memoWriter) Write(p []byte) (int, error) {
	if w.streamed != nil {
		return w.streamed.Write(p)
	}
	if w.plain.Len()+len(p) <= MaxBody {
		return w.plain.Write(p)
	}
	if err := w.stream(); err != nil {
		return 0, err
	}
	return w.streamed.Write(p)
}

// Flush sends what has been written so far, so the body is no longer collected.
func (w *memoWriter) Flush() error {
	if w.streamed == nil {
		if err := w.stream(); err != nil {
			return err
		}
	}
	return w.streamed.Flush()
}

// stream starts compressing to dst, with what was collected so far.
func (w *memoWriter) stream() error {
	w.memo.observe(Streamed)
	w.streamed = w.open(w.dst)
	_, err := w.streamed.Write(w.plain.Bytes())
	w.release()
	return err
}

func (w *memoWriter) release() {
	if w.plain != nil {
		w.memo.bufs.Put(w.plain)
		w.plain = nil
	}
}

func (w *memoWriter) Close() error {
	if w.streamed != nil {
		return w.streamed.Close()
	}
	if w.plain == nil {
		return nil // closed already
	}
	defer w.release()
	body := w.plain.Bytes()
	k := w.key
	k.sum = xxhash.Sum64(body)
	if e, ok := w.memo.seen.Get(k); ok && bytes.Equal(e.plain, body) {
		w.memo.observe(Reused)
		_, err := w.dst.Write(e.packed)
		return err
	}
	w.memo.observe(Compressed)
	var packed bytes.Buffer
	c := w.open(&packed)
	if _, err := c.Write(body); err != nil {
		return err
	}
	if err := c.Close(); err != nil {
		return err
	}
	e := entry{plain: bytes.Clone(body), packed: bytes.Clone(packed.Bytes())} // not the buffer's spare capacity
	w.memo.seen.Add(k, e)
	_, err := w.dst.Write(e.packed)
	return err
}
