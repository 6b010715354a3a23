package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
)

// runCommand runs this binary as starkgraph with args and env (DATABASE_URL and
// REDIS_URL unset unless env sets them) and returns its stderr and exit code; it fails
// the test if the command has not ended within 30 s.
func runCommand(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "REDIS_URL=") &&
			!strings.HasPrefix(kv, "DATABASE_READ_URL=") && !strings.HasPrefix(kv, "STARKGRAPH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, runMainEnv+"=1")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("starkgraph %s did not end within 30 s; stderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), code
}

// holdPort listens on a free local port until the test ends and returns its address.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// freePort is a local address nothing listens on (just now).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// `dev` with its admin port (or its API port) taken fails before it starts PostgreSQL,
// with one line that names the flag, the address and what to do.
func TestDevWithAPortTakenFailsBeforePostgreSQL(t *testing.T) {
	for _, flag := range []string{"--admin-addr", "--addr"} {
		t.Run(flag, func(t *testing.T) {
			dataDir := filepath.Join(dbtest.ClusterDir(t), "data") // one PostgreSQL could start in, as root too
			taken := holdPort(t)
			addr, admin := freePort(t), freePort(t)
			if flag == "--addr" {
				addr = taken
			} else {
				admin = taken
			}
			start := time.Now()
			stderr, code := runCommand(t, nil, "dev", "--addr", addr, "--admin-addr", admin, "--data-dir", dataDir)
			took := time.Since(start)
			if code != 1 {
				t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines, want 1:\n%s", len(lines), stderr)
			}
			for _, want := range []string{flag + " " + taken, "already in use", "choose another address with " + flag} {
				if !strings.Contains(lines[0], want) {
					t.Errorf("the error line does not say %q:\n%s", want, lines[0])
				}
			}
			if _, err := os.Stat(filepath.Join(dataDir, "pgdata")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("PostgreSQL was started (its data directory %s exists: %v)", filepath.Join(dataDir, "pgdata"), err)
			}
			t.Logf("failed in %v with: %s", took.Round(time.Millisecond), lines[0])
		})
	}
}

// Every command checks what it can before starting anything, and fails with one line
// that says what is wrong and how to fix it.
func TestCommandsFailEarlyWithOneLine(t *testing.T) {
	taken := holdPort(t)
	notANode := freePort(t) // nothing listens: connection refused
	// A file where the data directory's parent should be: not creatable, even by root.
	aFile := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	pgURL := "DATABASE_URL=postgres://nobody@127.0.0.1:1/none?sslmode=disable"
	cases := []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"serve without DATABASE_URL", nil, []string{"serve"}, []string{"DATABASE_URL is not set"}},
		{"serve with a bad DATABASE_URL", []string{"DATABASE_URL=mysql://x"}, []string{"serve"}, []string{"DATABASE_URL does not parse", "postgres://"}},
		{"serve with a bad REDIS_URL", []string{pgURL, "REDIS_URL=http://x"}, []string{"serve", "--addr", freePort(t), "--admin-addr="},
			[]string{"REDIS_URL does not parse", "redis://"}},
		{"serve with its port taken", []string{pgURL}, []string{"serve", "--addr", taken, "--admin-addr="},
			[]string{"--addr " + taken + ": the address is already in use"}},
		{"serve with stacks too large", []string{pgURL}, []string{"serve", "--goroutine-stack-kib", "100000"}, []string{"--goroutine-stack-kib 100000: give 0 (the runtime's choice) to 64"}},
		{"serve with a bad --limiter-fail", []string{pgURL}, []string{"serve", "--limiter-fail", "maybe"}, []string{"--limiter-fail \"maybe\": give local, open or closed"}},
		{"index with a URL that is not one", []string{pgURL}, []string{"index", "--rpc", "localhost:9545"}, []string{"--rpc \"localhost:9545\" is not an http(s) URL"}},
		{"dev with a data directory it cannot write", nil, []string{"dev", "--data-dir", filepath.Join(aFile, "data"), "--addr", freePort(t), "--admin-addr="},
			[]string{"--data-dir", "cannot create the directory", "choose a directory you can write"}},
		{"dev with a node that does not answer", nil, []string{"dev", "--rpc", "http://" + notANode, "--addr", freePort(t), "--admin-addr="},
			[]string{"the node does not answer"}},
		{"dev with a development key too short", nil, []string{"dev", "--dev-key", "sg_x", "--addr", freePort(t), "--admin-addr="},
			[]string{"--dev-key (or STARKGRAPH_DEV_KEY): an API key must be 8 to 256 characters long"}},
		{"sim with its port taken", nil, []string{"sim", "--addr", taken}, []string{"--addr " + taken + ": the address is already in use"}},
		{"replay of a missing directory", nil, []string{"replay", "/nonexistent/set", "--addr", freePort(t)}, []string{"no such directory"}},
		{"migrate with a bad DATABASE_URL", []string{"DATABASE_URL=localhost"}, []string{"migrate"}, []string{"DATABASE_URL is neither a postgres:// URL nor key=value pairs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stderr, code := runCommand(t, c.env, c.args...)
			if code != 1 {
				t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines, want 1:\n%s", len(lines), stderr)
			}
			line := strings.ReplaceAll(lines[0], `\"`, `"`) // slog quotes the error
			for _, want := range c.want {
				if !strings.Contains(line, want) {
					t.Errorf("the error line does not say %q:\n%s", want, lines[0])
				}
			}
		})
	}
}
