package playground

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	stdhtml "html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// The embedded vendor files are byte for byte what update.sh fetched and summed.
func TestAssetsMatchTheirSums(t *testing.T) {
	sums, err := embedded.ReadFile("assets/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(string(sums)))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("malformed SHA256SUMS line %q", sc.Text())
		}
		a, ok := assets[name]
		if !ok {
			t.Errorf("%s is summed but not embedded", name)
			continue
		}
		got := sha256.Sum256(a.body)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s does not match its SHA-256 sum; run api/playground/update.sh", name)
		}
		n++
	}
	if n < 6 {
		t.Errorf("only %d vendor files summed, want graphiql js+css, react, react-dom, explorer js+css", n)
	}
}

// The page loads only this server's files, each with its integrity, under a CSP that
// allows only the server itself.
func TestPageNamesNoOtherHost(t *testing.T) {
	srv := httptest.NewServer(Page(Config{Title: "t", Endpoint: "/graphql", Headers: map[string]string{"x-api-key": "k"},
		Tabs: []Tab{{Name: "a", Query: "{ __typename }"}}}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	html := string(body)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self';") ||
		strings.Contains(csp, "http") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	if strings.Contains(html, "http://") || strings.Contains(html, "https://") || strings.Contains(html, "//cdn") {
		t.Errorf("the page names another host:\n%s", html)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)" integrity="([^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(refs) != 8 {
		t.Fatalf("%d scripts and styles with integrity, want 8:\n%s", len(refs), html)
	}
	for _, r := range refs {
		name, ok := strings.CutPrefix(r[1], AssetsPath)
		if !ok || assets[name] == nil || assets[name].integrity != stdhtml.UnescapeString(r[2]) {
			t.Errorf("reference %s (%s) is not an embedded asset with its integrity", r[1], r[2])
		}
	}
	if strings.Contains(html, "<script>") || strings.Contains(html, "<style") {
		t.Error("inline script or style: the CSP would block it")
	}
	if !strings.Contains(html, `data-config="{&#34;endpoint&#34;:&#34;/graphql&#34;`) {
		t.Errorf("config not passed in data-config:\n%s", html)
	}
}

func TestAssetsAreCachedAndCompressed(t *testing.T) {
	srv := httptest.NewServer(Assets())
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+AssetsPath+graphiqlJS, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	zipped, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || len(zipped) >= len(assets[graphiqlJS].body)/2 ||
		!strings.Contains(resp.Header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("asset: %d %v, %d bytes gzipped of %d", resp.StatusCode, resp.Header, len(zipped), len(assets[graphiqlJS].body))
	}
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	resp, err = http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %d, want 304", resp.StatusCode)
	}
	if resp, _ := http.Get(srv.URL + AssetsPath + "../playground.go"); resp.StatusCode != 404 {
		t.Errorf("outside the assets: %d", resp.StatusCode)
	}
}
