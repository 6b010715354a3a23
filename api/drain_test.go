package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/api"
)

// rawPost sends a POST with its whole body before reading anything, as many clients do,
// and reads the answer: an error when the connection broke first.
func rawPost(srv *httptest.Server, path, contentType string, body []byte) (int, string, error) {
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		return 0, "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", path, contentType, len(body))
	if _, err := conn.Write(append([]byte(head), body...)); err != nil {
		return 0, "", fmt.Errorf("writing the body: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, string(b), fmt.Errorf("reading the answer's body: %w", err)
	}
	return resp.StatusCode, string(b), nil
}

// TestOversizedBodyAnswerIsReadable: a client that writes a body over the limit whole
// before reading gets the 413 (and one a handler refuses unread, its 405), not a broken
// pipe or a reset.
func TestOversizedBodyAnswerIsReadable(t *testing.T) {
	srv, _ := newServer(t, api.Config{})
	for _, c := range []struct {
		path   string
		size   int
		status int
		want   string
	}{
		{"/graphql", 1<<20 + 1, http.StatusRequestEntityTooLarge, "1048576 bytes"},
		{"/graphql", 3 << 20, http.StatusRequestEntityTooLarge, "1048576 bytes"},
		{"/graphql", 12 << 20, http.StatusRequestEntityTooLarge, "1048576 bytes"},
		{"/healthz", 4 << 20, http.StatusMethodNotAllowed, ""},
	} {
		body := []byte(`{"query": "{ __typename }", "variables": {"pad": "` + strings.Repeat("x", c.size) + `"}}`)
		status, answer, err := rawPost(srv, c.path, "application/json", body)
		if err != nil {
			t.Errorf("%s, %d bytes: %v", c.path, len(body), err)
			continue
		}
		if status != c.status || !strings.Contains(answer, c.want) {
			t.Errorf("%s, %d bytes: %d %s", c.path, len(body), status, answer)
		}
	}
	// Within the limit, the connection stays usable.
	status, answer, err := rawPost(srv, "/graphql", "application/json", []byte(`{"query": "{ __typename }"}`))
	if err != nil || status != http.StatusOK {
		t.Errorf("small body: %d %s %v", status, answer, err)
	}
}
