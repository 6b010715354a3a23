package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/starkgraph/starkgraph/db/dbtest"
)

// The production layout of docs/deploy.md, run as written by deploy/layout-test.sh on this
// machine with a fresh directory and free ports: PostgreSQL primary and streaming replica,
// Redis, one indexer, two API replicas behind nginx. The script puts load on it, stops an
// API replica and then the indexer, and checks that reads keep working, that keys and rate
// limits hold across replicas, that the indexer resumes where it stopped and that replica
// lag is reported.
func TestProductionLayout(t *testing.T) {
	// It takes a minute or two on a quiet machine, so it runs as a CI step of its own
	// (.ci/run), with its own timeout, rather than inside go test ./...
	if os.Getenv("STARKGRAPH_LAYOUT_TEST") != "1" {
		t.Skip("set STARKGRAPH_LAYOUT_TEST=1 to stand up the production layout of docs/deploy.md (.ci/run does)")
	}
	for _, tool := range []struct{ name, pkg string }{{"nginx", "nginx"}, {"redis-server", "redis-server"}, {"promtool", "prometheus"},
		{"curl", "curl"}, {"runuser", "util-linux"}} {
		needTool(t, tool.name, tool.pkg)
	}
	if _, err := exec.LookPath("initdb"); err != nil {
		if _, err := os.Stat("/usr/lib/postgresql"); err != nil {
			needTool(t, "initdb", "postgresql")
		}
	}
	env := append(os.Environ(), "SG="+dbtest.ClusterDir(t))
	for _, name := range []string{"PRIMARY_PORT", "REPLICA_PORT", "REDIS_PORT", "PUBLIC_PORT", "API1_PORT", "API2_PORT",
		"INDEX_ADMIN_PORT", "API1_ADMIN_PORT", "API2_ADMIN_PORT", "SIM_PORT"} {
		addr := freePort(t)
		env = append(env, name+"="+addr[strings.LastIndexByte(addr, ':')+1:])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "deploy/layout-test.sh")
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // its trap stops what it started
	cmd.WaitDelay = 30 * time.Second
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, testWriter{t})
	cmd.Stderr = cmd.Stdout
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("deploy/layout-test.sh: %v after %v", err, time.Since(start).Round(time.Second))
	}
	if !strings.Contains(out.String(), "PASS: the layout of docs/deploy.md works as written") {
		t.Fatal("deploy/layout-test.sh ended without its PASS line")
	}
	t.Logf("the layout of docs/deploy.md ran as written in %v", time.Since(start).Round(time.Second))
}

// testWriter logs each write to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
