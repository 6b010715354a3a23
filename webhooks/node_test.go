package webhooks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/internal/nodeclients"
)

// nodeCase is one case of clients/webhooks.mjs.
type nodeCase struct {
	Name      string            `json:"name"`
	Op        string            `json:"op"`
	Secret    string            `json:"secret"`
	Payload   string            `json:"payload"`
	Headers   map[string]string `json:"headers,omitempty"`
	ID        string            `json:"id,omitempty"`
	Timestamp int64             `json:"timestamp,omitempty"`
}

type nodeResult struct {
	Name      string `json:"name"`
	Event     string `json:"event"`
	Reason    string `json:"reason"`
	Signature string `json:"signature"`
}

// runNode runs the cases through the npm standardwebhooks library (Node, from clients/;
// skipped without node and npm, except in CI, where it fails: internal/nodeclients).
func runNode(t *testing.T, cases []nodeCase) map[string]nodeResult {
	t.Helper()
	dir := nodeclients.Dir(t)
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "webhooks.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node webhooks.mjs: %v\n%s", err, out)
	}
	results := map[string]nodeResult{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r nodeResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("node webhooks.mjs wrote %q: %v", line, err)
		}
		results[r.Name] = r
	}
	if len(results) != len(cases) {
		t.Fatalf("node webhooks.mjs answered %d of %d cases:\n%s", len(results), len(cases), out)
	}
	return results
}

// wireHeaders are the headers as Deliver sends them, keyed as a Node receiver sees them.
func wireHeaders(h Headers) map[string]string {
	hh := http.Header{}
	h.Set(hh)
	m := map[string]string{}
	for k := range hh {
		m[strings.ToLower(k)] = hh.Get(k)
	}
	return m
}

// What starkgraph signs, the standardwebhooks library verifies: with one secret, with
// either secret of a rotation, a body with multi-byte UTF-8; and it refuses a tampered
// body, a wrong secret and a timestamp ten minutes old. And what the library signs, Verify
// accepts.
func TestStandardWebhooksLibraryVerifies(t *testing.T) {
	secret, _ := NewSecret()
	newSecret, _ := NewSecret()
	wrong, _ := NewSecret()
	id, _ := NewMessageID()
	body := `{"type":"erc20_transfer","block":{"number":812345,"hash":"0x0123"},"removed":false,"finality":"ACCEPTED_ON_L2","memo":"é ✓ 🦀"}`
	now := time.Now()

	signed := func(secrets []string, ts time.Time) map[string]string {
		h, err := Sign(secrets, id, ts, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return wireHeaders(h)
	}
	fresh := signed([]string{secret}, now)
	rotated := signed([]string{newSecret, secret}, now)
	old := signed([]string{secret}, now.Add(-10*time.Minute))
	libTS := now.Unix()

	cases := []nodeCase{
		{Name: "signed", Op: "verify", Secret: secret, Payload: body, Headers: fresh},
		{Name: "rotation, new secret", Op: "verify", Secret: newSecret, Payload: body, Headers: rotated},
		{Name: "rotation, old secret", Op: "verify", Secret: secret, Payload: body, Headers: rotated},
		{Name: "tampered body", Op: "verify", Secret: secret, Payload: strings.Replace(body, "812345", "812346", 1), Headers: fresh},
		{Name: "wrong secret", Op: "verify", Secret: wrong, Payload: body, Headers: fresh},
		{Name: "10 minutes old", Op: "verify", Secret: secret, Payload: body, Headers: old},
		{Name: "library signs", Op: "sign", Secret: secret, ID: id, Timestamp: libTS, Payload: body},
	}
	got := runNode(t, cases)
	for _, name := range []string{"signed", "rotation, new secret", "rotation, old secret"} {
		if r := got[name]; r.Event != "verified" {
			t.Errorf("%s: standardwebhooks %s it (%s), want verified", name, r.Event, r.Reason)
		}
	}
	for name, reason := range map[string]string{
		"tampered body":  "No matching signature",
		"wrong secret":   "No matching signature",
		"10 minutes old": "timestamp too old",
	} {
		if r := got[name]; r.Event != "refused" || !strings.Contains(r.Reason, reason) {
			t.Errorf("%s: standardwebhooks %s it (%s), want refused for %q", name, r.Event, r.Reason, reason)
		}
	}

	// The other way: the library's signature is ours, and Verify accepts it.
	lib := got["library signs"]
	ours, _ := Sign([]string{secret}, id, time.Unix(libTS, 0), []byte(body))
	if lib.Signature != ours.Signature {
		t.Errorf("standardwebhooks signed %q, we sign %q", lib.Signature, ours.Signature)
	}
	h := http.Header{}
	Headers{ID: id, Timestamp: strconv.FormatInt(libTS, 10), Signature: lib.Signature}.Set(h)
	if err := Verify([]string{secret}, h, []byte(body), now); err != nil {
		t.Errorf("Verify refused the library's signature: %v", err)
	}
}
