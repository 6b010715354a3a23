package scalars

import (
	"bytes"
	"io"

	"github.com/starkgraph/starkgraph/starknet"
)

// writeAppended writes what add appends (about size bytes), without an intermediate string: into the spare
// capacity of the buffer gqlgen marshals a response into (bytes.Buffer.AvailableBuffer),
// so that a felt costs no allocation of its own (it cost two: its hex string and the
// quoted copy, a fifth of the allocations of a page of blocks).
func writeAppended(w io.Writer, size int, add func([]byte) []byte) {
	if buf, ok := w.(*bytes.Buffer); ok {
		buf.Grow(size)
		_, _ = buf.Write(add(buf.AvailableBuffer()))
		return
	}
	var scratch [68]byte
	_, _ = w.Write(add(scratch[:0]))
}

const hexDigits = "0123456789abcdef"

// appendQuotedHex appends f as starknet.Felt.Hex writes it, in quotes: "0x", lowercase,
// no leading zeros, "0x0" for zero.
func appendQuotedHex(dst []byte, f starknet.Felt) []byte {
	dst = append(dst, '"', '0', 'x')
	i := 0
	for i < 32 && f[i] == 0 {
		i++
	}
	if i == 32 {
		return append(dst, '0', '"')
	}
	if f[i] < 0x10 {
		dst = append(dst, hexDigits[f[i]])
		i++
	}
	for ; i < 32; i++ {
		dst = append(dst, hexDigits[f[i]>>4], hexDigits[f[i]&0xf])
	}
	return append(dst, '"')
}

// appendQuotedPadded appends f as starknet.Felt.Padded writes it, in quotes: "0x" and
// exactly 64 lowercase hex digits.
func appendQuotedPadded(dst []byte, f starknet.Felt) []byte {
	dst = append(dst, '"', '0', 'x')
	for _, v := range f {
		dst = append(dst, hexDigits[v>>4], hexDigits[v&0xf])
	}
	return append(dst, '"')
}
