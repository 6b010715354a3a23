package rest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// checkCachingAndCompression: ETag and Cache-Control on every 200, a long lifetime only for
// finalized data, 304 on a matching If-None-Match, gzip when the client accepts it.
func checkCachingAndCompression(t *testing.T, shared *env) {
	e := shared.with(t)
	for _, c := range []struct {
		path, cache string
	}{
		{"/beta/blocks/5", cacheFinalized},                   // accepted on L1
		{"/beta/txns/" + txHash(5, 0).Hex(), cacheFinalized}, // in an L1 block
		{"/beta/blocks/25", cacheLive},                       // accepted on L2 only
		{"/beta/txns/" + txHash(25, 0).Hex(), cacheLive},
		{"/beta/blocks", cacheLive},
	} {
		r := e.get(c.path)
		etag := r.header.Get("ETag")
		if r.status != 200 || etag == "" || r.header.Get("Cache-Control") != c.cache {
			t.Errorf("GET %s: status %d, ETag %q, Cache-Control %q; want 200, an ETag, %q", c.path, r.status, etag, r.header.Get("Cache-Control"), c.cache)
			continue
		}
		req, _ := http.NewRequest(http.MethodGet, e.url+c.path, nil)
		req.Header.Set("If-None-Match", etag)
		if again := e.do(req); again.status != http.StatusNotModified || len(again.raw) != 0 {
			t.Errorf("GET %s with If-None-Match: status %d, %d bytes; want 304 and no body", c.path, again.status, len(again.raw))
		}
		req.Header.Set("If-None-Match", `W/"other"`)
		if again := e.do(req); again.status != http.StatusOK {
			t.Errorf("GET %s with another ETag: status %d, want 200", c.path, again.status)
		}
	}
	if r := e.get("/beta/blocks/999"); r.header.Get("ETag") != "" || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("404 carries ETag %q, Cache-Control %q", r.header.Get("ETag"), r.header.Get("Cache-Control"))
	}

	// gzip: the transport is told not to decompress, so the test sees the wire bytes.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	req, _ := http.NewRequest(http.MethodGet, e.url+"/beta/blocks?ps=100", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.NewDecoder(zr).Decode(&body); err != nil || len(list(t, body["items"])) != nBlocks {
		t.Fatalf("gzip body: %v, %v", err, body)
	}
	req.Header.Del("Accept-Encoding")
	plain, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	plain.Body.Close()
	if plain.Header.Get("Content-Encoding") != "" {
		t.Errorf("compressed without Accept-Encoding")
	}
}

// multipartBody builds a class-verification form.
func multipartBody(t *testing.T, fields map[string]string, files map[string]string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for path, src := range files {
		fw, err := w.CreateFormFile("files["+path+"]", path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, src)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

var verifyFields = map[string]string{
	"compiler_version": "2.6.3", "scarb_version": "2.6.4", "project_dir_path": ".", "name": "Duck",
	"package_name": "duck", "license": "MIT", "build_tool": "scarb",
}

func (e *env) post(t *testing.T, path, contentType string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	return e.do(req)
}

// TestClassVerification submits sources as multipart and as JSON, polls the job, and
// checks the rules on the body.
func TestClassVerification(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]\nname = \"duck\""}
	body, ct := multipartBody(t, verifyFields, files)
	r := e.post(t, "/beta/class-verify/"+account(0).Hex(), ct, body) // a contract address: its class
	if r.status != http.StatusOK {
		t.Fatalf("multipart: %d %s", r.status, r.raw)
	}
	m := obj(t, r.body)
	id, ok := m["job_id"].(string)
	if _, err := uuid.Parse(id); !ok || err != nil || len(m) != 1 {
		t.Fatalf("answer %s, want {\"job_id\": <uuid>}", r.raw)
	}
	job := obj(t, e.mustGet("/beta/class-verify/job/"+id))
	if job["status"] != float64(0) || job["class_hash"] != accountClass.Padded() || job["name"] != "Duck" {
		t.Errorf("job %v", job)
	}
	var contractFile string
	if err := e.db.Get(&contractFile, `SELECT contract_file FROM verification_jobs WHERE id = $1`, id); err != nil || contractFile != "src/lib.cairo" {
		t.Errorf("contract_file %q (%v), want the package's lib.cairo", contractFile, err)
	}

	jsonBody := map[string]any{
		"compiler_version": "2.6.3", "scarb_version": "2.6.4", "name": "Duck", "package_name": "duck",
		"license": nil, "files": files, "contract_file": "src/lib.cairo",
	}
	raw, _ := json.Marshal(jsonBody)
	if r := e.post(t, "/beta/class-verify/"+accountClass.Hex(), "application/json", bytes.NewReader(raw)); r.status != http.StatusOK {
		t.Fatalf("json: %d %s", r.status, r.raw)
	}

	// Files as one JSON field of the form.
	fields := map[string]string{"files": `{"src/lib.cairo": "mod duck;"}`}
	for k, v := range verifyFields {
		fields[k] = v
	}
	body, ct = multipartBody(t, fields, nil)
	if r := e.post(t, "/beta/class-verify/"+accountClass.Hex(), ct, body); r.status != http.StatusOK {
		t.Fatalf("files as a JSON field: %d %s", r.status, r.raw)
	}

	for _, c := range []struct {
		name, drop, set, value string
		status                 int
		names                  string
	}{
		{name: "no compiler", drop: "compiler_version", status: 400, names: "compiler_version"},
		{name: "no package", drop: "package_name", status: 400, names: "package_name"},
		{name: "bad tool", set: "build_tool", value: "maven", status: 400, names: "build_tool"},
		{name: "contract file not sent", set: "contract_file", value: "src/other.cairo", status: 400, names: "contract_file"},
	} {
		f := map[string]string{}
		for k, v := range verifyFields {
			if k != c.drop {
				f[k] = v
			}
		}
		if c.set != "" {
			f[c.set] = c.value
		}
		body, ct := multipartBody(t, f, files)
		errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), ct, body), c.status, c.names)
	}
	body, ct = multipartBody(t, verifyFields, nil)
	errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), ct, body), 400, "files")
	body, ct = multipartBody(t, verifyFields, files)
	errorOf(t, e.post(t, "/beta/class-verify/0xnothex", ct, body), 400, "hash")
	body, ct = multipartBody(t, verifyFields, files)
	errorOf(t, e.post(t, "/beta/class-verify/0x999", ct, body), 404, "hash")
	errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), "text/plain", strings.NewReader("hi")), 400, "body")
	errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), "application/json", strings.NewReader("{")), 400, "body")
	errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), "multipart/form-data", strings.NewReader("x")), 400, "boundary")

	big := map[string]string{"src/lib.cairo": strings.Repeat("// padding\n", (11<<20)/11)}
	body, ct = multipartBody(t, verifyFields, big)
	errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), ct, body), http.StatusRequestEntityTooLarge, "10 MB")
	raw, _ = json.Marshal(map[string]any{"files": big})
	errorOf(t, e.post(t, "/beta/class-verify/"+accountClass.Hex(), "application/json", bytes.NewReader(raw)), http.StatusRequestEntityTooLarge, "10 MB")

	check := obj(t, e.mustGet("/beta/class-verify/check/"+account(0).Hex()))
	if check["is_verified"] != true || check["class_hash"] != accountClass.Padded() {
		t.Errorf("check %v", check)
	}
	if check := obj(t, e.mustGet("/beta/class-verify/check/"+erc20Class.Hex())); check["is_verified"] != false {
		t.Errorf("check of an unverified class %v", check)
	}
}
