package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/starkgraph/starkgraph/db"
	"github.com/starkgraph/starkgraph/db/dbtest"
	"github.com/starkgraph/starkgraph/internal/buildinfo"
)

// `starkgraph version` and `starkgraph --version` print one line: the release and the
// revision (unknown in a test binary, which Go does not stamp).
func TestVersionCommand(t *testing.T) {
	want := regexp.MustCompile(`^starkgraph ` + regexp.QuoteMeta(buildinfo.Version()) + ` \(rev ([0-9a-f]{7}|unknown)(, \d{4}-\d\d-\d\d)?(, modified)?\)\n$`)
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), runMainEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("starkgraph %s: %v", strings.Join(args, " "), err)
		}
		if !want.Match(out) {
			t.Errorf("starkgraph %s printed %q, want a line matching %s", strings.Join(args, " "), out, want)
		}
	}
}

// serve against a database migrated by a newer starkgraph stops at once with one line.
func TestServeStopsOnANewerSchema(t *testing.T) {
	url := dbtest.NewURL(t)
	conn, err := openDB(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	newest, err := db.NewestMigration()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES ($1, true)`, newest+5); err != nil {
		t.Fatal(err)
	}
	stderr, code := runCommand(t, []string{"DATABASE_URL=" + url},
		"serve", "--addr", freePort(t), "--admin-addr=", "--verify-workers=0")
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	want := fmt.Sprintf("database schema is at version %d, newer than this starkgraph %s knows (%d): run a newer starkgraph",
		newest+5, buildinfo.Version(), newest)
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Fatalf("stderr:\n%s\nwant one line saying %q", stderr, want)
	}
}

// Every answer of the servers names the release in x-starkgraph-version.
func TestVersionHeader(t *testing.T) {
	h := withVersion(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/beta/api-status", nil))
	if got := rec.Header().Get(versionHeader); got != buildinfo.Version() {
		t.Errorf("%s = %q, want %q", versionHeader, got, buildinfo.Version())
	}
}
