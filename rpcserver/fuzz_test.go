package rpcserver

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzHandle: no request body makes the server panic or answer with invalid JSON.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"block","params":["latest"]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"value":[1,2]}},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":"a","method":"block","params":[{"block_hash":"0x1"}]}`,
		`[]`, `null`, `{`, `[1,"a",null]`, `{"id":[],"method":1}`,
	} {
		f.Add([]byte(seed))
	}
	s := newEchoAndBlock()
	f.Fuzz(func(t *testing.T, body []byte) {
		out, herr := s.Handle(context.Background(), body)
		if herr != nil {
			t.Fatalf("HTTP error for %q", body)
		}
		if out != nil && !json.Valid(out) {
			t.Fatalf("invalid JSON answer %q for %q", out, body)
		}
	})
}
