package api

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
)

// postTransport is gqlgen's POST transport with a cheaper response writer. gqlgen writes
// every response with json.Marshal, which scans the data it has just encoded once more to
// validate and compact it (json.RawMessage): 7% of the CPU of a 25-item document. A
// response with data and nothing else is written as it is here, and any other response of
// a document that runs with json.Marshal as gqlgen does. A body that does not decode, or a
// document that does not parse or validate, is handed to gqlgen's own transport, so those
// statuses and error bodies are gqlgen's. It answers as the zero transport.POST does (no
// extra response headers, application/json unless the client asks for the GraphQL type).
type postTransport struct{ transport.POST }

var _ graphql.Transport = postTransport{}

const (
	contentTypeJSON            = "application/json"
	contentTypeGraphQLResponse = "application/graphql-response+json"
)

func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	body, rc, ok := operation(r, exec)
	if !ok { // gqlgen says what is wrong, with its status (a rare path: the body is read twice)
		r.Body = io.NopCloser(bytes.NewReader(body))
		t.POST.Do(w, r, exec)
		return
	}
	w.Header().Set("Content-Type", responseContentType(r))
	responses, ctx := exec.DispatchOperation(r.Context(), rc)
	writeResponse(w, responses(ctx))
}

// operation reads r's body and makes its operation, as gqlgen's POST does; ok is false when
// the body does not decode or the document does not parse or validate.
func operation(r *http.Request, exec graphql.GraphExecutor) (body []byte, rc *graphql.OperationContext, ok bool) {
	start := graphql.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return body, nil, false
	}
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // as gqlgen decodes variables
	if err := dec.Decode(&params); err != nil {
		return body, nil, false
	}
	params.Headers = r.Header
	params.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	rc, errs := exec.CreateOperationContext(r.Context(), &params)
	return body, rc, errs == nil
}

// responseContentType is the media type gqlgen's POST transport answers with for r's
// Accept header (without UseGrapQLResponseJsonByDefault).
func responseContentType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return contentTypeJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		mediaType, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mediaType {
		case "*/*", "application/*", contentTypeJSON:
			return contentTypeJSON
		case contentTypeGraphQLResponse:
			return contentTypeGraphQLResponse
		}
	}
	return contentTypeGraphQLResponse
}

// writeResponse writes resp as json.Marshal would, without re-reading its data when it
// carries nothing else.
func writeResponse(w io.Writer, resp *graphql.Response) {
	if resp != nil && len(resp.Data) > 0 && len(resp.Errors) == 0 && resp.Label == "" &&
		resp.Path == nil && resp.HasNext == nil && len(resp.Extensions) == 0 {
		// Three writes into the server's buffered writer, not a copy of the data.
		_, _ = io.WriteString(w, `{"data":`)
		_, _ = w.Write(resp.Data)
		_, _ = io.WriteString(w, `}`)
		return
	}
	b, err := json.Marshal(resp)
	if err != nil {
		b = []byte(`{"errors":[{"message":"the response could not be encoded"}],"data":null}`)
	}
	_, _ = w.Write(b)
}
