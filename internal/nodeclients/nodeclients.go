// Package nodeclients runs the real client libraries of clients/ (npm packages, run by
// Node) for tests: graphql-ws, graphql-sse, and a REST client generated from the OpenAPI
// document. Without node and npm a test skips, except in CI (CI=true), where it fails.
package nodeclients

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once    sync.Once
	src     string // clients/
	modules string // its installed node_modules
	err     error
)

// Dir returns a directory of the test's own holding clients/'s scripts, beside a link to
// their installed npm packages: `npm ci` runs once per package-lock.json, into the user's
// cache directory, shared by the test binaries of all packages.
func Dir(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; CI must run the client libraries (apt-get install nodejs npm)", tool)
			}
			t.Skipf("%s is not installed: the real client libraries are not run (apt-get install nodejs npm)", tool)
		}
	}
	once.Do(func() {
		if src, err = sources(); err == nil {
			modules, err = install(src)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(src, "*.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(scripts, filepath.Join(src, "package.json")) {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sources finds clients/ from the working directory (a package's directory in tests).
func sources() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "clients"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
	}
}

// install returns the node_modules of src's lock file, running `npm ci` in a directory of
// its own first if no test binary did: the finished directory is renamed into place, so
// that test binaries installing at once never share a half-made one.
func install(src string) (string, error) {
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return "", err
	}
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(append(pkg, lock...))
	dir := filepath.Join(cache, "starkgraph-clients", hex.EncodeToString(sum[:8]))
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(modules); err == nil {
		return modules, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), "installing-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(work, name), b, 0o644); err != nil {
			return "", err
		}
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci (clients/package-lock.json): %v\n%s", err, out)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, statErr := os.Stat(modules); statErr == nil {
			return modules, nil // another test binary finished first
		}
		return "", err
	}
	return modules, nil
}
