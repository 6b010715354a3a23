package labels

import (
	"fmt"
	"hash/fnv"
	"html"
	"net/http"
	"strings"
	"unicode"
)

// LogoPath is where LogoHandler serves logos: LogoPath + NAME + ".svg".
const LogoPath = "/logos/"

// LogoHandler serves a small generated SVG badge for any name: a disc in a colour drawn
// from the name, with up to four of its letters. The simulated chain's labels point at
// it, so that `dev` shows logos and validator images without loading anything from
// elsewhere.
func LogoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, LogoPath), ".svg")
		if !ok || name == "" || len(name) > 32 {
			http.NotFound(w, r)
			return
		}
		var text []rune
		for _, c := range name {
			if (unicode.IsLetter(c) || unicode.IsDigit(c)) && len(text) < 4 {
				text = append(text, c)
			}
		}
		h := fnv.New32a()
		h.Write([]byte(name))
		hue := h.Sum32() % 360
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
		fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">`+
			`<circle cx="32" cy="32" r="32" fill="hsl(%d,60%%,45%%)"/>`+
			`<text x="32" y="38" font-family="sans-serif" font-size="%d" font-weight="bold" fill="#fff" text-anchor="middle">%s</text></svg>`,
			hue, 22-2*len(text), html.EscapeString(string(text)))
	})
}
