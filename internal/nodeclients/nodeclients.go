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
	once sync.Once
	dir  string
	err  error
)

// Dir returns a directory holding clients/'s scripts beside their installed npm packages:
// `npm ci` runs once per package-lock.json, into the user's cache directory.
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
	once.Do(func() { dir, err = install() })
	if err != nil {
		t.Fatal(err)
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

func install() (string, error) {
	src, err := sources()
	if err != nil {
		return "", err
	}
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
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				return "", err
			}
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	scripts, err := filepath.Glob(filepath.Join(src, "*.mjs"))
	if err != nil {
		return "", err
	}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(s)), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
