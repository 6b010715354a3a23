package compressmemo

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzhttp/writer/gzkp"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// countingOpen wraps open so a test can tell how many times the memo compressed.
func countingOpen(open func(io.Writer) compressor, n *int) func(io.Writer) compressor {
	return func(w io.Writer) compressor { *n++; return open(w) }
}

func gzipOpen(w io.Writer) compressor {
	c, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	return c
}

// send writes body through a memo writer in two pieces and returns what reached the wire.
func send(m *Memo, open func(io.Writer) compressor, body []byte) []byte {
	var wire bytes.Buffer
	w := m.writer(&wire, key{encoding: 'g', level: gzip.BestSpeed}, open)
	half := len(body) / 2
	w.Write(body[:half])
	w.Write(body[half:])
	if err := w.Close(); err != nil {
		panic(err)
	}
	return wire.Bytes()
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestABodySentAgainIsCompressedOnce(t *testing.T) {
	var results []string
	m := New(func(r Result) { results = append(results, r.String()) })
	compressions := 0
	open := countingOpen(gzipOpen, &compressions)
	page := []byte(strings.Repeat(`{"blockNumber":1234,"hash":"0x0abc"},`, 200))

	first := send(m, open, page)
	second := send(m, open, page)
	if compressions != 1 {
		t.Fatalf("the same body twice was compressed %d times, want once", compressions)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("the remembered bytes differ from the first answer's")
	}
	if got := gunzip(t, second); !bytes.Equal(got, page) {
		t.Fatalf("the remembered bytes decompress to %d bytes, want the %d of the body", len(got), len(page))
	}

	other := append(bytes.Clone(page[:len(page)-1]), ' ')
	if got := gunzip(t, send(m, open, other)); !bytes.Equal(got, other) || compressions != 2 {
		t.Fatalf("a body one byte apart: %d compressions, right body %v", compressions, bytes.Equal(got, other))
	}
	send(m, open, bytes.Repeat(page, MaxBody/len(page)+1))
	if got := strings.Join(results, " "); got != "compressed reused compressed streamed" {
		t.Errorf("observed %q, want compressed reused compressed streamed", got)
	}
}

// A hash is not proof: an entry whose hash matches but whose body does not must not answer.
func TestAnEntryUnderTheSameHashWithAnotherBodyIsNotUsed(t *testing.T) {
	m := New(nil)
	body := []byte(strings.Repeat("the body the client must get ", 40))
	wrong := send(New(nil), gzipOpen, []byte("another body entirely, compressed"))
	m.seen.Add(key{sum: xxhash.Sum64(body), encoding: 'g', level: gzip.BestSpeed},
		entry{plain: []byte("another body entirely, compressed"), packed: wrong})

	if got := gunzip(t, send(m, gzipOpen, body)); !bytes.Equal(got, body) {
		t.Fatalf("got %q, want the body written", got)
	}
}

func TestLargeOrFlushedBodiesStreamAndAreNotRemembered(t *testing.T) {
	m := New(nil)
	compressions := 0
	open := countingOpen(gzipOpen, &compressions)
	large := bytes.Repeat([]byte("0123456789abcdef"), MaxBody/16+1)
	for range 2 {
		if got := gunzip(t, send(m, open, large)); !bytes.Equal(got, large) {
			t.Fatal("a body over MaxBody came back wrong")
		}
	}
	if compressions != 2 || m.seen.Len() != 0 {
		t.Fatalf("a body over MaxBody: %d compressions, %d remembered; want 2 and 0", compressions, m.seen.Len())
	}

	var wire bytes.Buffer
	w := m.writer(&wire, key{encoding: 'g', level: gzip.BestSpeed}, open)
	w.Write([]byte("first event\n"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if wire.Len() == 0 {
		t.Fatal("Flush sent nothing to the client")
	}
	w.Write([]byte("second event\n"))
	w.Close()
	if got := gunzip(t, wire.Bytes()); string(got) != "first event\nsecond event\n" || m.seen.Len() != 0 {
		t.Fatalf("a flushed body came back as %q with %d remembered", got, m.seen.Len())
	}
}

// Through gzhttp, as the REST handler uses it: gzip and zstd each decode to the body, the
// second request of each gets the first's bytes, and concurrent requests for different
// bodies each get their own (run with -race).
func TestThroughGzhttp(t *testing.T) {
	m := New(nil)
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(512), gzhttp.CompressionLevel(gzip.BestSpeed),
		gzhttp.Implementation(m.Gzip()), gzhttp.ZstdImplementation(m.Zstd()))
	if err != nil {
		t.Fatal(err)
	}
	bodyOf := func(page string) string { return strings.Repeat(`{"page":"`+page+`"},`, 100) }
	srv := httptest.NewServer(wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, bodyOf(r.URL.Query().Get("p")))
	})))
	defer srv.Close()

	get := func(page, accept string) (encoding string, wire []byte) {
		req, _ := http.NewRequest("GET", srv.URL+"/?p="+page, nil)
		req.Header.Set("Accept-Encoding", accept)
		resp, err := srv.Client().Transport.RoundTrip(req) // no transparent decompression
		if err != nil {
			t.Error(err)
			return "", nil
		}
		defer resp.Body.Close()
		wire, _ = io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Encoding"), wire
	}
	decode := map[string]func([]byte) []byte{
		"gzip": func(b []byte) []byte { return gunzip(t, b) },
		"zstd": func(b []byte) []byte {
			d, _ := zstd.NewReader(nil)
			defer d.Close()
			out, err := d.DecodeAll(b, nil)
			if err != nil {
				t.Error(err)
			}
			return out
		},
	}
	for _, enc := range []string{"gzip", "zstd"} {
		gotEnc, first := get("1", enc)
		_, second := get("1", enc)
		if gotEnc != enc || !bytes.Equal(first, second) || string(decode[enc](second)) != bodyOf("1") {
			t.Errorf("%s: encoding %q, same bytes twice %v", enc, gotEnc, bytes.Equal(first, second))
		}
	}

	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			page := fmt.Sprint(i % 8)
			if enc, wire := get(page, "gzip"); enc != "gzip" || string(gunzip(t, wire)) != bodyOf(page) {
				t.Errorf("page %s came back wrong", page)
			}
		})
	}
	wg.Wait()
}

// BenchmarkPage compares compressing a 6 KB page of blocks for every request (the baseline: what
// gzhttp's own writer does) with answering it from the memo.
//
//	go test ./compressmemo -run '^$' -bench Page
func BenchmarkPage(b *testing.B) {
	var page []byte
	for i := range 25 {
		h := func(salt string) uint64 { return xxhash.Sum64String(fmt.Sprint(salt, i)) } // hex as random as a hash's
		page = fmt.Appendf(page, `{"blockNumber":%d,"hash":"0x%016x%016x%016x%016x","stateRoot":"0x%016x%016x%016x%016x","timestamp":%d,"txnCount":%d},`,
			4999-i, h("a"), h("b"), h("c"), h("d"), h("e"), h("f"), h("g"), h("h"), 1700000000+i*30, 200+i)
	}
	b.Run("compress-every-time", func(b *testing.B) {
		for b.Loop() {
			c := gzkp.NewWriter(io.Discard, gzip.BestSpeed) // pooled, as gzhttp's default
			c.Write(page)
			c.Close()
		}
	})
	b.Run("memo", func(b *testing.B) {
		m, open := New(nil), func(w io.Writer) compressor { return gzkp.NewWriter(w, gzip.BestSpeed) }
		for b.Loop() {
			send(m, open, page)
		}
	})
}
