package rest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/starkgraph/starkgraph/db"
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
	return writeMultipart(t, fields, files, func(w *multipart.Writer, path string) (io.Writer, error) {
		return w.CreateFormFile("files["+path+"]", path)
	})
}

// writeMultipart writes fields, then each file through the part its add function makes.
func writeMultipart(t *testing.T, fields, files map[string]string, add func(w *multipart.Writer, path string) (io.Writer, error)) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for path, src := range files {
		fw, err := add(w, path)
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
// checks the answers for a class that is verified already, not on chain, or Cairo 0.
func TestClassVerification(t *testing.T) {
	e := newEnv(t)
	files := map[string]string{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]\nname = \"duck\""}
	body, ct := multipartBody(t, verifyFields, files)
	r := e.post(t, "/beta/class-verify/"+ethAddr.Hex(), ct, body) // a contract address: its class
	if r.status != http.StatusOK {
		t.Fatalf("multipart: %d %s", r.status, r.raw)
	}
	m := obj(t, r.body)
	id, ok := m["job_id"].(string)
	if _, err := uuid.Parse(id); !ok || err != nil || len(m) != 1 {
		t.Fatalf("answer %s, want {\"job_id\": <uuid>}", r.raw)
	}
	job := obj(t, e.mustGet("/beta/class-verify/job/"+id))
	if job["status"] != float64(0) || job["class_hash"] != erc20Class.Padded() || job["name"] != "Duck" ||
		job["obtained_class_hash"] != nil || job["attempts"] != float64(0) {
		t.Errorf("job %v", job)
	}
	var stored struct {
		ContractFile string `db:"contract_file"`
		Files        string `db:"files"`
	}
	if err := e.db.Get(&stored, `SELECT contract_file, files::text AS files FROM verification_jobs WHERE id = $1`, id); err != nil ||
		stored.ContractFile != "src/lib.cairo" || !strings.Contains(stored.Files, "Scarb.toml") {
		t.Errorf("stored job %+v (%v), want the package's lib.cairo and the files", stored, err)
	}

	jsonBody := map[string]any{
		"compiler_version": "2.6.3", "scarb_version": "2.6.4", "name": "Duck", "package_name": "duck",
		"license": nil, "files": files, "contract_file": "src/lib.cairo",
	}
	raw, _ := json.Marshal(jsonBody)
	if r := e.post(t, "/beta/class-verify/"+erc20Class.Hex(), "application/json", bytes.NewReader(raw)); r.status != http.StatusOK || obj(t, r.body)["job_id"] == nil {
		t.Fatalf("json: %d %s", r.status, r.raw)
	}

	// Files as one JSON field of the form.
	fields := map[string]string{"files": `{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]"}`}
	for k, v := range verifyFields {
		fields[k] = v
	}
	body, ct = multipartBody(t, fields, nil)
	if r := e.post(t, "/beta/class-verify/"+erc20Class.Hex(), ct, body); r.status != http.StatusOK {
		t.Fatalf("files as a JSON field: %d %s", r.status, r.raw)
	}

	// A class verified before: the union's other member, and no job.
	var jobsBefore int
	_ = e.db.Get(&jobsBefore, `SELECT count(*) FROM verification_jobs`)
	body, ct = multipartBody(t, verifyFields, files)
	r = e.post(t, "/beta/class-verify/"+account(0).Hex(), ct, body)
	if r.status != http.StatusOK || string(bytes.TrimSpace(r.raw)) != `{"verification_status":"Ok"}` {
		t.Errorf("already verified: %d %s", r.status, r.raw)
	}
	var jobsAfter int
	_ = e.db.Get(&jobsAfter, `SELECT count(*) FROM verification_jobs`)
	if jobsAfter != jobsBefore {
		t.Errorf("a submission for a verified class queued a job")
	}

	body, ct = multipartBody(t, verifyFields, files)
	errorOf(t, e.post(t, "/beta/class-verify/0xnothex", ct, body), 400, "hash")
	body, ct = multipartBody(t, verifyFields, files)
	errorOf(t, e.post(t, "/beta/class-verify/0x999", ct, body), 400, "hash: "+db.MustFelt("0x999").Padded()+" is neither a class nor a contract")
	body, ct = multipartBody(t, verifyFields, files)
	errorOf(t, e.post(t, "/beta/class-verify/"+erc721Class.Hex(), ct, body), 400, "Cairo 0")

	check := obj(t, e.mustGet("/beta/class-verify/check/"+account(0).Hex()))
	if check["is_verified"] != true || check["class_hash"] != accountClass.Padded() {
		t.Errorf("check %v", check)
	}
	if check := obj(t, e.mustGet("/beta/class-verify/check/"+erc20Class.Hex())); check["is_verified"] != false {
		t.Errorf("check of an unverified class %v", check)
	}
}

