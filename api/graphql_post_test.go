package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/testserver"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// postTransport must answer every request exactly as gqlgen's POST transport does:
// status, content type and body, byte for byte.
func TestPostTransportAnswersAsGqlgens(t *testing.T) {
	theirs := testserver.New()
	theirs.AddTransport(transport.POST{})
	ours := testserver.New()
	ours.AddTransport(postTransport{})

	bodies := []string{
		`{"query":"{ name }"}`,
		`{"query":"query Q { name }","operationName":"Q","variables":{"unused":1.5}}`,
		`{"query":"{ name"}`,   // does not parse
		`{"query":"{ nope }"}`, // does not validate
		`{"query":"query Q { name }","operationName":"P"}`,
		`{"query":`,      // not JSON
		`{"query":1}`,    // not a string
		`{"query":null}`, // no document
		`[{"query":"{ name }"}]`,
	}
	accepts := []string{"", "application/json", "application/graphql-response+json; charset=utf-8", "*/*", "text/html", "text/html, application/*"}
	for _, body := range bodies {
		for _, accept := range accepts {
			want, got := send(theirs, body, accept), send(ours, body, accept)
			what := fmt.Sprintf("body %s, Accept %q", body, accept)
			if got.Code != want.Code {
				t.Errorf("%s: status %d, gqlgen's %d", what, got.Code, want.Code)
			}
			if g, w := got.Header().Get("Content-Type"), want.Header().Get("Content-Type"); g != w {
				t.Errorf("%s: Content-Type %q, gqlgen's %q", what, g, w)
			}
			if g, w := got.Body.String(), want.Body.String(); g != w {
				t.Errorf("%s: body\n%s\ngqlgen's\n%s", what, g, w)
			}
		}
	}
}

func send(h http.Handler, body, accept string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// writeResponse writes what json.Marshal writes for the responses it takes a short cut on.
func TestWriteResponseIsJSONMarshal(t *testing.T) {
	hasNext := false
	for _, resp := range []*graphql.Response{
		{Data: json.RawMessage(`{"blocks":{"edges":[{"node":{"number":7,"hash":"0x1"}}]}}`)},
		{Data: json.RawMessage(`null`)},
		{},
		{Data: json.RawMessage(`{"a":1}`), Extensions: map[string]any{"cost": 3}},
		{Data: json.RawMessage(`{"a":1}`), HasNext: &hasNext, Label: "l"},
	} {
		var got bytes.Buffer
		writeResponse(&got, resp)
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("wrote %s, json.Marshal %s", got.String(), want)
		}
	}
}

// BenchmarkWriteResponse compares writing a page of 25 transactions with their blocks
// (the shape of the bench's document) through json.Marshal, as gqlgen does, and through
// writeResponse.
func BenchmarkWriteResponse(b *testing.B) {
	var data strings.Builder
	data.WriteString(`{"transactions":{"edges":[`)
	for i := range 25 {
		if i > 0 {
			data.WriteByte(',')
		}
		fmt.Fprintf(&data, `{"node":{"hash":"0x%064x","type":"INVOKE","actualFee":"1234567890123456","block":{"number":%d,"timestamp":1732600000}}}`, i, 4999-i/5)
	}
	data.WriteString(`]}}`)
	resp := &graphql.Response{Data: json.RawMessage(data.String())}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			out, _ := json.Marshal(resp)
			_, _ = io.Discard.Write(out)
		}
	})
	b.Run("writeResponse", func(b *testing.B) {
		for b.Loop() {
			writeResponse(io.Discard, resp)
		}
	})
}
