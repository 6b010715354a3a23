package rest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/internal/nodeclients"
)

// clientCall is one operation as clients/rest.mjs calls it.
type clientCall struct {
	OpID       string            `json:"opId"`
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	PathParams map[string]string `json:"pathParams,omitempty"`
	Query      map[string]string `json:"query,omitempty"`
	Body       any               `json:"body,omitempty"`
}

// samplePosts are the write operations' sample calls (sampleRequests has the reads).
var samplePosts = map[string]clientCall{
	"submitVerification": {Path: "/beta/class-verify/" + erc20Class.Hex(), Body: map[string]any{
		"compiler_version": "2.6.3", "scarb_version": "2.6.4", "name": "Duck", "package_name": "duck",
		"license": nil, "files": map[string]string{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]"}, "contract_file": "src/lib.cairo"}},
	"requestNftMetadataUpdate": {Path: "/beta/nft/update-metadata/" + nftAddr.Hex() + "/3"},
}

// A REST client generated from /beta/openapi.json by standard generators from npm
// (openapi-typescript's types, checked by tsc; openapi-fetch's requests) calls every
// operation of the document on the seeded database, and every answer validates (ajv)
// against the document's schema for its status.
func TestGeneratedClientCallsEveryOperation(t *testing.T) {
	dir := nodeclients.Dir(t)
	e := newEnv(t)
	var calls []clientCall
	for _, rt := range routeTable() {
		// The document's paths are relative to its server, /beta.
		c := clientCall{OpID: rt.opID, Method: rt.method, Path: strings.TrimPrefix(rt.path, "/beta")}
		sample := sampleRequests[rt.opID]
		if post, ok := samplePosts[rt.opID]; ok {
			sample, c.Body = post.Path, post.Body
		}
		if sample == "" {
			t.Fatalf("no sample request for %s", rt.opID)
		}
		u, err := url.Parse(sample)
		if err != nil {
			t.Fatal(err)
		}
		c.PathParams = pathParams(t, rt.path, u.Path)
		for k, v := range u.Query() {
			if c.Query == nil {
				c.Query = map[string]string{}
			}
			c.Query[k] = v[0]
		}
		calls = append(calls, c)
	}
	raw, _ := json.Marshal(calls)
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	if err := os.WriteFile(callsFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "rest.mjs", callsFile)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STARKGRAPH_URL="+e.url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	began := time.Now()
	output, err := cmd.Output()
	t.Logf("rest.mjs ran in %v", time.Since(began).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("rest.mjs: %v\n%s%s", err, output, stderr.Bytes())
	}

	called := map[string]bool{}
	var failed []string
	lines := bufio.NewScanner(bytes.NewReader(output))
	lines.Buffer(nil, 1<<24)
	for lines.Scan() {
		var r struct {
			Typecheck string   `json:"typecheck"`
			Output    string   `json:"output"`
			OpID      string   `json:"opId"`
			Status    int      `json:"status"`
			Errors    []string `json:"errors"`
		}
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("rest.mjs wrote %q", lines.Text())
		}
		switch {
		case r.Typecheck == "failed":
			t.Errorf("tsc refuses the typed calls of the generated client:\n%s", r.Output)
		case r.OpID == "":
			t.Logf("rest.mjs: %s", lines.Text())
		case len(r.Errors) > 0:
			failed = append(failed, r.OpID+" ("+http.StatusText(r.Status)+"): "+strings.Join(r.Errors, "; "))
		case r.Status >= 400:
			failed = append(failed, r.OpID+": status "+http.StatusText(r.Status))
		}
		if r.OpID != "" {
			called[r.OpID] = true
		}
	}
	sort.Strings(failed)
	for _, f := range failed {
		t.Errorf("%s", f)
	}
	if len(called) != len(calls) {
		t.Errorf("the client called %d of the %d operations", len(called), len(calls))
	}
	t.Logf("the generated client called %d operations; %d failed", len(called), len(failed))
}

// pathParams reads the values of template's {name} segments in path.
func pathParams(t *testing.T, template, path string) map[string]string {
	t.Helper()
	names, values := strings.Split(template, "/"), strings.Split(path, "/")
	if len(names) != len(values) {
		t.Fatalf("%s does not match %s", path, template)
	}
	out := map[string]string{}
	for i, n := range names {
		if strings.HasPrefix(n, "{") {
			out[strings.Trim(n, "{}")] = values[i]
		} else if n != values[i] {
			t.Fatalf("%s does not match %s", path, template)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
