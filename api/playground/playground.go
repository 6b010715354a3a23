// Package playground serves the GraphiQL playground from the binary: its scripts and
// styles (GraphiQL, React, the explorer plugin; fetched from npm at pinned versions by
// update.sh) are embedded and served under AssetsPath, and the page names no other host.
// Its Content-Security-Policy allows only the server itself.
package playground

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// AssetsPath is where the assets are served.
const AssetsPath = "/playground/assets/"

// The files of the page, in load order. Their names carry their versions, so a new
// version is a new URL and the assets can be cached for good.
const (
	reactJS       = "react-18.2.0.min.js"
	reactDOMJS    = "react-dom-18.2.0.min.js"
	graphiqlJS    = "graphiql-4.1.2.min.js"
	graphiqlCSS   = "graphiql-4.1.2.min.css"
	explorerJS    = "graphiql-plugin-explorer-4.0.6.umd.js"
	explorerCSS   = "graphiql-plugin-explorer-4.0.6.css"
	playgroundJS  = "starkgraph-playground.js"
	playgroundCSS = "starkgraph-playground.css"
)

// CSP is the page's Content-Security-Policy: scripts, styles, fonts, images and requests
// from this server only (fonts and icons inlined in GraphiQL's stylesheet are data: URLs).
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed assets
var embedded embed.FS

// asset is one embedded file with what its responses need.
type asset struct {
	body        []byte
	contentType string
	etag        string
	integrity   string // sha384-..., for the page's integrity attributes
	gzipOnce    sync.Once
	gzipped     []byte
}

var assets = loadAssets()

func loadAssets() map[string]*asset {
	out := map[string]*asset{}
	entries, err := fs.ReadDir(embedded, "assets")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := embedded.ReadFile("assets/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum256 := sha256.Sum256(body)
		sum384 := sha512.Sum384(body)
		ct := mime.TypeByExtension(path.Ext(e.Name()))
		if ct == "" {
			ct = "text/plain; charset=utf-8"
		}
		out[e.Name()] = &asset{
			body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum256[:16]) + `"`,
			integrity: "sha384-" + base64.StdEncoding.EncodeToString(sum384[:]),
		}
	}
	return out
}

// Assets serves the embedded files under AssetsPath, cacheable for a year (their names
// change with their versions), gzipped for clients that take it.
func Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[strings.TrimPrefix(r.URL.Path, AssetsPath)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", a.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Add("Vary", "Accept-Encoding")
		body := a.body
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			body = a.gzip()
			h.Set("Content-Encoding", "gzip")
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	})
}

func (a *asset) gzip() []byte {
	a.gzipOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		_ = zw.Close()
		a.gzipped = buf.Bytes()
	})
	return a.gzipped
}

// Tab is an example document the playground opens with.
type Tab struct {
	Name      string `json:"name"`
	Query     string `json:"query"`
	Variables string `json:"variables,omitempty"`
}

// Config is what the page shows.
type Config struct {
	Title    string
	Endpoint string            // the GraphQL path, e.g. /graphql
	Headers  map[string]string // pre-filled in the headers editor
	// FetcherHeaders go with every request of the page, the schema's introspection too
	// (which GraphiQL sends before the headers editor is read): the development key.
	FetcherHeaders map[string]string
	Tabs           []Tab
}

// pageConfig is handed to starkgraph-playground.js in a data attribute (no inline script,
// so the CSP needs no exception).
type pageConfig struct {
	Endpoint       string            `json:"endpoint"`
	Headers        string            `json:"headers"`
	FetcherHeaders map[string]string `json:"fetcherHeaders,omitempty"`
	Tabs           []Tab             `json:"tabs"`
}

var page = template.Must(template.New("playground").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="icon" href="data:,">
{{range .Styles}}<link rel="stylesheet" href="{{.URL}}" integrity="{{.Integrity}}">
{{end}}</head>
<body>
<div id="graphiql" data-config="{{.Config}}"><div class="loading">Loading…</div></div>
{{range .Scripts}}<script src="{{.URL}}" integrity="{{.Integrity}}"></script>
{{end}}</body>
</html>
`))

type link struct{ URL, Integrity string }

func links(names ...string) []link {
	out := make([]link, len(names))
	for i, n := range names {
		a, ok := assets[n]
		if !ok {
			panic("playground: asset " + n + " is not embedded; run api/playground/update.sh")
		}
		out[i] = link{URL: AssetsPath + n, Integrity: a.integrity}
	}
	return out
}

// Page serves the playground page.
func Page(cfg Config) http.Handler {
	headers, _ := json.MarshalIndent(cfg.Headers, "", "  ")
	conf, _ := json.Marshal(pageConfig{Endpoint: cfg.Endpoint, Headers: string(headers), FetcherHeaders: cfg.FetcherHeaders, Tabs: cfg.Tabs})
	var buf bytes.Buffer
	err := page.Execute(&buf, map[string]any{
		"Title":   cfg.Title,
		"Config":  string(conf),
		"Styles":  links(graphiqlCSS, explorerCSS, playgroundCSS),
		"Scripts": links(reactJS, reactDOMJS, graphiqlJS, explorerJS, playgroundJS),
	})
	if err != nil {
		panic(err)
	}
	html := buf.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		_, _ = w.Write(html)
	})
}