// Every bad submission gets a 400 naming the field, or a 413, and nothing is stored.
func TestClassVerificationRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	target := "/beta/class-verify/" + erc20Class.Hex()
	good := map[string]string{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]\nname = \"duck\""}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range good {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	many := with(nil)
	for i := range 500 {
		many[fmt.Sprintf("src/f%d.cairo", i)] = "// x"
	}
	for _, c := range []struct {
		name      string
		drop, set string
		value     string
		files     map[string]string
		status    int
		want      string
	}{
		{name: "no compiler", drop: "compiler_version", status: 400, want: "compiler_version: required"},
		{name: "no scarb version", drop: "scarb_version", status: 400, want: "scarb_version: required"},
		{name: "no package", drop: "package_name", status: 400, want: "package_name: required"},
		{name: "unknown tool", set: "build_tool", value: "maven", status: 400, want: `build_tool: "maven" is not one of scarb, sozo`},
		{name: "contract file not sent", set: "contract_file", value: "src/other.cairo", status: 400, want: "contract_file"},
		{name: "NUL in a field", set: "name", value: "Du\x00ck", status: 400, want: "name: contains a NUL byte"},
		{name: "NUL in the licence", set: "license", value: "MIT\x00", status: 400, want: "license: contains a NUL byte"},
		{name: "invalid UTF-8 in a field", set: "package_name", value: "du\xffck", status: 400, want: "package_name: is not valid UTF-8"},
		{name: "project dir leaves", set: "project_dir_path", value: "../up", status: 400, want: "project_dir_path"},
		{name: "NUL in a file", files: with(map[string]string{"src/a.cairo": "x\x00y"}), status: 400, want: `files: file "src/a.cairo" contains a NUL byte`},
		{name: "invalid UTF-8 in a file", files: with(map[string]string{"src/a.cairo": "\xff\xfe"}), status: 400, want: "is not valid UTF-8"},
		{name: "absolute path", files: with(map[string]string{"/etc/cron.d/x": "x"}), status: 400, want: `files: file path "/etc/cron.d/x" is absolute`},
		{name: "dot-dot path", files: with(map[string]string{"src/../../x.cairo": "x"}), status: 400, want: "leaves the project"},
		{name: "backslash path", files: with(map[string]string{`src\\x.cairo`: "x"}), status: 400, want: "backslash"},
		{name: "empty path", files: with(map[string]string{"": "x"}), status: 400, want: "empty path"},
		{name: "too many files", files: many, status: 400, want: "files: 502 files, more than the 500 allowed"},
		{name: "no Scarb.toml", files: map[string]string{"src/lib.cairo": "mod duck;"}, status: 400, want: "files: no Scarb.toml"},
		{name: "Scarb.toml not in the project dir", set: "project_dir_path", value: "contracts", status: 400, want: "no contracts/Scarb.toml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := map[string]string{}
			for k, v := range verifyFields {
				if k != c.drop {
					f[k] = v
				}
			}
			if c.set != "" {
				f[c.set] = c.value
			}
			files := c.files
			if files == nil {
				files = good
			}
			// As a form with files[<path>] fields (any bytes survive), and as JSON for
			// what JSON can carry.
			body, ct := multipartFields(t, f, files)
			errorOf(t, e.post(t, target, ct, body), c.status, c.want)
		})
	}
	// An upload named by its path keeps the path (and an absolute one is refused).
	body, ct := uploadBody(t, verifyFields, map[string]string{"src/lib.cairo": "mod duck;", "Scarb.toml": "[package]"})
	if r := e.post(t, target, ct, body); r.status != http.StatusOK {
		t.Fatalf("uploads with paths: %d %s", r.status, r.raw)
	}
	body, ct = uploadBody(t, verifyFields, map[string]string{"/abs/lib.cairo": "mod duck;", "Scarb.toml": "[package]"})
	errorOf(t, e.post(t, target, ct, body), 400, `file path "/abs/lib.cairo" is absolute`)
	raw, _ := json.Marshal(map[string]any{"compiler_version": "2.6.3", "scarb_version": "2.6.4", "name": "Duck",
		"package_name": "duck", "files": map[string]string{"Scarb.toml": "[package]", "src/lib.cairo": "a\u0000b"}})
	errorOf(t, e.post(t, target, "application/json", bytes.NewReader(raw)), 400, "contains a NUL byte")

	errorOf(t, e.post(t, target, "text/plain", strings.NewReader("hi")), 400, "body")
	errorOf(t, e.post(t, target, "application/json", strings.NewReader("{")), 400, "body")
	errorOf(t, e.post(t, target, "multipart/form-data", strings.NewReader("x")), 400, "boundary")
	big := map[string]string{"src/lib.cairo": strings.Repeat("// padding\n", (11<<20)/11)}
	body, ct = multipartBody(t, verifyFields, big)
	errorOf(t, e.post(t, target, ct, body), http.StatusRequestEntityTooLarge, "10 MB")
	raw, _ = json.Marshal(map[string]any{"files": big})
	errorOf(t, e.post(t, target, "application/json", bytes.NewReader(raw)), http.StatusRequestEntityTooLarge, "10 MB")

	var jobs int
	if err := e.db.Get(&jobs, `SELECT count(*) FROM verification_jobs WHERE class_hash = $1`, erc20Class); err != nil || jobs != 1 {
		t.Errorf("%d jobs stored (%v), want only the one good upload", jobs, err)
	}
}

// multipartFields writes files as files[<path>] fields, whose names carry any bytes.
func multipartFields(t *testing.T, fields, files map[string]string) (*bytes.Buffer, string) {
	return writeMultipart(t, fields, files, func(w *multipart.Writer, path string) (io.Writer, error) {
		return w.CreateFormField("files[" + path + "]")
	})
}

// uploadBody sends files as uploads of the field "files", named by their paths.
func uploadBody(t *testing.T, fields, files map[string]string) (*bytes.Buffer, string) {
	return writeMultipart(t, fields, files, func(w *multipart.Writer, path string) (io.Writer, error) {
		return w.CreateFormFile("files", path)
	})
}
