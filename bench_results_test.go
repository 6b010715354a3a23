package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The docs are a reference, not a diary: bench/results keeps only the runs a doc cites,
// docs/performance.md stays at most 250 lines (the history goes to
// docs/performance-history.md) and README.md at most 200.
func TestBenchResultsAreCitedAndDocsStayShort(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var docs strings.Builder
	for _, file := range append([]string{"README.md", "CHANGELOG.md"}, pages...) {
		b, err := os.ReadFile(file)
		if os.IsNotExist(err) && file == "CHANGELOG.md" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	results, err := os.ReadDir("bench/results")
	if err != nil {
		t.Fatal(err)
	}
	// A run is written as <time>[-label].json and .md; a doc cites it by either name or by
	// its stem alone, and both files of a cited run are kept.
	for _, r := range results {
		stem := strings.TrimSuffix(strings.TrimSuffix(r.Name(), ".json"), ".md")
		if !strings.Contains(docs.String(), stem) {
			t.Errorf("bench/results/%s is cited by no doc (README.md, docs/*.md, CHANGELOG.md): cite the run or git rm it", r.Name())
		}
	}
	for file, most := range map[string]int{"docs/performance.md": 250, "README.md": 200} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > most {
			t.Errorf("%s has %d lines, more than %d: it is a reference; move history to docs/performance-history.md", file, n, most)
		}
	}
}
