package scalars

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/starkgraph/starkgraph/db"
)

// onlyWriter hides bytes.Buffer's type, so the marshallers take their other path.
type onlyWriter struct{ strings.Builder }

// The marshallers write what strconv.Quote of Hex, Padded and the decimal string gives,
// into a bytes.Buffer (gqlgen's) and into any other writer, after other output.
func TestMarshalWritesQuotedForms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	felts := []db.Felt{nil, {}, {0}, {0, 0, 1}, {0x0f}, {0x10}, bytes.Repeat([]byte{0xff}, 32), bytes.Repeat([]byte{1}, 33)}
	for range 200 {
		f := make(db.Felt, r.IntN(33))
		for i := range f {
			f[i] = byte(r.UintN(256))
		}
		felts = append(felts, f)
	}
	check := func(what string, m graphql.Marshaler, want string) {
		t.Helper()
		buf := bytes.NewBufferString("[")
		m.MarshalGQL(buf)
		var other onlyWriter
		m.MarshalGQL(&other)
		if buf.String() != "["+want || other.String() != want {
			t.Fatalf("%s: wrote %s and %s, want %s", what, buf.String()[1:], other.String(), want)
		}
	}
	for _, f := range felts {
		check("felt "+strconv.Quote(string(f)), MarshalFelt(f), strconv.Quote(f.Hex()))
		check("address "+strconv.Quote(string(f)), MarshalAddress(f), strconv.Quote(f.Padded()))
	}
	for _, s := range []string{"0", "123", strings.Repeat("9", 78), strings.Repeat("1", 200)} {
		check("big "+s, MarshalBigInt(s), strconv.Quote(s))
	}
}

// A felt marshalled into gqlgen's buffer costs the marshaller's closure and nothing more.
func TestMarshalFeltAllocations(t *testing.T) {
	f := db.MustFelt("0x49d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7")
	var buf bytes.Buffer
	buf.Grow(1 << 16)
	allocs := testing.AllocsPerRun(100, func() {
		buf.Reset()
		MarshalFelt(f).MarshalGQL(&buf)
		MarshalAddress(f).MarshalGQL(&buf)
	})
	if allocs > 2 {
		t.Fatalf("a felt and an address cost %.0f allocations, want at most 2 (their closures)", allocs)
	}
}
